"""Joints with a 3-dof rotation: BallRpyJoint, RpyFloatingJoint, QuaternionFloatingJoint (Drake),
and the quaternion `BallJoint`, `CylindricalJoint` and `TranslationalJoint` (Simbody's Ball,
Cylinder and Translation mobilizers, which Drake lacks).

Roll-pitch-yaw joints use space-fixed x-y-z angles, ``R_FM = Rz(y)·Ry(p)·Rx(r)``; their
``q̇ = N(q) v`` map is singular at pitch = ±π/2 (see `MultibodyPlant.MapVelocityToQDot`).
Quaternion joints store ``[qw, qx, qy, qz]``; a non-unit quaternion describes the rotation of
its normalized value (as in Drake); integrators keep it normalized.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.joints import kinds, simbody_kinds
from jaxbody.joints.joint import Joint
from jaxbody.math import RigidTransform
from jaxbody.math.so3 import (
    project_to_rotation,
    quaternion_to_rotation,
    rotation_to_quaternion,
    rotation_to_rpy,
    rpy_to_rotation,
)


def _rotation_array(R):
    return R.matrix() if hasattr(R, "matrix") else jnp.asarray(R)


class BallRpyJoint(Joint):
    """3-dof ball joint in roll-pitch-yaw coordinates (Drake's SpaceXYZ mobilizer).

    q = [r, p, y] (rad); v = w_FM_F (rad/s), the angular velocity of M in F expressed in F.
    """

    kind = kinds.BallRpy

    def __init__(self, name, frame_on_parent, frame_on_child, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def damping(self) -> float:
        return float(self._damping[0])

    def get_angles(self, context):
        return self.GetPositions(context)

    def set_angles(self, context, angles):
        return self.SetPositions(context, angles)

    def SetFromRotationMatrix(self, context, R_FM):
        """Sets the angles from ``R_FM`` (projected to SO(3) first, as Drake does)."""
        return self.set_angles(context, rotation_to_rpy(project_to_rotation(_rotation_array(R_FM))))

    def get_angular_velocity(self, context):
        return self.GetVelocities(context)

    def set_angular_velocity(self, context, w_FM):
        return self.SetVelocities(context, w_FM)

    def set_default_angles(self, angles):
        self.set_default_positions(angles)


class RpyFloatingJoint(Joint):
    """6-dof joint: q = [r, p, y, x, y, z], v = [w_FM_F, v_FM_F]."""

    kind = kinds.RpyFloating

    def __init__(self, name, frame_on_parent, frame_on_child, angular_damping=0.0,
                 translational_damping=0.0):
        d = np.concatenate([np.full(3, float(angular_damping)),
                            np.full(3, float(translational_damping))])
        super().__init__(name, frame_on_parent, frame_on_child, damping=d)

    def angular_damping(self) -> float:
        return float(self._damping[0])

    def translational_damping(self) -> float:
        return float(self._damping[3])

    def get_angles(self, context):
        return self.GetPositions(context)[:3]

    def set_angles(self, context, angles):
        q = self.GetPositions(context)
        return self.SetPositions(context, q.at[:3].set(angles))

    def get_translation(self, context):
        return self.GetPositions(context)[3:]

    def set_translation(self, context, p_FM):
        q = self.GetPositions(context)
        return self.SetPositions(context, q.at[3:].set(p_FM))

    def get_pose(self, context):
        q = self.GetPositions(context)
        return RigidTransform(rpy_to_rotation(q[:3]), q[3:])

    def set_pose(self, context, X_FM):
        rpy = rotation_to_rpy(X_FM.rotation().matrix())
        return self.SetPositions(context, jnp.concatenate([rpy, jnp.asarray(X_FM.translation())]))

    def SetFromRotationMatrix(self, context, R_FM):
        return self.set_angles(context, rotation_to_rpy(_rotation_array(R_FM)))

    def get_angular_velocity(self, context):
        return self.GetVelocities(context)[:3]

    def set_angular_velocity(self, context, w_FM):
        v = self.GetVelocities(context)
        return self.SetVelocities(context, v.at[:3].set(w_FM))

    def get_translational_velocity(self, context):
        return self.GetVelocities(context)[3:]

    def set_translational_velocity(self, context, v_FM):
        v = self.GetVelocities(context)
        return self.SetVelocities(context, v.at[3:].set(v_FM))


class QuaternionFloatingJoint(RpyFloatingJoint):
    """6-dof joint: q = [qw, qx, qy, qz, x, y, z], v = [w_FM_F, v_FM_F].

    This is the joint Finalize() gives to bodies left without an inboard joint.
    """

    kind = kinds.QuaternionFloating

    def get_quaternion(self, context):
        return self.GetPositions(context)[:4]

    def set_quaternion(self, context, q_FM):
        q = self.GetPositions(context)
        return self.SetPositions(context, q.at[:4].set(q_FM))

    def get_translation(self, context):
        return self.GetPositions(context)[4:]

    def set_translation(self, context, p_FM):
        q = self.GetPositions(context)
        return self.SetPositions(context, q.at[4:].set(p_FM))

    def get_angles(self, context):
        raise AttributeError("QuaternionFloatingJoint has no angles; use get_quaternion()")

    def get_pose(self, context):
        q = self.GetPositions(context)
        return RigidTransform(quaternion_to_rotation(q[:4]), q[4:])

    def set_pose(self, context, X_FM):
        quat = rotation_to_quaternion(X_FM.rotation().matrix())
        return self.SetPositions(context, jnp.concatenate([quat, jnp.asarray(X_FM.translation())]))

    def SetFromRotationMatrix(self, context, R_FM):
        return self.set_quaternion(context, rotation_to_quaternion(_rotation_array(R_FM)))

    def set_default_quaternion(self, q_FM):
        q = self.default_positions()
        q[:4] = np.asarray(q_FM, float)
        self.set_default_positions(q)

    def set_default_translation(self, p_FM):
        q = self.default_positions()
        q[4:] = np.asarray(p_FM, float)
        self.set_default_positions(q)

    _random_parts = (False, None)  # (uniform quaternion?, translation sampler or None)

    def set_random_positions_distribution(self, sampler):
        """A sampler of the whole q = [quaternion; translation] (7,); it replaces the parts set
        by the two methods below."""
        self._random_parts = (False, None)
        super().set_random_positions_distribution(sampler)

    def set_random_quaternion_distribution_to_uniform(self):
        """`MultibodyPlant.SetRandomState` draws q_FM uniformly over the unit quaternions (a
        normalized 4-D standard normal), keeping any random position distribution."""
        self._set_parts_sampler(True, self._random_parts[1])

    def set_random_position_distribution(self, sampler):
        """``sampler(key)`` -> p_FM (3,) that `MultibodyPlant.SetRandomState` draws; None: the
        default translation."""
        self._set_parts_sampler(self._random_parts[0], sampler)

    def _set_parts_sampler(self, uniform, position):
        import jax

        if position is not None and not callable(position):
            raise TypeError(f"Joint '{self._name}': the random position distribution must be a "
                            f"callable key -> (3,) array, got {type(position).__name__}")

        def sampler(key):
            default = self.default_positions()  # read at draw time: defaults may change
            k_quat, k_pos = jax.random.split(key)
            quat = default[:4]
            if uniform:
                g = jax.random.normal(k_quat, (4,))
                quat = g / jnp.linalg.norm(g)
            p = default[4:] if position is None else jnp.reshape(position(k_pos), (3,))
            return jnp.concatenate([jnp.asarray(quat), jnp.asarray(p)])

        super().set_random_positions_distribution(
            sampler if uniform or position is not None else None)
        self._random_parts = (uniform, position)


class BallJoint(Joint):
    """Simbody's Ball mobilizer: q = quaternion [qw, qx, qy, qz] of R_FM, v = w_FM_F."""

    kind = simbody_kinds.Ball

    def __init__(self, name, frame_on_parent, frame_on_child, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def get_quaternion(self, context):
        return self.GetPositions(context)

    def set_quaternion(self, context, q_FM):
        return self.SetPositions(context, q_FM)

    def SetFromRotationMatrix(self, context, R_FM):
        return self.set_quaternion(context, rotation_to_quaternion(_rotation_array(R_FM)))

    def get_angular_velocity(self, context):
        return self.GetVelocities(context)

    def set_angular_velocity(self, context, w_FM):
        return self.SetVelocities(context, w_FM)


class CylindricalJoint(Joint):
    """Simbody's Cylinder mobilizer: rotation θ about and translation z along the common z axis.

    q = [θ, z], v = [θ̇, ż].
    """

    kind = simbody_kinds.Cylindrical

    def __init__(self, name, frame_on_parent, frame_on_child, damping=(0.0, 0.0)):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def get_angle(self, context):
        return self.GetPositions(context)[0]

    def get_translation(self, context):
        return self.GetPositions(context)[1]


class TranslationalJoint(Joint):
    """Simbody's Translation (Cartesian) mobilizer: q = p_FoMo_F, v = v_FM_F; R_FM = I."""

    kind = simbody_kinds.Translational

    def __init__(self, name, frame_on_parent, frame_on_child, damping=(0.0, 0.0, 0.0)):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def get_translation(self, context):
        return self.GetPositions(context)

    def set_translation(self, context, p_FM):
        return self.SetPositions(context, p_FM)

    def get_translational_velocity(self, context):
        return self.GetVelocities(context)

    def set_translational_velocity(self, context, v_FM):
        return self.SetVelocities(context, v_FM)


def floating_positions(X_WB, nq):
    """A floating joint's coordinates of the pose ``X_WB`` (`RigidTransform`): [quaternion wxyz;
    p] for a `QuaternionFloatingJoint` (nq = 7), [roll-pitch-yaw; p] for an `RpyFloatingJoint`
    (nq = 6). NumPy, host side (default positions)."""
    R = np.asarray(X_WB.rotation().matrix(), float)
    rot = rotation_to_quaternion(R) if nq == 7 else rotation_to_rpy(R)
    return np.concatenate([np.asarray(rot, float), np.asarray(X_WB.translation(), float)])
