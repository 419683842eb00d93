"""The contact surface of a compliant volume mesh S and a rigid triangle mesh R: every rigid
triangle clipped by every tetrahedron it meets, as Drake's
``ComputeContactSurfaceFromCompliantVolumeRigidSurface``.

Candidate (tetrahedron, triangle) pairs are all T·F pairs, or, beyond ``max_pairs``, the
``max_pairs`` whose bounding spheres are closest (``jax.lax.top_k``), with ``overflow`` set when
a dropped pair's spheres overlap (its polygon may be missing: raise the cap). A pair is kept
only if the triangle's normal is within 5π/8 of the pressure gradient of the tetrahedron
(Drake's filter against faces on the far side of the compliant body). The triangle is clipped
by the tetrahedron's four face planes (Sutherland-Hodgman, at most 7 vertices); the polygon
keeps the triangle's winding, so its normal points out of R into S.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.geometry.hydroelastic.element_pairs import clip_candidates, closest_pairs
from jaxbody.geometry.hydroelastic.polygons import (
    ContactPolygons,
    area_normal_centroid,
    clip_by_half_space,
    remove_duplicates,
)
from jaxbody.geometry.hydroelastic.polygons import (
    unit_rows as _unit,
)

# Drake's filter angle between a rigid face normal and the compliant pressure gradient.
COS_MAX_ANGLE = math.cos(5.0 * math.pi / 8.0)
MAX_POLYGON_VERTICES = 8  # a triangle clipped by 4 planes has at most 7
# Outward faces of a positively oriented tetrahedron (local vertices).
TET_FACES = np.array([[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]], np.int32)


def bounding_spheres(points):
    """(centers (n, 3), radii (n,)) of element vertex sets ``points`` (n, k, 3) (NumPy)."""
    c = points.mean(1)
    return c, np.linalg.norm(points - c[:, None], axis=-1).max(1)


def _clip_triangle(tri, tet):
    """The polygon of triangle ``tri`` (3, 3) inside tetrahedron ``tet`` (4, 3): (poly (8, 3),
    count)."""
    N = MAX_POLYGON_VERTICES
    poly = jnp.concatenate([tri, jnp.broadcast_to(tri[2], (N - 3, 3))], 0)
    count = jnp.asarray(3, jnp.int32)
    for face in TET_FACES:
        a, b, c = tet[face[0]], tet[face[1]], tet[face[2]]
        poly, count = clip_by_half_space(poly, count, jnp.cross(b - a, c - a), a)
    poly, count = remove_duplicates(poly, count)
    return poly, count


def _candidates(tet_v, tri_v):
    """(m,) whether each (tetrahedron (m, 4, 3), triangle (m, 3, 3)) pair can intersect: the
    tetrahedron straddles the triangle's plane and no face plane of the tetrahedron has the
    whole triangle outside. Conservative (a pair that fails has an empty polygon)."""
    n = jnp.cross(tri_v[:, 1] - tri_v[:, 0], tri_v[:, 2] - tri_v[:, 0])
    h = jnp.einsum("mij,mj->mi", tet_v - tri_v[:, None, 0], n)
    straddles = (jnp.min(h, 1) <= 0) & (jnp.max(h, 1) >= 0)
    outside = jnp.zeros(h.shape[0], bool)
    for face in TET_FACES:
        a, b, c = tet_v[:, face[0]], tet_v[:, face[1]], tet_v[:, face[2]]
        nf = jnp.cross(b - a, c - a)
        d = jnp.einsum("mij,mj->mi", tri_v - a[:, None], nf)
        outside = outside | jnp.all(d > 0, 1)
    return straddles & ~outside


def soft_rigid_mesh_polygons(soft, rigid, E, X_WS, X_WR, max_pairs, fast_pairs=None):
    """The contact polygons of a compliant mesh S against a rigid triangle mesh R, oriented with
    M = S, N = R.

    Args:
        soft: (vertices, tetrahedra, extent, grad_e, tet_centers, tet_radii) NumPy, in S.
        rigid: (vertices, triangles, tri_normals, tri_centers, tri_radii) NumPy, in R.
        E: () S's hydroelastic modulus (Pa). X_WS, X_WR: (R, p) poses in World.
        max_pairs: the candidate capacity m (static).
        fast_pairs: the exact fast path of `element_pairs.clip_candidates` with the
            intersection test `_candidates` (None: clip every pair).

    Returns:
        (`ContactPolygons` with min(T·F, m) slots, overflow ()).
    """
    V, tets, extent, grad_e, tet_c, tet_r = soft
    W, tris, tri_n, tri_c, tri_r = rigid
    R_WS, p_WS = X_WS
    R_WR, p_WR = X_WR
    dtype = p_WS.dtype
    R_SR = R_WS.T @ R_WR
    p_SR = R_WS.T @ (p_WR - p_WS)
    tet_idx, tri_idx, overflow = closest_pairs(
        tets.shape[0], tris.shape[0], jnp.asarray(tet_c, dtype), jnp.asarray(tet_r, dtype),
        jnp.asarray(tri_c, dtype) @ R_SR.T + p_SR, jnp.asarray(tri_r, dtype), max_pairs)
    Vd = jnp.asarray(V, dtype)
    tri_S = jnp.asarray(W, dtype)[jnp.asarray(tris)] @ R_SR.T + p_SR  # (F, 3, 3)
    n_S = jnp.asarray(tri_n, dtype) @ R_SR.T
    g_norm = np.linalg.norm(grad_e, axis=1)
    g_hat = jnp.asarray(grad_e / np.where(g_norm > 0, g_norm, 1.0)[:, None], dtype)
    g_S, e_first = jnp.asarray(grad_e, dtype), jnp.asarray(extent, dtype)[tets[:, 0]]

    def clip(ti, fi):
        return _polygons(Vd[jnp.asarray(tets)[ti]], tri_S[fi], n_S[fi], g_S[ti], g_hat[ti],
                         e_first[ti], E, R_WS, p_WS)

    def candidate():
        return _candidates(Vd[jnp.asarray(tets)[tet_idx]], tri_S[tri_idx])

    return clip_candidates(clip, tet_idx, tri_idx, candidate, fast_pairs), overflow


def _polygons(tet_v, tri_v, n_tri, g_S, g_hat, e0, E, R_WS, p_WS):
    """`ContactPolygons` (World) of triangles ``tri_v`` (m, 3, 3) clipped by tetrahedra
    ``tet_v`` (m, 4, 3), both in S, with the tetrahedra's extent gradients ``g_S`` (unit:
    ``g_hat``) and extents ``e0`` at their first vertex."""
    facing = jnp.sum(g_hat * n_tri, -1) > COS_MAX_ANGLE
    poly_S, count = jax.vmap(_clip_triangle)(tri_v, tet_v)
    area, normal_S, centroid_S = area_normal_centroid(poly_S)
    e_c = e0 + jnp.sum(g_S * (centroid_S - tet_v[:, 0]), -1)
    grad_W = E * g_S @ R_WS.T
    return ContactPolygons(
        area=area, centroid=centroid_S @ R_WS.T + p_WS, normal=_unit(normal_S @ R_WS.T),
        pressure=E * e_c, grad_M=grad_W, grad_N=jnp.zeros_like(grad_W),
        vertices=poly_S @ R_WS.T + p_WS, num_vertices=count,
        valid=facing & (count >= 3))
