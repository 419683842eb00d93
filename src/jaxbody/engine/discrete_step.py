"""The discrete step of a model with ``time_step > 0``: SAP contact, joint limits, constraints
and PD controllers (Drake's ``SapDriver`` with ``DiscreteContactApproximation.kSap``, or its
convex Hunt & Crossley approximations).

One step from x₀ = (q₀, v₀), as Drake's discrete update, reads top-down below:
1. inputs: the PD controllers' desired state and the actuation the free motion applies;
2. free motion: A = M(q₀) + δt·D (implicit joint damping, M with reflected inertia) and
   v* = v₀ + δt·A⁻¹ k(x₀) (every non-constraint force at x₀, damping −D v₀);
3. contact slots: point contacts, then hydroelastic quadrature points (`point_contact`);
4. the SAP problem: a compliant friction cone per penetrating slot, a near-rigid limit
   constraint for each 1-dof joint whose limit is inside the window q₀ ± 2δt·max(|v₀|, |v*|)
   (Drake's rule), coupler, distance, ball and weld rows, PD rows (`contact.discrete_problem`);
5. solve: v = argmin ℓ(v) (`contact.sap_solver`, warm start v₀);
6. integrate: q = q₀ + δt·N(q₀) v, t = t₀ + δt.
Every stage is a pure function of (model, context, inputs): ``jax.jit``, ``jax.vmap`` and
``jax.grad`` apply, and the gradient of the solution comes from the implicit function theorem.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.contact.discrete_problem import ContactSolution, StepData, free_motion, solve_step
from jaxbody.contact.sap_problem import SapSolverParameters
from jaxbody.contact.sap_solver import SapStatistics
from jaxbody.engine import actuation as act
from jaxbody.engine import dynamics as dyn
from jaxbody.engine import forces as fo
from jaxbody.engine import point_contact, state
from jaxbody.engine.forward_dynamics import check_nonsingular


class DiscreteStepResult(NamedTuple):
    """Output of a discrete step: the next context, its contacts and the solver's statistics."""

    context: object
    contact: ContactSolution
    stats: SapStatistics


def free_motion_of(model, context, actuation, applied_forces=None,
                   applied_generalized_force=None, applied_spatial_force=None):
    """(dk, A, v*) at ``context``: every non-constraint force (`forces.dynamics_inputs`), then
    `discrete_problem.free_motion`."""
    dk = dyn.kinematics(model, context)
    tau, F_O = fo.dynamics_inputs(model, context, dk, actuation, applied_forces,
                                  applied_generalized_force, applied_spatial_force,
                                  for_aba=False)
    P = context.parameters
    A, v_star = free_motion(model.topology, model.discrete, model.time_step, dk, tau, F_O,
                            fo.gravity_parameters(model, P), fo.reflected_inertia(model, context),
                            P.damping, context.v)
    return dk, A, v_star


def step(model, context, actuation=None, applied_forces=None, *, applied_generalized_force=None,
         applied_spatial_force=None, solver_parameters: SapSolverParameters | None = None,
         v_guess=None, desired_state=None) -> DiscreteStepResult:
    """One step from ``context`` (see the module docstring); the inputs as in
    ``MultibodyPlant.CalcDiscreteStep``."""
    # 1. inputs
    pd_inputs, actuation = act.pd_inputs(model, desired_state, actuation, context.v.dtype)
    # 2. free motion
    dk, A, v_star = free_motion_of(model, context, actuation, applied_forces,
                                   applied_generalized_force, applied_spatial_force)
    # 3. contact slots
    slots = point_contact.contact_slots(model, context)
    # 4-5. the SAP problem and its solution
    data = StepData(model.topology, model.discrete, model.time_step, dk, A, v_star, context.q,
                    context.v, context.parameters.constraints, pd_inputs)
    guess = context.v if v_guess is None else v_guess
    v, contact, stats = solve_step(data, slots, guess, solver_parameters,
                                   point_contact.contact_capacity(model))
    # 6. integrate
    dt = model.time_step
    q = context.q + dt * state.map_velocity_to_qdot(model, context, v)
    nxt = context.replace(time=context.time + dt, q=q, v=v)
    if slots is not None:  # a contact may be missing: the query culled, or the cap dropped
        contact = contact._replace(overflow=jnp.asarray(slots.overflow))
    check_nonsingular(model, context, v, "CalcDiscreteStep")
    return DiscreteStepResult(nxt, contact, stats)


@partial(jax.jit, static_argnums=(0, 1))
def jitted_step(model, solver_parameters, context, actuation, kwargs) -> DiscreteStepResult:
    """`step` compiled once per (model, solver parameters); the remaining keyword arguments
    (applied forces, ``v_guess``, ``desired_state``) are traced inputs."""
    return step(model, context, actuation, solver_parameters=solver_parameters, **kwargs)


def net_actuation(model, context, actuation=None, desired_state=None, **kwargs):
    """The actuation each actuator applies over the step from ``context`` (Drake's net
    actuation output): the input clamped to the effort limits, and for armed PD-controlled
    actuators the controller's output as the SAP step solved it. (num_actuators,)."""
    dtype = context.v.dtype
    u = jnp.zeros(model.num_actuators, dtype)
    if actuation is not None:
        u = act.saturate(model, act.assemble(model, actuation, dtype))
    pd = model.discrete.pd.actuator
    if desired_state is None or not pd.size:
        return u
    r = step(model, context, actuation, desired_state=desired_state, **kwargs)
    armed = act.pd_inputs(model, desired_state, actuation, dtype)[0][3]
    u_pd = r.contact.pd_impulses / model.time_step
    return u.at[pd].set(jnp.where(armed > 0, u_pd, u[pd]))
