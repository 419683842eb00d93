"""EPA: the penetration depth and direction of two overlapping convex polytopes [van den Bergen,
"Proximity Queries and Penetration Depth Computation on 3D Game Objects", GDC 2001; 2003, §4.3.8].

The origin lies inside M = A − B. Starting from a tetrahedron of support points that holds it
(GJK's last simplex, completed where it is flat), EPA grows a polytope inside M: take the
polytope's face nearest the origin, with outward normal n at distance d; w ← s_M(n); if
n·w − d ≤ tolerance the face lies on M's boundary and d is the penetration depth along n;
otherwise add w: remove the faces w sees and close the hole with one face per horizon edge.

Fixed-size buffers (`MAX_ITERATIONS` + 4 vertices, twice as many face slots) keep it jit- and
vmap-friendly: each iteration costs one support pass O(V_A + V_B) plus O(faces) gathers and
scatters: each face keeps the face across each of its edges, so the horizon (an edge of a seen
face whose neighbour is unseen) is one gather, and the new faces' neighbours are known from the
horizon's order (the new face across b -> w is the one whose horizon edge starts at b).
The loop returns the nearest face's vertex indices on A and B (`EpaResult`); the depth,
normal and witness points are recomputed from them at the poses (see `hull_pair`), so gradients
follow the implicit solution, not the loop.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.geometry.collision._util import BIG, first_max, first_min
from jaxbody.geometry.collision.gjk import support

MAX_ITERATIONS = 48
TOLERANCE = 1e-10  # m: n·w − d below this ends the expansion
_SEES = 1e-12  # m: a face sees w when n·(w − a) exceeds this
_DIRECTIONS = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


class EpaResult(NamedTuple):
    """``ia``, ``ib`` (3,): vertex indices on A and B of the nearest face's corners;
    ``converged``; ``iterations``: expansions used."""

    ia: jax.Array
    ib: jax.Array
    converged: jax.Array
    iterations: jax.Array


def _face(P, a, b, c):
    """(unit normal, distance to the origin) of the face (a, b, c) (counter-clockwise seen
    from outside), distance BIG for a degenerate face."""
    n = jnp.cross(P[b] - P[a], P[c] - P[a])
    nn = jnp.sum(n * n, -1)
    ok = nn > 1e-30
    n = n / jnp.sqrt(jnp.where(ok, nn, 1.0))[..., None]
    return n, jnp.where(ok, jnp.sum(n * P[a], -1), BIG)


def _running_count(mask):
    return jax.lax.associative_scan(jnp.add, mask.astype(jnp.int32))


def complete_tetrahedron(W, ia, ib, mask, vA, mA, vB, mB):
    """Fills the free slots of a simplex whose convex hull holds the origin (at most 4 live)
    with support points off its affine hull, so that it spans a tetrahedron; returns the four
    slots (W, ia, ib) packed (live ones first)."""
    order = jnp.argsort(~mask, stable=True)
    W, ia, ib, mask = W[order], ia[order], ib[order], mask[order]
    for k in range(1, 4):  # slot k, filled when dead
        if k == 1:
            d = jnp.asarray(_DIRECTIONS[0], W.dtype)
        elif k == 2:  # off the line W0 W1
            e = W[1] - W[0]
            cands = jnp.cross(e, jnp.eye(3, dtype=W.dtype))
            d = cands[jnp.argmax(jnp.sum(cands * cands, -1))]
        else:  # off the plane W0 W1 W2
            d = jnp.cross(W[1] - W[0], W[2] - W[0])
        w, a, b = support(vA, mA, vB, mB, d)
        w2, a2, b2 = support(vA, mA, vB, mB, -d)
        far = jnp.abs(d @ (w - W[0])) >= jnp.abs(d @ (w2 - W[0]))
        w, a, b = jnp.where(far, w, w2), jnp.where(far, a, a2), jnp.where(far, b, b2)
        dead = ~mask[k]
        W = W.at[k].set(jnp.where(dead, w, W[k]))
        ia, ib = ia.at[k].set(jnp.where(dead, a, ia[k])), ib.at[k].set(jnp.where(dead, b, ib[k]))
    return W, ia, ib


def epa(W, ia, ib, vA, mA, vB, mB, skip=False, max_iterations=MAX_ITERATIONS) -> EpaResult:
    """EPA from the tetrahedron (W, ia, ib) (4 slots) that holds the origin; ``skip``: run no
    expansion (the pair is separated)."""
    nv, nf = max_iterations + 4, 2 * (max_iterations + 4)
    P = jnp.zeros((nv, 3), W.dtype).at[:4].set(W)
    IA = jnp.zeros(nv, jnp.int32).at[:4].set(ia)
    IB = jnp.zeros(nv, jnp.int32).at[:4].set(ib)
    # the tetrahedron's faces, each turned so that the fourth vertex lies behind it
    tet = jnp.asarray([[0, 1, 2, 3], [0, 3, 1, 2], [0, 2, 3, 1], [1, 3, 2, 0]], jnp.int32)
    n, _ = _face(P, tet[:, 0], tet[:, 1], tet[:, 2])
    behind = jnp.sum(n * (P[tet[:, 3]] - P[tet[:, 0]]), -1) <= 0
    F0 = jnp.where(behind[:, None], tet[:, :3], tet[:, [0, 2, 1]])
    # adjacency: the face across each directed edge a -> b is the one holding b -> a
    a0, b0 = F0.reshape(-1), jnp.roll(F0, -1, axis=1).reshape(-1)
    across = jnp.argmax((a0[None, :] == b0[:, None]) & (b0[None, :] == a0[:, None]), 1) // 3
    F = jnp.zeros((nf, 3), jnp.int32).at[:4].set(F0)
    A = jnp.zeros((nf, 3), jnp.int32).at[:4].set(across.reshape(4, 3).astype(jnp.int32))
    live = jnp.arange(nf) < 4
    fn, fd = _face(P, F[:, 0], F[:, 1], F[:, 2])
    fd = jnp.where(live, fd, BIG)

    def cond(s):
        return ~s[-2] & (s[-1] < max_iterations)

    def body(s):
        P, IA, IB, F, A, live, fn, fd, _, it = s
        f = first_min(fd)
        w, a, b = support(vA, mA, vB, mB, fn[f])
        done = fn[f] @ w - fd[f] <= TOLERANCE
        k = it + 4
        P2, IA2, IB2 = P.at[k].set(w), IA.at[k].set(a), IB.at[k].set(b)
        sees = live & (fn @ w - fd > _SEES)  # n·(w − a) = n·w − d
        sees = sees.at[f].set(True)
        horizon = (sees[:, None] & ~sees[A]).reshape(-1)  # (3 nf,) edges (face, e)
        ea, eb = F.reshape(-1), jnp.roll(F, -1, axis=1).reshape(-1)
        other = A.reshape(-1)  # the unseen face across each horizon edge
        live2 = live & ~sees
        # the r-th horizon edge takes the r-th free slot (ranks by a log-depth scan: XLA:CPU's
        # cumsum and nonzero are several times slower under vmap)
        rank = _running_count(horizon) - 1
        free = ~live2
        slot_of_rank = jnp.full(horizon.shape, nf, jnp.int32).at[
            jnp.where(free, _running_count(free) - 1, horizon.shape[0])].set(
            jnp.arange(nf, dtype=jnp.int32), mode="drop")
        slot = jnp.where(horizon, slot_of_rank[jnp.maximum(rank, 0)], nf)
        # a new face (a, b, k) per horizon edge a -> b; across b -> k lies the new face of the
        # horizon edge that starts at b, across k -> a the one that ends at a
        starts = jnp.full(nv, nf, jnp.int32).at[jnp.where(horizon, ea, nv)].set(slot, mode="drop")
        ends = jnp.full(nv, nf, jnp.int32).at[jnp.where(horizon, eb, nv)].set(slot, mode="drop")
        new = jnp.stack([ea, eb, jnp.full(ea.shape, k, jnp.int32)], -1)
        new_adj = jnp.stack([other, starts[eb], ends[ea]], -1)
        # the unseen face's edge b -> a now borders the new face
        e_back = first_max(F[other] == eb[:, None])
        A2 = A.at[jnp.where(horizon, other, nf), e_back].set(slot, mode="drop")
        A2 = A2.at[slot].set(new_adj, mode="drop")
        F2 = F.at[slot].set(new, mode="drop")
        live2 = live2.at[slot].set(True, mode="drop")
        fn2, fd2 = _face(P2, F2[:, 0], F2[:, 1], F2[:, 2])  # every slot: fewer than the edges
        fd2 = jnp.where(live2, fd2, BIG)
        keep = lambda x, y: jnp.where(done, y, x)  # noqa: E731
        return (keep(P2, P), keep(IA2, IA), keep(IB2, IB), keep(F2, F), keep(A2, A),
                keep(live2, live), keep(fn2, fn), keep(fd2, fd), done, it + 1)

    state = (P, IA, IB, F, A, live, fn, fd, jnp.asarray(skip), jnp.asarray(0, jnp.int32))
    P, IA, IB, F, A, live, fn, fd, done, it = jax.lax.while_loop(cond, body, state)
    f = F[first_min(fd)]
    return EpaResult(IA[f], IB[f], done, it)
