"""GJK: the distance between two convex polytopes, or the proof that they overlap, from their
support points [Gilbert, Johnson, Keerthi, IEEE J. Robotics and Automation, 1988; van den Bergen,
"Collision Detection in Interactive 3D Environments", 2003, §4.3].

The Minkowski difference M = A − B has the support point s_M(d) = s_A(d) − s_B(−d), so each
iteration costs one pass over A's and B's vertices: O(V_A + V_B). A simplex of at most four
support points (kept in four slots with a mask, with the vertex indices on A and on B that made
each) approaches the point of M nearest the origin:

    v ← the point of conv(simplex) nearest the origin (`nearest_in_simplex`), the simplex ←
    the points that carry it; w ← s_M(−v); stop when ‖v‖² − v·w ≤ ε ‖v‖² (v is M's nearest
    point: the distance is ‖v‖) or when v = 0 (the origin is in M: the bodies overlap).

`nearest_in_simplex` enumerates the simplex's 15 faces (4 vertices, 6 edges, 4 triangles and
the tetrahedron), projects the origin on each face's affine hull, keeps the projections that
fall inside their face (positive barycentric coordinates), and takes the nearest: a brute force
over a fixed set that is branch-free under `jax.vmap` and robust at degenerate simplices.

The loop returns indices only (`GjkResult`); values that gradients flow through are recomputed
from them by the caller at the poses (see `hull_pair`).
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.geometry.collision._util import BIG, first_max, first_min

MAX_ITERATIONS = 64
REL_TOLERANCE = 1e-12  # ‖v‖² − v·w ≤ this · ‖v‖²: converged
OVERLAP_SQ = 1e-24  # ‖v‖² below this (m²): the origin is in M

_EDGES = tuple(itertools.combinations(range(4), 2))
_TRIANGLES = tuple(itertools.combinations(range(4), 3))


class GjkResult(NamedTuple):
    """The last simplex: ``ia``, ``ib`` (4,) vertex indices on A and B, ``mask`` (4,) its live
    slots; ``overlap``: the origin is in A − B; ``iterations``: support evaluations used."""

    ia: jax.Array
    ib: jax.Array
    mask: jax.Array
    overlap: jax.Array
    iterations: jax.Array


def support(vA, mA, vB, mB, d):
    """(w, ia, ib): the support point of A − B along ``d`` (3,) and the vertex indices of A
    (max along d) and of B (min along d) that make it; ``vA`` (VA, 3), ``vB`` (VB, 3) in one
    frame, masked by ``mA``, ``mB``. The first index wins a tie, as ``argmax``'s."""
    ia = first_max(jnp.where(mA, _along(vA, d), -BIG))
    ib = first_max(jnp.where(mB, -_along(vB, d), -BIG))
    return vA[ia] - vB[ib], ia, ib


def _along(v, d):
    # elementwise, not a dot: XLA:CPU fuses it with the masking and the reduction
    return v[..., 0] * d[0] + v[..., 1] * d[1] + v[..., 2] * d[2]


