"""Two convex polytopes (mesh hulls, `Convex`) by GJK and EPA: Drake's one point per pair with
O(V_A + V_B) work per iteration (`gjk`, `epa`), for hulls too large for the separating-axis
test of `polytope_pairs`.

GJK decides overlap and, for separated hulls, gives the nearest points; EPA gives the
penetration depth and direction of overlapping ones. Both loops return vertex indices only
(integers, no gradient); the returned values are recomputed here from those vertices at the
poses, so their derivatives are those of the solution with its supporting features held fixed
(the implicit function at the solution), exact away from feature changes and finite at them:

- overlapping (EPA face with corners w_k = a_k − b_k, k = 0..2, a_k on A and b_k on B): n = the
  face's unit normal out of A − B, depth = n·w_0, the origin's projection depth·n = Σ λ_k w_k;
  φ = −depth, p_WCa = Σ λ_k a_k (A's point deepest in B), p_WCb = Σ λ_k b_k, n̂_BA = −n.
- separated (GJK simplex): v = Σ λ_k (a_k − b_k) the nearest point of A − B, φ = ‖v‖,
  p_WCa = Σ λ_k a_k, p_WCb = Σ λ_k b_k, n̂_BA = v/‖v‖.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.geometry.collision import epa as epa_
from jaxbody.geometry.collision import gjk as gjk_
from jaxbody.geometry.collision._util import ContactPoints, safe_normalize, to_world


class HullPairFeatures(NamedTuple):
    """What supports the answer and what it cost: ``corners_a``, ``corners_b`` the distinct
    vertices of A and of B among EPA's face corners (1 and 3: a vertex of A on a face of B;
    2 and 2: two edges; 0 and 0 when apart); GJK iterations, EPA expansions, and whether EPA
    converged (True for separated pairs, which need none)."""

    corners_a: jax.Array
    corners_b: jax.Array
    gjk_iterations: jax.Array
    epa_iterations: jax.Array
    converged: jax.Array


def _distinct(i):
    return 1 + (i[1] != i[0]) + ((i[2] != i[0]) & (i[2] != i[1]))


def _barycentric(w0, w1, w2, p):
    """λ (3,) with Σ λ_k w_k the projection of p on the plane of the triangle."""
    e1, e2, r = w1 - w0, w2 - w0, p - w0
    g11, g12, g22 = e1 @ e1, e1 @ e2, e2 @ e2
    det = g11 * g22 - g12 * g12
    ok = det > 1e-30
    inv = jnp.where(ok, 1.0 / jnp.where(ok, det, 1.0), 0.0)
    s = (g22 * (r @ e1) - g12 * (r @ e2)) * inv
    t = (g11 * (r @ e2) - g12 * (r @ e1)) * inv
    return jnp.stack([1 - s - t, s, t])


class HullPairSolution(NamedTuple):
    """The integer solution of GJK and EPA for one pair (no gradient flows through it): the
    GJK simplex ``gjk_ia``, ``gjk_ib`` (4,) with its live slots ``gjk_mask``; ``overlap``;
    the EPA face ``epa_ia``, ``epa_ib`` (3,) (meaningful where ``overlap``); the iteration
    counts and EPA's convergence."""

    gjk_ia: jax.Array
    gjk_ib: jax.Array
    gjk_mask: jax.Array
    overlap: jax.Array
    epa_ia: jax.Array
    epa_ib: jax.Array
    gjk_iterations: jax.Array
    epa_iterations: jax.Array
    epa_converged: jax.Array


def solve_hull_pair(sA, mA, sB, mB, active=True, overlap_only=False) -> HullPairSolution:
    """GJK, then EPA where the hulls overlap, on world vertices ``sA`` (VA, 3), ``sB`` (VB, 3)
    (masked by ``mA``, ``mB``; constants: pass them through ``stop_gradient``); ``active``
    False runs neither loop (the answer is then meaningless); ``overlap_only``: GJK stops at a
    separating plane (`gjk.gjk`), so the answer holds only where ``overlap``."""
    g = run_gjk(sA, mA, sB, mB, active, overlap_only)
    return solution(g, run_epa(g, sA, mA, sB, mB))


