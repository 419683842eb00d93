"""Jacobians and bias accelerations of a compiled model (Drake's ``CalcJacobian*`` and
``CalcBias*``), frames given by FrameIndex.

For a point Bp fixed on frame B and a measuring frame A,

    V_ABp = J_V_ABp v,     A_ABp = J_V_ABp v̇ + AsBias_ABp,

with J taken column by column from the tree (`jaxbody.algorithms.jacobians`) and the bias
J̇ v the acceleration at v̇ = 0. A Jacobian "with respect to q̇" is J N⁺(q), since v = N⁺(q) q̇.
Relative to a moving frame A the bias adds the Coriolis terms of A's motion:
α_AB = α_WB − α_WA − ω_WA × ω_AB and a_ABp = a_WBp − a_WAp − 2 ω_WA × v_ABp
(the A-fixed point at Bp) [Drake, SpatialKinematics].
"""

from __future__ import annotations

import enum

import jax
import jax.numpy as jnp

from jaxbody.algorithms import center_of_mass as com_alg
from jaxbody.algorithms.jacobians import point_jacobian_in_world, shift_acceleration, shift_velocity
from jaxbody.engine.kinematics import (
    bias_kinematics,
    expressed_in,
    frame_in_world,
    points,
    points_positions,
    position_kinematics,
    relative_transform,
)
from jaxbody.engine.mass_properties import com_bodies
from jaxbody.engine.state import qdot_to_velocity_map
from jaxbody.math import SpatialAcceleration

WORLD_FRAME = 0  # the world body's frame is FrameIndex 0


class JacobianWrtVariable(enum.Enum):
    """Which generalized velocities a Jacobian is taken with respect to (as Drake's enum)."""

    kQDot = 0
    kV = 1


def check_wrt(with_respect_to, what):
    if not isinstance(with_respect_to, JacobianWrtVariable):
        raise ValueError(f"{what}: with_respect_to must be JacobianWrtVariable.kV or kQDot, "
                         f"got {with_respect_to!r}")


def require_kv(with_respect_to, what):
    check_wrt(with_respect_to, what)
    if with_respect_to != JacobianWrtVariable.kV:
        raise ValueError(f"{what}: only JacobianWrtVariable.kV is supported (as in Drake)")


def require_world(frame_A, what):
    if frame_A != WORLD_FRAME:
        raise ValueError(f"{what}: frame_A must be the world frame (as in Drake)")


def _wrt(model, context, J, with_respect_to):
    if with_respect_to == JacobianWrtVariable.kQDot:
        return J @ qdot_to_velocity_map(model, context)
    return J


def _world_jacobian_rel(model, context, pk, frame_B, p_BoBi_B, frame_A):
    """J_V_ABi_W: (n, 6, nv) for points of frame_B relative to frame_A, in W."""
    topo = model.topology
    pts, single = points(p_BoBi_B, "points")
    R_WB, p_WB = frame_in_world(model, context, pk, frame_B)
    p_WBi = p_WB + pts.astype(R_WB.dtype) @ R_WB.T
    J = point_jacobian_in_world(topo, pk, int(topo.frame_node[frame_B]), p_WBi)
    if frame_A != WORLD_FRAME:
        J = J - point_jacobian_in_world(topo, pk, int(topo.frame_node[frame_A]), p_WBi)
    return J, single


# --- Jacobians ----------------------------------------------------------------------------------
def jacobian_position_vector(model, context, frame_F, p_FP_list, frame_A, frame_E):
    """``Jq_p_AoPi_E`` (3n, nq): ∂p_AoPi/∂q (quaternion entries included) for the n points P_i
    fixed in frame F, the derivative taken in frame A and expressed in frame E."""
    pts, _ = points(p_FP_list, "CalcJacobianPositionVector: p_FP_list")

    def p_AP_A(q):
        return points_positions(model, context.replace(q=q), frame_F, pts.T, frame_A).T

    J = jax.jacfwd(p_AP_A)(context.q)  # (n, 3, nq), in A
    R_EA = relative_transform(model, context, frame_E, frame_A).rotation().matrix()
    return jnp.einsum("ij,njk->nik", R_EA, J).reshape(-1, model.nq)


def jacobian_spatial_velocity(model, context, with_respect_to, frame_B, p_BoBp_B, frame_A,
                              frame_E):
    """``J_V_ABp_E`` (6, nv or nq) of frame Bp (on frame B at ``p_BoBp_B`` (3,)) in frame A,
    expressed in frame E."""
    _, pk = position_kinematics(model, context)
    J, _ = _world_jacobian_rel(model, context, pk, frame_B, p_BoBp_B, frame_A)
    R_EW = expressed_in(model, context, pk, frame_E)
    J = jnp.concatenate([R_EW @ J[0, :3], R_EW @ J[0, 3:]], 0)
    return _wrt(model, context, J, with_respect_to)


