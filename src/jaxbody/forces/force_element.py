"""`ForceElement`: Drake's base class of force elements, and the kinematics elements read.

A force element contributes generalized forces τ (num_velocities,) and/or spatial forces
``F_Bo_W`` on bodies (about each body origin Bo, expressed in World), plus its potential
energy U, conservative power ``Pc = −dU/dt`` and non-conservative power ``Pnc``, so that
``d(KE + U)/dt = Pnc`` (+ the power of actuation, joint damping and applied forces).

Its numeric parameters (stiffness, damping, free lengths, ...) are ``jax.Array`` leaves of
``context.parameters.force_elements[element.index()]`` (a dict), so they can be batched and
differentiated; their construction-time values are only the defaults.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.core.checks import check_shape
from jaxbody.core.elements import MultibodyElement, TypedIndex
from jaxbody.core.multibody_forces import MultibodyForces


class ForceElementIndex(TypedIndex):
    """Index of a force element in its plant; 0 is the uniform gravity field element."""


class ElementKinematics(NamedTuple):
    """What force elements read: the context and every body's pose and spatial velocity.

    Attributes:
        context: the `Context` (q, v and parameters).
        R_WB: (num_bodies, 3, 3) body orientations, in BodyIndex order.
        p_WB: (num_bodies, 3) body origins in World (m).
        V_WB: (num_bodies, 6) ``[w_WB; v_WBo]`` in World.
        gravity_mass: (num_bodies,) the masses gravity acts on (zero for the world and the
            bodies of gravity-disabled model instances).
    """

    context: object
    R_WB: jax.Array
    p_WB: jax.Array
    V_WB: jax.Array
    gravity_mass: jax.Array

    def frame_pose(self, frame):
        """(R_WF (3, 3), p_WoFo_W (3,)) of a frame, from the frame parameters in the context."""
        b = int(frame.body().index())
        P = self.context.parameters
        R_BF, p_BF = P.frame_R[int(frame.index())], P.frame_p[int(frame.index())]
        return self.R_WB[b] @ R_BF, self.p_WB[b] + self.R_WB[b] @ p_BF

    def frame_velocity(self, frame):
        """``V_WF_W`` (6,): frame F's spatial velocity in World, about Fo (F is fixed to its body)."""
        b = int(frame.body().index())
        p_BoFo_W = self.frame_pose(frame)[1] - self.p_WB[b]
        w, v = self.V_WB[b, :3], self.V_WB[b, 3:]
        return jnp.concatenate([w, v + jnp.cross(w, p_BoFo_W)])

    def point_velocity(self, body_index, p_WQ):
        """``v_WQ`` (3,) of the point of body ``body_index`` at ``p_WQ``."""
        w, v = self.V_WB[body_index, :3], self.V_WB[body_index, 3:]
        return v + jnp.cross(w, p_WQ - self.p_WB[body_index])


def add_force_at_point(F, body_index, p_WQ, f_W, p_WB, t_W=None):
    """Adds force ``f_W`` applied at point Q (and torque ``t_W``) to body ``body_index`` of the
    (num_bodies, 6) array ``F`` of ``F_Bo_W`` rows: ``[t + p_BoQ × f; f]``."""
    tau = jnp.cross(p_WQ - p_WB[body_index], f_W)
    if t_W is not None:
        tau = tau + t_W
    return F.at[body_index].add(jnp.concatenate([tau, f_W]))


def _nonnegative(name, value, shape=()):
    arr = np.asarray(value, float)
    if arr.shape != shape:
        raise ValueError(f"{name}: expected shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be finite and >= 0, got {value}")
    return arr


class ForceElement(MultibodyElement):
    """Base class of force elements (Drake's ``ForceElement``). Add with `AddForceElement`.

    Subclasses override `_default_parameter_values` (name -> NumPy default) and any of
    `_add_forces`, `_potential_energy`, `_conservative_power`, `_non_conservative_power`,
    each a pure function of an `ElementKinematics` and the element's parameter dict.
    """

    def __init__(self, model_instance):
        super().__init__(type(self).__name__, model_instance)

    # --- Identity -------------------------------------------------------------------------
    def index(self) -> ForceElementIndex:
        return self._index

    def is_ephemeral(self) -> bool:
        return False

    def _attach(self, plant):
        """Validates the element's bodies/frames/joints against ``plant`` (at AddForceElement)."""

    def _static_key(self):
        return (type(self).__name__, int(self.model_instance()))

    def _owned(self, plant, element, what):
        owner = getattr(element, "_plant", None)
        if owner is not plant:
            raise ValueError(f"{type(self).__name__}: {what} '{element.name()}' is not part of "
                             "the plant this element is added to")

    # --- Parameters in the context ----------------------------------------------------------
    def _default_parameter_values(self) -> dict:
        return {}

    def _parameters(self, context) -> dict:
        plant = self.GetParentPlant()
        plant._check_context(context, type(self).__name__)
        return context.parameters.force_elements[int(self._index)]

    def _get_parameter(self, context, name):
        return self._parameters(context)[name]

    def _set_parameter(self, context, name, value):
        params = dict(self._parameters(context))
        old = params[name]
        params[name] = check_shape(f"{type(self).__name__}: {name}", value,
                                    jnp.shape(old)).astype(old.dtype)
        fe = list(context.parameters.force_elements)
        fe[int(self._index)] = params
        return context.replace(parameters=dataclasses.replace(context.parameters,
                                                              force_elements=tuple(fe)))

    # --- Contributions (overridden) ---------------------------------------------------------
    def _add_forces(self, ek: ElementKinematics, params, tau, F):
        """Returns (tau, F) with this element's generalized forces and body spatial forces added."""
        return tau, F

    def _potential_energy(self, ek, params):
        return jnp.zeros((), ek.p_WB.dtype)

    def _conservative_power(self, ek, params):
        return jnp.zeros((), ek.p_WB.dtype)

    def _non_conservative_power(self, ek, params):
        return jnp.zeros((), ek.p_WB.dtype)

    # --- Public element-level API -----------------------------------------------------------
    def _ek(self, context):
        plant = self.GetParentPlant()
        return plant._element_kinematics(context, type(self).__name__)

    def CalcPotentialEnergy(self, context):
        """This element's potential energy U (J)."""
        return self._potential_energy(self._ek(context), self._parameters(context))

    def CalcConservativePower(self, context):
        """This element's conservative power ``Pc = −dU/dt`` (W)."""
        return self._conservative_power(self._ek(context), self._parameters(context))

    def CalcNonConservativePower(self, context):
        """The power of this element's non-conservative forces (W; <= 0 when dissipative)."""
        return self._non_conservative_power(self._ek(context), self._parameters(context))

    def CalcAndAddForceContribution(self, context, forces):
        """(Advanced) ``forces`` (`MultibodyForces`) plus this element's contribution (new object)."""
        ek = self._ek(context)
        tau, F = self._add_forces(ek, self._parameters(context), forces.generalized_forces(),
                                  forces.body_forces())
        return MultibodyForces(None, tau, F)
