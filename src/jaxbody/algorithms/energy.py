"""Energies, power and the gravity generalized forces.

    KE  = ½ Σ_b V_bᵀ M_b V_b                      (about Wo; equals ½ vᵀ M(q) v)
    U   = −Σ_b m_b g · p_WBcm                     (uniform gravity field g)
    Pc  = −dU/dt = Σ_b m_b g · v_WBcm             (conservative power)
    τ_g = Σ_b J_v_WBcmᵀ m_b g                     (on the right-hand side: M v̇ + C v = τ_g + ...)
The gravity forces use the same tip-to-base projection as inverse dynamics.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.algorithms.dynamics_kinematics import body_parameters_by_node
from jaxbody.algorithms.rnea import project_to_joints
from jaxbody.algorithms.spatial import matvec


def _com_world(topo, pk, params):
    mass, com, _ = body_parameters_by_node(topo, params)
    r = jnp.einsum("nij,nj->ni", pk.R_WB, com)  # p_BoBcm_W
    return mass.at[0].set(0.0), pk.p_WB + r, r


def kinetic_energy(dk):
    return 0.5 * jnp.sum(dk.V_O * matvec(dk.M_O, dk.V_O))


def potential_energy(topo, pk, params):
    m, p_cm, _ = _com_world(topo, pk, params)
    return -jnp.sum(m * (p_cm @ params.gravity))


def conservative_power(topo, pk, vk, params):
    m, _, r = _com_world(topo, pk, params)
    v_cm = vk.V_WB[:, 3:] + jnp.cross(vk.V_WB[:, :3], r)
    return jnp.sum(m * (v_cm @ params.gravity))


def gravity_generalized_forces(topo, dk, params):
    m, p_cm, _ = _com_world(topo, dk.pk, params)
    f = m[:, None] * params.gravity[None, :]
    F_O = jnp.concatenate([jnp.cross(p_cm, f), f], -1)
    return project_to_joints(topo, dk, F_O)
