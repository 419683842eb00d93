"""Center of mass of a set of bodies S, its velocity, Jacobian and bias acceleration, and the
spatial momentum of S about a point.

For bodies b ∈ S with masses m_b and centers of mass Bcm:
    p_WScm = Σ m_b p_WBcm / m_S,    v_WScm = Σ m_b v_WBcm / m_S,
    J_v_WScm = Σ m_b J_v_WBcm / m_S,    a_bias_WScm = Σ m_b a_bias_WBcm / m_S,
    L_WS_P = Σ [I_Bcm w_WB + p_PBcm × m_b v_WBcm;  m_b v_WBcm]
with I_Bcm the central rotational inertia expressed in W [Drake, SpatialMomentum docs].
``nodes`` (tree nodes) and ``bidx`` (BodyIndex) are static arrays naming the bodies of S.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.algorithms.jacobians import point_jacobian_in_world, shift_acceleration


def _com_points(pk, params, nodes, bidx):
    """p_WBcm (k, 3) and p_BoBcm_W (k, 3)."""
    p_BoBcm_W = jnp.einsum("kij,kj->ki", pk.R_WB[nodes], params.com[bidx])
    return pk.p_WB[nodes] + p_BoBcm_W, p_BoBcm_W


def _weights(params, bidx):
    m = params.mass[bidx]
    return m, jnp.sum(m)


def com_position(pk, params, nodes, bidx):
    m, M = _weights(params, bidx)
    p, _ = _com_points(pk, params, nodes, bidx)
    return jnp.sum(m[:, None] * p, 0) / M


def com_velocity(pk, vk, params, nodes, bidx):
    m, M = _weights(params, bidx)
    _, r = _com_points(pk, params, nodes, bidx)
    V = vk.V_WB[nodes]
    v_cm = V[:, 3:] + jnp.cross(V[:, :3], r)
    return jnp.sum(m[:, None] * v_cm, 0) / M


def com_jacobian(topo, pk, params, nodes, bidx):
    """J_v_WScm_W: (3, nv)."""
    m, M = _weights(params, bidx)
    p, _ = _com_points(pk, params, nodes, bidx)
    J = point_jacobian_in_world(topo, pk, nodes, p)[:, 3:]  # (k, 3, nv)
    return jnp.einsum("k,kij->ij", m, J) / M


def com_bias_acceleration(pk, vk, A0, params, nodes, bidx, topo=None):
    m, M = _weights(params, bidx)
    _, r = _com_points(pk, params, nodes, bidx)
    a = shift_acceleration(A0[nodes], vk.V_WB[nodes], r)[:, 3:]
    return jnp.sum(m[:, None] * a, 0) / M


def spatial_momentum(pk, vk, params, nodes, bidx, p_WoP_W):
    """L_WS_P_W: (6,) [angular; linear] momentum of S about P, expressed in W."""
    m = params.mass[bidx]
    p_cm, r = _com_points(pk, params, nodes, bidx)
    V = vk.V_WB[nodes]
    w = V[:, :3]
    v_cm = V[:, 3:] + jnp.cross(w, r)
    G = params.unit_inertia[bidx]
    c = params.com[bidx]
    # Central inertia in B: I_Bcm = m (G_Bo − (|c|² I − c cᵀ)); then re-expressed in W.
    cc = jnp.einsum("ki,kj->kij", c, c)
    shift = jnp.sum(c * c, -1)[:, None, None] * jnp.eye(3, dtype=c.dtype) - cc
    I_cm_B = m[:, None, None] * (G - shift)
    R = pk.R_WB[nodes]
    w_B = jnp.einsum("kji,kj->ki", R, w)
    h_cm = jnp.einsum("kij,kj->ki", R, jnp.einsum("kij,kj->ki", I_cm_B, w_B))
    lin = m[:, None] * v_cm
    ang = h_cm + jnp.cross(p_cm - p_WoP_W, lin)
    return jnp.concatenate([jnp.sum(ang, 0), jnp.sum(lin, 0)])
