"""SAP's Newton solver with exact line search, and the implicit gradient of its solution.

Iterations (Drake's ``SapSolver::SolveWithGuessImpl``), from the guess v₀:
    H(v) Δv = −∇ℓ(v)  (dense Cholesky),   α = exact line search,   v ← v + αΔv,
stopping when the momentum residual, scaled by D = diag(A)^-½ over the participating velocities,
satisfies  ‖D∇ℓ‖ ≤ εa + εr·max(‖D A v‖, ‖D Jᵀγ‖)  (Drake: εa = 1e-14, εr = 1e-6), or when the
cost stalls (|Δℓ| < 1e-30 + 1e-15·ℓ with α > 0.5), or after ``max_iterations``. Everything is a
``lax.while_loop``: bounded, jit- and vmap-able (a batch runs until its slowest member is done;
finished members are held fixed).

Gradients: at the optimum m(v, θ) = ∇ℓ(v; θ) = 0, so dv = −H⁻¹ (∂m/∂θ) dθ (implicit function
theorem, Drake's AutoDiffXd path). `solve` is a ``jax.custom_jvp``: the tangent is one linear
solve with H at the solution, written with ``lax.custom_linear_solve`` so that reverse mode
(transposition) works too; nothing is differentiated through the iterations. H ⪰ A is SPD at
every v, so the gradient is finite everywhere, including at contact onset and separation
(where it is one of the one-sided derivatives).
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.contact import sap_problem as sp
from jaxbody.contact.line_search import exact_line_search
from jaxbody.contact.sap_problem import SapProblem, SapSolverParameters
from jaxbody.contact.tree_jacobian import TreeJacobian
from jaxbody.math.cholesky import cholesky, cholesky_solve, spd_solve


class SapStatistics(NamedTuple):
    """Per-solve statistics (float arrays so they can leave a differentiated function).

    Attributes:
        iterations: Newton iterations taken (0 when the guess already satisfies the criteria).
        line_search_iterations: total line-search iterations.
        residual: final scaled momentum residual ‖D∇ℓ‖.
        scale: final momentum scale max(‖DAv‖, ‖DJᵀγ‖).
        converged: 1.0 if a stopping criterion was met, else 0.0.
        cost: final ℓ(v).
    """

    iterations: jax.Array
    line_search_iterations: jax.Array
    residual: jax.Array
    scale: jax.Array
    converged: jax.Array
    cost: jax.Array


def _residual(p: SapProblem, v):
    """(‖D∇ℓ‖, max(‖DAv‖, ‖DJᵀγ‖)), D = diag(A)^-½ on participating velocities."""
    gc, gl = sp.impulses(p, *sp.constraint_velocities(p, v))
    jc = sp.generalized_impulse(p, gc, gl)
    Av = p.A @ v
    d = p.scale_mask / jnp.sqrt(jnp.diagonal(p.A))
    grad = Av - p.A @ p.v_star - jc
    return jnp.linalg.norm(d * grad), jnp.maximum(jnp.linalg.norm(d * Av),
                                                  jnp.linalg.norm(d * jc)), grad


def _newton(p: SapProblem, v_guess, params: SapSolverParameters):
    dtype = v_guess.dtype

    def optimality(res, scale):
        return res <= params.abs_tolerance + params.rel_tolerance * scale

    def cond(s):
        _, _, it, _, done, _ = s
        return (~done) & (it < params.max_iterations)

    def body(s):
        v, ell, it, ls_it, _, _ = s
        grad = sp.gradient(p, v)
        H = sp.hessian(p, v)
        dv = -cholesky_solve(cholesky(H), grad)
        alpha, n_ls = exact_line_search(p, v, dv, grad, lambda a: sp.cost(p, v + a * dv), params)
        v_new = v + alpha * dv
        ell_new = sp.cost(p, v_new)
        res, scale, _ = _residual(p, v_new)
        stall = (jnp.abs(ell - ell_new) < params.cost_abs_tolerance + params.cost_rel_tolerance
                 * 0.5 * (jnp.abs(ell) + jnp.abs(ell_new))) & (alpha > 0.5)
        done = optimality(res, scale) | stall
        return v_new, ell_new, it + 1, ls_it + n_ls, done, res

    res0, scale0, _ = _residual(p, v_guess)
    init = (v_guess, sp.cost(p, v_guess), jnp.asarray(0), jnp.asarray(0),
            optimality(res0, scale0), res0)
    v, ell, it, ls_it, done, res = jax.lax.while_loop(cond, body, init)
    _, scale, _ = _residual(p, v)
    stats = SapStatistics(it.astype(dtype), ls_it.astype(dtype), res, scale,
                          done.astype(dtype), ell)
    return v, stats


@partial(jax.custom_jvp, nondiff_argnums=(2,))
def _solve(p: SapProblem, v_guess, params_tuple):
    return _newton(p, v_guess, SapSolverParameters(*params_tuple))


@_solve.defjvp
def _solve_jvp(params_tuple, primals, tangents):
    p, v_guess = primals
    dp, _ = tangents
    v, stats = _newton(p, v_guess, SapSolverParameters(*params_tuple))
    # ∂m/∂θ · dθ at fixed v, then dv = −H⁻¹ (that).
    _, dm = jax.jvp(lambda prob: sp.gradient(prob, v), (p,), (dp,))
    dv = -spd_solve(jax.lax.stop_gradient(sp.hessian(p, v)), dm)
    zero_stats = jax.tree_util.tree_map(jnp.zeros_like, stats)
    return (v, stats), (dv, zero_stats)


def solve(problem: SapProblem, v_guess, params: SapSolverParameters | None = None):
    """Solves a SAP problem from the guess ``v_guess``: (v (nv,), `SapStatistics`).

    Differentiable w.r.t. every array of ``problem`` by the implicit function theorem (forward
    and reverse mode); ``v_guess`` is a warm start only (no derivative flows through it).
    """
    if not isinstance(problem.Jc, TreeJacobian):
        raise TypeError("solve: SapProblem.Jc must be a TreeJacobian (wrap a dense (nc, 3, nv) "
                        "Jacobian with TreeJacobian.from_dense), got "
                        f"{type(problem.Jc).__name__}")
    params = params or SapSolverParameters()
    v_guess = jnp.asarray(v_guess, problem.v_star.dtype)
    # Velocities of trees without an active constraint are v* exactly (A is block diagonal by
    # tree); only the participating ones are iterated on (and measured by the criterion).
    v_guess = jax.lax.stop_gradient(jnp.where(problem.scale_mask > 0, v_guess, problem.v_star))
    return _solve(problem, v_guess, dataclasses.astuple(params))
