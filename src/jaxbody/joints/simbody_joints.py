"""Joints with Simbody's mobilizers that Drake lacks (seed 004), with Drake-style accessors
and Simbody's fit routines (never throwing: the best fit). Kinematics in `simbody_kinds`."""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.joints import simbody_kinds
from jaxbody.joints.joint import Joint


def _rotation_array(R):
    return R.matrix() if hasattr(R, "matrix") else jnp.asarray(R)


class GimbalJoint(Joint):
    """Simbody's Gimbal: unrestricted orientation as body-fixed 1-2-3 Euler angles.

    q = [θ0, θ1, θ2] with R_FM = Rx(θ0)·Ry(θ1)·Rz(θ2) (rotations about x of F, then the new y,
    then the newest z: three revolute joints in series); v = q̇ (Simbody's u), not Drake's
    BallRpyJoint's w_FM (whose angles are space-fixed x-y-z). Fo = Mo. Singular (the mass
    matrix loses rank) where cos θ1 = 0: forward dynamics raises there, naming the joint.
    """

    kind = simbody_kinds.Gimbal

    def __init__(self, name, frame_on_parent, frame_on_child, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def damping(self) -> float:
        return float(self._damping[0])

    def get_angles(self, context):
        return self.GetPositions(context)

    def set_angles(self, context, angles):
        return self.SetPositions(context, angles)

    def get_angle_rates(self, context):
        return self.GetVelocities(context)

    def set_angle_rates(self, context, rates):
        return self.SetVelocities(context, rates)

    def set_default_angles(self, angles):
        self.set_default_positions(angles)

    def get_angular_velocity(self, context):
        """w_FM_F = H(q) q̇ (rad/s)."""
        q = self.get_angles(context)
        H = simbody_kinds.Gimbal.subspace(q[None], None)[0]
        return H[:3] @ self.get_angle_rates(context)

    # --- Simbody's fit routines ----------------------------------------------------------------
    def SetQToFitRotation(self, context, R_FM):
        """The angles that reproduce ``R_FM`` (a `RotationMatrix` or 3×3), θ1 ∈ [−π/2, π/2]."""
        return self.set_angles(context, simbody_kinds.rotation_to_body_xyz(
            _rotation_array(R_FM)).astype(context.q.dtype))

    def SetQToFitTransform(self, context, X_FM):
        """The rotation of ``X_FM`` (the joint cannot translate, so its translation is
        ignored: the best fit)."""
        return self.SetQToFitRotation(context, X_FM.rotation())

    def SetQToFitTranslation(self, context, p_FM):
        """The joint cannot translate: ``context`` unchanged (the best fit)."""
        return context

    def SetUToFitAngularVelocity(self, context, w_FM):
        """The rates q̇ with H(q) q̇ = w_FM_F, by least squares (exact away from gimbal lock,
        the minimum-norm best fit at it)."""
        q = self.get_angles(context)
        H = simbody_kinds.Gimbal.subspace(q[None], None)[0][:3]
        u = jnp.linalg.lstsq(H, jnp.asarray(w_FM, H.dtype))[0]
        return self.set_angle_rates(context, u)

    def SetUToFitLinearVelocity(self, context, v_FM):
        """The joint cannot translate: ``context`` unchanged (the best fit)."""
        return context


__all__ = ["GimbalJoint"]
