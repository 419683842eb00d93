"""Inverse dynamics (RNEA) and the mass matrix (CRBA) of a batch, with the batch last.

The math of `rnea.py` and `crba.py` about the world origin, on the level-ordered, batch-minor
arrays of `kinematics.py`:
    A_b = A_parent + c_b + Σ_{k ∈ b} S_k v̇_k          (base to tip; A_world = 0)
    F_b = M_b A_b + V_b ×* M_b V_b − Fapp_b,   τ_k = S_kᵀ Σ_{c ⪰ b(k)} F_c   (tip to base)
    Ic_b = Σ_{c ⪰ b} M_c,   M[k, l] = S_lᵀ Ic_{b(k)} S_k   for b(l) ⪯ b(k)
Subtree sums run over the levels tip to base, each parent gathering its children's sums
(`algebra.gather_sum`): no scatter, no dense 0/1 products.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.batch_minor.algebra import (
    dot,
    force_cross,
    gather_sum,
    inertia_parts,
    inertia_times,
    take,
)
from jaxbody.algorithms.batch_minor.kinematics import (
    applied_about_origin,
    dof_ordered,
    dynamics_kinematics,
    level_order,
)


def _children(lo, level):
    """For each node of level ``level - 1`` (or the world for level 0), its children's
    indices within level ``level``."""
    pos = lo.parent_pos[level]
    width = (lo.slices[level - 1][1] - lo.slices[level - 1][0]) if level else 1
    return [list(np.flatnonzero(pos == p)) for p in range(width)]


def path_sum(lo, x):
    """Σ over each node's path to the world (itself and its ancestors) of (..., n, B) rows."""
    out = [x[..., :1, :]]
    for (a, b), pos in zip(lo.slices, lo.parent_pos):
        out.append(take(out[-1], pos) + x[..., a:b, :])
    return jnp.concatenate(out, -2)


def subtree_sum(lo, x):
    """Σ over each node's subtree (itself and its descendants) of (..., n, B) rows."""
    levels = len(lo.slices)
    out = [None] * levels
    below = None
    for lv in reversed(range(levels)):
        a, b = lo.slices[lv]
        out[lv] = x[..., a:b, :] if below is None else x[..., a:b, :] + below
        below = gather_sum(out[lv], _children(lo, lv))
    world = x[..., :1, :] if below is None else x[..., :1, :] + below
    return jnp.concatenate([world] + out, -2)


def inverse_dynamics(topo, q, v, vdot, mass, com, unit_inertia, frame_R, frame_p,
                     F_Bo_W=None):
    """τ (nv, B) = M v̇ + C v − Σ Jᵀ Fapp (no gravity, as `rnea.inverse_dynamics`)."""
    lo = level_order(topo)
    bk = dynamics_kinematics(topo, q, v, mass, com, unit_inertia, frame_R, frame_p)
    a_own = gather_sum(bk.S_L * take(vdot, lo.dofs, 0), lo.node_dofs_L)  # Σ_{k ∈ b} S_k v̇_k
    A = path_sum(lo, bk.c_O + a_own)
    M = inertia_parts(bk.M_O)
    F = inertia_times(M, A) + force_cross(bk.V_O, inertia_times(M, bk.V_O))
    if F_Bo_W is not None:
        F = F - applied_about_origin(topo, lo, bk, F_Bo_W)
    F = jnp.concatenate([jnp.zeros_like(F[:, :1]), F[:, 1:]], -2)  # the world's
    return dof_ordered(lo, dot(bk.S_L, take(subtree_sum(lo, F), lo.dof_node_L)), 0)


def mass_matrix(topo, q, mass, com, unit_inertia, frame_R, frame_p):
    """M(q) (nv, nv, B) without reflected inertia."""
    v0 = jnp.zeros((topo.nv, q.shape[-1]), q.dtype)
    return mass_matrix_of(topo, dynamics_kinematics(topo, q, v0, mass, com, unit_inertia,
                                                    frame_R, frame_p))


def mass_matrix_of(topo, bk):
    """`mass_matrix` from the batch's kinematics ``bk`` (its velocities are not read)."""
    lo = level_order(topo)
    nv, B, dtype = topo.nv, bk.S_L.shape[-1], bk.S_L.dtype
    Ic = [take(subtree_sum(lo, x), lo.dof_node_L) for x in inertia_parts(bk.M_O)]
    F = inertia_times(Ic, bk.S_L)  # Ic_{b(k)} S_k, (6, nv, B), dofs in level order
    anc = topo.ancestor[topo.dof_node][:, topo.dof_node]  # anc[k, l]: b(l) ⪯ b(k)
    ks, ls = np.nonzero(anc)
    at = np.argsort(lo.dofs)  # dof -> level-order position
    pairs = dot(take(F, at[ks]), take(bk.S_L, at[ls]))  # (npairs, B)
    index = np.full((nv, nv), len(ks), np.int64)  # len(ks): zero
    index[ks, ls] = np.arange(len(ks))
    index[ls, ks] = np.arange(len(ks))
    padded = jnp.concatenate([pairs, jnp.zeros((1, B), dtype)], 0)
    return take(padded, index.reshape(-1), 0).reshape(nv, nv, B)