def jacobian_angular_velocity(model, context, with_respect_to, frame_B, frame_A, frame_E):
    """``Js_w_AB_E`` (3, nv or nq): of frame B's angular velocity in A, expressed in E."""
    _, pk = position_kinematics(model, context)
    J, _ = _world_jacobian_rel(model, context, pk, frame_B, jnp.zeros(3), frame_A)
    return _wrt(model, context, expressed_in(model, context, pk, frame_E) @ J[0, :3],
                with_respect_to)


def jacobian_translational_velocity(model, context, with_respect_to, frame_B, p_BoBi_B,
                                    frame_A, frame_E):
    """``Js_v_ABi_E`` (3n, nv or nq) of the velocities of n points Bi of frame B
    (``p_BoBi_B``: (3,) or (3, n)) measured in frame A, expressed in frame E."""
    _, pk = position_kinematics(model, context)
    J, _ = _world_jacobian_rel(model, context, pk, frame_B, p_BoBi_B, frame_A)
    R_EW = expressed_in(model, context, pk, frame_E)
    Jv = jnp.einsum("ij,njk->nik", R_EW, J[:, 3:]).reshape(-1, J.shape[-1])
    return _wrt(model, context, Jv, with_respect_to)


def jacobian_com_translational_velocity(model, context, instances, with_respect_to, frame_E,
                                        what="CalcJacobianCenterOfMassTranslationalVelocity"):
    """``Js_v_WScm_E`` (3, nv or nq) of the center of mass of all bodies (``instances`` None)
    or of the bodies of the given model instances, measured in World, expressed in E."""
    _, pk = position_kinematics(model, context)
    nodes, bidx = com_bodies(model, instances, what)
    J = com_alg.com_jacobian(model.topology, pk, context.parameters, nodes, bidx)
    return _wrt(model, context, expressed_in(model, context, pk, frame_E) @ J, with_respect_to)


# --- Bias accelerations -------------------------------------------------------------------------
def _bias_points(model, context, frame_B, p_BoBi_B, frame_A, what):
    """Bias accelerations (n, 6) of points Bi of frame B measured in frame A, in W."""
    topo = model.topology
    pts, single = points(p_BoBi_B, what)
    pk, vk, A0 = bias_kinematics(model, context)
    R_WB, p_WB = frame_in_world(model, context, pk, frame_B)
    p_WBi = p_WB + pts.astype(R_WB.dtype) @ R_WB.T
    nb = int(topo.frame_node[frame_B])
    r_B = p_WBi - pk.p_WB[nb]
    Ab = shift_acceleration(A0[nb], vk.V_WB[nb], r_B)
    if frame_A == WORLD_FRAME:
        return Ab, single
    na = int(topo.frame_node[frame_A])
    r_A = p_WBi - pk.p_WB[na]
    Aa = shift_acceleration(A0[na], vk.V_WB[na], r_A)
    Vb = shift_velocity(vk.V_WB[nb], r_B)
    Va = shift_velocity(vk.V_WB[na], r_A)
    w_WA = vk.V_WB[na, :3]
    alpha = Ab[:, :3] - Aa[:, :3] - jnp.cross(w_WA, Vb[:, :3] - Va[:, :3])
    a = Ab[:, 3:] - Aa[:, 3:] - 2.0 * jnp.cross(w_WA, Vb[:, 3:] - Va[:, 3:])
    return jnp.concatenate([alpha, a], -1), single


def bias_spatial_acceleration(model, context, frame_B, p_BoBp_B, frame_A, frame_E,
                              what="CalcBiasSpatialAcceleration"):
    """``AsBias_ABp_E``: the v̇-independent part J̇ v of frame Bp's spatial acceleration in
    frame A, expressed in E, a `SpatialAcceleration`."""
    A, _ = _bias_points(model, context, frame_B, p_BoBp_B, frame_A, what)
    _, pk = position_kinematics(model, context)
    R_EW = expressed_in(model, context, pk, frame_E)
    return SpatialAcceleration(R_EW @ A[0, :3], R_EW @ A[0, 3:])


def bias_translational_acceleration(model, context, frame_B, p_BoBi_B, frame_A, frame_E,
                                    what="CalcBiasTranslationalAcceleration"):
    """``asBias_ABi_E`` (3, n): bias translational accelerations of points Bi in A, in E."""
    A, _ = _bias_points(model, context, frame_B, p_BoBi_B, frame_A, what)
    _, pk = position_kinematics(model, context)
    return expressed_in(model, context, pk, frame_E) @ A[:, 3:].T


def bias_com_translational_acceleration(
        model, context, instances, frame_E,
        what="CalcBiasCenterOfMassTranslationalAcceleration"):
    """``asBias_WScm_E`` (3,): the bias acceleration of the center of mass of all bodies (or
    of the given model instances), measured in World, expressed in E."""
    pk, vk, A0 = bias_kinematics(model, context)
    nodes, bidx = com_bodies(model, instances, what)
    a = com_alg.com_bias_acceleration(pk, vk, A0, context.parameters, nodes, bidx,
                                      model.topology)
    return expressed_in(model, context, pk, frame_E) @ a
