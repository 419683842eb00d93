"""Small-matrix algebra on component-first arrays with the batch on the last axis.

A 3-vector is an array (3, n, B), a 3 × 3 matrix (3, 3, n, B), a spatial vector (6, n, B) and a
spatial inertia (6, 6, n, B): components first, then the nodes (or dofs) on the second-to-last
axis, then the members of the batch, B of them (or 1, broadcast), on the last, contiguous one.
Every product is written out entry by entry as element-wise operations on (n, B) planes, so XLA
fuses it into loops whose innermost runs over contiguous members: the spatial algebra of many
samples at once becomes vector code, not many tiny matrix products. (A `jnp.sum` over a
component axis compiles to a reduction that XLA:CPU does not vectorize over the batch:
measured 2-10x slower; see DESIGN.md, "Speed on a CPU".)
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np


def mm(A, B):
    """A B for (i, j, ...) and (j, k, ...) -> (i, k, ...)."""
    return jnp.stack([jnp.stack([sum(A[i, j] * B[j, k] for j in range(A.shape[1]))
                                 for k in range(B.shape[1])]) for i in range(A.shape[0])])


def mv(A, x):
    """A x for (i, j, ...) and (j, ...) -> (i, ...)."""
    return jnp.stack([sum(A[i, j] * x[j] for j in range(A.shape[1]))
                      for i in range(A.shape[0])])


def transpose(A):
    """(i, j, ...) -> (j, i, ...)."""
    return jnp.swapaxes(A, 0, 1)


def dot(a, b):
    """a · b for (m, ...) arrays -> (...)."""
    return sum(a[j] * b[j] for j in range(a.shape[0]))


def cross(a, b):
    """a × b for (3, ...) arrays."""
    return jnp.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]])


def skew(a):
    """[a]× (3, 3, ...) of a (3, ...), so that skew(a) x = a × x."""
    z = jnp.zeros_like(a[0])
    return jnp.stack([jnp.stack([z, -a[2], a[1]]), jnp.stack([a[2], z, -a[0]]),
                      jnp.stack([-a[1], a[0], z])])


def spatial(ang, lin):
    """[ang; lin]: two (3, ...) -> (6, ...)."""
    ang, lin = jnp.broadcast_arrays(ang, lin)
    return jnp.concatenate([ang, lin])


def motion_cross(a, b):
    """a × b of two (6, ...) motions: [w_a × w_b; w_a × v_b + v_a × w_b]."""
    return spatial(cross(a[:3], b[:3]), cross(a[:3], b[3:]) + cross(a[3:], b[:3]))


def force_cross(V, F):
    """V ×* F for (6, ...) motion V and force F: [w × n + v × f; w × f]."""
    w, v, n, f = V[:3], V[3:], F[:3], F[3:]
    return spatial(cross(w, n) + cross(v, f), cross(w, f))


def inertia_parts(M):
    """(Ī (3, 3, ...), k (3, ...), m (1, ...)) of spatial inertias about a point,
    M = [[Ī, [k]×], [[k]×ᵀ, m 1]] (6, 6, ...): 13 numbers instead of 36, and what sums of them
    (composite inertias) keep."""
    return M[:3, :3], jnp.stack([M[2, 4], M[0, 5], M[1, 3]]), M[3:4, 3]


def inertia_times(parts, x):
    """M x (6, ...) for M given by `inertia_parts` and motions x = [w; u] (6, ...):
    [Ī w + k × u; w × k + m u]."""
    I, k, m = parts
    w, u = x[:3], x[3:]
    return spatial(mv(I, w) + cross(k, u), cross(w, k) + m * u)


_MAX_RUNS = 4  # a static index list of more runs than this is one gather
_MAX_PIECES = 8  # a `gather_sum` of more pieces than this is padded gathers


def _runs(idx):
    """``idx`` as runs (first, length, step): step 1 counts up, step 0 repeats one index."""
    runs, i = [], 0
    while i < len(idx):
        n = 1
        step = int(idx[i + 1] - idx[i]) if i + 1 < len(idx) else 1
        step = step if step in (0, 1) else 1
        while i + n < len(idx) and idx[i + n] - idx[i + n - 1] == step:
            n += 1
        runs.append((int(idx[i]), n, step if n > 1 else 1))
        i += n
    return runs


def take(x, idx, axis=-2):
    """``x`` at the static indices ``idx`` along ``axis`` (default: the node axis): slices
    where they count up, broadcasts where they repeat, else one gather."""
    idx = np.asarray(idx, np.int64).reshape(-1)
    axis = axis % x.ndim
    runs = _runs(idx)
    if len(runs) > _MAX_RUNS:
        return jnp.take(x, idx, axis=axis)
    if not runs:
        return jax.lax.slice_in_dim(x, 0, 0, axis=axis)
    parts = [_run(x, r, axis) for r in runs]
    return parts[0] if len(parts) == 1 else jnp.concatenate(parts, axis)


def _run(x, run, axis):
    first, n, step = run
    if step:
        return jax.lax.slice_in_dim(x, first, first + n, axis=axis)
    one = jax.lax.slice_in_dim(x, first, first + 1, axis=axis)
    return jnp.repeat(one, n, axis=axis)


class _Piece(NamedTuple):
    """A stretch of `gather_sum`'s result: ``entries`` of x (one per member, the members
    single), ``zeros`` (that many empty members), or ``terms`` (one member: their sum)."""

    entries: tuple = ()
    zeros: int = 0
    terms: tuple = ()


def gather_sum(x, members, axis=-2):
    """Entry i of the result along ``axis`` is the sum of ``x``'s entries ``members[i]`` (a
    list of static index lists, possibly empty): slices, sums of slices and zeros where that
    takes few pieces, else padded gathers and a sum; never a scatter or a dense 0/1 product."""
    axis = axis % x.ndim
    pieces = _pieces(members)
    if sum(len(_runs(p.entries)) if p.entries else 1 for p in pieces) <= _MAX_PIECES:
        parts = []
        for p in pieces:
            if p.entries:
                parts.append(take(x, p.entries, axis))
            elif p.zeros:
                shape = list(x.shape)
                shape[axis] = p.zeros
                parts.append(jnp.zeros(shape, x.dtype))
            else:
                terms = [jax.lax.slice_in_dim(x, j, j + 1, axis=axis) for j in p.terms]
                parts.append(sum(terms[1:], terms[0]))
        if not parts:
            return take(x, [], axis)
        return parts[0] if len(parts) == 1 else jnp.concatenate(parts, axis)
    width = max(len(m) for m in members)
    idx = np.full((len(members), width), x.shape[axis], np.int64)  # a zero entry
    for i, m in enumerate(members):
        idx[i, :len(m)] = m
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, 1)
    xp = jnp.pad(x, pad)
    parts = [take(xp, idx[:, j], axis) for j in range(idx.shape[1])]
    return sum(parts[1:], parts[0])


def _pieces(members):
    """``members`` as the `_Piece` stretches of `gather_sum`."""
    pieces = []
    for m in members:
        m = tuple(int(j) for j in m)
        last = pieces[-1] if pieces else _Piece(terms=(0, 0))  # a piece nothing extends
        if not m and last.zeros:
            pieces[-1] = _Piece(zeros=last.zeros + 1)
        elif not m:
            pieces.append(_Piece(zeros=1))
        elif len(m) == 1 and last.entries:
            pieces[-1] = _Piece(entries=last.entries + m)
        elif len(m) == 1:
            pieces.append(_Piece(entries=m))
        else:
            pieces.append(_Piece(terms=m))
    return pieces