def run_gjk(sA, mA, sB, mB, active=True, overlap_only=False) -> gjk_.GjkResult:
    """`solve_hull_pair`'s GJK, started along the difference of the hulls' vertex means."""
    cA = jnp.sum(jnp.where(mA[:, None], sA, 0.0), 0) / jnp.maximum(jnp.sum(mA), 1)
    cB = jnp.sum(jnp.where(mB[:, None], sB, 0.0), 0) / jnp.maximum(jnp.sum(mB), 1)
    d0 = jnp.where(jnp.sum((cA - cB) ** 2) > 0, cA - cB, jnp.asarray([1.0, 0.0, 0.0], sA.dtype))
    return gjk_.gjk(sA, mA, sB, mB, d0, active=active, overlap_only=overlap_only)


def run_epa(g: gjk_.GjkResult, sA, mA, sB, mB) -> epa_.EpaResult:
    """`solve_hull_pair`'s EPA from GJK's simplex (no expansion unless ``g.overlap``)."""
    W = sA[g.ia] - sB[g.ib]
    W, ia, ib = epa_.complete_tetrahedron(W, g.ia, g.ib, g.mask, sA, mA, sB, mB)
    return epa_.epa(W, ia, ib, sA, mA, sB, mB, skip=~g.overlap)


def solution(g: gjk_.GjkResult, e: epa_.EpaResult) -> HullPairSolution:
    """The `HullPairSolution` of GJK's and EPA's results."""
    return HullPairSolution(g.ia, g.ib, g.mask, g.overlap, e.ia, e.ib, g.iterations,
                            e.iterations, e.converged)


def hull_pair_points(gA, X_WA, gB, X_WB, sol: HullPairSolution) -> ContactPoints:
    """The `ContactPoints` (K = 1, valid) of a solved pair, recomputed at the poses X_WA, X_WB
    from the supporting vertices only (``gA`` (VA, 3), ``gB`` (VB, 3) in the geometry
    frames), so that gradients are those of the implicit solution (module docstring)."""
    return solution_points(
        to_world(X_WA, gA[sol.gjk_ia]), to_world(X_WB, gB[sol.gjk_ib]), sol.gjk_mask,
        to_world(X_WA, gA[sol.epa_ia]), to_world(X_WB, gB[sol.epa_ib]), sol.overlap)


def solution_points(a4, b4, mask, a, b, overlap) -> ContactPoints:
    """`hull_pair_points` from the supporting vertices in World: the GJK simplex's ``a4``,
    ``b4`` (4, 3) on A and B with its live slots ``mask``, and the EPA face's ``a``, ``b``
    (3, 3), the latter used where ``overlap``."""
    # penetrating: the EPA face
    w = a - b
    n, _ = safe_normalize(jnp.cross(w[1] - w[0], w[2] - w[0]), (0.0, 0.0, 1.0))
    n = jnp.where(n @ w[0] < 0, -n, n)
    depth = n @ w[0]
    lam = _barycentric(w[0], w[1], w[2], depth * n)
    pen = (-depth, lam @ a, lam @ b, -n)
    # separated: the GJK simplex
    v, lam4 = gjk_.nearest_in_simplex(a4 - b4, mask)
    nhat, dist = safe_normalize(v, (0.0, 0.0, 1.0))
    sep = (dist, lam4 @ a4, lam4 @ b4, nhat)
    phi, pa, pb, nhat = (jnp.where(overlap, x, y) for x, y in zip(pen, sep))
    return ContactPoints(phi[None], pa[None], pb[None], nhat[None], jnp.asarray([True]))


def hull_pair(params_a, X_WA, params_b, X_WB, with_features=False):
    """One `ContactPoints` (K = 1, valid) of polytopes A and B (``vertices`` (V, 3) in their
    geometry frames, ``vertex_mask``) at poses X_WA, X_WB = (R, p); with ``with_features``
    also the `HullPairFeatures`."""
    gA, mA = params_a["vertices"], params_a["vertex_mask"]
    gB, mB = params_b["vertices"], params_b["vertex_mask"]
    sA = jax.lax.stop_gradient(to_world(X_WA, gA))
    sB = jax.lax.stop_gradient(to_world(X_WB, gB))
    sol = solve_hull_pair(sA, mA, sB, mB)
    points = hull_pair_points(gA, X_WA, gB, X_WB, sol)
    if not with_features:
        return points
    zero = jnp.zeros((), jnp.int32)
    return points, HullPairFeatures(
        jnp.where(sol.overlap, _distinct(sol.epa_ia), zero),
        jnp.where(sol.overlap, _distinct(sol.epa_ib), zero),
        sol.gjk_iterations, jnp.where(sol.overlap, sol.epa_iterations, zero),
        ~sol.overlap | sol.epa_converged)
