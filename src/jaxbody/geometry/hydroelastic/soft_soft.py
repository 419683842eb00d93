"""The contact surface of two compliant volume meshes M and N: in every pair of overlapping
tetrahedra, the plane where the two linear pressures are equal, cut by both tetrahedra, as
Drake's ``ComputeContactSurfaceFromCompliantVolumes``.

With p₀(x) = p₀(Mo) + ∇p₀·x in M's tetrahedron and p₁ likewise in N's (both in M's frame), the
equilibrium plane is n̂·x = (p₁(Mo) − p₀(Mo))/‖n‖, n = ∇p₀ − ∇p₁; n̂ points out of N into M.
A pair is kept only if n̂ is within 5π/8 of ∇p₀ and −n̂ within 5π/8 of ∇p₁ (Drake's filter).
M's tetrahedron is sliced by the plane (marching tetrahedra, counterclockwise about n̂), then
the polygon is clipped by N's tetrahedron's four face planes. Candidate tetrahedron pairs are
all T₀·T₁ pairs, or beyond ``max_pairs`` those with the closest bounding spheres (``overflow``
set when a dropped pair's spheres overlap).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.geometry.collision._util import safe_norm
from jaxbody.geometry.hydroelastic.polygons import (
    ContactPolygons,
    area_normal_centroid,
    clip_by_half_space,
    remove_duplicates,
)
from jaxbody.geometry.hydroelastic.polygons import (
    unit_rows as _unit,
)
from jaxbody.geometry.hydroelastic.soft_half_space import CUT_EDGES, TET_EDGES
from jaxbody.geometry.hydroelastic.soft_rigid_mesh import COS_MAX_ANGLE, TET_FACES

MAX_POLYGON_VERTICES = 8  # a tetrahedron slice (4) clipped by 4 planes


def _slice(tet, h):
    """The polygon of tetrahedron ``tet`` (4, 3) cut where the heights ``h`` (4,) are zero:
    (poly (8, 3), count)."""
    code = jnp.sum(jnp.where(h > 0, 1 << jnp.arange(4), 0))
    edges = jnp.asarray(CUT_EDGES)[code]
    count = jnp.sum(edges >= 0)
    edges = jnp.where(edges >= 0, edges, edges[2])
    edges = jnp.where(edges >= 0, edges, 0)
    ends = jnp.asarray(TET_EDGES)[edges]
    ha, hb = h[ends[:, 0]], h[ends[:, 1]]
    den = ha - hb
    t = ha / jnp.where(den != 0, den, 1.0)
    pts = tet[ends[:, 0]] + t[:, None] * (tet[ends[:, 1]] - tet[ends[:, 0]])
    pts = jnp.where((jnp.arange(4) < count)[:, None], pts, pts[jnp.maximum(count - 1, 0)])
    poly = jnp.concatenate([pts, jnp.broadcast_to(pts[3], (MAX_POLYGON_VERTICES - 4, 3))], 0)
    return poly, count.astype(jnp.int32)


def _pair_polygon(tet0, p0_o, g0, tet1, p1_o, g1):
    """One tetrahedron pair in M's frame: tet0, tet1 (4, 3); pressures p(x) = p_o + g·x.
    Returns (poly (8, 3), count, n̂ (3,), kept ())."""
    n = g0 - g1
    mag = safe_norm(n)
    ok = mag > 0
    n_hat = n / jnp.where(ok, mag, 1.0)
    c = (p1_o - p0_o) / jnp.where(ok, mag, 1.0)
    cos0 = jnp.dot(n_hat, g0) / jnp.where(safe_norm(g0) > 0, safe_norm(g0), 1.0)
    cos1 = jnp.dot(-n_hat, g1) / jnp.where(safe_norm(g1) > 0, safe_norm(g1), 1.0)
    kept = ok & (cos0 > COS_MAX_ANGLE) & (cos1 > COS_MAX_ANGLE)
    poly, count = _slice(tet0, tet0 @ n_hat - c)
    poly, count = remove_duplicates(poly, count)
    for face in TET_FACES:
        a, b, d = tet1[face[0]], tet1[face[1]], tet1[face[2]]
        poly, count = clip_by_half_space(poly, count, jnp.cross(b - a, d - a), a)
    poly, count = remove_duplicates(poly, count)
    return poly, count, n_hat, kept


def soft_soft_polygons(soft_m, soft_n, E_m, E_n, X_WM, X_WN, max_pairs):
    """The contact polygons of compliant meshes M and N (normals out of N into M).

    Args:
        soft_m, soft_n: (vertices, tetrahedra, extent, grad_e, tet_centers, tet_radii) NumPy.
        E_m, E_n: () the moduli (Pa). X_WM, X_WN: (R, p) poses in World.
        max_pairs: the candidate capacity (static).

    Returns:
        (`ContactPolygons` with min(T₀·T₁, max_pairs) slots, overflow ()).
    """
    V0, tets0, e0, ge0, c0, r0 = soft_m
    V1, tets1, e1, ge1, c1, r1 = soft_n
    R_WM, p_WM = X_WM
    R_WN, p_WN = X_WN
    dtype = p_WM.dtype
    R_MN = R_WM.T @ R_WN
    p_MN = R_WM.T @ (p_WN - p_WM)
    T0, T1 = tets0.shape[0], tets1.shape[0]
    i0 = np.repeat(np.arange(T0), T1)
    i1 = np.tile(np.arange(T1), T0)
    overflow = jnp.zeros((), bool)
    if T0 * T1 > max_pairs:
        cN = jnp.asarray(c1, dtype) @ R_MN.T + p_MN
        gap = (jnp.linalg.norm(jnp.asarray(c0, dtype)[:, None] - cN[None], axis=-1)
               - jnp.asarray(r0, dtype)[:, None] - jnp.asarray(r1, dtype)[None])
        neg, sel = jax.lax.top_k(-gap.reshape(-1), max_pairs + 1)
        overflow = -neg[-1] <= 0
        sel = sel[:max_pairs]
        i0, i1 = jnp.asarray(i0)[sel], jnp.asarray(i1)[sel]
    t0 = jnp.asarray(tets0)[i0]
    t1 = jnp.asarray(tets1)[i1]
    tet0 = jnp.asarray(V0, dtype)[t0]  # (m, 4, 3) in M
    tet1_N = jnp.asarray(V1, dtype)[t1]
    tet1 = tet1_N @ R_MN.T + p_MN
    g0 = E_m * jnp.asarray(ge0, dtype)[i0]  # ∇p₀ in M
    g1_N = E_n * jnp.asarray(ge1, dtype)[i1]
    g1 = g1_N @ R_MN.T
    p0_at_v0 = E_m * jnp.asarray(e0, dtype)[t0[:, 0]]
    p1_at_v0 = E_n * jnp.asarray(e1, dtype)[t1[:, 0]]
    p0_o = p0_at_v0 - jnp.sum(g0 * tet0[:, 0], -1)  # p₀ at Mo
    p1_o = p1_at_v0 - jnp.sum(g1 * tet1[:, 0], -1)
    poly, count, _, kept = jax.vmap(_pair_polygon)(tet0, p0_o, g0, tet1, p1_o, g1)
    area, normal, centroid = area_normal_centroid(poly)
    pressure = p0_at_v0 + jnp.sum(g0 * (centroid - tet0[:, 0]), -1)
    return ContactPolygons(
        area=area, centroid=centroid @ R_WM.T + p_WM, normal=_unit(normal @ R_WM.T),
        pressure=pressure, grad_M=g0 @ R_WM.T, grad_N=g1 @ R_WM.T,
        vertices=poly @ R_WM.T + p_WM, num_vertices=count,
        valid=kept & (count >= 3)), overflow
