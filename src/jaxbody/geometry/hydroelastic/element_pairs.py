"""Candidate element pairs of a mesh-mesh contact surface (tetrahedron-triangle or
tetrahedron-tetrahedron) with static shapes, and the exact fast path that clips only the pairs
that can intersect.

    i0, i1, overflow = closest_pairs(n0, n1, c0, r0, c1, r1, max_pairs)
    polys = clip_candidates(clip, i0, i1, candidate, fast_pairs)

`closest_pairs` gives all n0·n1 pairs, or, beyond ``max_pairs``, the ``max_pairs`` whose
bounding spheres are closest (``jax.lax.top_k``; ``overflow`` is True when a dropped pair's
spheres overlap: its polygon may be missing). `clip_candidates` clips the ``fast_pairs`` pairs
that pass a conservative intersection test when, over the whole ``vmap`` batch, no more pass
(`math.batching.batch_all`, so a batch runs one branch), and every pair otherwise: the same polygons
either way, in as many slots as pairs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.math.batching import batch_all


def closest_pairs(n0, n1, c0, r0, c1, r1, max_pairs):
    """(i0, i1, overflow): element indices of the candidate pairs. ``c0`` (n0, 3), ``r0`` (n0,):
    bounding spheres of the first mesh's elements; ``c1``, ``r1`` of the second's, in the same
    frame (jax arrays)."""
    i0 = jnp.asarray(np.repeat(np.arange(n0), n1))
    i1 = jnp.asarray(np.tile(np.arange(n1), n0))
    if n0 * n1 <= max_pairs:
        return i0, i1, jnp.zeros((), bool)
    gap = jnp.linalg.norm(c0[:, None] - c1[None], axis=-1) - r0[:, None] - r1[None]
    neg, sel = jax.lax.top_k(-gap.reshape(-1), max_pairs + 1)
    overflow = -neg[-1] <= 0  # the first dropped pair's spheres overlap
    sel = sel[:max_pairs]
    return i0[sel], i1[sel], overflow


def clip_candidates(clip, i0, i1, candidate, fast_pairs):
    """``clip(i0, i1)`` (a `ContactPolygons` per pair) over all pairs, or over the
    ``fast_pairs`` that pass ``candidate`` (m,) bool (then padded with invalid slots) when that
    is enough for the whole batch. ``candidate``: a callable giving it, evaluated only when
    ``fast_pairs`` is smaller than the number of pairs."""
    m = i0.shape[0]
    if fast_pairs is None or fast_pairs >= m:
        return clip(i0, i1)
    cand = candidate()
    pick = jax.lax.top_k(cand.astype(jnp.int32), fast_pairs)[1]

    def compact():  # the picked pairs, then invalid slots (copies of the first)
        p = clip(i0[pick], i1[pick])
        rest = jnp.zeros(m - fast_pairs, jnp.int32)
        p = jax.tree.map(lambda x: jnp.concatenate([x, x[rest]]), p)
        return p._replace(valid=p.valid.at[fast_pairs:].set(False))

    fits = batch_all(jnp.sum(cand) <= fast_pairs)
    return jax.lax.cond(fits, compact, lambda: clip(i0, i1))
