"""Springs: `LinearSpringDamper` (between two body points), `RevoluteSpring`, `PrismaticSpring`.

LinearSpringDamper [Drake ``linear_spring_damper.cc``], points P on A and Q on B:
    ℓ = ‖p_PQ‖ₛ = √(p_PQ·p_PQ + (ε ℓ₀)²)  (Drake's soft norm, ε = float64 machine epsilon)
    r̂ = p_PQ/ℓ,   ℓ̇ = (v_WQ − v_WP)·r̂
    f_AP = (k (ℓ − ℓ₀) + d ℓ̇) r̂  on A at P,   −f_AP on B at Q
    U = ½ k (ℓ − ℓ₀)²,   Pc = −k (ℓ − ℓ₀) ℓ̇,   Pnc = −d ℓ̇²
Joint springs: τ = −k (θ − θ₀) (N·m) or −k (x − x₀) (N), U = ½ k (θ − θ₀)², Pc = τ θ̇.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.forces.force_element import ForceElement, _nonnegative, add_force_at_point
from jaxbody.joints import PrismaticJoint, RevoluteJoint
from jaxbody.math.rotation import _is_concrete

_EPS = float(np.finfo(np.float64).eps)


class LinearSpringDamper(ForceElement):
    """A linear spring-damper between point P of ``bodyA`` and point Q of ``bodyB``.

    Args:
        bodyA, bodyB: the two `RigidBody`s.
        p_AP: (3,) P in A's frame (m). p_BQ: (3,) Q in B's frame (m).
        free_length: ℓ₀ > 0 (m). stiffness: k >= 0 (N/m). damping: d >= 0 (N·s/m).

    Raises:
        ValueError: (eagerly) when ‖p_PQ‖ < ε ℓ₀, as Drake ("The length of the spring became
            nearly zero"); under tracing the soft norm keeps the force finite instead.
    """

    def __init__(self, bodyA, p_AP, bodyB, p_BQ, free_length, stiffness, damping):
        super().__init__(bodyA.model_instance())
        if not float(free_length) > 0:
            raise ValueError(f"LinearSpringDamper: free_length must be > 0, got {free_length}")
        self._bodyA, self._bodyB = bodyA, bodyB
        self._p_AP = np.asarray(p_AP, float).reshape(3)
        self._p_BQ = np.asarray(p_BQ, float).reshape(3)
        self._free_length = float(free_length)
        self._stiffness = float(_nonnegative("LinearSpringDamper: stiffness", stiffness))
        self._damping = float(_nonnegative("LinearSpringDamper: damping", damping))

    def bodyA(self):
        return self._bodyA

    def bodyB(self):
        return self._bodyB

    def p_AP(self) -> np.ndarray:
        return self._p_AP.copy()

    def p_BQ(self) -> np.ndarray:
        return self._p_BQ.copy()

    def free_length(self) -> float:
        """Default free length (the context's is `GetFreeLength`)."""
        return self._free_length

    def stiffness(self) -> float:
        return self._stiffness

    def damping(self) -> float:
        return self._damping

    # jaxbody extensions: the constants live in the context.
    def GetFreeLength(self, context):
        return self._get_parameter(context, "free_length")

    def SetFreeLength(self, context, free_length):
        return self._set_parameter(context, "free_length", free_length)

    def GetStiffness(self, context):
        return self._get_parameter(context, "stiffness")

    def SetStiffness(self, context, stiffness):
        return self._set_parameter(context, "stiffness", stiffness)

    def GetDamping(self, context):
        return self._get_parameter(context, "damping")

    def SetDamping(self, context, damping):
        return self._set_parameter(context, "damping", damping)

    def _attach(self, plant):
        self._owned(plant, self._bodyA, "bodyA")
        self._owned(plant, self._bodyB, "bodyB")

    def _static_key(self):
        return ("LinearSpringDamper", int(self._bodyA.index()), int(self._bodyB.index()),
                tuple(self._p_AP), tuple(self._p_BQ))

    def _default_parameter_values(self):
        return {"free_length": self._free_length, "stiffness": self._stiffness,
                "damping": self._damping}

    # --- Math ------------------------------------------------------------------------------
    def _geometry(self, ek, params):
        a, b = int(self._bodyA.index()), int(self._bodyB.index())
        dtype = ek.p_WB.dtype
        p_WP = ek.p_WB[a] + ek.R_WB[a] @ jnp.asarray(self._p_AP, dtype)
        p_WQ = ek.p_WB[b] + ek.R_WB[b] @ jnp.asarray(self._p_BQ, dtype)
        p_PQ = p_WQ - p_WP
        eps_len = _EPS * params["free_length"]
        x2 = p_PQ @ p_PQ
        if _is_concrete(x2, eps_len) and float(x2) < float(eps_len) ** 2:
            raise ValueError("LinearSpringDamper: The length of the spring became nearly zero. "
                             "Revisit your model to avoid this situation.")
        length = jnp.sqrt(x2 + eps_len**2)
        r = p_PQ / length
        length_dot = (ek.point_velocity(b, p_WQ) - ek.point_velocity(a, p_WP)) @ r
        return p_WP, p_WQ, length, r, length_dot

    def _add_forces(self, ek, params, tau, F):
        p_WP, p_WQ, length, r, length_dot = self._geometry(ek, params)
        f_AP = (params["stiffness"] * (length - params["free_length"])
                + params["damping"] * length_dot) * r
        F = add_force_at_point(F, int(self._bodyA.index()), p_WP, f_AP, ek.p_WB)
        F = add_force_at_point(F, int(self._bodyB.index()), p_WQ, -f_AP, ek.p_WB)
        return tau, F

    def _potential_energy(self, ek, params):
        _, _, length, _, _ = self._geometry(ek, params)
        return 0.5 * params["stiffness"] * (length - params["free_length"]) ** 2

    def _conservative_power(self, ek, params):
        _, _, length, _, length_dot = self._geometry(ek, params)
        return -params["stiffness"] * (length - params["free_length"]) * length_dot

    def _non_conservative_power(self, ek, params):
        _, _, _, _, length_dot = self._geometry(ek, params)
        return -params["damping"] * length_dot**2


class _JointSpring(ForceElement):
    """τ = −k (q − q₀) on the single dof of a 1-dof joint."""

    _joint_type = None
    _nominal = "nominal"

    def __init__(self, joint, nominal, stiffness):
        cls = {"RevoluteSpring": RevoluteJoint, "PrismaticSpring": PrismaticJoint}[type(self).__name__]
        if not isinstance(joint, cls):
            raise TypeError(f"{type(self).__name__}: expected a {cls.__name__}, got "
                            f"{type(joint).__name__} '{getattr(joint, 'name', lambda: '?')()}'")
        super().__init__(joint.model_instance())
        self._joint = joint
        self._default_nominal = float(nominal)
        self._default_stiffness = float(_nonnegative(f"{type(self).__name__}: stiffness", stiffness))

    def joint(self):
        return self._joint

    def _attach(self, plant):
        self._owned(plant, self._joint, "joint")

    def _static_key(self):
        return (type(self).__name__, int(self._joint.index()))

    def _default_parameter_values(self):
        return {"nominal": self._default_nominal, "stiffness": self._default_stiffness}

    def _qv(self, ek):
        c = ek.context
        return c.q[self._joint.position_start()], c.v[self._joint.velocity_start()]

    def _add_forces(self, ek, params, tau, F):
        q, _ = self._qv(ek)
        return tau.at[self._joint.velocity_start()].add(-params["stiffness"] * (q - params["nominal"])), F

    def _potential_energy(self, ek, params):
        q, _ = self._qv(ek)
        return 0.5 * params["stiffness"] * (q - params["nominal"]) ** 2

    def _conservative_power(self, ek, params):
        q, v = self._qv(ek)
        return -params["stiffness"] * (q - params["nominal"]) * v


class RevoluteSpring(_JointSpring):
    """A torsional spring on a `RevoluteJoint`: τ = −k (θ − θ₀).

    Args:
        joint: the `RevoluteJoint`.
        nominal_angle: θ₀ (rad), where the spring applies no torque.
        stiffness: k >= 0 (N·m/rad).
    """

    def __init__(self, joint, nominal_angle, stiffness):
        super().__init__(joint, nominal_angle, stiffness)

    def default_nominal_angle(self) -> float:
        return self._default_nominal

    def default_stiffness(self) -> float:
        return self._default_stiffness

    def GetNominalAngle(self, context):
        return self._get_parameter(context, "nominal")

    def SetNominalAngle(self, context, nominal_angle):
        """A new context with θ₀ = ``nominal_angle`` (rad)."""
        return self._set_parameter(context, "nominal", nominal_angle)

    def GetStiffness(self, context):
        return self._get_parameter(context, "stiffness")

    def SetStiffness(self, context, stiffness):
        """A new context with k = ``stiffness`` (N·m/rad)."""
        return self._set_parameter(context, "stiffness", stiffness)


class PrismaticSpring(_JointSpring):
    """A linear spring on a `PrismaticJoint`: f = −k (x − x₀).

    Args:
        joint: the `PrismaticJoint`.
        nominal_position: x₀ (m), where the spring applies no force.
        stiffness: k >= 0 (N/m).
    """

    def __init__(self, joint, nominal_position, stiffness):
        super().__init__(joint, nominal_position, stiffness)

    def nominal_position(self) -> float:
        return self._default_nominal

    def stiffness(self) -> float:
        return self._default_stiffness

    def GetNominalPosition(self, context):
        return self._get_parameter(context, "nominal")

    def SetNominalPosition(self, context, nominal_position):
        return self._set_parameter(context, "nominal", nominal_position)

    def GetStiffness(self, context):
        return self._get_parameter(context, "stiffness")

    def SetStiffness(self, context, stiffness):
        return self._set_parameter(context, "stiffness", stiffness)
