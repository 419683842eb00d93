"""Drake's single- and two-axis joints: revolute, prismatic, screw, universal, planar, weld.

Each class has pydrake's constructor and accessors. Setters take a context and return a new
one (contexts are immutable).
"""

from __future__ import annotations

import numpy as np

from jaxbody.joints import kinds
from jaxbody.joints.joint import Joint
from jaxbody.math import RigidTransform


def _unit_axis(axis, joint_name):
    a = np.asarray(axis, dtype=float).reshape(-1)
    if a.shape != (3,):
        raise ValueError(f"Joint '{joint_name}': axis must have shape (3,), got {a.shape}")
    n = np.linalg.norm(a)
    if not np.isfinite(n) or n < 1e-12:
        raise ValueError(f"Joint '{joint_name}': axis must be a nonzero finite vector, got {a}")
    return a / n


class RevoluteJoint(Joint):
    """Rotation by θ about unit axis â (the same in F and M). q = θ (rad), v = θ̇ (rad/s).

    ``RevoluteJoint(name, frame_on_parent, frame_on_child, axis, damping=0)`` or
    ``RevoluteJoint(name, frame_on_parent, frame_on_child, axis, pos_lower_limit,
    pos_upper_limit, damping=0)``, as in pydrake.
    """

    kind = kinds.Revolute

    def __init__(self, name, frame_on_parent, frame_on_child, axis, *args, damping=None,
                 pos_lower_limit=-np.inf, pos_upper_limit=np.inf):
        if len(args) == 1:
            damping = args[0]
        elif len(args) in (2, 3):
            pos_lower_limit, pos_upper_limit = args[0], args[1]
            if len(args) == 3:
                damping = args[2]
        elif len(args) > 3:
            raise TypeError(f"RevoluteJoint '{name}': too many positional arguments")
        super().__init__(name, frame_on_parent, frame_on_child,
                         damping=0.0 if damping is None else damping,
                         pos_lower_limits=pos_lower_limit, pos_upper_limits=pos_upper_limit,
                         constants={"axis": _unit_axis(axis, name)})

    def revolute_axis(self):
        return self._constants["axis"].copy()

    def damping(self) -> float:
        return float(self._damping[0])

    def default_damping(self) -> float:
        return float(self._damping[0])

    def position_lower_limit(self) -> float:
        return float(self._pos_lower[0])

    def position_upper_limit(self) -> float:
        return float(self._pos_upper[0])

    def get_default_angle(self) -> float:
        return float(self._default_q[0])

    def set_default_angle(self, angle):
        self.set_default_positions([angle])

    def set_random_angle_distribution(self, sampler):
        """``sampler(key)`` -> the angle (rad) `MultibodyPlant.SetRandomState` draws; None:
        the default angle. (Drake takes a symbolic expression of random variables.)"""
        self.set_random_positions_distribution(_scalar_sampler(sampler))

    def get_angle(self, context):
        return self.GetPositions(context)[0]

    def set_angle(self, context, angle):
        return self.SetPositions(context, _as1(angle))

    def get_angular_rate(self, context):
        return self.GetVelocities(context)[0]

    def set_angular_rate(self, context, rate):
        return self.SetVelocities(context, _as1(rate))


def _as1(x):
    import jax.numpy as jnp

    return jnp.reshape(jnp.asarray(x), (1,))


def _scalar_sampler(sampler):
    """A one-coordinate sampler (key -> scalar) as a joint sampler (key -> (1,))."""
    if sampler is None or not callable(sampler):
        return sampler
    return lambda key: _as1(sampler(key))


class PrismaticJoint(Joint):
    """Translation x along unit axis â. q = x (m), v = ẋ (m/s)."""

    kind = kinds.Prismatic

    def __init__(self, name, frame_on_parent, frame_on_child, axis,
                 pos_lower_limit=-np.inf, pos_upper_limit=np.inf, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping,
                         pos_lower_limits=pos_lower_limit, pos_upper_limits=pos_upper_limit,
                         constants={"axis": _unit_axis(axis, name)})

    def translation_axis(self):
        return self._constants["axis"].copy()

    def damping(self) -> float:
        return float(self._damping[0])

    def default_damping(self) -> float:
        return float(self._damping[0])

    def position_lower_limit(self) -> float:
        return float(self._pos_lower[0])

    def position_upper_limit(self) -> float:
        return float(self._pos_upper[0])

    def get_default_translation(self) -> float:
        return float(self._default_q[0])

    def set_default_translation(self, translation):
        self.set_default_positions([translation])

    def set_random_translation_distribution(self, sampler):
        """``sampler(key)`` -> the translation (m) `MultibodyPlant.SetRandomState` draws; None:
        the default translation."""
        self.set_random_positions_distribution(_scalar_sampler(sampler))

    def get_translation(self, context):
        return self.GetPositions(context)[0]

    def set_translation(self, context, translation):
        return self.SetPositions(context, _as1(translation))

    def get_translation_rate(self, context):
        return self.GetVelocities(context)[0]

    def set_translation_rate(self, context, rate):
        return self.SetVelocities(context, _as1(rate))


