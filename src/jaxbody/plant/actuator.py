"""`JointActuator`: an actuator on a single-dof joint, as Drake's ``JointActuator``, optionally
PD-controlled (`PdControllerGains`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxbody.core.elements import MultibodyElement
from jaxbody.plant.default_parameters import pd_actuators


@dataclasses.dataclass(frozen=True)
class PdControllerGains:
    """Drake's ``PdControllerGains``: proportional gain ``p`` (N·m/rad or N/m) and derivative
    gain ``d`` (N·m·s/rad or N·s/m) of an implicit PD controller on an actuator (see
    `JointActuator.set_controller_gains`)."""

    p: float = 0.0
    d: float = 0.0


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
        self._gains = None

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

    # --- PD control (Drake's PD-controlled actuators) --------------------------------------
    def set_controller_gains(self, gains):
        """Makes this actuator PD-controlled with ``gains`` (a `PdControllerGains`), as
        Drake's: in a discrete step it applies u = clamp(−Kp(q − q_d) − Kd(v − v_d) + u_ff,
        −e, e), implicitly inside the SAP problem, where (q_d, v_d) is the step's
        ``desired_state`` (`MultibodyPlant.CalcDiscreteStep`) and u_ff the actuation input;
        in a continuous plant the same law explicitly at the current state
        (`MultibodyPlant.CalcTimeDerivatives`'s ``desired_state``). Without a desired state
        the controller is disarmed (no effect, the actuation input applies as usual). Before
        Finalize(); afterwards use `SetControllerGains`.

        Raises:
            ValueError: gains that are negative, not finite, or both zero.
        """
        self._before_finalize("set_controller_gains")
        self._gains = _check_gains(self._name, gains)

    def has_controller(self) -> bool:
        """Whether this actuator is PD-controlled (`set_controller_gains` was called)."""
        return self._gains is not None

    def get_controller_gains(self):
        """The default `PdControllerGains`.

        Raises:
            RuntimeError: the actuator has no controller.
        """
        if self._gains is None:
            raise RuntimeError(f"JointActuator '{self._name}': no controller gains were set "
                               "(set_controller_gains)")
        return self._gains

    def _pd_slot(self, what):
        if self._gains is None:
            raise RuntimeError(f"JointActuator '{self._name}': {what}: the actuator has no "
                               "controller (set_controller_gains before Finalize())")
        return [int(a.index()) for a in pd_actuators(self._plant)].index(int(self._index))

    def GetControllerGains(self, context):
        """The `PdControllerGains` in ``context`` (traced values under jit)."""
        i, c = self._pd_slot("GetControllerGains"), context.parameters.constraints
        return PdControllerGains(c["pd_kp"][i], c["pd_kd"][i])

    def SetControllerGains(self, context, gains):
        """A new Context with this actuator's gains replaced (values may be traced: vmap and
        grad over gains)."""
        i = self._pd_slot("SetControllerGains")
        try:
            _check_gains(self._name, gains)
        except TypeError:  # traced values
            pass
        return self._plant._with_constraint_values(context, [("pd_kp", i, gains.p),
                                                             ("pd_kd", i, gains.d)])

    def _before_finalize(self, what):
        if self._plant is not None and self._plant.is_finalized():
            raise RuntimeError(f"JointActuator '{self._name}': {what} after Finalize()")


def _check_gains(name, gains):
    if not isinstance(gains, PdControllerGains):
        raise ValueError(f"JointActuator '{name}': gains must be PdControllerGains(p, d), got "
                         f"{type(gains).__name__}")
    p, d = float(gains.p), float(gains.d)
    if not (np.isfinite(p) and np.isfinite(d) and p >= 0 and d >= 0 and p + d > 0):
        raise ValueError(f"JointActuator '{name}': PD gains must be finite, >= 0 and not both "
                         f"zero, got p={p!r}, d={d!r}")
    return PdControllerGains(p, d)
