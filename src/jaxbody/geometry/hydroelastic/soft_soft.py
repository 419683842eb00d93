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

from jaxbody.geometry.collision._util import safe_norm
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


def soft_soft_polygons(soft_m, soft_n, E_m, E_n, X_WM, X_WN, max_pairs, fast_pairs=None):
    """The contact polygons of compliant meshes M and N (normals out of N into M).

    Args:
        soft_m, soft_n: (vertices, tetrahedra, extent, grad_e, tet_centers, tet_radii) NumPy.
        E_m, E_n: () the moduli (Pa). X_WM, X_WN: (R, p) poses in World.
        max_pairs: the candidate capacity (static).
        fast_pairs: the exact fast path of `element_pairs.clip_candidates`, with the test that
            the two tetrahedra's bounding boxes (in M) overlap (None: clip every pair).

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
    i0, i1, overflow = closest_pairs(
        tets0.shape[0], tets1.shape[0], jnp.asarray(c0, dtype), jnp.asarray(r0, dtype),
        jnp.asarray(c1, dtype) @ R_MN.T + p_MN, jnp.asarray(r1, dtype), max_pairs)
    tv0 = jnp.asarray(V0, dtype)[jnp.asarray(tets0)]  # (T0, 4, 3) in M
    tv1 = jnp.asarray(V1, dtype)[jnp.asarray(tets1)] @ R_MN.T + p_MN  # (T1, 4, 3) in M
    g0_all = E_m * jnp.asarray(ge0, dtype)  # ∇p₀ in M
    g1_all = E_n * jnp.asarray(ge1, dtype) @ R_MN.T
    p0_first = E_m * jnp.asarray(e0, dtype)[tets0[:, 0]]
    p1_first = E_n * jnp.asarray(e1, dtype)[tets1[:, 0]]

    def clip(j0, j1):
        tet0, tet1, g0, g1 = tv0[j0], tv1[j1], g0_all[j0], g1_all[j1]
        p0_o = p0_first[j0] - jnp.sum(g0 * tet0[:, 0], -1)  # p₀ at Mo
        p1_o = p1_first[j1] - jnp.sum(g1 * tet1[:, 0], -1)
        poly, count, _, kept = jax.vmap(_pair_polygon)(tet0, p0_o, g0, tet1, p1_o, g1)
        area, normal, centroid = area_normal_centroid(poly)
        pressure = p0_first[j0] + jnp.sum(g0 * (centroid - tet0[:, 0]), -1)
        return ContactPolygons(
            area=area, centroid=centroid @ R_WM.T + p_WM, normal=_unit(normal @ R_WM.T),
            pressure=pressure, grad_M=g0 @ R_WM.T, grad_N=g1 @ R_WM.T,
            vertices=poly @ R_WM.T + p_WM, num_vertices=count, valid=kept & (count >= 3))

    def candidate():  # the tetrahedra's bounding boxes (in M) overlap
        lo0, hi0 = jnp.min(tv0, 1)[i0], jnp.max(tv0, 1)[i0]
        lo1, hi1 = jnp.min(tv1, 1)[i1], jnp.max(tv1, 1)[i1]
        return jnp.all((lo0 <= hi1) & (lo1 <= hi0), -1)

    return clip_candidates(clip, i0, i1, candidate, fast_pairs), overflow
