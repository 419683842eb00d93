"""Force elements, gravity per model instance, and the plant's force inputs (Drake's ports as
function arguments).

The inputs of Drake's plant become arguments of the dynamics methods:
- ``actuation``: u (num_actuators,) for the whole plant, or a dict ``{model_instance: u_i}``
  (Drake's per-instance ports: u_i goes to that instance's actuators, in actuator order; absent
  instances get zero); each actuator's value is clamped to
  ``[−effort_limit, effort_limit]``, which pydrake 1.51 also does for continuous plants;
- ``applied_generalized_force``: (num_velocities,) generalized forces;
- ``applied_spatial_force``: a list of `ExternallyAppliedSpatialForce`;
- ``applied_forces``: a `MultibodyForces` (jaxbody's own, kept for compatibility).
Joint position limits are not enforced in continuous time (as Drake, which warns); joint
damping enters as −D v.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.spatial import wrench_about_origin
from jaxbody.core.checks import check_shape
from jaxbody.core.multibody_forces import MultibodyForces
from jaxbody.forces.applied import spatial_forces_to_body_forces
from jaxbody.forces.force_element import ElementKinematics, ForceElement, ForceElementIndex
from jaxbody.forces.gravity import UniformGravityFieldElement


class ForcesAPI:
    # --- Construction -------------------------------------------------------------------------
    def AddForceElement(self, force_element):
        """Adds a `ForceElement` (before Finalize) and returns it.

        Raises:
            RuntimeError: after Finalize, or for a second `UniformGravityFieldElement`.
        """
        self._require_not_finalized("AddForceElement")
        if not isinstance(force_element, ForceElement):
            raise TypeError(f"AddForceElement: expected a ForceElement, got "
                            f"{type(force_element).__name__}")
        if isinstance(force_element, UniformGravityFieldElement) and self._force_elements:
            raise RuntimeError("This model already contains a gravity field element. Only one "
                               "gravity field element is allowed per model.")
        if force_element._plant is not None:
            raise ValueError("AddForceElement: the element was already added to a plant")
        force_element._attach(self)
        force_element._index = ForceElementIndex(len(self._force_elements))
        force_element._plant = self
        self._force_elements.append(force_element)
        return force_element

    def num_force_elements(self) -> int:
        """Number of force elements, the always-present gravity element included."""
        return len(self._force_elements)

    def get_force_element(self, force_element_index):
        return self._get(self._force_elements, force_element_index, "get_force_element",
                         ForceElementIndex)

    def gravity_field(self) -> UniformGravityFieldElement:
        return self._force_elements[0]

    def mutable_gravity_field(self) -> UniformGravityFieldElement:
        return self._force_elements[0]

    def set_gravity_enabled(self, model_instance, is_enabled: bool):
        """Enables/disables gravity on the bodies of ``model_instance`` (before Finalize)."""
        self.gravity_field().set_enabled(self._check_instance(model_instance,
                                                              "set_gravity_enabled"), is_enabled)

    def is_gravity_enabled(self, model_instance) -> bool:
        return self.gravity_field().is_enabled(self._check_instance(model_instance,
                                                                    "is_gravity_enabled"))

    # --- Gravity per model instance ------------------------------------------------------------
    def _gravity_disabled_bodies(self) -> np.ndarray:
        off = self.gravity_field()._disabled
        return np.asarray([int(b.index()) for b in self._bodies
                           if int(b.model_instance()) in off], np.int64)

    def _gravity_masses(self, params):
        """(num_bodies,) masses that feel gravity: zero for the world and disabled instances."""
        mass = params.mass.at[0].set(0.0)
        idx = self._gravity_disabled_bodies()
        return mass if idx.size == 0 else mass.at[idx].set(0.0)

    def _gravity_parameters(self, params):
        """``params`` with the masses of gravity-disabled bodies set to zero (for U and τ_g)."""
        if self._gravity_disabled_bodies().size == 0:
            return params
        return dataclasses.replace(params, mass=self._gravity_masses(params))

    def _disabled_gravity_cancel(self, ek, F):
        """Adds −m g at the COM of gravity-disabled bodies (ABA applies g to every body)."""
        idx = self._gravity_disabled_bodies()
        if idx.size == 0:
            return F
        P = ek.context.parameters
        r = jnp.einsum("nij,nj->ni", ek.R_WB[idx], P.com[idx])
        f = -P.mass[idx, None] * P.gravity[None, :]
        return F.at[idx].add(jnp.concatenate([jnp.cross(r, f), f], -1))

    # --- Element kinematics and contributions --------------------------------------------------
    def _element_kinematics(self, context, what, dk=None):
        if dk is None:
            dk = self._dk(context, what)
        nodes = self._topology.body_node
        return ElementKinematics(context, dk.pk.R_WB[nodes], dk.pk.p_WB[nodes], dk.vk.V_WB[nodes])

    def _elements(self):
        return [fe for fe in self._force_elements if not isinstance(fe, UniformGravityFieldElement)]

    def _element_forces(self, context, dk):
        """(τ (nv,), F_Bo_W (num_bodies, 6)) of all force elements but gravity, or (None, None)."""
        elements = self._elements()
        if not elements:
            return None, None
        ek = self._element_kinematics(context, "force elements", dk)
        tau = jnp.zeros_like(context.v)
        F = jnp.zeros((len(self._bodies), 6), context.v.dtype)
        for fe in elements:
            tau, F = fe._add_forces(ek, context.parameters.force_elements[int(fe.index())], tau, F)
        return tau, F

    def _elements_sum(self, context, dk, method):
        elements = self._elements()
        total = jnp.zeros((), context.v.dtype)
        if not elements:
            return total
        ek = self._element_kinematics(context, method, dk)
        for fe in elements:
            total = total + getattr(fe, method)(ek, context.parameters.force_elements[int(fe.index())])
        return total

    def CalcForceElementsContribution(self, context):
        """The forces of every force element, gravity and joint damping, as Drake's method.

        Returns:
            `MultibodyForces`: generalized forces (elements on joints, and −D v) and body
            spatial forces ``F_Bo_W`` (gravity at each COM, springs, bushings).
        """
        dk = self._dk(context, "CalcForceElementsContribution")
        ek = self._element_kinematics(context, "CalcForceElementsContribution", dk)
        tau = -context.parameters.damping * context.v
        F = jnp.zeros((len(self._bodies), 6), context.v.dtype)
        for fe in self._force_elements:
            tau, F = fe._add_forces(ek, context.parameters.force_elements[int(fe.index())], tau, F)
        return MultibodyForces(None, tau, F)

    # --- Actuation -------------------------------------------------------------------------
    def AssembleActuation(self, actuation, dtype=None):
        """u (num_actuators,) from a whole-plant vector or a dict ``{model_instance: u_i}``
        (each u_i placed at its instance's actuators); not yet clamped to the effort limits
        (see `SaturateActuation`).

        Raises:
            ValueError: naming the input and the expected size, on a size mismatch.
        """
        nu = len(self._actuators)
        if isinstance(actuation, dict):
            u = jnp.zeros(nu, dtype or jnp.zeros(()).dtype)
            for mi, ui in actuation.items():
                idx = self._actuator_index(self._check_instance(mi, "actuation"))
                name = self._instance_names[int(mi)]
                ui = check_shape(f"actuation for model instance '{name}'", ui, (len(idx),))
                u = u.at[idx].add(ui.astype(u.dtype))
            return u
        u = check_shape("actuation", actuation, (nu,))
        return u if dtype is None else u.astype(dtype)

    def SaturateActuation(self, u):
        """Clamps each u[i] to [−effort_limit, effort_limit] (as Drake, also in continuous time)."""
        lim = self.GetEffortUpperLimits()
        if not np.any(np.isfinite(lim)):
            return u
        return jnp.clip(u, -lim, lim)

    # --- All the inputs of the dynamics ---------------------------------------------------------
    def _dynamics_inputs(self, context, dk, actuation, applied_forces, applied_generalized_force,
                         applied_spatial_force, for_aba, body_forces=True):
        """(τ (nv,), F_O (n, 6) wrenches about Wo in node order, or None): damping, saturated
        actuation, applied forces and force elements; for ABA also the gravity cancellation of
        disabled model instances (the CRBA path uses masked masses instead). ``body_forces=False``
        leaves out the body forces of ``applied_forces`` (the caller handles them)."""
        tau = self._total_generalized_forces(context, actuation, applied_forces)
        if applied_generalized_force is not None:
            tau = tau + check_shape("applied_generalized_force", applied_generalized_force,
                                     (self._topology.nv,)).astype(tau.dtype)
        tau_fe, F = self._element_forces(context, dk)
        if tau_fe is not None:
            tau = tau + tau_fe
        if applied_forces is not None and body_forces:
            F = applied_forces.body_forces() if F is None else F + applied_forces.body_forces()
        if applied_spatial_force is not None and len(applied_spatial_force):
            F = jnp.zeros((len(self._bodies), 6), context.v.dtype) if F is None else F
            F = spatial_forces_to_body_forces(self, dk.pk.R_WB[self._topology.body_node], F,
                                              applied_spatial_force, context.v.dtype)
        F_contact = self._continuous_contact_forces(context, dk)  # continuous plants only
        if F_contact is not None:
            F = F_contact if F is None else F + F_contact
        if for_aba and self._gravity_disabled_bodies().size:
            F = jnp.zeros((len(self._bodies), 6), context.v.dtype) if F is None else F
            F = self._disabled_gravity_cancel(
                self._element_kinematics(context, "gravity", dk), F)
        if F is None:
            return tau, None
        return tau, wrench_about_origin(F[self._topology.node_body], dk.pk.p_WB)