class ScrewJoint(Joint):
    """Rotation θ about â coupled to translation pitch·θ/(2π) along â. q = θ, v = θ̇.

    ``ScrewJoint(name, F, M, screw_pitch, damping)`` (axis z) or
    ``ScrewJoint(name, F, M, axis, screw_pitch, damping)``, as in pydrake.
    ``screw_pitch`` is the translation in meters per full turn.
    """

    kind = kinds.Screw

    def __init__(self, name, frame_on_parent, frame_on_child, *args, **kwargs):
        if len(args) == 3 or "axis" in kwargs:
            axis, pitch, damping = (list(args) + [None] * 3)[:3]
            axis = kwargs.get("axis", axis)
            pitch = kwargs.get("screw_pitch", pitch)
            damping = kwargs.get("damping", damping)
        else:
            pitch, damping = (list(args) + [None] * 2)[:2]
            axis = [0.0, 0.0, 1.0]
            pitch = kwargs.get("screw_pitch", pitch)
            damping = kwargs.get("damping", damping)
        if pitch is None or not np.isfinite(pitch):
            raise ValueError(f"ScrewJoint '{name}': screw_pitch must be a finite number, got {pitch}")
        super().__init__(name, frame_on_parent, frame_on_child,
                         damping=0.0 if damping is None else damping,
                         constants={"axis": _unit_axis(axis, name), "pitch": float(pitch)})

    def screw_axis(self):
        return self._constants["axis"].copy()

    def screw_pitch(self) -> float:
        return float(self._constants["pitch"])

    def damping(self) -> float:
        return float(self._damping[0])

    def get_rotation(self, context):
        return self.GetPositions(context)[0]

    def set_rotation(self, context, theta):
        return self.SetPositions(context, _as1(theta))

    def get_translation(self, context):
        return self.get_rotation(context) * self.screw_pitch() / (2 * np.pi)

    def set_translation(self, context, z):
        return self.set_rotation(context, z * 2 * np.pi / self.screw_pitch())

    def get_angular_velocity(self, context):
        return self.GetVelocities(context)[0]

    def set_angular_velocity(self, context, w):
        return self.SetVelocities(context, _as1(w))

    def get_translational_velocity(self, context):
        return self.get_angular_velocity(context) * self.screw_pitch() / (2 * np.pi)


class UniversalJoint(Joint):
    """Rotation θ1 about F's x axis, then θ2 about the new y axis: R_FM = Rx(θ1)·Ry(θ2)."""

    kind = kinds.Universal

    def __init__(self, name, frame_on_parent, frame_on_child, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def damping(self) -> float:
        return float(self._damping[0])

    def get_angles(self, context):
        return self.GetPositions(context)

    def set_angles(self, context, angles):
        return self.SetPositions(context, angles)

    def get_angular_rates(self, context):
        return self.GetVelocities(context)

    def set_angular_rates(self, context, rates):
        return self.SetVelocities(context, rates)

    def set_default_angles(self, angles):
        self.set_default_positions(angles)


class PlanarJoint(Joint):
    """Translation (x, y) in F's xy-plane and rotation θ about F's z axis. q = [x, y, θ]."""

    kind = kinds.Planar

    def __init__(self, name, frame_on_parent, frame_on_child, damping=(0.0, 0.0, 0.0)):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def damping(self):
        return self._damping.copy()

    def get_translation(self, context):
        return self.GetPositions(context)[:2]

    def set_translation(self, context, p_FoMo_F):
        q = self.GetPositions(context)
        return self.SetPositions(context, q.at[:2].set(p_FoMo_F))

    def get_rotation(self, context):
        return self.GetPositions(context)[2]

    def set_rotation(self, context, theta):
        q = self.GetPositions(context)
        return self.SetPositions(context, q.at[2].set(theta))

    def set_pose(self, context, p_FoMo_F, theta):
        import jax.numpy as jnp

        return self.SetPositions(
            context, jnp.concatenate([jnp.asarray(p_FoMo_F).reshape(2), _as1(theta)]))

    def get_translational_velocity(self, context):
        return self.GetVelocities(context)[:2]

    def set_translational_velocity(self, context, v_FoMo_F):
        v = self.GetVelocities(context)
        return self.SetVelocities(context, v.at[:2].set(v_FoMo_F))

    def get_angular_velocity(self, context):
        return self.GetVelocities(context)[2]

    def set_angular_velocity(self, context, theta_dot):
        v = self.GetVelocities(context)
        return self.SetVelocities(context, v.at[2].set(theta_dot))


class WeldJoint(Joint):
    """Zero-dof joint fixing M in F at pose ``X_FM`` (a `RigidTransform`)."""

    kind = kinds.Weld

    def __init__(self, name, frame_on_parent_P, frame_on_child_C, X_FM=None):
        X = RigidTransform() if X_FM is None else X_FM
        R = np.asarray(X.rotation().matrix(), float)
        p = np.asarray(X.translation(), float)
        super().__init__(name, frame_on_parent_P, frame_on_child_C,
                         constants={"R_FM": R, "p_FM": p})

    def X_FM(self):
        return RigidTransform(self._constants["R_FM"], self._constants["p_FM"])
