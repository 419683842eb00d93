"""A fixed-step rollout whose derivatives come from a batched linearization (the adjoint method).

Plain autodiff of a ``lax.scan`` of N integrator steps differentiates each step in turn: in
reverse mode the backward scan runs, step by step, the transposes of every stage's forward
dynamics, a few hundred small XLA operations each. Here the derivative is built instead from
the linearization of the whole trajectory, with everything expensive done in one batched call:

1. the forward scan runs the integrator and records every stage's input (t_ki, s_ki) and
   output k_ki = f(t_ki, s_ki), i = 1..S (S = 4 for RK4);
2. ẋ = f(t, s; w, u_k) is linearized at all N·S stages at once, at batch N·S (so the
   batch-minor dynamics kernels run once): the stage Jacobians A_ki = ∂f/∂s and a_ki = ∂f/∂t,
   and the parameter part ė_ki = ∂f/∂(w, u) [ẇ, u̇_k]. Given f's `ImplicitStages` (the plant's,
   without a controller), from the implicit form at the recorded k_ki: A from the analytic
   inverse-dynamics derivatives and M⁻¹, ė = −diag(1, M⁻¹) ∂R/∂(w, u) from the implicit
   residual R, and no f evaluated again; otherwise by ``jacfwd`` of f and a ``jvp`` in the
   parameters;
3. each step is *replayed* with every stage's f replaced by its affine model
   k_ki + A_ki (s − s_ki) + a_ki (t − t_ki) + e_ki: the replay has the step's exact
   derivatives (quaternion projection included) and only small products, so the step Jacobians
   J_k = ∂x_{k+1}/∂x_k come from ``jacfwd`` of the replay, batched over k, and its tangent in
   (t0, dt, e) gives c_k;
4. the tangent recursion δx_{k+1} = J_k δx_k + c_k is a scan of one matrix-vector product.

This is the rule of a ``jax.custom_jvp``, so forward mode (``jvp``, ``jacfwd``) uses it directly
and reverse mode (``grad``, ``vjp``, ``jacrev``) transposes it: the backward pass becomes a scan
of one transposed matrix-vector product per step, λ_k = J_kᵀ λ_{k+1}, followed by one batched
transpose of the parameter map over all N·S stages. Memory: the stage Jacobians (N·S, nx, nx)
and the step Jacobians (N, nx, nx), against plain autodiff's per-stage residuals.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero

# jax 0.7.0's lax.scan transpose fails an internal assertion on the tangent scan once the
# parameters have a tangent (its extensive residuals are taken for linear inputs); jax 0.10.2
# transposes it. Versions in between are not tested, so the adjoint starts at 0.10.
ADJOINT_MIN_JAX = (0, 10)


def jax_supports_adjoint() -> bool:
    """Whether this jax transposes `linearized_rollout`'s rule (jax >= `ADJOINT_MIN_JAX`)."""
    major, minor = (int(p) for p in jax.__version__.split(".")[:2])
    return (major, minor) >= ADJOINT_MIN_JAX


class _Recorded(NamedTuple):
    """The forward scan's record, stacked over the N steps.

    Attributes:
        x: (N, nx) x_1..x_N.
        t: (N, S) every stage's time t_ki.
        s: (N, S, nx) every stage's state s_ki.
        k: (N, S, nx) every stage's k_ki = f(t_ki, s_ki).
    """

    x: jax.Array
    t: jax.Array
    s: jax.Array
    k: jax.Array


def _instantiate(t):
    return jnp.zeros(t.shape, t.dtype) if isinstance(t, SymbolicZero) else t


def _active_leaves(w, us, dw, dus):
    """(leaves of (w, us), their treedef, the tangent leaves, the indices of the active ones:
    an inexact leaf whose tangent is not symbolically zero)."""
    leaves, treedef = jax.tree_util.tree_flatten((w, us))
    dleaves = jax.tree_util.tree_leaves((dw, dus), is_leaf=lambda t: isinstance(t, SymbolicZero))
    active = [i for i, (x, d) in enumerate(zip(leaves, dleaves))
              if not isinstance(d, SymbolicZero) and jnp.issubdtype(jnp.result_type(x), jnp.inexact)]
    return leaves, treedef, dleaves, active


