"""SAP's solve: the Newton iterations (`sap_newton`, batched per platform by `sap_batching`),
and the implicit gradient of their solution.

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

import jax
import jax.numpy as jnp

from jaxbody.contact import sap_problem as sp
from jaxbody.contact.sap_batching import newton_batched
from jaxbody.contact.sap_newton import SapStatistics, pcg_solver, uses_pcg  # noqa: F401
from jaxbody.contact.sap_problem import SapProblem, SapSolverParameters
from jaxbody.contact.tree_jacobian import TreeJacobian
from jaxbody.math.cholesky import spd_solve


@partial(jax.custom_jvp, nondiff_argnums=(2,))
def _solve(p: SapProblem, v_guess, params_tuple):
    return newton_batched(p, v_guess, params_tuple)


@_solve.defjvp
def _solve_jvp(params_tuple, primals, tangents):
    p, v_guess = primals
    dp, _ = tangents
    v, stats = newton_batched(p, v_guess, params_tuple)
    # ∂m/∂θ · dθ at fixed v, then dv = −H⁻¹ (that).
    _, dm = jax.jvp(lambda prob: sp.gradient(prob, v), (p,), (dp,))
    params = SapSolverParameters(*params_tuple)
    p0 = jax.lax.stop_gradient(p)
    if uses_pcg(p0, params):
        solve_at = pcg_solver(p0, params)
        H = sp.tree_hessian(p0, v)
        dv = -jax.lax.custom_linear_solve(
            lambda x: p0.Jc.from_tree(H.matvec(p0.Jc.to_tree(x))), dm,
            solve=lambda _, r: solve_at(v, r)[0], symmetric=True)
    else:
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
    if problem.A is None and (problem.A_tree is None or problem.Jc.is_dense):
        raise ValueError("solve: SapProblem.A may be None only when A_tree holds its tree "
                         "blocks and Jc is in tree form")
    params = params or SapSolverParameters()
    problem = sp.with_tree_blocks(problem)
    v_guess = jnp.asarray(v_guess, problem.v_star.dtype)
    # Velocities of trees without an active constraint are v* exactly (A is block diagonal by
    # tree); only the participating ones are iterated on (and measured by the criterion).
    v_guess = jax.lax.stop_gradient(jnp.where(problem.scale_mask > 0, v_guess, problem.v_star))
    return _solve(problem, v_guess, dataclasses.astuple(params))
