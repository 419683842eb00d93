"""Kinematics of a compiled model: body and frame poses, relative transforms, spatial
velocities and the spatial accelerations of a given v̇ (Drake's ``EvalBodyPoseInWorld``,
``CalcRelativeTransform``, ``CalcSpatialVelocity``, ``CalcSpatialAccelerationsFromVdot``).

Frames and bodies are given by index (FrameIndex, BodyIndex); a frame F sits on body B at the
parameters' ``X_BF = (frame_R[F], frame_p[F])``, and B's tree node is
``topology.frame_node[F]``. The tree passes are `jaxbody.algorithms.kinematics`:

    X_WB = X_WP X_PF X_FM(q) X_MB,   V_WB = V_WP shifted to Bo + S v,   A_WB = Ȧ of V_WB

([Featherstone 2008, §3.5]); every function is a pure function of the context, so
``jax.jit``, ``jax.vmap`` and ``jax.grad`` apply.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.algorithms import kinematics as kin
from jaxbody.algorithms.jacobians import shift_velocity
from jaxbody.core.checks import check_shape
from jaxbody.math import RigidTransform, SpatialAcceleration, SpatialVelocity


def points(p, what):
    """(3,) or (3, n) -> (n, 3) and whether the input was a single vector."""
    p = jnp.asarray(p)
    if p.shape == (3,):
        return p[None, :], True
    if p.ndim != 2 or p.shape[0] != 3:
        raise ValueError(f"{what}: points must have shape (3,) or (3, n), got {p.shape}")
    return p.T, False


# --- Tree passes (recomputed per call; XLA removes the duplicates inside one jit) -------------
def position_kinematics(model, context):
    """(jk, pk): the joints' kinematics and every node's pose in World."""
    topo = model.topology
    jk = kin.joint_kinematics(topo, context.q, context.v)
    return jk, kin.position_kinematics(topo, context.q, context.parameters, jk)


def velocity_kinematics(model, context):
    """(jk, pk, vk): as `position_kinematics`, and every node's spatial velocity in World."""
    jk, pk = position_kinematics(model, context)
    return jk, pk, kin.velocity_kinematics(model.topology, pk, context.v)


def frame_in_world(model, context, pk, frame):
    """(R_WF, p_WF) of frame ``frame`` (a FrameIndex) from the position kinematics ``pk``."""
    node = int(model.topology.frame_node[frame])
    P = context.parameters
    R_BF, p_BF = P.frame_R[frame], P.frame_p[frame]
    return pk.R_WB[node] @ R_BF, pk.p_WB[node] + pk.R_WB[node] @ p_BF


def expressed_in(model, context, pk, frame_E):
    """R_EW: re-expresses a World vector in frame E."""
    R_WE, _ = frame_in_world(model, context, pk, frame_E)
    return R_WE.T


# --- Poses and velocities ---------------------------------------------------------------------
def body_pose_in_world(model, context, body):
    """``X_WB`` of body ``body`` (a BodyIndex), a `RigidTransform`."""
    _, pk = position_kinematics(model, context)
    n = int(model.topology.body_node[body])
    return RigidTransform(pk.R_WB[n], pk.p_WB[n])


def body_poses_in_world(model, context):
    """All bodies' poses in BodyIndex order: ``R_WB (nb, 3, 3), p_WB (nb, 3)``."""
    _, pk = position_kinematics(model, context)
    nodes = model.topology.body_node
    return pk.R_WB[nodes], pk.p_WB[nodes]


def body_spatial_velocity_in_world(model, context, body):
    """``V_WB_W`` of body ``body`` (about Bo, in World), a `SpatialVelocity`."""
    _, _, vk = velocity_kinematics(model, context)
    V = vk.V_WB[int(model.topology.body_node[body])]
    return SpatialVelocity(V[:3], V[3:])


def relative_transform(model, context, frame_A, frame_B):
    """``X_AB``: pose of frame B in frame A (FrameIndex each), a `RigidTransform`."""
    _, pk = position_kinematics(model, context)
    R_WA, p_WA = frame_in_world(model, context, pk, frame_A)
    R_WB, p_WB = frame_in_world(model, context, pk, frame_B)
    return RigidTransform(R_WA.T @ R_WB, R_WA.T @ (p_WB - p_WA))


def points_positions(model, context, frame_B, p_BQi, frame_A):
    """``p_AQi`` (3, n): positions in frame A of points given in frame B (``p_BQi``: (3, n))."""
    pts, _ = points(p_BQi, "CalcPointsPositions: p_BQi")
    X_AB = relative_transform(model, context, frame_A, frame_B)
    R, p = X_AB.rotation().matrix(), X_AB.translation()
    return (pts @ R.T + p).T


def relative_velocity(model, context, pk, vk, frame_B, frame_M):
    """V_MB: frame B's spatial velocity measured in frame M, about Bo, expressed in W."""
    topo = model.topology
    nb, nm = int(topo.frame_node[frame_B]), int(topo.frame_node[frame_M])
    _, p_WBo = frame_in_world(model, context, pk, frame_B)
    V_WB = shift_velocity(vk.V_WB[nb], p_WBo - pk.p_WB[nb])
    V_WMp = shift_velocity(vk.V_WB[nm], p_WBo - pk.p_WB[nm])  # M-fixed point at Bo
    return V_WB - V_WMp


def spatial_velocity(model, context, frame_B, frame_M, frame_E):
    """``V_MB_E``: frame B's spatial velocity measured in frame M, expressed in frame E."""
    _, pk, vk = velocity_kinematics(model, context)
    V = relative_velocity(model, context, pk, vk, frame_B, frame_M)
    R_EW = expressed_in(model, context, pk, frame_E)
    return SpatialVelocity(R_EW @ V[:3], R_EW @ V[3:])


# --- Accelerations ----------------------------------------------------------------------------
def spatial_accelerations_from_vdot(model, context, vdot):
    """``A_WB_W`` of every body (a list of `SpatialAcceleration` in BodyIndex order) for the
    generalized accelerations ``vdot`` (nv,)."""
    vdot = check_shape("CalcSpatialAccelerationsFromVdot: known_vdot", vdot, (model.nv,))
    jk, pk, vk = velocity_kinematics(model, context)
    A = kin.acceleration_kinematics(model.topology, pk, vk, jk, vdot.astype(context.v.dtype))
    return [SpatialAcceleration(A[n, :3], A[n, 3:]) for n in model.topology.body_node]


def bias_kinematics(model, context):
    """(pk, vk, A0): the kinematics and every node's spatial acceleration at v̇ = 0 (J̇ v)."""
    jk, pk, vk = velocity_kinematics(model, context)
    A0 = kin.acceleration_kinematics(model.topology, pk, vk, jk, jnp.zeros_like(context.v))
    return pk, vk, A0