def _parameter_tangent(xdot, S, tt, sf, w, us, dw, dus):
    """(N·S, nx) tangent of f at every stage in the parameters w and the step inputs us, from
    their active (not symbolically zero, inexact) leaves only, or None when none is active."""
    leaves, treedef, dleaves, active = _active_leaves(w, us, dw, dus)
    if not active:
        return None

    def f_active(*xs):
        full = list(leaves)
        for i, x in zip(active, xs):
            full[i] = x
        w_, us_ = jax.tree_util.tree_unflatten(treedef, full)
        u_rep = jax.tree_util.tree_map(lambda a: jnp.repeat(a, S, axis=0), us_)
        return jax.vmap(xdot, (0, 0, None, 0))(tt, sf, w_, u_rep)

    return jax.jvp(f_active, [leaves[i] for i in active], [dleaves[i] for i in active])[1]


class ImplicitStages(NamedTuple):
    """f in implicit form, so that its stages are linearized without evaluating f again.

    Attributes:
        linearization: ``(t, s, k, w, u) -> (∂f/∂s (nx, nx), M⁻¹ (nv, nv))`` at the known
            k = f(t, s; w, u).
        residual: ``(t, s, k, w, u) -> R (nx,)``, zero at k = f(t, s; w, u), with
            ∂R/∂k = diag(1 (nq), M) (the plant's implicit residual), so that the tangent of f
            in t or in the parameters is −diag(1, M⁻¹) ∂R.
    """

    linearization: Callable
    residual: Callable


def _implicit_stage_linearization(implicit, nq, S, tt, sf, kf, w, us, dw, dus):
    """(∂f/∂t, ∂f/∂s, ė or None) at every stage as `_parameter_tangent` and ``jacfwd`` give
    them, from `ImplicitStages` at the recorded k: no stage's f is evaluated again."""
    rep = partial(jnp.repeat, repeats=S, axis=0)
    A, M_inv = jax.vmap(implicit.linearization, (0, 0, 0, None, 0))(
        tt, sf, kf, w, jax.tree_util.tree_map(rep, us))

    def solve(R):  # −diag(1, M⁻¹) R at every stage
        return -jnp.concatenate([R[:, :nq], jnp.einsum("bij,bj->bi", M_inv, R[:, nq:])], 1)

    leaves, treedef, dleaves, active = _active_leaves(w, us, dw, dus)

    def residual(t, *xs):
        full = list(leaves)
        for i, x in zip(active, xs):
            full[i] = x
        w_, us_ = jax.tree_util.tree_unflatten(treedef, full)
        return jax.vmap(implicit.residual, (0, 0, 0, None, 0))(
            t, sf, kf, w_, jax.tree_util.tree_map(rep, us_))

    p = [leaves[i] for i in active]
    a_t = solve(jax.jvp(lambda t: residual(t, *p), (tt,), (jnp.ones_like(tt),))[1])
    if not active:
        return a_t, A, None
    R_p = jax.jvp(lambda *xs: residual(tt, *xs), p, [dleaves[i] for i in active])[1]
    return a_t, A, solve(R_p)


