"""Kinematic quantities the dynamics passes need, about the world origin (see `spatial.py`).

From the base-to-tip passes of `kinematics.py`:
    S^O   (nv, 6)   joint subspace columns about Wo
    V^O   (n, 6)    body twists about Wo
    Ab^O  (n, 6)    Plücker bias accelerations (v̇ = 0), so that for any v̇
                    A^O_b = Ab^O_b + Σ_{j ⪯ b} S^O_j v̇_j      (j ranges over b and its ancestors)
    c     (n, 6)    Ab^O_b − Ab^O_parent(b): the velocity-product term of ABA [Featherstone 2008,
                    Table 7.1], c_b = Ṡ_b v_b
    M^O   (n, 6, 6) spatial inertias about Wo
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.algorithms import kinematics as kin
from jaxbody.algorithms.spatial import inertia_about_origin, twist_about_origin


class DynamicsKinematics(NamedTuple):
    pk: kin.PositionKinematics
    vk: kin.VelocityKinematics
    S_O: jax.Array  # (nv, 6)
    V_O: jax.Array  # (n, 6)
    Ab_O: jax.Array  # (n, 6)
    c_O: jax.Array  # (n, 6)
    M_O: jax.Array  # (n, 6, 6)


def body_parameters_by_node(topo, params):
    """(mass, com, unit inertia) gathered into tree-node order."""
    b = topo.node_body
    return params.mass[b], params.com[b], params.unit_inertia[b]


@partial(jax.jit, static_argnums=0)
def dynamics_kinematics(topo, q, v, params) -> DynamicsKinematics:
    jk = kin.joint_kinematics(topo, q, v)
    pk = kin.position_kinematics(topo, q, params, jk)
    vk = kin.velocity_kinematics(topo, pk, v)
    c_O = kin.acceleration_increments(topo, pk, vk, jk, jnp.zeros_like(v))
    p_own = pk.p_WB[topo.dof_node]
    h_w = pk.H_W[:, :3]
    S_O = jnp.concatenate([h_w, pk.H_W[:, 3:] + jnp.cross(p_own, h_w)], -1)
    V_O = twist_about_origin(vk.V_WB, pk.p_WB)
    Ab_O = path_sum(topo, c_O)
    mass, com, G = body_parameters_by_node(topo, params)
    M_O = inertia_about_origin(mass, com, G, pk.R_WB, pk.p_WB)
    return DynamicsKinematics(pk, vk, S_O, V_O, Ab_O, c_O, M_O)


def per_node(topo, per_dof):
    """Sums (nv, k) per-dof rows into (n, k) per-node rows."""
    return kin._sum_by_node(topo, per_dof)


subtree_sum = kin.subtree_sum
path_sum = kin.path_sum
