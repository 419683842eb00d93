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
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.contact import capacity as cap
from jaxbody.contact.discrete_problem import (  # noqa: F401 (ContactSolution re-exported)
    ContactSolution,
    StepData,
    free_motion,
    solve_step,
)
from jaxbody.contact.sap_problem import SapSolverParameters
from jaxbody.contact.sap_solver import SapStatistics, solve  # noqa: F401 (re-exported)
from jaxbody.core.checks import check_shape
from jaxbody.geometry.hydroelastic import query as hq
from jaxbody.plant._hydroelastic_api import concatenate_contacts
from jaxbody.plant.contact_results import make_contact_results


class DiscreteStepResult(NamedTuple):
    """Output of `DiscreteAPI.CalcDiscreteStep`: the next context, contacts and solver stats."""

    context: object
    contact: ContactSolution
    stats: SapStatistics


@partial(jax.jit, static_argnums=(0, 1))
def _jitted_step(plant, solver_parameters, context, actuation, kwargs):
    """`CalcDiscreteStep` compiled once per (plant, solver parameters); the remaining keyword
    arguments (applied forces, ``v_guess``) are traced inputs, so each call honors its own."""
    return plant.CalcDiscreteStep(context, actuation, solver_parameters=solver_parameters,
                                  **kwargs)


