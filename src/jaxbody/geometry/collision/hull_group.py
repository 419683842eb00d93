"""A group of convex-hull pairs that take GJK/EPA (`hull_pair`), with Drake's one point per
pair: only the pairs whose bounding volumes touch reach the narrow phase, a few at a time, and
only the penetrating ones report a point.

Drake's ``ComputePointPairPenetration`` reports penetrating pairs only, and its broad phase
(FCL's bounding-volume tree) hands the narrow phase only the pairs whose bounding volumes
overlap. Here every pair of the group gets the query's lower bound on its distance
(`pair_bounds.bound_distance`: bounding spheres and oriented boxes), the pairs are sorted by it, and
those with a bound <= 0 ("near") are solved in chunks of `CHUNK` members by one vmapped GJK, in
a ``while_loop`` that runs ceil(near / CHUNK) times: not at all when nothing touches.

- GJK stops at the first separating plane it finds (`gjk.gjk`'s ``overlap_only``); EPA (and
  the supports that complete its first tetrahedron) runs only when a member of the chunk
  overlaps (``lax.cond``).
- A separated pair (a positive bound, or a separating plane: φ > 0, no contact in Drake's
  model) has an invalid slot.
- The loop's answer is integers (the supporting vertices, `hull_pair.HullPairSolution`). The
  points are recomputed from those vertices at the poses, for all slots at once and outside
  the loop, so gradients flow as in `hull_pair` and ``jax.grad`` never meets the loop's dynamic
  trip count.

The cost is that of the touching pairs, not of the candidates: in the panda's self-collision
scene (92 hull pairs) 0-8 bounding boxes touch at a time. Under ``jax.vmap`` the loop runs to
the batch's largest chunk count, each chunk for every member.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.geometry.collision._util import ContactPoints, to_world
from jaxbody.geometry.collision.hull_pair import (
    HullPairSolution,
    run_epa,
    run_gjk,
    solution,
    solution_points,
)
from jaxbody.geometry.collision.pair_bounds import bound_distance

# Members per chunk of the GJK/EPA loop: the lanes that run in lock step.
CHUNK = 8


def near_pair_points(params_a, X_a, params_b, X_b, order, num_near, chunk=CHUNK
                     ) -> ContactPoints:
    """`ContactPoints` (m, 1) of the pairs ``order`` (m,) of a group (its ``params_a``,
    ``params_b`` with ``vertices``, ``vertex_mask`` (n, V, ...); poses ``X_a``, ``X_b`` (n, ...)),
    sorted by their distance bound; the first ``num_near`` (traced) are solved, and the slots of
    the pairs that do not overlap are invalid."""
    m = order.shape[0]
    chunks = -(-m // chunk)
    padded = jnp.concatenate([order, jnp.zeros(chunks * chunk - m, order.dtype)])
    gA, mA = jnp.asarray(params_a["vertices"]), jnp.asarray(params_a["vertex_mask"])
    gB, mB = jnp.asarray(params_b["vertices"]), jnp.asarray(params_b["vertex_mask"])
    Xa = jax.tree_util.tree_map(jax.lax.stop_gradient, X_a)
    Xb = jax.tree_util.tree_map(jax.lax.stop_gradient, X_b)
    gjk = jax.vmap(functools.partial(run_gjk, overlap_only=True))
    epa = jax.vmap(run_epa)

    def solve(sA, mA, sB, mB, active):  # EPA (and its first supports) only if a pair overlaps
        g = gjk(sA, mA, sB, mB, active)
        e = jax.lax.cond(jnp.any(g.overlap), lambda: epa(g, sA, mA, sB, mB),
                         lambda: jax.tree_util.tree_map(jnp.zeros_like,
                                                        jax.eval_shape(epa, g, sA, mA, sB, mB)))
        return solution(g, e)

    def body(state):
        k, sol = state
        start = k * chunk
        lanes = jax.lax.dynamic_slice(padded, (start,), (chunk,))
        active = start + jnp.arange(chunk) < num_near
        sA = jax.vmap(to_world)((Xa[0][lanes], Xa[1][lanes]), gA[lanes])
        sB = jax.vmap(to_world)((Xb[0][lanes], Xb[1][lanes]), gB[lanes])
        part = solve(sA, mA[lanes], sB, mB[lanes], active)
        sol = jax.tree_util.tree_map(
            lambda whole, x: jax.lax.dynamic_update_slice_in_dim(whole, x, start, 0), sol, part)
        return k + 1, sol

    per_chunk = lambda x: jax.ShapeDtypeStruct((chunk,) + x.shape[1:], x.dtype)  # noqa: E731
    template = jax.eval_shape(solve, per_chunk(gA), per_chunk(mA), per_chunk(gB), per_chunk(mB),
                              jnp.ones(chunk, bool))
    empty = jax.tree_util.tree_map(
        lambda s: jnp.zeros((chunks * chunk,) + s.shape[1:], s.dtype), template)
    _, sol = jax.lax.while_loop(lambda s: s[0] * chunk < num_near, body,
                                (jnp.zeros((), jnp.int32), empty))
    sol = HullPairSolution(*(x[:m] for x in sol))
    world = jax.vmap(to_world)  # the supporting vertices only, at the poses
    Xa_, Xb_ = (X_a[0][order], X_a[1][order]), (X_b[0][order], X_b[1][order])
    at = lambda g, i: g[order[:, None], i]  # noqa: E731
    points = jax.vmap(solution_points)(
        world(Xa_, at(gA, sol.gjk_ia)), world(Xb_, at(gB, sol.gjk_ib)), sol.gjk_mask,
        world(Xa_, at(gA, sol.epa_ia)), world(Xb_, at(gB, sol.epa_ib)), sol.overlap)
    return points._replace(valid=((jnp.arange(m) < num_near) & sol.overlap)[:, None])


class NearGroup(NamedTuple):
    """One group's share of `near_groups_points`: ``points`` (m, 1) in the group's slot order,
    ``select`` (m,) the group's pair of each slot, ``overflow`` whether the group's cap
    dropped a pair whose bounds touch."""

    points: ContactPoints
    select: jax.Array
    overflow: jax.Array


def near_groups_points(groups, R_WG, p_WG) -> list[NearGroup]:
    """`near_pair_points` for several GJK/EPA groups of a query (`query.PairGroup`) at once, in
    one chunked loop: their vertex tables are padded to common sizes (masked) and their kept
    pairs sorted together by bound, so that one compiled GJK/EPA serves them all. Each group
    keeps its cap (``evaluated``, the closest pairs by bound) and its overflow flag; a group
    without a cap keeps its pairs in their own slots."""
    kept, bounds, overflows = [], [], []
    offsets = np.cumsum([0] + [len(g.pair) for g in groups])
    for g in groups:
        X_a, X_b = (R_WG[g.ga], p_WG[g.ga]), (R_WG[g.gb], p_WG[g.gb])
        n, m = len(g.pair), g.evaluated
        neg_d, order = jax.lax.top_k(-jax.lax.stop_gradient(bound_distance(g, X_a, X_b)),
                                     min(n, m + 1))
        overflows.append(-neg_d[m] <= 0.0 if g.culled else jnp.zeros((), bool))
        kept.append(order[:m])
        bounds.append(-neg_d[:m])
    table = lambda side, key: _padded([getattr(g, side)[key] for g in groups])  # noqa: E731
    params_a = {"vertices": table("params_a", "vertices"),
                "vertex_mask": table("params_a", "vertex_mask")}
    params_b = {"vertices": table("params_b", "vertices"),
                "vertex_mask": table("params_b", "vertex_mask")}
    X_a = (R_WG[np.concatenate([g.ga for g in groups])],
           p_WG[np.concatenate([g.ga for g in groups])])
    X_b = (R_WG[np.concatenate([g.gb for g in groups])],
           p_WG[np.concatenate([g.gb for g in groups])])
    bound = jnp.concatenate(bounds)
    perm = jnp.argsort(bound, stable=True)
    order = jnp.concatenate([k + int(o) for k, o in zip(kept, offsets)])[perm]
    points = near_pair_points(params_a, X_a, params_b, X_b, order, jnp.sum(bound <= 0.0))
    points = jax.tree_util.tree_map(lambda x: x[jnp.argsort(perm)], points)
    out, start = [], 0
    for g, k, over in zip(groups, kept, overflows):
        m = g.evaluated
        pts = jax.tree_util.tree_map(lambda x, s=start, m=m: x[s:s + m], points)
        start += m
        if g.culled:
            out.append(NearGroup(pts, k, over))
        else:  # slot i holds pair i
            pts = jax.tree_util.tree_map(lambda x, k=k: x[jnp.argsort(k)], pts)
            out.append(NearGroup(pts, jnp.arange(m), over))
    return out


def _padded(tables):
    """The (n_g, V_g, ...) tables of several groups as one (Σ n_g, max V_g, ...) table, padded
    with zeros (False for masks) at the end of each row."""
    V = max(t.shape[1] for t in tables)
    return jnp.asarray(np.concatenate([
        np.pad(np.asarray(t), [(0, 0), (0, V - t.shape[1])] + [(0, 0)] * (np.ndim(t) - 2))
        for t in tables]))

