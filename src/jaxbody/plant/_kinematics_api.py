"""Kinematics, Jacobians and bias accelerations (Drake's API; mass properties are in
`_mass_properties_api.py`).

All methods are pure functions of the context: ``jax.jit``, ``jax.vmap`` and ``jax.grad`` apply.
Frames and bodies are static (Python objects); numbers come from the context.
"""

from __future__ import annotations

import enum

import jax.numpy as jnp

from jaxbody.algorithms import center_of_mass as com_alg
from jaxbody.algorithms import kinematics as kin
from jaxbody.algorithms.jacobians import point_jacobian_in_world, shift_acceleration, shift_velocity
from jaxbody.core.checks import check_shape
from jaxbody.math import RigidTransform, SpatialAcceleration, SpatialVelocity


class JacobianWrtVariable(enum.Enum):
    """Which generalized velocities a Jacobian is taken with respect to (as Drake's enum)."""

    kQDot = 0
    kV = 1


def _points(p, what):
    """(3,) or (3, n) -> (n, 3) and whether the input was a single vector."""
    p = jnp.asarray(p)
    if p.shape == (3,):
        return p[None, :], True
    if p.ndim != 2 or p.shape[0] != 3:
        raise ValueError(f"{what}: points must have shape (3,) or (3, n), got {p.shape}")
    return p.T, False