class DiscreteAPI:
    """Mixin of `MultibodyPlant`: the SAP discrete step."""

    # --- Static data, compiled once per plant --------------------------------------------------
    def _discrete_static(self):
        """The model's `DiscreteLayout`."""
        return self._model.discrete

    def _pd_inputs(self, desired_state, actuation, dtype, what="CalcDiscreteStep"):
        """((q_d, v_d, u_ff, armed) of the PD-controlled actuators, the actuation u that the
        free motion applies (armed PD actuators' entries zeroed: their u_ff acts inside the
        controller)), from the step's ``desired_state``: None (every controller disarmed), a
        whole-plant (2·num_actuators,) [q_d; v_d] in actuator order, or a dict
        ``{model_instance: [q_d; v_d]}`` (Drake's per-instance ports; absent instances are
        disarmed). Entries of actuators without gains are ignored, as Drake does."""
        layout, nu = self._discrete_static(), self.num_actuators()
        pd = layout.pd.actuator
        u = None if actuation is None else self.AssembleActuation(actuation, dtype)
        if not pd.size:
            if desired_state is not None:
                raise ValueError(f"{what}: desired_state was given but no actuator "
                                 "has PD gains (JointActuator.set_controller_gains)")
            return None, u
        armed = np.zeros(nu, bool)
        xd = jnp.zeros(2 * nu, dtype)
        if isinstance(desired_state, dict):
            for mi, x in desired_state.items():
                idx = self._actuator_index(self._check_instance(mi, "desired_state"))
                name = self._instance_names[int(mi)]
                x = check_shape(f"desired_state for model instance '{name}'", x,
                                 (2 * len(idx),)).astype(dtype)
                xd = xd.at[idx].set(x[:len(idx)]).at[nu + idx].set(x[len(idx):])
                armed[idx] = True
        elif desired_state is not None:
            xd = check_shape("desired_state", desired_state, (2 * nu,)).astype(dtype)
            armed[:] = True
        if not isinstance(xd, jax.core.Tracer) and not bool(jnp.all(jnp.isfinite(xd[
                np.concatenate([pd, nu + pd])]))):  # Drake's check, where values are known
            raise ValueError(f"{what}: desired_state contains NaN or inf for a "
                             "PD-controlled actuator")
        u_ff = jnp.zeros(pd.size, dtype) if u is None else u[pd]
        on = armed[pd]
        if u is not None and on.any():
            u = u.at[pd[on]].set(0.0)
        return (xd[pd], xd[nu + pd], u_ff, jnp.asarray(on, dtype)), u

    def _contact_points(self, context, with_index=False):
        """`PointContacts` of the context's configuration (the ``set_max_active_contacts``
        deepest slots when capped), or None without candidate pairs. ``with_index``: also the
        (P,) index of each slot among the uncapped slots (point slots, then hydroelastic
        quadrature points), or None when uncapped."""
        pairs = getattr(self, "_collision_pairs", None)
        if pairs is None or len(pairs[0]) == 0:
            return (None, None) if with_index else None
        # Drake's order: point pairs, then hydroelastic quadrature points
        pc = concatenate_contacts([self.CalcPointContacts(context) if len(self._point_pairs[0])
                                   else None, self._hydro_contact_points(context)])
        P = 0 if pc is None else pc.phi.shape[0]
        if not P:
            return (None, None) if with_index else None
        limit = getattr(self, "_max_active_contacts", None)
        index = None
        if limit is not None and limit < P:
            # the SAP problem's size, not the number of candidate points, then sets the cost
            index = cap.deepest_slots(pc.phi, pc.valid, limit)
            pc = cap.keep_deepest(pc, limit)
        return (pc, index) if with_index else pc

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
        setting = getattr(self, "_contact_capacity", "auto")
        pairs = getattr(self, "_collision_pairs", None)
        if pairs is None or len(pairs[0]) == 0:
            return None
        num_slots = self._contact_query.num_points + hq.num_slots(self._hydro_pairs())
        limit = getattr(self, "_max_active_contacts", None)
        if limit is not None:
            num_slots = min(num_slots, limit)
        if setting != "auto":
            return None if setting is None or setting >= num_slots else setting
        topo, layout = self._topology, self._discrete_static()
        geoms = self._collision_geometries()
        bodies = sorted({int(geoms[g].body().index()) for g in np.concatenate(pairs)})
        nodes = np.asarray(topo.body_node)[bodies]
        moving = int(np.sum(layout.trees.tree_index[nodes] < layout.trees.dof_map.shape[0] - 1))
        return cap.default_capacity(num_slots, moving,
                                    hq.HYDRO_POINTS_PER_PAIR * len(self._hydro_pairs()))

    # --- The step -------------------------------------------------------------------------------
    def _free_motion(self, context, actuation, applied_forces, applied_generalized_force,
                     applied_spatial_force):
        """(dk, A, v*) at the context: the plant's forces, then `discrete_problem.free_motion`."""
        dk = self._dk(context, "CalcDiscreteStep")
        tau, F_O = self._dynamics_inputs(context, dk, actuation, applied_forces,
                                         applied_generalized_force, applied_spatial_force,
                                         for_aba=False)
        P = context.parameters
        A, v_star = free_motion(self._topology, self._discrete_static(), self._time_step, dk,
                                tau, F_O, self._gravity_parameters(P),
                                self._reflected_inertia(context), P.damping, context.v)
        return dk, A, v_star

    def CalcDiscreteStep(self, context, actuation=None, applied_forces=None, *,
                         applied_generalized_force=None, applied_spatial_force=None,
                         solver_parameters: SapSolverParameters | None = None,
                         v_guess=None, desired_state=None) -> DiscreteStepResult:
        """One SAP step of a discrete plant (see the module docstring).

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
        pd_inputs, actuation = self._pd_inputs(desired_state, actuation, context.v.dtype)
        dk, A, v_star = self._free_motion(context, actuation, applied_forces,
                                          applied_generalized_force, applied_spatial_force)
        pc = self._contact_points(context)
        guess = context.v if v_guess is None else v_guess
        data = StepData(self._topology, self._discrete_static(), self._time_step, dk, A, v_star,
                        context.q, context.v, context.parameters.constraints, pd_inputs)
        v, contact, stats = solve_step(data, pc, guess, solver_parameters,
                                       self.get_contact_capacity())
        dt = self._time_step
        q = context.q + dt * self.MapVelocityToQDot(context, v)
        nxt = context.replace(time=context.time + dt, q=q, v=v)
        if pc is not None:  # a contact may be missing: the query culled, or the cap dropped
            contact = contact._replace(overflow=jnp.asarray(pc.overflow))
        self._check_nonsingular(context, v, "CalcDiscreteStep")
        return DiscreteStepResult(nxt, contact, stats)

    def CalcDiscreteVariableUpdate(self, context, actuation=None, **kwargs):
        """The next context x(t₀ + δt) (Drake's discrete update); see `CalcDiscreteStep`."""
        return self.CalcDiscreteStep(context, actuation, **kwargs).context

    def CalcGeneralizedContactForces(self, context, model_instance=None, actuation=None,
                                     **kwargs):
        """τ_contact = Jᵀγ/δt of the step from ``context`` (Drake's generalized contact forces
        output port): (num_velocities,), or the entries of ``model_instance``'s velocities. A
        continuous plant's are Σ Jᵀ F of its penalty forces at ``context``."""
        if not self.is_discrete():
            self._check_context(context, "CalcGeneralizedContactForces")
            tau = self._continuous_generalized_contact_forces(context)
            return tau if model_instance is None else self.GetVelocitiesFromArray(model_instance,
                                                                                  tau)
        tau = self.CalcDiscreteStep(context, actuation, **kwargs).contact.tau_contact
        return tau if model_instance is None else self.GetVelocitiesFromArray(model_instance, tau)

    def CalcContactResults(self, context, actuation=None, **kwargs):
        """`ContactResults` (Drake's ``PointPairContactInfo`` per active point) of the step from
        ``context``. Host-side (not traceable): it builds Python records; use
        `CalcDiscreteStep` inside jitted code. A continuous plant's are its penalty forces
        at ``context`` (Drake's continuous point-pair results)."""
        self._check_context(context, "CalcContactResults")
        if not self.is_discrete():
            return self._continuous_contact_results(context)
        solver_parameters = kwargs.pop("solver_parameters", None)
        result = _jitted_step(self, solver_parameters, context, actuation, kwargs)
        if self._derived.contact_points_jit is None:  # compiled once per plant
            self._derived.contact_points_jit = jax.jit(partial(self._contact_points, with_index=True))
        pc, index = self._derived.contact_points_jit(context)
        n_point = self._contact_query.num_points if len(self._point_pairs[0]) else 0
        point = np.arange(0 if pc is None else pc.phi.shape[0])
        if index is not None:
            point = np.flatnonzero(np.asarray(index) < n_point)
        elif pc is not None:
            point = point[:n_point]
        hydro = self._hydroelastic_contact_infos(context, result.contact, n_point, index)
        return make_contact_results(pc, result.contact, self._time_step,
                                    self._constraint_slots(), point, hydro)

    def CalcNetActuation(self, context, actuation=None, desired_state=None, **kwargs):
        """The actuation each actuator applies over the step from ``context`` (Drake's net
        actuation output): the actuation input clamped to the effort limits, and for armed
        PD-controlled actuators the controller's output u = clamp(−Kp(q − q_d) − Kd(v − v_d)
        + u_ff, −e, e) at the next state, as the SAP step solved it; in a continuous plant
        the same law at ``context``'s state (Drake's explicit controller). (num_actuators,);
        traceable."""
        if not self.is_discrete():  # Drake's explicit controller of a continuous plant
            u = self._continuous_actuation(context, actuation, desired_state, "CalcNetActuation")
            return jnp.zeros(self.num_actuators(), context.v.dtype) if u is None else \
                self.SaturateActuation(self.AssembleActuation(u, context.v.dtype))
        layout = self._discrete_static()
        u = jnp.zeros(self.num_actuators(), context.v.dtype)
        if actuation is not None:
            u = self.SaturateActuation(self.AssembleActuation(actuation, context.v.dtype))
        if desired_state is None or not layout.pd.actuator.size:
            return u
        r = self.CalcDiscreteStep(context, actuation, desired_state=desired_state, **kwargs)
        _, _, _, armed = self._pd_inputs(desired_state, actuation, context.v.dtype)[0]
        pd = layout.pd.actuator
        u_pd = r.contact.pd_impulses / self._time_step
        return u.at[pd].set(jnp.where(armed > 0, u_pd, u[pd]))
