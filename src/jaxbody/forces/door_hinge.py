"""`DoorHinge`: Drake's revolute-joint model of a door hinge (spring, catch and friction).

With s(t, x) = tanh(x/t), singlet = 1 − s², doublet = 2 s (1 − s²) [Drake ``door_hinge.cc``]:
    τ_friction = −(τ_dyn s(q̇_th, q̇) + τ_static doublet(q̇_th, q̇) + b q̇)
    τ_spring   = τ_catch doublet(w_c/2, q − w_c/2) − k (q − q_s0)
    U = ½ k ((q − q_s0)² − q_s0²) + τ_catch (w_c/2) (singlet(w_c/2, q − w_c/2) − singlet(w_c/2, −w_c/2))
    Pc = q̇ τ_spring,   Pnc = q̇ τ_friction.
With motion_threshold = 0 Drake returns τ_friction = +b q̇ (no minus sign, no Coulomb terms),
and catch_width = 0 drops the catch; both branches are reproduced, chosen from the
constructor's config (static), while every config number is a context parameter.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

from jaxbody.forces.force_element import ForceElement, _nonnegative
from jaxbody.joints import RevoluteJoint

_FIELDS = ("spring_zero_angle_rad", "spring_constant", "dynamic_friction_torque",
           "static_friction_torque", "viscous_friction", "catch_width", "catch_torque",
           "motion_threshold")


@dataclasses.dataclass
class DoorHingeConfig:
    """Door hinge constants (Drake's defaults).

    Attributes:
        spring_zero_angle_rad: q_s0, angle where the spring torque is zero (rad).
        spring_constant: k >= 0 (N·m/rad).
        dynamic_friction_torque: τ_dyn >= 0 (N·m).
        static_friction_torque: τ_static >= 0 (N·m).
        viscous_friction: b >= 0 (N·m·s/rad).
        catch_width: w_c >= 0, width of the catch near q = 0 (rad).
        catch_torque: τ_catch, peak catch torque (N·m).
        motion_threshold: q̇_th >= 0, rate scale of the friction curves (rad/s).
    """

    spring_zero_angle_rad: float = -1.5
    spring_constant: float = 1.5
    dynamic_friction_torque: float = 3.0
    static_friction_torque: float = 2.0
    viscous_friction: float = 1.0
    catch_width: float = 0.02
    catch_torque: float = 15.0
    motion_threshold: float = 0.001


def _curves(t, x):
    s = jnp.tanh(x / t)
    singlet = 1.0 - s * s
    return s, singlet, 2.0 * s * singlet


class DoorHinge(ForceElement):
    """A hinge torque on a `RevoluteJoint` (see the module docstring for the model).

    Args:
        joint: the `RevoluteJoint`.
        config: `DoorHingeConfig`.

    Raises:
        ValueError: if a constant that must be non-negative is negative.
    """

    def __init__(self, joint, config: DoorHingeConfig):
        if not isinstance(joint, RevoluteJoint):
            raise TypeError(f"DoorHinge: expected a RevoluteJoint, got {type(joint).__name__}")
        for name in ("spring_constant", "dynamic_friction_torque", "static_friction_torque",
                     "viscous_friction", "catch_width", "motion_threshold"):
            _nonnegative(f"DoorHinge: config.{name}", getattr(config, name))
        super().__init__(joint.model_instance())
        self._joint = joint
        self._config = dataclasses.replace(config)

    def joint(self):
        return self._joint

    def config(self) -> DoorHingeConfig:
        return dataclasses.replace(self._config)

    def _attach(self, plant):
        self._owned(plant, self._joint, "joint")

    def _static_key(self):
        return ("DoorHinge", int(self._joint.index()), self._config.motion_threshold == 0,
                self._config.catch_width == 0)

    def _default_parameter_values(self):
        return {f: float(getattr(self._config, f)) for f in _FIELDS}

    def GetConfigParameter(self, context, name):
        """A config constant as stored in the context (jaxbody extension)."""
        return self._get_parameter(context, name)

    def SetConfigParameter(self, context, name, value):
        """A new context with config constant ``name`` set to ``value`` (jaxbody extension)."""
        return self._set_parameter(context, name, value)

    # --- Torques (with the constructor's config, as Drake's public methods) -----------------
    def _defaults(self):
        return {f: jnp.asarray(float(getattr(self._config, f))) for f in _FIELDS}

    def CalcHingeFrictionalTorque(self, angular_rate):
        return self._friction(self._defaults(), jnp.asarray(angular_rate))

    def CalcHingeSpringTorque(self, angle):
        return self._spring(self._defaults(), jnp.asarray(angle))

    def CalcHingeTorque(self, angle, angular_rate):
        p = self._defaults()
        return self._friction(p, jnp.asarray(angular_rate)) + self._spring(p, jnp.asarray(angle))

    def _friction(self, p, rate):
        if self._config.motion_threshold == 0:
            return p["viscous_friction"] * rate  # sic: Drake's sign in this branch
        s, _, doublet = _curves(p["motion_threshold"], rate)
        return -(p["dynamic_friction_torque"] * s + p["static_friction_torque"] * doublet
                 + p["viscous_friction"] * rate)

    def _spring(self, p, angle):
        tau = -p["spring_constant"] * (angle - p["spring_zero_angle_rad"])
        if self._config.catch_width == 0:
            return tau
        c = p["catch_width"] / 2
        _, _, doublet = _curves(c, angle - c)
        return p["catch_torque"] * doublet + tau

    def _energy(self, p, angle):
        off, off0 = angle - p["spring_zero_angle_rad"], -p["spring_zero_angle_rad"]
        energy = 0.5 * p["spring_constant"] * (off * off - off0 * off0)
        if self._config.catch_width != 0:
            c = p["catch_width"] / 2
            _, singlet_q, _ = _curves(c, angle - c)
            _, singlet_0, _ = _curves(c, -c)
            energy = energy + p["catch_torque"] * c * (singlet_q - singlet_0)
        return energy

    # --- Contributions ---------------------------------------------------------------------
    def _qv(self, ek):
        c = ek.context
        return c.q[self._joint.position_start()], c.v[self._joint.velocity_start()]

    def _add_forces(self, ek, params, tau, F):
        q, v = self._qv(ek)
        torque = self._friction(params, v) + self._spring(params, q)
        return tau.at[self._joint.velocity_start()].add(torque), F

    def _potential_energy(self, ek, params):
        return self._energy(params, self._qv(ek)[0])

    def _conservative_power(self, ek, params):
        q, v = self._qv(ek)
        return v * self._spring(params, q)

    def _non_conservative_power(self, ek, params):
        return self._qv(ek)[1] * self._friction(params, self._qv(ek)[1])
