"""The `Joint` base class: frames, coordinates, limits, damping and context accessors.

A joint connects frame F on the parent body P (``frame_on_parent``) to frame M on the child
body B (``frame_on_child``). Its kinematics come from its `JointKind` (see `kinds.py`).
Concrete joints (`RevoluteJoint`, ...) add Drake's kind-specific accessors.
"""

from __future__ import annotations

import numpy as np

from jaxbody.core.elements import Frame, MultibodyElement
from jaxbody.joints.kinds import JointKind


def _vec(x, n, what, joint_name):
    a = np.asarray(x, dtype=float)
    if a.ndim == 0:
        a = np.full(n, float(a))
    if a.shape != (n,):
        raise ValueError(f"Joint '{joint_name}': {what} must have shape ({n},), got {a.shape}")
    return a


class Joint(MultibodyElement):
    """Base class of all joints. Subclasses set ``kind`` (a `JointKind`)."""

    kind: type[JointKind] = JointKind

    def __init__(self, name, frame_on_parent, frame_on_child, *, damping=0.0,
                 pos_lower_limits=-np.inf, pos_upper_limits=np.inf,
                 vel_lower_limits=-np.inf, vel_upper_limits=np.inf,
                 acc_lower_limits=-np.inf, acc_upper_limits=np.inf, constants=None):
        for label, f in (("frame_on_parent", frame_on_parent), ("frame_on_child", frame_on_child)):
            if not isinstance(f, Frame):
                raise TypeError(f"Joint '{name}': {label} must be a Frame, got {type(f).__name__}")
        super().__init__(name, frame_on_child.model_instance())
        if frame_on_parent.body() is frame_on_child.body():
            raise ValueError(
                f"Joint '{name}': frame_on_parent and frame_on_child are both on body "
                f"'{frame_on_child.body().name()}'; a body cannot be joined to itself")
        nq, nv = self.kind.nq, self.kind.nv
        self._frame_on_parent = frame_on_parent
        self._frame_on_child = frame_on_child
        self._constants = {k: np.asarray(v, float) for k, v in (constants or {}).items()}
        self._damping = _vec(damping, nv, "damping", name)
        if np.any(self._damping < 0) or not np.all(np.isfinite(self._damping)):
            raise ValueError(f"Joint '{name}': damping must be finite and >= 0, got {self._damping}")
        self._pos_lower = _vec(pos_lower_limits, nq, "position lower limits", name)
        self._pos_upper = _vec(pos_upper_limits, nq, "position upper limits", name)
        self._vel_lower = _vec(vel_lower_limits, nv, "velocity lower limits", name)
        self._vel_upper = _vec(vel_upper_limits, nv, "velocity upper limits", name)
        self._acc_lower = _vec(acc_lower_limits, nv, "acceleration lower limits", name)
        self._acc_upper = _vec(acc_upper_limits, nv, "acceleration upper limits", name)
        self._check_limits()
        self._default_q = np.asarray(self.kind.default_q(), float)
        self._random_sampler = None  # key -> q, for MultibodyPlant.SetRandomState
        self._position_start = None
        self._velocity_start = None

    def _check_limits(self):
        for what, lo, hi in (("position", self._pos_lower, self._pos_upper),
                             ("velocity", self._vel_lower, self._vel_upper),
                             ("acceleration", self._acc_lower, self._acc_upper)):
            if np.any(lo > hi):
                raise ValueError(
                    f"Joint '{self._name}': {what} lower limits {lo} exceed upper limits {hi}")

    # --- Topology ---------------------------------------------------------------------------
    def type_name(self) -> str:
        return self.kind.name

    def frame_on_parent(self) -> Frame:
        return self._frame_on_parent

    def frame_on_child(self) -> Frame:
        return self._frame_on_child

    def parent_body(self):
        return self._frame_on_parent.body()

    def child_body(self):
        return self._frame_on_child.body()

    def num_positions(self) -> int:
        return self.kind.nq

    def num_velocities(self) -> int:
        return self.kind.nv

    def position_start(self) -> int:
        self._require_plant()._require_finalized("Joint.position_start")
        return self._position_start

    def velocity_start(self) -> int:
        self._require_plant()._require_finalized("Joint.velocity_start")
        return self._velocity_start

    def _is_floating_kind(self) -> bool:
        return self.kind.nv == 6

    def _has_quaternion(self) -> bool:
        return self.kind.has_quaternion

    def _q_slice(self):
        s = self.position_start()
        return slice(s, s + self.kind.nq)

    def _v_slice(self):
        s = self.velocity_start()
        return slice(s, s + self.kind.nv)

    # --- Limits and damping -------------------------------------------------------------------
    def position_lower_limits(self):
        return self._pos_lower.copy()

    def position_upper_limits(self):
        return self._pos_upper.copy()

    def velocity_lower_limits(self):
        return self._vel_lower.copy()

    def velocity_upper_limits(self):
        return self._vel_upper.copy()

    def acceleration_lower_limits(self):
        return self._acc_lower.copy()

    def acceleration_upper_limits(self):
        return self._acc_upper.copy()

    def _before_finalize(self, what):
        if self._plant is not None and self._plant.is_finalized():
            raise RuntimeError(f"Joint '{self._name}': {what} after Finalize()")

    def set_position_limits(self, lower_limits, upper_limits):
        self._before_finalize("set_position_limits")
        self._pos_lower = _vec(lower_limits, self.kind.nq, "position lower limits", self._name)
        self._pos_upper = _vec(upper_limits, self.kind.nq, "position upper limits", self._name)
        self._check_limits()

    def set_velocity_limits(self, lower_limits, upper_limits):
        self._before_finalize("set_velocity_limits")
        self._vel_lower = _vec(lower_limits, self.kind.nv, "velocity lower limits", self._name)
        self._vel_upper = _vec(upper_limits, self.kind.nv, "velocity upper limits", self._name)
        self._check_limits()

    def set_acceleration_limits(self, lower_limits, upper_limits):
        self._before_finalize("set_acceleration_limits")
        self._acc_lower = _vec(lower_limits, self.kind.nv, "acceleration lower limits", self._name)
        self._acc_upper = _vec(upper_limits, self.kind.nv, "acceleration upper limits", self._name)
        self._check_limits()

    def default_damping_vector(self):
        return self._damping.copy()

    def set_default_damping_vector(self, damping):
        self._before_finalize("set_default_damping_vector")
        d = _vec(damping, self.kind.nv, "damping", self._name)
        if np.any(d < 0):
            raise ValueError(f"Joint '{self._name}': damping must be >= 0, got {d}")
        self._damping = d

    def GetDampingVector(self, context):
        return context.parameters.damping[self._v_slice()]

    def SetDampingVector(self, context, damping):
        return context._with_parameter_slice("damping", self._v_slice(), damping)

    # --- Default and context coordinates ---------------------------------------------------------
    def default_positions(self):
        return self._default_q.copy()

    def set_default_positions(self, default_positions):
        q = _vec(default_positions, self.kind.nq, "default positions", self._name)
        self._default_q = q
        if self._plant is not None and self._plant.is_finalized():
            self._plant._default_q[self._q_slice()] = q
            self._plant._model_changed()

    def set_random_positions_distribution(self, sampler):
        """Draws this joint's q in ``plant.SetRandomState`` from ``sampler(key)`` (a JAX PRNG key
        -> (num_positions,) array, pure JAX so that the draw jits and vmaps); None restores the
        default positions. Drake's joints take symbolic expressions of random variables instead
        (``set_random_angle_distribution`` and the like, offered under those names too)."""
        if sampler is not None and not callable(sampler):
            raise TypeError(f"Joint '{self._name}': the random distribution must be a callable "
                            f"key -> ({self.kind.nq},) array, got {type(sampler).__name__}")
        self._random_sampler = sampler
        if self._plant is not None and self._plant.is_finalized():
            self._plant._model_changed()  # the model holds the samplers

    def GetPositions(self, context):
        return context.q[self._q_slice()]

    def SetPositions(self, context, q):
        return context._with_q_slice(self._q_slice(), q, f"Joint '{self._name}' positions")

    def GetVelocities(self, context):
        return context.v[self._v_slice()]

    def SetVelocities(self, context, v):
        return context._with_v_slice(self._v_slice(), v, f"Joint '{self._name}' velocities")

    def can_rotate(self) -> bool:
        return self.kind.rotates

    def can_translate(self) -> bool:
        return self.kind.translates

    def _static_key(self):
        """Everything about this joint that traced code depends on (for plant hashing)."""
        return (self.kind.name, self._name, int(self._frame_on_parent.index()),
                int(self._frame_on_child.index()),
                tuple((k, v.tobytes()) for k, v in sorted(self._constants.items())))
