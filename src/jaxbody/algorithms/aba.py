"""Articulated-body algorithm for forward dynamics [Featherstone 2008, Table 7.1].

Runs over the dof tree (`jaxbody/plant/dof_tree.py`: every joint a chain of single-dof nodes),
about the world origin (see `spatial.py`), with gravity as the world's acceleration
A_0 = [0; −g]. For a node with subspace column s, bias c, and articulated inertia IA, pA:

    tip to base, per level:   U = IA s,  D = sᵀ U + reflected,  u = τ − sᵀ pA
                              Ia = IA − U Uᵀ / D,   pa = pA + Ia c + U u / D
                              IA_parent += Ia,      pA_parent += pa
    base to tip, per level:   a = A_parent + c,   v̇ = (u − Uᵀ a) / D,   A = a + s v̇

initialized with IA = Σ M_b and pA = Σ (V_b ×* M_b V_b − Fapp_b) over the bodies hanging from
the node. Arrays are component-first — (6, k, ...) vectors and (6, 6, k, ...) inertias with the
nodes of a level on the third axis and any batch after it — so that every product is an
element-wise operation over contiguous memory (several times faster on a CPU than batched 6 × 6
matrix products). `articulated_body_passes` is that core; it serves the per-sample path below
(no batch axis) and the batch-minor kernels of `batch_minor/` (the batch last).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.batch_minor.algebra import gather_sum
from jaxbody.algorithms.spatial import force_cross, matvec


def _mv(M, x):
    """(6, 6, k, ...) · (6, k, ...) -> (6, k, ...). With a batch axis, written out entry by
    entry (XLA:CPU does not vectorize a `jnp.sum` over a component axis: measured 2-10x slower
    batched); without one, a single reduction (fewer ops: faster to compile, e.g. in scans)."""
    if M.ndim == 3:
        return jnp.sum(M * x[None], axis=1)
    return jnp.stack([sum(M[i, j] * x[j] for j in range(6)) for i in range(6)])


def _dot6(s, x):
    """Σ_i s_i x_i over the component axis of two (6, ...) arrays (see `_mv`)."""
    if s.ndim == 2:
        return jnp.sum(s * x, 0)
    return sum(s[i] * x[i] for i in range(6))


def _level_slices(tree):
    """(start, stop) of each level within the level order ``tree.order``."""
    stops = np.cumsum([len(lv.dofs) for lv in tree.levels])
    return [(int(b - len(lv.dofs)), int(b)) for lv, b in zip(tree.levels, stops)]


def _sum_into_parents(x, level, k_parent, axis):
    """Σ of the children's columns (node axis ``axis``) into their parents': a pass-through
    where every node of the level is its parent's only child, else a padded gather-sum."""
    pp = level.parent_pos
    if len(pp) == k_parent and np.array_equal(pp, np.arange(k_parent)):
        return x
    children = [np.flatnonzero(pp == p) for p in range(k_parent)]
    width = max(len(c) for c in children)
    idx = np.full((k_parent, width), len(pp), np.int64)  # len(pp): a zero column
    for p, c in enumerate(children):
        idx[p, :len(c)] = c
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, 1)
    xp = jnp.pad(x, pad)
    return jnp.sum(jnp.take(xp, idx, axis=axis), axis=axis + 1)


def articulated_body_passes(tree, M, pA, c, S, tau, refl, A_world, level_ordered=False):
    """v̇ (nv, ...) from the node inputs, in dof order with any batch axes last:
    M (6, 6, nv, ...), pA, c, S (6, nv, ...), tau (nv, ...), refl (nv, ...) (or broadcastable),
    A_world (6, 1, ...) the world's acceleration [0; −g]. With ``level_ordered`` the inputs
    and v̇ are in the level order ``tree.order`` instead."""
    order = tree.order
    refl = jnp.broadcast_to(refl, tau.shape)
    if not level_ordered:
        M, pA, c, S = M[:, :, order], pA[:, order], c[:, order], S[:, order]
        tau, refl = tau[order], refl[order]
    slices = _level_slices(tree)
    # ---- tip to base ------------------------------------------------------------------------
    saved = [None] * len(tree.levels)
    IA_up = pA_up = None
    for lv in reversed(range(len(tree.levels))):
        a, b = slices[lv]
        IA, pAl = M[:, :, a:b], pA[:, a:b]
        if IA_up is not None:
            IA, pAl = IA + IA_up, pAl + pA_up
        s, cl = S[:, a:b], c[:, a:b]
        U = _mv(IA, s)
        D = _dot6(s, U) + refl[a:b]
        u = tau[a:b] - _dot6(s, pAl)
        Dinv = 1.0 / D
        UD = U * Dinv
        Ia = IA - U[:, None] * UD[None, :]
        pa = pAl + _mv(Ia, cl) + UD * u
        saved[lv] = (s, cl, U, Dinv, u)
        if lv > 0:
            k_parent = slices[lv - 1][1] - slices[lv - 1][0]
            IA_up = _sum_into_parents(Ia, tree.levels[lv], k_parent, 2)
            pA_up = _sum_into_parents(pa, tree.levels[lv], k_parent, 1)
    # ---- base to tip ------------------------------------------------------------------------
    A_prev, out = None, []
    for lv, level in enumerate(tree.levels):
        s, cl, U, Dinv, u = saved[lv]
        if A_prev is None:
            a = A_world + cl
        elif A_prev.shape[1] == len(level.parent_pos) and np.array_equal(
                level.parent_pos, np.arange(A_prev.shape[1])):
            a = A_prev + cl
        else:
            a = jnp.take(A_prev, level.parent_pos, axis=1) + cl
        vd = (u - _dot6(U, a)) * Dinv
        A_prev = a + s * vd
        out.append(vd)
    if not out:
        return jnp.zeros((0,) + tau.shape[1:], tau.dtype)
    vdot = jnp.concatenate(out)
    return vdot if level_ordered else vdot[np.argsort(order)]


def _members(mat):
    """Per column of a static 0/1 (n, nv) matrix: its rows that hold a 1."""
    return [list(np.flatnonzero(col)) for col in np.asarray(mat).T > 0]


def forward_dynamics(topo, dk, tau, gravity, Fapp_O=None, reflected_inertia=None):
    """v̇ (nv,) for generalized forces ``tau`` (nv,), gravity (3,), applied wrenches (n, 6)."""
    tree = topo.dof_tree
    dtype = dk.V_O.dtype
    # ---- node inputs: component-first, one column per dof ---------------------------------
    pA_b = force_cross(dk.V_O, matvec(dk.M_O, dk.V_O))
    if Fapp_O is not None:
        pA_b = pA_b - Fapp_O
    hanging = _members(tree.attach)  # per dof: the nodes hanging from it
    M = jnp.moveaxis(gather_sum(dk.M_O, hanging, axis=0), 0, -1)  # (6, 6, nv)
    pA = gather_sum(pA_b, hanging, axis=0).T  # (6, nv)
    c = gather_sum(dk.c_O, _members(tree.first), axis=0).T  # (6, nv)
    refl = jnp.zeros_like(tau) if reflected_inertia is None else reflected_inertia
    A_world = jnp.concatenate([jnp.zeros(3, dtype), -gravity.astype(dtype)])[:, None]
    return articulated_body_passes(tree, M, pA, c, dk.S_O.T, tau, refl, A_world)
