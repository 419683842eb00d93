"""The contact surface of a compliant volume mesh S and a rigid half space R: every tetrahedron
sliced by R's boundary plane (marching tetrahedra), as Drake's
``ComputeContactSurfaceFromCompliantVolumeRigidHalfSpace``.

Each tetrahedron gives at most one polygon of 3 or 4 vertices, so the surface has exactly one
slot per tetrahedron (static shape). A vertex's sign is whether its height above the plane is
> 0; the 16 sign patterns pick the cut edges, ordered so that the polygon winds
counterclockwise about the plane normal (out of R into S). Vertex positions and extents are
linear interpolations along the cut edges, t = h_a/(h_a − h_b).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.geometry.hydroelastic.polygons import ContactPolygons, area_normal_centroid

GRADIENT_ROUND_OFF = 1e-12  # relative size of a gradient component treated as zero
# The six edges of a tetrahedron (local vertex pairs).
TET_EDGES = np.array([[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3]], np.int32)

def _cut_edge_table():
    """(16, 4) the cut edges of each sign pattern (bit i set: vertex i is above the plane),
    ordered counterclockwise about the plane normal (from the vertices below to those above);
    -1 pads a triangle. Derived on a positively oriented reference tetrahedron: the cyclic
    order is combinatorial (consecutive cut edges share a face), so it holds for every
    positively oriented tetrahedron."""
    ref = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    table = -np.ones((16, 4), np.int32)
    for code in range(1, 15):
        above = np.array([(code >> i) & 1 for i in range(4)], bool)
        cut = [k for k, (a, b) in enumerate(TET_EDGES) if above[a] != above[b]]
        mid = np.array([ref[TET_EDGES[k]].mean(0) for k in cut])
        n = ref[above].mean(0) - ref[~above].mean(0)
        c = mid.mean(0)
        u = mid[0] - c
        w = np.cross(n, u)
        angle = np.arctan2((mid - c) @ w, (mid - c) @ u) % (2 * np.pi)
        order = np.array(cut)[np.argsort(angle)]
        table[code, :len(cut)] = np.roll(order, -int(np.argmin(order)))
    return table


CUT_EDGES = _cut_edge_table()


def tetrahedron_gradients(vertices, tetrahedra, extent):
    """(T, 3) the gradient of the piecewise-linear extent field in each tetrahedron (NumPy,
    geometry frame): ∇e = Σᵢ eᵢ ∇bᵢ, with ∇bᵢ = n/(n·(vᵢ − a)) the gradient of vertex i's
    barycentric coordinate, n = (b − a) × (c − a) the normal of the opposite face (a, b, c the
    next vertices in cyclic order). Components below `GRADIENT_ROUND_OFF` times ‖∇e‖ are set to
    zero: they are round-off of a component that is exactly zero (a field constant along an
    axis), and such noise (~1e-16 relative, i.e. ~1e-9 Pa/m) would pass Drake's 1e-14 Pa/m
    threshold and turn contact polygons on which the pressure does not grow into quadrature
    points that Drake, whose gradient is exactly zero there, does not have."""
    v = vertices[tetrahedra]  # (T, 4, 3)
    e = extent[tetrahedra]
    grad = np.zeros((len(tetrahedra), 3))
    for i in range(4):
        V, A, B, C = (v[:, (i + k) % 4] for k in range(4))
        n = np.cross(B - A, C - A)
        vol = np.einsum("ij,ij->i", n, V - A)
        grad = grad + e[:, i:i + 1] * (n / vol[:, None])
    # components at round-off level relative to the gradient are zero in exact arithmetic
    scale = np.linalg.norm(grad, axis=1, keepdims=True)
    return np.where(np.abs(grad) <= GRADIENT_ROUND_OFF * scale, 0.0, grad)


def slice_tetrahedra(vertices, tetrahedra, extent, grad_e, n_S, p_S):
    """The polygons of a volume mesh cut by the plane {x : n·(x − p) = 0}, in the mesh frame.

    Args:
        vertices (V, 3), tetrahedra (T, 4), extent (V,), grad_e (T, 3): the static mesh.
        n_S: (3,) the plane's unit normal in the mesh frame (out of the half space);
        p_S: (3,) a point of the plane.

    Returns:
        (poly (T, 4, 3), count (T,), e_poly (T, 4) the extent at the polygon vertices).
    """
    dtype = n_S.dtype
    V = jnp.asarray(vertices, dtype)
    tets = jnp.asarray(tetrahedra)
    h = (V - p_S) @ n_S  # (V,)
    h_t = h[tets]  # (T, 4)
    code = jnp.sum(jnp.where(h_t > 0, 1 << jnp.arange(4), 0), -1)
    edges = jnp.asarray(CUT_EDGES)[code]  # (T, 4)
    count = jnp.sum(edges >= 0, -1)
    # pad a triangle with its last edge
    edges = jnp.where(edges >= 0, edges, edges[:, 2:3])
    edges = jnp.where(edges >= 0, edges, 0)
    ends = jnp.asarray(TET_EDGES)[edges]  # (T, 4, 2) local vertices
    ia = jnp.take_along_axis(tets, ends[..., 0], 1)
    ib = jnp.take_along_axis(tets, ends[..., 1], 1)
    ha, hb = h[ia], h[ib]
    den = ha - hb
    t = ha / jnp.where(den != 0, den, 1.0)
    poly = V[ia] + t[..., None] * (V[ib] - V[ia])
    e = jnp.asarray(extent, dtype)
    e_poly = e[ia] + t * (e[ib] - e[ia])
    return poly, count, e_poly


def soft_half_space_polygons(mesh_arrays, E, X_WS, X_WR):
    """The contact polygons of a compliant mesh S against a rigid half space R (R's z ≤ 0),
    oriented with M = S, N = R (normals out of R into S).

    Args:
        mesh_arrays: (vertices, tetrahedra, extent, grad_e) NumPy, in S's frame.
        E: () the hydroelastic modulus of S (Pa).
        X_WS, X_WR: (R (3, 3), p (3,)) poses in World.

    Returns:
        `ContactPolygons` with one slot per tetrahedron.
    """
    vertices, tetrahedra, extent, grad_e = mesh_arrays
    R_WS, p_WS = X_WS
    R_WR, p_WR = X_WR
    n_S = R_WS.T @ R_WR[:, 2]
    p_S = R_WS.T @ (p_WR - p_WS)
    poly_S, count, e_poly = slice_tetrahedra(vertices, tetrahedra, extent, grad_e, n_S, p_S)
    # As Drake: the polygons are measured in World (their normals then follow the plane,
    # while ∇p follows the body: a face on which ∇p is perpendicular to the plane normal in
    # the body has g = ∇p·n̂ of the body's tilt, not zero).
    poly_W = poly_S @ R_WS.T + p_WS
    area, normal, centroid = area_normal_centroid(poly_W)
    grad_W = E * jnp.asarray(grad_e, n_S.dtype) @ R_WS.T
    pressure = E * e_poly[:, 0] + jnp.sum(grad_W * (centroid - poly_W[:, 0]), -1)
    return ContactPolygons(
        area=area, centroid=centroid, normal=normal, pressure=pressure, grad_M=grad_W,
        grad_N=jnp.zeros_like(grad_W), vertices=poly_W, num_vertices=count.astype(jnp.int32),
        valid=count >= 3)