def nearest_in_simplex(W, mask):
    """(v, lam): the point of conv(W[mask]) nearest the origin and its barycentric
    coordinates (4,) over the slots (zero off the carrying face); ``W`` (4, 3)."""
    dt = W.dtype
    eye = jnp.eye(4, dtype=dt)
    # vertices
    c0, l0, ok0 = W, eye, mask
    # edges (i, j): W_i + t (W_j − W_i)
    i, j = (jnp.asarray(x) for x in zip(*_EDGES))
    e = W[j] - W[i]
    ee = jnp.sum(e * e, -1)
    ok = mask[i] & mask[j] & (ee > 0)
    t = jnp.where(ok, -jnp.sum(W[i] * e, -1) / jnp.where(ok, ee, 1.0), 0.0)
    c1 = W[i] + t[:, None] * e
    l1 = (1 - t)[:, None] * eye[i] + t[:, None] * eye[j]
    ok1 = ok & (t > 0) & (t < 1)
    # triangles (i, j, k): W_i + s (W_j − W_i) + u (W_k − W_i), from the 2×2 normal equations
    i, j, k = (jnp.asarray(x) for x in zip(*_TRIANGLES))
    e1, e2 = W[j] - W[i], W[k] - W[i]
    g11, g12, g22 = (jnp.sum(x * y, -1) for x, y in ((e1, e1), (e1, e2), (e2, e2)))
    r1, r2 = -jnp.sum(W[i] * e1, -1), -jnp.sum(W[i] * e2, -1)
    det = g11 * g22 - g12 * g12
    ok = mask[i] & mask[j] & mask[k] & (det > 1e-14 * g11 * g22)
    inv = jnp.where(ok, 1.0 / jnp.where(ok, det, 1.0), 0.0)
    s_, u = (g22 * r1 - g12 * r2) * inv, (g11 * r2 - g12 * r1) * inv
    c2 = W[i] + s_[:, None] * e1 + u[:, None] * e2
    l2 = (1 - s_ - u)[:, None] * eye[i] + s_[:, None] * eye[j] + u[:, None] * eye[k]
    ok2 = ok & (s_ > 0) & (u > 0) & (s_ + u < 1)
    # the tetrahedron: the origin's barycentric coordinates by signed volumes (Cramer)
    a, b, c, d = W
    vol = lambda p, q, r, s: jnp.dot(jnp.cross(q - p, r - p), s - p)  # noqa: E731
    z = jnp.zeros(3, dt)
    total = vol(a, b, c, d)
    parts = jnp.stack([vol(z, b, c, d), vol(a, z, c, d), vol(a, b, z, d), vol(a, b, c, z)])
    scale = jnp.prod(jnp.sqrt(jnp.sum((W[1:] - W[0]) ** 2, -1)))
    ok = jnp.all(mask) & (jnp.abs(total) > 1e-14 * scale) & (scale > 0)
    l3 = jnp.where(ok, parts / jnp.where(ok, total, 1.0), 0.0)
    ok3 = ok & jnp.all(l3 > 0)
    C = jnp.concatenate([c0, c1, c2, z[None]])
    L = jnp.concatenate([l0, l1, l2, l3[None]])
    OK = jnp.concatenate([ok0, ok1, ok2, ok3[None]])
    best = first_min(jnp.where(OK, jnp.sum(C * C, -1), BIG))
    return C[best], L[best]


def gjk(vA, mA, vB, mB, d0, max_iterations=MAX_ITERATIONS, active=True,
        overlap_only=False) -> GjkResult:
    """GJK on polytopes A and B (vertices in one frame, see `support`), starting along ``d0``
    (e.g. the difference of their centres); ``active`` False: no iteration (under ``vmap``,
    an inactive member does not hold the loop); ``overlap_only``: stop as soon as a
    separating plane is found (v·w > 0: all of A − B lies beyond the plane normal to v through
    w), when only penetration matters: the simplex then does not give the distance."""
    vA, vB = jnp.asarray(vA), jnp.asarray(vB)
    w0, ia0, ib0 = support(vA, mA, vB, mB, d0)
    z = jnp.zeros(4, jnp.int32)
    W0 = jnp.zeros((4, 3), vA.dtype).at[0].set(w0)
    state = (W0, z.at[0].set(ia0), z.at[0].set(ib0), jnp.arange(4) == 0, w0,
             ~jnp.asarray(active), jnp.asarray(False), jnp.asarray(1, jnp.int32))

    def cond(s):
        return ~s[5] & (s[7] < max_iterations)

    def body(s):
        W, ia, ib, mask, v, _, _, it = s
        w, a, b = support(vA, mA, vB, mB, -v)
        vv = v @ v
        converged = vv - v @ w <= REL_TOLERANCE * vv
        if overlap_only:
            converged = converged | (v @ w > 0)
        slot = first_min(mask)  # a free slot: at most three are live here
        W2 = W.at[slot].set(w)
        ia2, ib2, mask2 = ia.at[slot].set(a), ib.at[slot].set(b), mask.at[slot].set(True)
        v2, lam = nearest_in_simplex(W2, mask2)
        live = mask2 & (lam > 0)
        overlap = v2 @ v2 < OVERLAP_SQ
        keep = lambda new, old: jnp.where(converged, old, new)  # noqa: E731
        return (keep(W2, W), keep(ia2, ia), keep(ib2, ib), keep(live, mask), keep(v2, v),
                converged | overlap, ~converged & overlap, it + 1)

    W, ia, ib, mask, v, _, overlap, it = jax.lax.while_loop(cond, body, state)
    return GjkResult(ia, ib, mask, overlap, it)
