"""The discrete step of a plant with ``time_step > 0``: SAP contact and joint limits (Drake's
``SapDriver`` with ``DiscreteContactApproximation.kSap``).

One step from x₀ = (q₀, v₀), as Drake's discrete update:
    A = M(q₀) + δt·D,                        (implicit joint damping; M with reflected inertia)
    v* = v₀ + δt·A⁻¹ k(x₀),                  (every non-constraint force at x₀, damping −D v₀)
    v = argmin ℓ(v)  (SAP: `jaxbody.contact.solve`, warm start v₀),
    q = q₀ + δt·N(q₀) v,   t = t₀ + δt.
Constraints: one compliant friction cone per penetrating point contact (φ₀ < 0, Drake's point
contact), and a near-rigid limit constraint (k = 1e12, τ = δt, β = 0.1) for each 1-dof joint with
a finite limit inside the window q₀ ± 2δt·max(|v₀|, |v*|) (Drake's rule).
Everything is a pure function of the Context: ``jax.jit``, ``jax.vmap`` and ``jax.grad`` apply,
and the gradient of the solution comes from the implicit function theorem (`sap_solver`).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.contact.discrete_problem import ContactSolution  # noqa: F401 (re-exported)
from jaxbody.contact.sap_problem import SapSolverParameters
from jaxbody.contact.sap_solver import SapStatistics  # noqa: F401 (re-exported)
from jaxbody.engine import actuation as act
from jaxbody.engine import continuous_contact as cc
from jaxbody.engine import discrete_step as ds
from jaxbody.engine import point_contact
from jaxbody.engine.discrete_step import DiscreteStepResult  # noqa: F401 (re-exported)
from jaxbody.plant._core import PlantCore
from jaxbody.plant.contact_results import continuous_contact_results, make_contact_results
from jaxbody.plant.hydroelastic_results import hydroelastic_contact_infos


class DiscreteAPI(PlantCore):
    """Mixin of `MultibodyPlant`: the SAP discrete step, forwarded to
    `jaxbody.engine.discrete_step`."""

    def set_max_active_contacts(self, n):
        """Caps the contact constraints of a discrete step at the ``n`` deepest point slots
        (default: every slot of the collision query). Steps are unchanged as long as at most
        ``n`` points penetrate; beyond that the shallowest are dropped and
        ``CalcDiscreteStep(...).contact.overflow`` says so. Call before Finalize(). (To make
        steps cheaper without ever dropping a contact, see `set_contact_capacity`.)"""
        self._require_not_finalized("set_max_active_contacts")
        n = int(n)
        if n < 1:
            raise ValueError(f"set_max_active_contacts: n must be >= 1, got {n}")
        self._max_active_contacts = n

    def set_contact_capacity(self, n="auto"):
        """How many point slots the SAP problem of a discrete step holds (jaxbody only; Drake's
        solver sizes its problem per step). A step solves with its ``n`` deepest slots when, in
        the whole ``vmap`` batch, at most ``n`` points penetrate, and with every slot otherwise:
        the same answer either way, but per-slot work is O(n) instead of O(slots).

        Args:
            n: a positive int; None: always every slot; "auto" (default): max(32, 3 × the
                bodies that can touch), when that is at most half of the slots.
        Call before Finalize()."""
        self._require_not_finalized("set_contact_capacity")
        if not (n is None or n == "auto" or (isinstance(n, (int, np.integer))
                                             and not isinstance(n, bool) and n >= 1)):
            raise ValueError("set_contact_capacity: n must be a positive int, None or 'auto', "
                             f"got {n!r}")
        self._contact_capacity = n if n is None or n == "auto" else int(n)

    def get_contact_capacity(self):
        """The slot capacity of a discrete step's SAP problem (`set_contact_capacity`), as
        resolved for this plant: an int, or None when every slot is solved."""
        self._require_finalized("get_contact_capacity")
        return point_contact.contact_capacity(self._model)

    # --- The step -------------------------------------------------------------------------------
    def CalcDiscreteStep(self, context, actuation=None, applied_forces=None, *,
                         applied_generalized_force=None, applied_spatial_force=None,
                         solver_parameters: SapSolverParameters | None = None,
                         v_guess=None, desired_state=None) -> DiscreteStepResult:
        """One SAP step of a discrete plant (see the module docstring and
        `jaxbody.engine.discrete_step`).

        Args:
            context: the state x₀ at time t₀ (and the parameters).
            actuation, applied_forces, applied_generalized_force, applied_spatial_force: as in
                `CalcGeneralizedAccelerations` (held over the step).
            solver_parameters: `SapSolverParameters` (Drake's defaults if None).
            v_guess: warm start (default v₀, as Drake).
            desired_state: the PD controllers' (q_d, v_d), Drake's desired state input: a
                (2·num_actuators,) [q_d; v_d] in actuator order, or a dict
                ``{model_instance: [q_d; v_d]}``; None disarms every controller (see
                `JointActuator.set_controller_gains`).

        Returns:
            `DiscreteStepResult` (next context, `ContactSolution`, `SapStatistics`).
        """
        if not self.is_discrete():
            raise ValueError("CalcDiscreteStep: the plant is continuous (time_step = 0); build "
                             "it with MultibodyPlant(time_step > 0)")
        self._check_context(context, "CalcDiscreteStep")
        return ds.step(self._model, context, actuation, applied_forces,
                       applied_generalized_force=applied_generalized_force,
                       applied_spatial_force=applied_spatial_force,
                       solver_parameters=solver_parameters, v_guess=v_guess,
                       desired_state=desired_state)

    def CalcDiscreteVariableUpdate(self, context, actuation=None, **kwargs):
        """The next context x(t₀ + δt) (Drake's discrete update); see `CalcDiscreteStep`."""
        return self.CalcDiscreteStep(context, actuation, **kwargs).context

    def CalcGeneralizedContactForces(self, context, model_instance=None, actuation=None,
                                     **kwargs):
        """τ_contact = Jᵀγ/δt of the step from ``context`` (Drake's generalized contact forces
        output port): (num_velocities,), or the entries of ``model_instance``'s velocities. A
        continuous plant's are Σ Jᵀ F of its penalty forces at ``context``."""
        self._check_context(context, "CalcGeneralizedContactForces")
        model = self._model
        if model.is_discrete:
            tau = ds.step(model, context, actuation, **kwargs).contact.tau_contact
        else:
            tau = cc.generalized_contact_forces(model, context)
        if model_instance is None:
            return tau
        mi = act.instance(model, model_instance, "v")
        return tau[model.instances.v_index[mi]]

    def CalcContactResults(self, context, actuation=None, **kwargs):
        """`ContactResults` (Drake's ``PointPairContactInfo`` per active point) of the step from
        ``context``. Host-side (not traceable): it builds Python records; use
        `CalcDiscreteStep` inside jitted code. A continuous plant's are its penalty forces
        at ``context`` (Drake's continuous point-pair results)."""
        self._check_context(context, "CalcContactResults")
        if not self.is_discrete():
            return continuous_contact_results(self._model, context)
        model = self._model
        solver_parameters = kwargs.pop("solver_parameters", None)
        result = ds.jitted_step(model, solver_parameters, context, actuation, kwargs)
        pc, index = _jitted_contact_slots(model, context)
        n_point = point_contact.contact_query(model).num_points \
            if model.contact.has_point_pairs else 0
        point = np.arange(0 if pc is None else pc.phi.shape[0])
        if index is not None:
            point = np.flatnonzero(np.asarray(index) < n_point)
        elif pc is not None:
            point = point[:n_point]
        hydro = hydroelastic_contact_infos(model, context, result.contact, n_point, index)
        return make_contact_results(pc, result.contact, model.time_step,
                                    list(model.constraints.order), point, hydro)

    def CalcNetActuation(self, context, actuation=None, desired_state=None, **kwargs):
        """The actuation each actuator applies over the step from ``context`` (Drake's net
        actuation output): the actuation input clamped to the effort limits, and for armed
        PD-controlled actuators the controller's output u = clamp(−Kp(q − q_d) − Kd(v − v_d)
        + u_ff, −e, e) at the next state, as the SAP step solved it; in a continuous plant
        the same law at ``context``'s state (Drake's explicit controller). (num_actuators,);
        traceable."""
        self._check_context(context, "CalcNetActuation")
        model = self._model
        if model.is_discrete:
            return ds.net_actuation(model, context, actuation, desired_state, **kwargs)
        u = act.explicit_pd_actuation(model, context, actuation, desired_state,
                                      "CalcNetActuation")
        return jnp.zeros(model.num_actuators, context.v.dtype) if u is None else \
            act.saturate(model, act.assemble(model, u, context.v.dtype))


@partial(jax.jit, static_argnums=0)
def _jitted_contact_slots(model, context):
    return point_contact.contact_slots(model, context, with_index=True)
