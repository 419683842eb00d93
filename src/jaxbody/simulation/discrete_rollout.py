"""`discrete_rollout`: N SAP steps of a discrete plant (``time_step > 0``) under a controller, in
one ``lax.scan``.

    u_k = π(t_k, x_k, params) + u_ff[k],     x_{k+1} = CalcDiscreteStep(x_k, u_k)

Pure and traceable: ``jax.jit``, ``jax.vmap`` (over contexts, i.e. scenes: initial states and
plant parameters such as masses and friction, over ``controls`` and ``params``) and ``jax.grad``
(the SAP solve differentiates implicitly; each step is rematerialized with ``checkpoint``).
Besides the states it returns, per step, the solver statistics and the generalized contact
forces, which is what plots and policies usually want.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.core.checks import check_shape
from jaxbody.plant.plant_key import PlantKey


class DiscreteRolloutResult(NamedTuple):
    """Output of `discrete_rollout`.

    Attributes:
        times: (N + 1,) t_k (s).
        states: (N + 1, nq + nv) x_k (x_0 first), or None when ``save_trajectory=False``.
        final_state: (nq + nv,) x_N.
        iterations: (N,) SAP Newton iterations per step.
        converged: (N,) 1.0 where the step's solver met its criterion.
        tau_contact: (N, nv) generalized contact forces of each step, or None.
        contact_forces: (N, P, 3) contact forces on body A in World per point slot (zero where
            inactive), or None.
        contact_points: (N, P, 3) contact points in World, or None.
        contact_active: (N, P) 1 where the point slot was an active contact, or None.
        first_nonfinite_step: int32, the first k (1..N) with a non-finite x_k, or −1.
        contact_overflow: (N,) bool, True where a step may have missed a contact
            (`ContactSolution.overflow`: a capped or culled collision query); raise
            ``set_max_active_contacts`` or ``max_pairs_per_group`` if any is set.
        first_overflow_step: int32, the first k (1..N) whose step may have missed a contact,
            or −1 (``on_overflow="raise"`` turns it into an error).
    """

    times: jax.Array
    states: jax.Array | None
    final_state: jax.Array
    iterations: jax.Array
    converged: jax.Array
    tau_contact: jax.Array | None
    contact_forces: jax.Array | None
    contact_points: jax.Array | None
    contact_active: jax.Array | None
    first_nonfinite_step: jax.Array
    contact_overflow: jax.Array
    first_overflow_step: jax.Array


def discrete_rollout(plant, context, controller=None, num_steps=1, *, params=None, controls=None,
                     save_trajectory=True, save_contacts=False, checkpoint=False,
                     solver_parameters=None, on_overflow="report",
                     desired_states=None) -> DiscreteRolloutResult:
    """Steps a discrete plant ``num_steps`` times from ``context``.

    Args:
        plant: a finalized discrete `MultibodyPlant` (static).
        context: initial `Context`.
        controller: ``π(t, x, params) -> u`` (num_actuators,), or None (hashable; a new lambda
            per call retraces).
        num_steps: N (static).
        params: pytree passed to the controller.
        controls: (N, num_actuators) feedforward u_ff, or None.
        save_trajectory: False returns only the final state.
        save_contacts: also return per-step contact points, forces and generalized forces.
        checkpoint: rematerialize each step in reverse mode (memory O(N) states only).
        solver_parameters: `SapSolverParameters`, or None for Drake's defaults.
        on_overflow: "report" (default): a step that may have missed a contact (more points
            penetrate than ``set_max_active_contacts`` allows, or the collision query's
            ``max_pairs_per_group`` culled a touching pair) is reported in
            ``contact_overflow`` and ``first_overflow_step``; "raise": it is an error, a
            ``ValueError`` naming the first such step (under an outer ``jax.jit``, an
            ``equinox.error_if`` runtime error).
        desired_states: the PD-controlled actuators' desired states, (2·num_actuators,)
            [q_d; v_d] held over the rollout or (N, 2·num_actuators) one per step; None: the
            controllers are disarmed (see `JointActuator.set_controller_gains`).

    Raises:
        ValueError: bad arguments, or a contact overflow with ``on_overflow="raise"``.
    """
    plant._require_finalized("discrete_rollout")
    plant._check_context(context, "discrete_rollout")
    if not plant.is_discrete():
        raise ValueError("discrete_rollout: the plant is continuous (time_step = 0); use "
                         "jaxbody.rollout, or build the plant with MultibodyPlant(time_step > 0)")
    num_steps = int(num_steps)
    if num_steps < 1:
        raise ValueError(f"discrete_rollout: num_steps must be >= 1, got {num_steps}")
    if on_overflow not in ("report", "raise"):
        raise ValueError(f"discrete_rollout: on_overflow must be 'report' or 'raise', got "
                         f"{on_overflow!r}")
    if controls is not None:
        controls = check_shape("discrete_rollout: controls", controls,
                                (num_steps, plant.num_actuators()))
    if desired_states is not None:
        nx = 2 * plant.num_actuators()
        xd = jnp.asarray(desired_states)
        if xd.shape == (nx,):
            xd = jnp.broadcast_to(xd, (num_steps, nx))
        desired_states = check_shape("discrete_rollout: desired_states", xd, (num_steps, nx))
    r = _discrete_rollout(PlantKey(plant), controller, num_steps, bool(save_trajectory),
                          bool(save_contacts), bool(checkpoint), solver_parameters, context,
                          params, controls, desired_states)
    if on_overflow == "raise":
        r = _raise_on_overflow(r)
    return r


OVERFLOW_HINT = ("a contact may have been missed: more points penetrated than "
                 "set_max_active_contacts allows, or the collision query's max_pairs_per_group "
                 "culled a touching pair; raise the cap that is set")


def _raise_on_overflow(r: DiscreteRolloutResult) -> DiscreteRolloutResult:
    """``r``, or a ValueError naming the first overflowing step (an ``equinox.error_if``
    runtime error when ``r`` is traced)."""
    k = r.first_overflow_step
    if isinstance(k, jax.core.Tracer):
        import equinox as eqx

        return r._replace(final_state=eqx.error_if(r.final_state, k >= 0,
                                                   f"discrete_rollout: {OVERFLOW_HINT}"))
    k = np.asarray(k)
    if k.ndim == 0 and int(k) >= 0:
        raise ValueError(f"discrete_rollout: at step {int(k)}, {OVERFLOW_HINT}")
    if k.ndim and np.any(k >= 0):
        raise ValueError(f"discrete_rollout: {int(np.sum(k >= 0))} rollouts overflowed (first "
                         f"steps {k[k >= 0][:5].tolist()}): {OVERFLOW_HINT}")
    return r


@partial(jax.jit, static_argnums=(0, 1, 2, 3, 4, 5, 6))
def _discrete_rollout(key, controller, num_steps, save, save_contacts, checkpoint, sparams,
                      context, params, controls, desired_states):
    plant = key.plant  # compiled once per model (`PlantKey`)
    dtype = context.v.dtype
    context = context.replace(time=jnp.asarray(context.time, dtype))

    def step(carry, inputs):
        u_ff, xd = inputs
        k, ctx, bad = carry
        x = jnp.concatenate([ctx.q, ctx.v])
        u = u_ff
        if controller is not None:
            pi = jnp.asarray(controller(ctx.time, x, params), dtype)
            u = pi if u is None else u + pi
        r = plant.CalcDiscreteStep(ctx, u, solver_parameters=sparams, desired_state=xd)
        nxt = r.context
        x1 = jnp.concatenate([nxt.q, nxt.v])
        k1 = k + 1
        bad = jnp.where((bad < 0) & ~jnp.all(jnp.isfinite(x1)), k1, bad)
        out = {"x": x1 if save else None, "it": r.stats.iterations, "ok": r.stats.converged,
               "over": r.contact.overflow}
        if save_contacts:
            c = r.contact
            out["tau"] = c.tau_contact
            out["f"] = jnp.einsum("pij,pj->pi", c.R_WC, c.gamma) / plant.time_step()
            out["p"] = c.p_WC
            out["a"] = c.active
        return (k1, nxt, bad), out

    body = jax.checkpoint(step) if checkpoint else step
    init = (jnp.zeros((), jnp.int32), context, -jnp.ones((), jnp.int32))
    (_, ctxN, bad), out = jax.lax.scan(body, init, (controls, desired_states),
                                       length=num_steps)
    x0 = jnp.concatenate([context.q, context.v])
    states = jnp.concatenate([x0[None], out["x"]]) if save else None
    t0 = jnp.asarray(context.time, dtype)
    times = t0 + plant.time_step() * jnp.arange(num_steps + 1, dtype=dtype)
    xN = jnp.concatenate([ctxN.q, ctxN.v])
    over = out["over"]
    first_over = jnp.where(jnp.any(over), jnp.argmax(over) + 1, -1).astype(jnp.int32)
    return DiscreteRolloutResult(times, states, xN, out["it"], out["ok"], out.get("tau"),
                                 out.get("f"), out.get("p"), out.get("a"), bad, over, first_over)
