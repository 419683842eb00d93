"""Recursive Newton-Euler inverse dynamics [Featherstone 2008, Table 5.1; Luh et al. 1980].

About the world origin (see `spatial.py`), with the bias accelerations of
`dynamics_kinematics`:
    A_b = Ab_b + Σ_{j ⪯ b} S_j v̇_j                               (base to tip)
    F_b = M_b A_b + V_b ×* M_b V_b − Fapp_b                      (per body)
    τ_k = S_kᵀ Σ_{c ⪰ b(k)} F_c − τapp_k                         (tip to base)
The two tree sums are vectorized over the static ancestor matrix (no loop over bodies).
Gravity is not included, as in Drake's ``CalcInverseDynamics``: add it to the applied forces.
"""

from __future__ import annotations

from jaxbody.algorithms.dynamics_kinematics import path_sum, per_node, subtree_sum
from jaxbody.algorithms.spatial import force_cross, matvec


def body_forces_for_vdot(topo, dk, vdot, Fapp_O=None):
    """Net spatial force F_b (n, 6) about Wo each body needs for v̇, minus applied wrenches."""
    A = dk.Ab_O + path_sum(topo, per_node(topo, dk.S_O * vdot[:, None]))
    h = matvec(dk.M_O, dk.V_O)
    F = matvec(dk.M_O, A) + force_cross(dk.V_O, h)
    if Fapp_O is not None:
        F = F - Fapp_O
    return F.at[0].set(0.0)


def project_to_joints(topo, dk, F):
    """τ_k = S_kᵀ (subtree sum of F at the node owning dof k)."""
    Fsub = subtree_sum(topo, F)
    return (dk.S_O * Fsub[topo.dof_node]).sum(-1)


def inverse_dynamics(topo, dk, vdot, Fapp_O=None, tau_app=None):
    """τ = M(q) v̇ + C(q, v) v − τapp − Σ Jᵀ Fapp. Shapes: vdot (nv,), Fapp_O (n, 6)."""
    tau = project_to_joints(topo, dk, body_forces_for_vdot(topo, dk, vdot, Fapp_O))
    return tau if tau_app is None else tau - tau_app