def linearized_rollout(xdot: Callable, step_fn: Callable, project: Callable, nq: int,
                       num_steps: int, implicit: ImplicitStages | None = None) -> Callable:
    """``run(x0, t0, dt, w, us) -> (xs, first_nonfinite)`` with derivatives by the adjoint.

    Args:
        xdot: ``f(t, x, w, u) -> ẋ``; w: the parameters of the whole rollout (a pytree), u: one
            step's inputs (the k-th slice of ``us``).
        step_fn: an integrator step ``step(f, t, x, dt, nq) -> x⁺`` calling ``f`` a fixed
            number of times (`jaxbody.simulation.integrators`).
        project: ``x -> x`` applied after every step (the quaternion normalization, or the
            identity).
        nq: the number of positions (passed to ``step_fn``).
        num_steps: N.
        implicit: f's `ImplicitStages`, or None: the stages are then linearized by ``jacfwd``
            of f (every stage's f evaluated again, and its Jacobian through jacfwd's identity
            basis).

    Returns:
        ``run``: xs (N, nx) = x_1..x_N and the first k with a non-finite x_k (or −1).
    """

    def forward(x0, t0, dt, w, us, record):
        def body(carry, u):
            k, x, bad = carry
            t = t0 + k.astype(x.dtype) * dt
            stages = []

            def f(tt, s):
                out = xdot(tt, s, w, u)
                if record:
                    stages.append((jnp.asarray(tt, x.dtype), s, out))
                return out

            x1 = project(step_fn(f, t, x, dt, nq))
            k1 = k + 1
            bad = jnp.where((bad < 0) & ~jnp.all(jnp.isfinite(x1)), k1, bad)
            out = x1
            if record:
                ts, ss, ks = (jnp.stack(z) for z in zip(*stages))
                out = _Recorded(x1, ts, ss, ks)
            return (k1, x1, bad), out

        init = (jnp.zeros((), jnp.int32), x0, -jnp.ones((), jnp.int32))
        (_, _, bad), out = jax.lax.scan(body, init, us, length=num_steps)
        return out, bad

    @jax.custom_jvp
    def run(x0, t0, dt, w, us):
        return forward(x0, t0, dt, w, us, False)

    @partial(run.defjvp, symbolic_zeros=True)
    def run_jvp(primals, tangents):
        x0, t0, dt, w, us = primals
        dx0, dt0, ddt, dw, dus = tangents
        rec, bad = forward(x0, t0, dt, w, us, True)
        xs, st, ss, ks = rec.x, rec.t, rec.s, rec.k
        n, S, nx = ss.shape
        dtype = xs.dtype

        # f's (t, x) Jacobians at all N·S stages, in one batched call
        tt, sf = st.reshape(n * S), ss.reshape(n * S, nx)
        if implicit is not None:
            a_t, A, e_dot = _implicit_stage_linearization(
                implicit, nq, S, tt, sf, ks.reshape(n * S, nx), w, us, dw, dus)
        else:
            u_rep = jax.tree_util.tree_map(lambda a: jnp.repeat(a, S, axis=0), us)

            def f_tx(t, s, u):
                return xdot(t, s, w, u)

            a_t, A = jax.vmap(jax.jacfwd(f_tx, (0, 1)))(tt, sf, u_rep)
            # and f's tangent in the active parameters and inputs (left out when none is)
            e_dot = _parameter_tangent(xdot, S, tt, sf, w, us, dw, dus)
        dx0, dt0, ddt = (_instantiate(d) for d in (dx0, dt0, ddt))

        # the steps replayed on the affine stage models
        def replay(x, t0_, dt_, e, k, A_k, a_k, k_k, s_k, t_k):
            count = [0]

            def f(tt, s):
                j = count[0]
                count[0] += 1
                return k_k[j] + A_k[j] @ (s - s_k[j]) + a_k[j] * (tt - t_k[j]) + e[j]

            x1 = project(step_fn(f, t0_ + k * dt_, x, dt_, nq))
            if count[0] != S:
                raise AssertionError(f"rollout adjoint: the step called f {count[0]} times "
                                     f"in its replay, {S} in its recording")
            return x1

        x_prev = jnp.concatenate([x0[None], xs[:-1]], 0)
        kk = jnp.arange(n, dtype=dtype)
        stage = (A.reshape(n, S, nx, nx), a_t.reshape(n, S, nx), ks, ss, st)
        e0 = jnp.zeros((n, S, nx), dtype)
        J = jax.vmap(jax.jacfwd(replay), (0, None, None, 0, 0, 0, 0, 0, 0, 0))(
            x_prev, t0, dt, e0, kk, *stage)

        def c_of(x, e, de, k, *stage_k):
            return jax.jvp(lambda t0_, dt_, e_: replay(x, t0_, dt_, e_, k, *stage_k),
                           (t0, dt, e), (dt0, ddt, de))[1]

        de = jnp.zeros_like(e0) if e_dot is None else e_dot.reshape(n, S, nx)
        c = jax.vmap(c_of)(x_prev, e0, de, kk, *stage)

        def tangent_step(dx, inp):
            J_k, c_k = inp
            dx1 = J_k @ dx + c_k
            return dx1, dx1

        _, dxs = jax.lax.scan(tangent_step, dx0, (J, c))
        return (xs, bad), (dxs, np.zeros((), jax.dtypes.float0))

    return run
