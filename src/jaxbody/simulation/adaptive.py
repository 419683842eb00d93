"""`simulate_adaptive`: error-controlled integration of a continuous plant with diffrax.

The step size is chosen by an embedded Runge-Kutta pair (default Dormand-Prince 5(4),
``diffrax.Dopri5``; ``diffrax.Tsit5`` or ``diffrax.Dopri8`` also work) and a PID controller on
the local error, ‖err‖ <= atol + rtol·|x| [Hairer, Nørsett & Wanner, §II.4; Kidger 2021].
Quaternions are not projected inside the solver: the exact flow keeps ‖q‖ = 1 and the error
control keeps the drift within the tolerances; the saved states are renormalized.
Reverse-mode gradients use diffrax's recursive checkpointing adjoint.
"""

from __future__ import annotations

from typing import NamedTuple

import diffrax
import jax
import jax.numpy as jnp

from jaxbody.simulation.integrators import normalize_quaternions


class AdaptiveResult(NamedTuple):
    """Output of `simulate_adaptive`: `RolloutResult`'s fields, and the solver's work.

    Attributes:
        times: (k,) the save times ``ts``.
        states: (k, nq + nv) the states at ``ts``.
        final_state: (nq + nv,) the state at ``t_final``.
        first_nonfinite_step: the index in ``ts`` of the first non-finite state, or −1.
        num_steps: steps attempted (accepted and rejected).
        num_accepted_steps, num_rejected_steps: the controller's decisions.
    """

    times: jax.Array
    states: jax.Array
    final_state: jax.Array
    first_nonfinite_step: jax.Array
    num_steps: jax.Array
    num_accepted_steps: jax.Array
    num_rejected_steps: jax.Array


def simulate_adaptive(plant, context, t_final, controller=None, *, params=None, ts=None,
                      rtol=1e-8, atol=1e-8, solver=None, dt0=None, max_steps=100_000,
                      method=None) -> AdaptiveResult:
    """Integrates from ``context.time`` to ``t_final`` with adaptive steps.

    Args:
        plant: a finalized continuous `MultibodyPlant`.
        context: initial `Context`.
        t_final: end time (s).
        controller: ``π(t, x, params) -> u`` (num_actuators,), or None.
        params: pytree passed to the controller.
        ts: (k,) times at which to save the state (default: only ``t_final``).
        rtol, atol: relative and absolute local-error tolerances.
        solver: a diffrax solver (default ``diffrax.Dopri5()``).
        dt0: initial step (default: chosen by diffrax).
        max_steps: bound on the number of steps (static, for reverse mode).
        method: forward-dynamics method ("aba", "crba" or None).

    Returns:
        `AdaptiveResult`: ``times = ts``, ``states`` (k, nx), ``final_state``,
        ``first_nonfinite_step`` (the index in ``ts`` of the first non-finite state, or −1)
        and the step counts.
    """
    plant._check_context(context, "simulate_adaptive")
    nq = plant.num_positions()
    dtype = context.v.dtype

    def f(t, x, args):
        u = None
        if controller is not None:
            u = jnp.asarray(controller(t, x, args), dtype)
        ctx = context.replace(time=t, q=x[:nq], v=x[nq:])
        return plant.CalcTimeDerivatives(ctx, u, method=method)

    t0 = jnp.asarray(context.time, dtype)
    t1 = jnp.asarray(t_final, dtype)
    ts = jnp.asarray([t_final] if ts is None else ts, dtype)
    x0 = jnp.concatenate([context.q, context.v]).astype(dtype)
    sol = diffrax.diffeqsolve(
        diffrax.ODETerm(f), solver or diffrax.Dopri5(), t0, t1, dt0, x0, args=params,
        saveat=diffrax.SaveAt(ts=ts),
        stepsize_controller=diffrax.PIDController(rtol=rtol, atol=atol),
        max_steps=max_steps)
    xs = jax.vmap(lambda x: normalize_quaternions(plant, x))(sol.ys)  # per saved state
    finite = jnp.all(jnp.isfinite(xs), axis=-1)
    bad = jnp.where(jnp.all(finite), -1, jnp.argmin(finite)).astype(jnp.int32)
    stats = sol.stats
    return AdaptiveResult(ts, xs, xs[-1], bad, stats["num_steps"], stats["num_accepted_steps"],
                          stats["num_rejected_steps"])