class KinematicsAPI:
    # --- Caches (recomputed per call; XLA removes the duplicates inside one jit) ------------
    def _position_kinematics(self, context, what):
        self._check_context(context, what)
        topo = self._topology
        jk = kin.joint_kinematics(topo, context.q, context.v)
        return jk, kin.position_kinematics(topo, context.q, context.parameters, jk)

    def _velocity_kinematics(self, context, what):
        jk, pk = self._position_kinematics(context, what)
        return jk, pk, kin.velocity_kinematics(self._topology, pk, context.v)

    def _node(self, frame_or_body):
        return int(self._topology.body_node[int(frame_or_body.body().index())]) \
            if hasattr(frame_or_body, "body") and callable(frame_or_body.body) \
            else int(self._topology.body_node[int(frame_or_body.index())])

    def _frame_in_body(self, context, frame):
        P = context.parameters
        return P.frame_R[frame.index()], P.frame_p[frame.index()]

    def _frame_in_world(self, context, pk, frame):
        """(R_WF, p_WF) of a frame."""
        node = self._node(frame)
        R_BF, p_BF = self._frame_in_body(context, frame)
        return pk.R_WB[node] @ R_BF, pk.p_WB[node] + pk.R_WB[node] @ p_BF

    # --- Poses and velocities ----------------------------------------------------------------
    def EvalBodyPoseInWorld(self, context, body):
        """``X_WB``: pose of ``body`` (its frame B) in World, a `RigidTransform`."""
        self._own_body(body, "EvalBodyPoseInWorld")
        _, pk = self._position_kinematics(context, "EvalBodyPoseInWorld")
        n = self._node(body)
        return RigidTransform(pk.R_WB[n], pk.p_WB[n])

    def CalcBodyPosesInWorld(self, context):
        """All bodies' poses as arrays in BodyIndex order: ``R_WB (nb,3,3), p_WB (nb,3)``."""
        _, pk = self._position_kinematics(context, "CalcBodyPosesInWorld")
        nodes = self._topology.body_node
        return pk.R_WB[nodes], pk.p_WB[nodes]

    def EvalBodySpatialVelocityInWorld(self, context, body):
        """``V_WB_W``: spatial velocity of ``body`` (about Bo) in World, a `SpatialVelocity`."""
        self._own_body(body, "EvalBodySpatialVelocityInWorld")
        _, _, vk = self._velocity_kinematics(context, "EvalBodySpatialVelocityInWorld")
        V = vk.V_WB[self._node(body)]
        return SpatialVelocity(V[:3], V[3:])

    def CalcRelativeTransform(self, context, frame_A, frame_B):
        """``X_AB``: pose of ``frame_B`` in ``frame_A``."""
        for f in (frame_A, frame_B):
            self._own_frame(f, "CalcRelativeTransform")
        _, pk = self._position_kinematics(context, "CalcRelativeTransform")
        R_WA, p_WA = self._frame_in_world(context, pk, frame_A)
        R_WB, p_WB = self._frame_in_world(context, pk, frame_B)
        return RigidTransform(R_WA.T @ R_WB, R_WA.T @ (p_WB - p_WA))

    def CalcRelativeRotationMatrix(self, context, frame_A, frame_B):
        """``R_AB``: orientation of ``frame_B`` in ``frame_A`` (a `RotationMatrix`)."""
        return self.CalcRelativeTransform(context, frame_A, frame_B).rotation()

    def CalcPointsPositions(self, context, frame_B, p_BQi, frame_A):
        """``p_AQi``: (3, n) positions in ``frame_A`` of points given in ``frame_B`` (3, n)."""
        pts, _ = _points(p_BQi, "CalcPointsPositions: p_BQi")
        X_AB = self.CalcRelativeTransform(context, frame_A, frame_B)
        R, p = X_AB.rotation().matrix(), X_AB.translation()
        return (pts @ R.T + p).T

    def CalcSpatialVelocity(self, context, frame_B, frame_M, frame_E):
        """``V_MB_E``: spatial velocity of ``frame_B`` measured in ``frame_M``, expressed in E."""
        for f in (frame_B, frame_M, frame_E):
            self._own_frame(f, "CalcSpatialVelocity")
        _, pk, vk = self._velocity_kinematics(context, "CalcSpatialVelocity")
        V = self._relative_velocity(context, pk, vk, frame_B, frame_M)
        R_WE, _ = self._frame_in_world(context, pk, frame_E)
        return SpatialVelocity(R_WE.T @ V[:3], R_WE.T @ V[3:])

    def _relative_velocity(self, context, pk, vk, frame_B, frame_M):
        """V_MB expressed in W, about Bo (frame B's origin)."""
        nb, nm = self._node(frame_B), self._node(frame_M)
        _, p_WBo = self._frame_in_world(context, pk, frame_B)
        V_WB = shift_velocity(vk.V_WB[nb], p_WBo - pk.p_WB[nb])
        V_WMp = shift_velocity(vk.V_WB[nm], p_WBo - pk.p_WB[nm])  # M-fixed point at Bo
        return V_WB - V_WMp

    def CalcSpatialAccelerationsFromVdot(self, context, known_vdot):
        """``A_WB_W`` of every body (list in BodyIndex order) for the given v̇."""
        vdot = check_shape("CalcSpatialAccelerationsFromVdot: known_vdot", known_vdot,
                            (self._topology.nv,))
        jk, pk, vk = self._velocity_kinematics(context, "CalcSpatialAccelerationsFromVdot")
        A = kin.acceleration_kinematics(self._topology, pk, vk, jk, vdot.astype(context.v.dtype))
        return [SpatialAcceleration(A[n, :3], A[n, 3:]) for n in self._topology.body_node]

    # --- Jacobians -------------------------------------------------------------------------------
    def CalcJacobianPositionVector(self, context, frame_F, p_FP_list, frame_A, frame_E):
        """``Jq_p_AoPi_E`` (3n, nq): ∂p_AoPi/∂q, the derivative taken in ``frame_A`` and
        expressed in ``frame_E``, for the n points P_i fixed in ``frame_F`` (``p_FP_list``: (3,)
        or (3, n)); rows 3i..3i+2 belong to point i. As in Drake it is the derivative with
        respect to q itself (quaternion entries included), not v."""
        import jax

        what = "CalcJacobianPositionVector"
        for f in (frame_F, frame_A, frame_E):
            self._own_frame(f, what)
        self._check_context(context, what)
        pts, _ = _points(p_FP_list, f"{what}: p_FP_list")

        def p_AP_A(q):
            return self.CalcPointsPositions(context.replace(q=q), frame_F, pts.T, frame_A).T

        J = jax.jacfwd(p_AP_A)(context.q)  # (n, 3, nq), in A
        R_EA = self.CalcRelativeRotationMatrix(context, frame_E, frame_A).matrix()
        return jnp.einsum("ij,njk->nik", R_EA, J).reshape(-1, self._topology.nq)

    def _check_wrt(self, with_respect_to, what):
        if not isinstance(with_respect_to, JacobianWrtVariable):
            raise ValueError(f"{what}: with_respect_to must be JacobianWrtVariable.kV or kQDot, "
                             f"got {with_respect_to!r}")

    def _world_jacobian_rel(self, context, pk, frame_B, p_BoBi_B, frame_A):
        """J_V_ABi_W: (n, 6, nv) for points of frame_B relative to frame_A, in W."""
        pts, single = _points(p_BoBi_B, "points")
        R_WB, p_WB = self._frame_in_world(context, pk, frame_B)
        p_WBi = p_WB + pts.astype(R_WB.dtype) @ R_WB.T
        J = point_jacobian_in_world(self._topology, pk, self._node(frame_B), p_WBi)
        if not frame_A.is_world_frame():
            J = J - point_jacobian_in_world(self._topology, pk, self._node(frame_A), p_WBi)
        return J, single

    def _wrt(self, context, J, with_respect_to):
        if with_respect_to == JacobianWrtVariable.kQDot:
            return J @ self.MakeQDotToVelocityMap(context)
        return J

    def _expressed(self, context, pk, frame_E):
        R_WE, _ = self._frame_in_world(context, pk, frame_E)
        return R_WE.T

    def CalcJacobianSpatialVelocity(self, context, with_respect_to, frame_B, p_BoBp_B, frame_A,
                                    frame_E):
        """``J_V_ABp_E``: (6, nv or nq) Jacobian of the spatial velocity of frame Bp
        (fixed on frame_B at ``p_BoBp_B``) measured in ``frame_A``, expressed in ``frame_E``."""
        what = "CalcJacobianSpatialVelocity"
        self._check_wrt(with_respect_to, what)
        p = jnp.asarray(p_BoBp_B)
        if p.shape != (3,):
            raise ValueError(f"{what}: p_BoBp_B must have shape (3,), got {p.shape}")
        for f in (frame_B, frame_A, frame_E):
            self._own_frame(f, what)
        _, pk = self._position_kinematics(context, what)
        J, _ = self._world_jacobian_rel(context, pk, frame_B, p, frame_A)
        R_EW = self._expressed(context, pk, frame_E)
        J = jnp.concatenate([R_EW @ J[0, :3], R_EW @ J[0, 3:]], 0)
        return self._wrt(context, J, with_respect_to)

    def CalcJacobianAngularVelocity(self, context, with_respect_to, frame_B, frame_A, frame_E):
        """``Js_w_AB_E``: (3, nv or nq) Jacobian of B's angular velocity in A, expressed in E."""
        what = "CalcJacobianAngularVelocity"
        self._check_wrt(with_respect_to, what)
        for f in (frame_B, frame_A, frame_E):
            self._own_frame(f, what)
        _, pk = self._position_kinematics(context, what)
        J, _ = self._world_jacobian_rel(context, pk, frame_B, jnp.zeros(3), frame_A)
        return self._wrt(context, self._expressed(context, pk, frame_E) @ J[0, :3], with_respect_to)

    def CalcJacobianTranslationalVelocity(self, context, with_respect_to, frame_B, p_BoBi_B,
                                          frame_A, frame_E):
        """``Js_v_ABi_E``: (3n, nv or nq) Jacobian of the velocities of n points Bi of frame_B
        (``p_BoBi_B``: (3,) or (3, n)) measured in ``frame_A``, expressed in ``frame_E``."""
        what = "CalcJacobianTranslationalVelocity"
        self._check_wrt(with_respect_to, what)
        for f in (frame_B, frame_A, frame_E):
            self._own_frame(f, what)
        _, pk = self._position_kinematics(context, what)
        J, _ = self._world_jacobian_rel(context, pk, frame_B, p_BoBi_B, frame_A)
        R_EW = self._expressed(context, pk, frame_E)
        Jv = jnp.einsum("ij,njk->nik", R_EW, J[:, 3:]).reshape(-1, J.shape[-1])
        return self._wrt(context, Jv, with_respect_to)

    def CalcJacobianCenterOfMassTranslationalVelocity(self, context, *args):
        """``Js_v_AScm_E`` (3, nv or nq) for all bodies (or the given model instances):
        ``(context, with_respect_to, frame_A, frame_E)`` or
        ``(context, model_instances, with_respect_to, frame_A, frame_E)``."""
        what = "CalcJacobianCenterOfMassTranslationalVelocity"
        instances, (with_respect_to, frame_A, frame_E) = self._split_instances(args, 3)
        self._check_wrt(with_respect_to, what)
        self._require_world(frame_A, what)
        _, pk = self._position_kinematics(context, what)
        nodes, bidx = self._com_bodies(context, instances, what)
        J = com_alg.com_jacobian(self._topology, pk, context.parameters, nodes, bidx)
        return self._wrt(context, self._expressed(context, pk, frame_E) @ J, with_respect_to)

    # --- Bias accelerations -------------------------------------------------------------------
    def _bias_world(self, context, what):
        jk, pk, vk = self._velocity_kinematics(context, what)
        A0 = kin.acceleration_kinematics(self._topology, pk, vk, jk,
                                         jnp.zeros_like(context.v))
        return pk, vk, A0

    def _bias_points(self, context, frame_B, p_BoBi_B, frame_A, what):
        """Bias accelerations (n, 6) of points Bi of frame_B measured in frame_A, in W."""
        pts, single = _points(p_BoBi_B, what)
        pk, vk, A0 = self._bias_world(context, what)
        R_WB, p_WB = self._frame_in_world(context, pk, frame_B)
        p_WBi = p_WB + pts.astype(R_WB.dtype) @ R_WB.T
        nb = self._node(frame_B)
        r_B = p_WBi - pk.p_WB[nb]
        Ab = shift_acceleration(A0[nb], vk.V_WB[nb], r_B)
        if frame_A.is_world_frame():
            return Ab, single
        na = self._node(frame_A)
        r_A = p_WBi - pk.p_WB[na]
        Aa = shift_acceleration(A0[na], vk.V_WB[na], r_A)
        Vb = shift_velocity(vk.V_WB[nb], r_B)
        Va = shift_velocity(vk.V_WB[na], r_A)
        w_WA = vk.V_WB[na, :3]
        alpha = Ab[:, :3] - Aa[:, :3] - jnp.cross(w_WA, Vb[:, :3] - Va[:, :3])
        a = Ab[:, 3:] - Aa[:, 3:] - 2.0 * jnp.cross(w_WA, Vb[:, 3:] - Va[:, 3:])
        return jnp.concatenate([alpha, a], -1), single

    def _require_kv(self, with_respect_to, what):
        self._check_wrt(with_respect_to, what)
        if with_respect_to != JacobianWrtVariable.kV:
            raise ValueError(f"{what}: only JacobianWrtVariable.kV is supported (as in Drake)")

    def CalcBiasSpatialAcceleration(self, context, with_respect_to, frame_B, p_BoBp_B, frame_A,
                                    frame_E):
        """``AsBias_ABp_E``: the v̇-independent part J̇ v of frame Bp's spatial acceleration in A."""
        what = "CalcBiasSpatialAcceleration"
        self._require_kv(with_respect_to, what)
        if jnp.shape(p_BoBp_B) != (3,):
            raise ValueError(f"{what}: p_BoBp_B must have shape (3,), got {jnp.shape(p_BoBp_B)}")
        for f in (frame_B, frame_A, frame_E):
            self._own_frame(f, what)
        A, _ = self._bias_points(context, frame_B, p_BoBp_B, frame_A, what)
        _, pk = self._position_kinematics(context, what)
        R_EW = self._expressed(context, pk, frame_E)
        return SpatialAcceleration(R_EW @ A[0, :3], R_EW @ A[0, 3:])

    def CalcBiasTranslationalAcceleration(self, context, with_respect_to, frame_B, p_BoBi_B,
                                          frame_A, frame_E):
        """``asBias_ABi_E``: (3, n) bias translational accelerations of points Bi in A."""
        what = "CalcBiasTranslationalAcceleration"
        self._require_kv(with_respect_to, what)
        for f in (frame_B, frame_A, frame_E):
            self._own_frame(f, what)
        A, _ = self._bias_points(context, frame_B, p_BoBi_B, frame_A, what)
        _, pk = self._position_kinematics(context, what)
        return self._expressed(context, pk, frame_E) @ A[:, 3:].T

    def CalcBiasCenterOfMassTranslationalAcceleration(self, context, *args):
        """``asBias_AScm_E`` (3,): ``(context, [model_instances,] with_respect_to, frame_A,
        frame_E)``; frame_A must be World (as in Drake)."""
        what = "CalcBiasCenterOfMassTranslationalAcceleration"
        instances, (with_respect_to, frame_A, frame_E) = self._split_instances(args, 3)
        self._require_kv(with_respect_to, what)
        self._require_world(frame_A, what)
        pk, vk, A0 = self._bias_world(context, what)
        nodes, bidx = self._com_bodies(context, instances, what)
        a = com_alg.com_bias_acceleration(pk, vk, A0, context.parameters, nodes, bidx,
                                          self._topology)
        return self._expressed(context, pk, frame_E) @ a

    # --- Center of mass and momentum ----------------------------------------------------------
    def _split_instances(self, args, n_rest):
        if len(args) == n_rest + 1:
            return list(args[0]), args[1:]
        if len(args) != n_rest:
            raise TypeError(f"expected {n_rest} or {n_rest + 1} arguments after the context")
        return None, args

    def _require_world(self, frame, what):
        if not frame.is_world_frame():
            raise ValueError(f"{what}: frame_A must be the world frame (as in Drake)")
