"""Composite-rigid-body algorithm for the mass matrix M(q) [Featherstone 2008, Table 6.2].

About the world origin, composite inertias are plain subtree sums, and every entry is
    M[k, l] = S_lᵀ Ic_{b(k)} S_k      for b(l) ⪯ b(k)   (b(l) is b(k) or one of its ancestors),
M[l, k] by symmetry, and 0 where neither body supports the other. All pairs are computed at once
(one (nv × 6) @ (6 × nv) product) and masked by the static ancestor relation: no O(n²) loop.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import energy, rnea
from jaxbody.algorithms.dynamics_kinematics import subtree_sum
from jaxbody.algorithms.spatial import matvec


def mass_matrix(topo, dk, reflected_inertia=None):
    """M(q): (nv, nv), symmetric positive definite; plus diag(reflected rotor inertia) if given."""
    Ic = subtree_sum(topo, dk.M_O)  # (n, 6, 6)
    own = topo.dof_node
    F = matvec(Ic[own], dk.S_O)  # (nv, 6): Ic_{b(k)} S_k
    full = F @ dk.S_O.T  # full[k, l] = S_lᵀ Ic_{b(k)} S_k
    anc = topo.ancestor[own][:, own]  # anc[k, l]: b(l) ⪯ b(k)
    M = jnp.where(anc, full, jnp.where(anc.T, full.T, 0.0))
    if reflected_inertia is not None:
        M = M + jnp.where(np.eye(own.shape[0], dtype=bool), reflected_inertia[:, None], 0.0)
    return M


def mass_matrix_tree_blocks(topo, dk, dof_map, diagonal):
    """M(q) + diag(``diagonal``) as its diagonal blocks by kinematic tree: (T+1, d, d), block t
    over the dofs ``dof_map[t]`` ((T+1, d) NumPy rows padded with nv, `TreeJacobian.layout`),
    identity on pad entries. M has no other entries (trees never couple), and this costs
    O(T·d²), not O(nv²): the form SAP's free motion and Newton iterations use on a plant of
    several trees (the same numbers as `small_spd.gather_blocks` of `mass_matrix`)."""
    Ic = subtree_sum(topo, dk.M_O)
    F = matvec(Ic[topo.dof_node], dk.S_O)  # (nv, 6): Ic_{b(k)} S_k
    own = np.asarray(topo.dof_node)
    nv = own.shape[0]
    idx = np.asarray(dof_map)
    pad = idx == nv
    anc = np.pad(topo.ancestor[own][:, own], ((0, 1), (0, 1)))[idx[:, :, None], idx[:, None, :]]
    Fb = jnp.pad(F, ((0, 1), (0, 0)))[idx]  # (T+1, d, 6)
    Sb = jnp.pad(dk.S_O, ((0, 1), (0, 0)))[idx]
    full = sum(Fb[:, :, None, a] * Sb[:, None, :, a] for a in range(6))  # [t, i, j] = Fᵢ·Sⱼ
    blocks = jnp.where(anc, full, jnp.where(anc.transpose(0, 2, 1), full.transpose(0, 2, 1),
                                            0.0))
    eye = np.eye(idx.shape[1], dtype=bool)
    blocks = blocks + jnp.where(eye, jnp.pad(diagonal, (0, 1))[idx][:, :, None], 0.0)
    return jnp.where(pad[:, :, None] | pad[:, None, :], eye.astype(blocks.dtype), blocks)


def equations_rhs(topo, dk, tau, gravity_parameters, F_O=None):
    """k = τ + τ_g(q) − C(q, v) v − Σ Jᵀ F_app of M v̇ = k (F_O: (n, 6) applied wrenches about
    Wo, or None)."""
    return (tau + energy.gravity_generalized_forces(topo, dk, gravity_parameters)
            - rnea.inverse_dynamics(topo, dk, jnp.zeros_like(tau), F_O))


def forward_dynamics_system(topo, dk, tau, gravity_parameters, F_O=None, reflected_inertia=None):
    """(M, k) with M v̇ = k the equations of motion at the state of ``dk``: M(q) (plus reflected
    inertia) and k (`equations_rhs`). CRBA forward dynamics and SAP's free motion both solve
    with it."""
    return (mass_matrix(topo, dk, reflected_inertia),
            equations_rhs(topo, dk, tau, gravity_parameters, F_O))
