"""`UniformGravityFieldElement`: the uniform gravity field every plant owns (Drake's element 0).

    F_Bcm = m_B g   at each body's center of mass,   U = −Σ_B m_B g·p_WBcm,   Pc = −dU/dt.

The gravity vector used in computations is the context parameter ``parameters.gravity``
(`MultibodyPlant.SetGravityVector`); `set_gravity_vector` sets its default before Finalize.
Gravity can be disabled per model instance before Finalize (`set_enabled`), as in Drake: the
bodies of a disabled instance feel no gravity and store no gravitational potential energy.
The dynamics add gravity inside the tree algorithms (ABA's base acceleration, or τ_g), not
through `_add_forces`, which only serves `CalcForceElementsContribution`.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.core.elements import ModelInstanceIndex
from jaxbody.forces.force_element import ForceElement

# Drake's UniformGravityFieldElement::kDefaultStrength (m/s²).
DEFAULT_STRENGTH = 9.81


class UniformGravityFieldElement(ForceElement):
    """A uniform gravity field ``g`` (m/s², in World); default ``[0, 0, −9.81]``.

    Every `MultibodyPlant` creates one at construction; adding another with `AddForceElement`
    raises, as in Drake.

    Args:
        gravity_vector: (3,) g in World (m/s²).
    """

    kDefaultStrength = DEFAULT_STRENGTH

    def __init__(self, gravity_vector=(0.0, 0.0, -DEFAULT_STRENGTH)):
        super().__init__(ModelInstanceIndex(0))
        self._g = _vector3(gravity_vector)
        self._disabled = set()

    def gravity_vector(self) -> np.ndarray:
        """The default gravity vector (the one in a context is ``context.parameters.gravity``)."""
        return self._g.copy()

    def set_gravity_vector(self, gravity_vector):
        """Sets the default gravity vector; before Finalize only (use `SetGravityVector` after)."""
        if self._plant is not None and self._plant.is_finalized():
            raise RuntimeError("set_gravity_vector: the plant is finalized; set the gravity "
                               "parameter in the context with plant.SetGravityVector(context, g)")
        self._g = _vector3(gravity_vector)

    def is_enabled(self, model_instance) -> bool:
        """Whether gravity acts on the bodies of ``model_instance`` (default True)."""
        if self._plant is not None:
            self._plant._check_instance(model_instance, "is_enabled")
        return int(model_instance) not in self._disabled

    def set_enabled(self, model_instance, is_enabled: bool):
        """Enables or disables gravity on ``model_instance``; before Finalize only, as Drake."""
        if self._plant is not None:
            if self._plant.is_finalized():
                raise RuntimeError("Post-finalize calls to 'set_gravity_enabled()' are not "
                                   "allowed; calls to this method must happen before Finalize().")
            self._plant._check_instance(model_instance, "set_gravity_enabled")
        if is_enabled:
            self._disabled.discard(int(model_instance))
        else:
            self._disabled.add(int(model_instance))

    def _static_key(self):
        return ("UniformGravityFieldElement", tuple(sorted(self._disabled)))

    # --- Contributions -----------------------------------------------------------------------
    def _masses(self, ek):
        return ek.gravity_mass

    def _com_world(self, ek):
        r = jnp.einsum("nij,nj->ni", ek.R_WB, ek.context.parameters.com)  # p_BoBcm_W
        return r, ek.p_WB + r

    def _add_forces(self, ek, params, tau, F):
        g = ek.context.parameters.gravity
        r, _ = self._com_world(ek)
        f = self._masses(ek)[:, None] * g[None, :]
        return tau, F + jnp.concatenate([jnp.cross(r, f), f], -1)

    def _potential_energy(self, ek, params):
        _, p_cm = self._com_world(ek)
        return -jnp.sum(self._masses(ek) * (p_cm @ ek.context.parameters.gravity))

    def _conservative_power(self, ek, params):
        r, _ = self._com_world(ek)
        v_cm = ek.V_WB[:, 3:] + jnp.cross(ek.V_WB[:, :3], r)
        return jnp.sum(self._masses(ek) * (v_cm @ ek.context.parameters.gravity))

    def CalcGravityGeneralizedForces(self, context):
        """τ_g (num_velocities,): gravity's generalized forces (see the plant's method)."""
        return self.GetParentPlant().CalcGravityGeneralizedForces(context)


def _vector3(g):
    g = np.asarray(g, float)
    if g.shape != (3,) or not np.all(np.isfinite(g)):
        raise ValueError(f"gravity_vector: expected a finite shape (3,) vector, got {g}")
    return g
