"""`JointActuator`: an actuator on a single-dof joint, as Drake's ``JointActuator``."""

from __future__ import annotations

import numpy as np

from jaxbody.plant.elements import MultibodyElement


class JointActuator(MultibodyElement):
    """Applies a generalized force u (N·m or N) to the single dof of ``joint``.

    Args:
        name: unique within the joint's model instance.
        joint: the actuated joint (must have exactly one velocity).
        effort_limit: ``|u| <= effort_limit``; must be > 0 (default +∞).
    """

    def __init__(self, name, joint, effort_limit=np.inf):
        super().__init__(name, joint.model_instance())
        if joint.num_velocities() != 1:
            raise ValueError(
                f"JointActuator '{name}': joint '{joint.name()}' has {joint.num_velocities()} "
                "velocities; actuators need a joint with exactly one")
        effort_limit = float(effort_limit)
        if not effort_limit > 0:
            raise ValueError(f"JointActuator '{name}': effort_limit must be > 0, got {effort_limit}")
        self._joint = joint
        self._effort_limit = effort_limit
        self._rotor_inertia = 0.0
        self._gear_ratio = 1.0

    def joint(self):
        return self._joint

    def effort_limit(self) -> float:
        return self._effort_limit

    def input_start(self) -> int:
        return int(self._index)

    def num_inputs(self) -> int:
        return 1

    def default_rotor_inertia(self) -> float:
        return self._rotor_inertia

    def default_gear_ratio(self) -> float:
        return self._gear_ratio

    def set_default_rotor_inertia(self, rotor_inertia):
        self._before_finalize("set_default_rotor_inertia")
        if not rotor_inertia >= 0:
            raise ValueError(f"JointActuator '{self._name}': rotor inertia must be >= 0")
        self._rotor_inertia = float(rotor_inertia)

    def set_default_gear_ratio(self, gear_ratio):
        self._before_finalize("set_default_gear_ratio")
        self._gear_ratio = float(gear_ratio)

    def default_reflected_inertia(self) -> float:
        return self._rotor_inertia * self._gear_ratio**2

    def rotor_inertia(self, context):
        return context.parameters.rotor_inertia[int(self._index)]

    def gear_ratio(self, context):
        return context.parameters.gear_ratio[int(self._index)]

    def SetRotorInertia(self, context, rotor_inertia):
        """A new context with this actuator's rotor inertia (kg·m²)."""
        return context._with_parameter("rotor_inertia", int(self._index), rotor_inertia)

    def SetGearRatio(self, context, gear_ratio):
        return context._with_parameter("gear_ratio", int(self._index), gear_ratio)

    def calc_reflected_inertia(self, context):
        return self.rotor_inertia(context) * self.gear_ratio(context) ** 2

    def _before_finalize(self, what):
        if self._plant is not None and self._plant.is_finalized():
            raise RuntimeError(f"JointActuator '{self._name}': {what} after Finalize()")
