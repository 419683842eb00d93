"""Kinematics, Jacobians and bias accelerations (Drake's API): the facade over
`jaxbody.engine.kinematics` and `jaxbody.engine.jacobians` (mass properties are in
`_mass_properties_api.py`).

All methods are pure functions of the context: ``jax.jit``, ``jax.vmap`` and ``jax.grad`` apply.
Frames and bodies are static (Python objects), checked here and passed to the engine by index;
numbers come from the context.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.core.checks import check_shape
from jaxbody.engine import jacobians as jac
from jaxbody.engine import kinematics as kin
from jaxbody.engine.mass_properties import split_instances
from jaxbody.plant._core import PlantCore


class KinematicsAPI(PlantCore):
    def _own_frame_indices(self, what, *frames):
        """The FrameIndex of each frame, checked to be this plant's."""
        return [int(self._own_frame(f, what).index()) for f in frames]

    # --- Poses and velocities ----------------------------------------------------------------
    def EvalBodyPoseInWorld(self, context, body):
        """``X_WB``: pose of ``body`` (its frame B) in World, a `RigidTransform`."""
        b = self._own_body(body, "EvalBodyPoseInWorld")
        self._check_context(context, "EvalBodyPoseInWorld")
        return kin.body_pose_in_world(self._model, context, b)

    def CalcBodyPosesInWorld(self, context):
        """All bodies' poses as arrays in BodyIndex order: ``R_WB (nb,3,3), p_WB (nb,3)``."""
        self._check_context(context, "CalcBodyPosesInWorld")
        return kin.body_poses_in_world(self._model, context)

    def EvalBodySpatialVelocityInWorld(self, context, body):
        """``V_WB_W``: spatial velocity of ``body`` (about Bo) in World, a `SpatialVelocity`."""
        b = self._own_body(body, "EvalBodySpatialVelocityInWorld")
        self._check_context(context, "EvalBodySpatialVelocityInWorld")
        return kin.body_spatial_velocity_in_world(self._model, context, b)

    def CalcRelativeTransform(self, context, frame_A, frame_B):
        """``X_AB``: pose of ``frame_B`` in ``frame_A``."""
        A, B = self._own_frame_indices("CalcRelativeTransform", frame_A, frame_B)
        self._check_context(context, "CalcRelativeTransform")
        return kin.relative_transform(self._model, context, A, B)

    def CalcRelativeRotationMatrix(self, context, frame_A, frame_B):
        """``R_AB``: orientation of ``frame_B`` in ``frame_A`` (a `RotationMatrix`)."""
        return self.CalcRelativeTransform(context, frame_A, frame_B).rotation()

    def CalcPointsPositions(self, context, frame_B, p_BQi, frame_A):
        """``p_AQi``: (3, n) positions in ``frame_A`` of points given in ``frame_B`` (3, n)."""
        kin.points(p_BQi, "CalcPointsPositions: p_BQi")
        A, B = self._own_frame_indices("CalcRelativeTransform", frame_A, frame_B)
        self._check_context(context, "CalcRelativeTransform")
        return kin.points_positions(self._model, context, B, p_BQi, A)

    def CalcSpatialVelocity(self, context, frame_B, frame_M, frame_E):
        """``V_MB_E``: spatial velocity of ``frame_B`` measured in ``frame_M``, expressed in E."""
        B, M, E = self._own_frame_indices("CalcSpatialVelocity", frame_B, frame_M, frame_E)
        self._check_context(context, "CalcSpatialVelocity")
        return kin.spatial_velocity(self._model, context, B, M, E)

    def CalcSpatialAccelerationsFromVdot(self, context, known_vdot):
        """``A_WB_W`` of every body (list in BodyIndex order) for the given v̇."""
        check_shape("CalcSpatialAccelerationsFromVdot: known_vdot", known_vdot,
                    (self._topology.nv,))
        self._check_context(context, "CalcSpatialAccelerationsFromVdot")
        return kin.spatial_accelerations_from_vdot(self._model, context, known_vdot)

    # --- Jacobians -------------------------------------------------------------------------------
    def CalcJacobianPositionVector(self, context, frame_F, p_FP_list, frame_A, frame_E):
        """``Jq_p_AoPi_E`` (3n, nq): ∂p_AoPi/∂q, the derivative taken in ``frame_A`` and
        expressed in ``frame_E``, for the n points P_i fixed in ``frame_F`` (``p_FP_list``: (3,)
        or (3, n)); rows 3i..3i+2 belong to point i. As in Drake it is the derivative with
        respect to q itself (quaternion entries included), not v."""
        what = "CalcJacobianPositionVector"
        F, A, E = self._own_frame_indices(what, frame_F, frame_A, frame_E)
        self._check_context(context, what)
        return jac.jacobian_position_vector(self._model, context, F, p_FP_list, A, E)

    def CalcJacobianSpatialVelocity(self, context, with_respect_to, frame_B, p_BoBp_B, frame_A,
                                    frame_E):
        """``J_V_ABp_E``: (6, nv or nq) Jacobian of the spatial velocity of frame Bp
        (fixed on frame_B at ``p_BoBp_B``) measured in ``frame_A``, expressed in ``frame_E``."""
        what = "CalcJacobianSpatialVelocity"
        jac.check_wrt(with_respect_to, what)
        p = jnp.asarray(p_BoBp_B)
        if p.shape != (3,):
            raise ValueError(f"{what}: p_BoBp_B must have shape (3,), got {p.shape}")
        B, A, E = self._own_frame_indices(what, frame_B, frame_A, frame_E)
        self._check_context(context, what)
        return jac.jacobian_spatial_velocity(self._model, context, with_respect_to, B, p, A, E)

    def CalcJacobianAngularVelocity(self, context, with_respect_to, frame_B, frame_A, frame_E):
        """``Js_w_AB_E``: (3, nv or nq) Jacobian of B's angular velocity in A, expressed in E."""
        what = "CalcJacobianAngularVelocity"
        jac.check_wrt(with_respect_to, what)
        B, A, E = self._own_frame_indices(what, frame_B, frame_A, frame_E)
        self._check_context(context, what)
        return jac.jacobian_angular_velocity(self._model, context, with_respect_to, B, A, E)

    def CalcJacobianTranslationalVelocity(self, context, with_respect_to, frame_B, p_BoBi_B,
                                          frame_A, frame_E):
        """``Js_v_ABi_E``: (3n, nv or nq) Jacobian of the velocities of n points Bi of frame_B
        (``p_BoBi_B``: (3,) or (3, n)) measured in ``frame_A``, expressed in ``frame_E``."""
        what = "CalcJacobianTranslationalVelocity"
        jac.check_wrt(with_respect_to, what)
        B, A, E = self._own_frame_indices(what, frame_B, frame_A, frame_E)
        self._check_context(context, what)
        return jac.jacobian_translational_velocity(self._model, context, with_respect_to, B,
                                                   p_BoBi_B, A, E)

    def CalcJacobianCenterOfMassTranslationalVelocity(self, context, *args):
        """``Js_v_AScm_E`` (3, nv or nq) for all bodies (or the given model instances):
        ``(context, with_respect_to, frame_A, frame_E)`` or
        ``(context, model_instances, with_respect_to, frame_A, frame_E)``."""
        what = "CalcJacobianCenterOfMassTranslationalVelocity"
        instances, (with_respect_to, frame_A, frame_E) = split_instances(args, 3)
        jac.check_wrt(with_respect_to, what)
        jac.require_world(int(frame_A.index()), what)
        self._check_context(context, what)
        return jac.jacobian_com_translational_velocity(
            self._model, context, instances, with_respect_to, int(frame_E.index()), what)

    # --- Bias accelerations -------------------------------------------------------------------
    def CalcBiasSpatialAcceleration(self, context, with_respect_to, frame_B, p_BoBp_B, frame_A,
                                    frame_E):
        """``AsBias_ABp_E``: the v̇-independent part J̇ v of frame Bp's spatial acceleration in A."""
        what = "CalcBiasSpatialAcceleration"
        jac.require_kv(with_respect_to, what)
        if jnp.shape(p_BoBp_B) != (3,):
            raise ValueError(f"{what}: p_BoBp_B must have shape (3,), got {jnp.shape(p_BoBp_B)}")
        B, A, E = self._own_frame_indices(what, frame_B, frame_A, frame_E)
        self._check_context(context, what)
        return jac.bias_spatial_acceleration(self._model, context, B, p_BoBp_B, A, E, what)

    def CalcBiasTranslationalAcceleration(self, context, with_respect_to, frame_B, p_BoBi_B,
                                          frame_A, frame_E):
        """``asBias_ABi_E``: (3, n) bias translational accelerations of points Bi in A."""
        what = "CalcBiasTranslationalAcceleration"
        jac.require_kv(with_respect_to, what)
        B, A, E = self._own_frame_indices(what, frame_B, frame_A, frame_E)
        self._check_context(context, what)
        return jac.bias_translational_acceleration(self._model, context, B, p_BoBi_B, A, E, what)

    def CalcBiasCenterOfMassTranslationalAcceleration(self, context, *args):
        """``asBias_AScm_E`` (3,): ``(context, [model_instances,] with_respect_to, frame_A,
        frame_E)``; frame_A must be World (as in Drake)."""
        what = "CalcBiasCenterOfMassTranslationalAcceleration"
        instances, (with_respect_to, frame_A, frame_E) = split_instances(args, 3)
        jac.require_kv(with_respect_to, what)
        jac.require_world(int(frame_A.index()), what)
        self._check_context(context, what)
        return jac.bias_com_translational_acceleration(self._model, context, instances,
                                                       int(frame_E.index()), what)
