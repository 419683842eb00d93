"""SAP's Newton iterations with exact line search, for one problem (Drake's
``SapSolver::SolveWithGuessImpl``).

From the guess v₀:  H(v) Δv = −∇ℓ(v),  α = exact line search,  v ← v + αΔv,  the Newton system
solved by a dense Cholesky of H on a plant with one tree or at most `DENSE_MAX_NV` velocities, and
on larger plants with several trees by conjugate gradients in tree layout with block-Jacobi
preconditioning (`pcg`, `tree_hessian`: O(trees·d² + contacts·d) per product instead of O(nv³)
per factorization). It stops when the momentum residual, scaled by D = diag(A)^-½ over the
participating velocities, satisfies ‖D∇ℓ‖ ≤ εa + εr·max(‖D A v‖, ‖D Jᵀγ‖) (Drake: εa = 1e-14,
εr = 1e-6), when the cost stalls (|Δℓ| < 1e-30 + 1e-15·ℓ with α > 0.5), or after
``max_iterations``. `newton` is one ``lax.while_loop`` (bounded, jit- and vmap-able); how a
``vmap`` batch runs it is `sap_batching`'s choice, per platform.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.contact import sap_problem as sp
from jaxbody.contact.line_search import Line, exact_line_search
from jaxbody.contact.pcg import pcg
from jaxbody.contact.sap_problem import SapProblem, SapSolverParameters
from jaxbody.math.cholesky import cholesky, cholesky_solve
from jaxbody.math.small_spd import block_matvec


class SapStatistics(NamedTuple):
    """Per-solve statistics (float arrays so they can leave a differentiated function).

    Attributes:
        iterations: Newton iterations taken (0 when the guess already satisfies the criteria).
        line_search_iterations: total line-search iterations.
        residual: final scaled momentum residual ‖D∇ℓ‖.
        scale: final momentum scale max(‖DAv‖, ‖DJᵀγ‖).
        converged: 1.0 if a stopping criterion was met, else 0.0.
        cost: final ℓ(v).
        linear_iterations: total conjugate-gradient iterations of the Newton systems (the
            number of Cholesky solves with ``linear_solver="dense"``).
    """

    iterations: jax.Array
    line_search_iterations: jax.Array
    residual: jax.Array
    scale: jax.Array
    converged: jax.Array
    cost: jax.Array
    linear_iterations: jax.Array


class NewtonState(NamedTuple):
    """The carry of the Newton loop (one problem; a ``vmap`` adds a leading batch axis).

    Attributes:
        v: (nv,) the iterate.
        vc, vl: its constraint velocities J v ((nc, 3), (nl,)), updated along each step as
            vc + αJΔv (J is applied to each direction once, not to each iterate again).
        Adv: (nv,) A (v − v*), updated likewise as A(v − v*) + αAΔv.
        ell: ℓ(v).
        grad: (nv,) ∇ℓ(v), the momentum residual (evaluated with the residual, once per
            iteration).
        res: the scaled residual ‖D∇ℓ(v)‖.
        scale: the momentum scale max(‖DAv‖, ‖DJᵀγ‖) of the relative criterion.
        it: Newton iterations taken.
        ls_it: line-search iterations, in total.
        lin_it: linear-solver iterations (CG, or one per Cholesky solve), in total.
        done: whether a stopping criterion was met.
    """

    v: jax.Array
    vc: jax.Array
    vl: jax.Array
    Adv: jax.Array
    ell: jax.Array
    grad: jax.Array
    res: jax.Array
    scale: jax.Array
    it: jax.Array
    ls_it: jax.Array
    lin_it: jax.Array
    done: jax.Array


def _residual(p: SapProblem, v, vc, vl, Adv, Av_star):
    """(‖D∇ℓ‖, max(‖DAv‖, ‖DJᵀγ‖), ∇ℓ(v), ℓ(v)) at v with J v = (vc, vl), A(v − v*) = Adv and
    A v* = Av_star; D = diag(A)^-½ on participating velocities (the impulses evaluated once
    for all four)."""
    gc, gl = sp.impulses(p, vc, vl)
    jc = sp.generalized_impulse(p, gc, gl)
    d = p.scale_mask / jnp.sqrt(sp.diagonal_A(p))
    grad = Adv - jc
    ell = 0.5 * (v - p.v_star) @ Adv + sp.constraint_cost(p, gc, gl, vl, vc)
    return jnp.linalg.norm(d * grad), jnp.maximum(jnp.linalg.norm(d * (Adv + Av_star)),
                                                  jnp.linalg.norm(d * jc)), grad, ell


# "auto" solves the Newton systems of plants with at most this many velocities by a dense
# Cholesky even when they have several trees: measured at batch 64 on one core against PCG
# (exact forcing), 1.04x as fast at nv = 48 (8 spheres), 1.6x at nv = 72 (12-sphere pile), 0.85x
# at nv = 162 (27 spheres in a box); the crossover, interpolated, is near nv = 130.
DENSE_MAX_NV = 128


def uses_pcg(p: SapProblem, params: SapSolverParameters):
    """Whether the Newton systems of ``p`` go to conjugate gradients (`SapSolverParameters`
    ``linear_solver``); raises ValueError on a bad setting."""
    if params.linear_solver not in ("auto", "dense", "pcg"):
        raise ValueError("SapSolverParameters.linear_solver must be 'auto', 'dense' or 'pcg', "
                         f"got {params.linear_solver!r}")
    if params.cg_forcing not in ("exact", "adaptive"):
        raise ValueError("SapSolverParameters.cg_forcing must be 'exact' or 'adaptive', got "
                         f"{params.cg_forcing!r}")
    if not (params.cg_tolerance > 0) or int(params.cg_max_iterations) < 0:
        raise ValueError("SapSolverParameters: cg_tolerance must be > 0 and cg_max_iterations "
                         f">= 0 (0: 2·nv), got {params.cg_tolerance!r} and "
                         f"{params.cg_max_iterations!r}")
    if params.linear_solver == "pcg" and p.Jc.is_dense:
        raise ValueError("SapSolverParameters.linear_solver='pcg' needs the contact Jacobian in "
                         "tree form (a plant with several trees); this problem's is dense")
    if params.linear_solver == "auto":
        return not p.Jc.is_dense and p.v_star.shape[0] > DENSE_MAX_NV
    return params.linear_solver == "pcg"


def _pcg_with_hessian(p: SapProblem, params: SapSolverParameters):
    """solve(H, b, tol) = H⁻¹ b for a `TreeHessian` H by preconditioned conjugate gradients in
    tree layout: (x (nv,), iterations)."""
    nv = p.v_star.shape[0]
    max_it = params.cg_max_iterations or 2 * nv

    def solve(H, b, tol):
        Minv = H.block_jacobi_inverse()
        x, it = pcg(H.matvec, lambda r: block_matvec(Minv, r), p.Jc.to_tree(b), tol, max_it)
        return p.Jc.from_tree(x), it

    return solve


def pcg_solver(p: SapProblem, params: SapSolverParameters):
    """solve(v, b) = H(v)⁻¹ b by preconditioned conjugate gradients in tree layout:
    (x (nv,), iterations)."""
    solve = _pcg_with_hessian(p, params)

    def solve_at(v, b, tol=params.cg_tolerance):
        return solve(sp.tree_hessian(p, v), b, tol)

    return solve_at


FORCING_MAX = 0.1  # the loosest relative CG tolerance of an adaptive Newton step
FORCING_TIGHT_BELOW = 1e-5  # scaled residual below which adaptive steps solve to cg_tolerance


def _newton_direction(p: SapProblem, params: SapSolverParameters):
    """direction(vc, vl, grad, r, it) = (−H⁻¹ grad, linear-solver iterations, tight), H the
    Hessian at the iterate whose constraint velocities are (vc, vl), ``r`` the scaled residual
    there, ``it`` the Newton iteration and ``tight`` whether the system was solved to
    ``cg_tolerance`` (`SapSolverParameters.cg_forcing`)."""
    if uses_pcg(p, params):
        solve_with = _pcg_with_hessian(p, params)
        tight_tol = jnp.asarray(params.cg_tolerance, p.v_star.dtype)

        def direction(vc, vl, grad, r, it):
            if params.cg_forcing == "adaptive":
                tol = jnp.where((r < FORCING_TIGHT_BELOW) | (it == 0), tight_tol,
                                jnp.clip(r, tight_tol, FORCING_MAX))
            else:
                tol = tight_tol
            x, it = solve_with(sp.tree_hessian_at(p, vc, vl), -grad, tol)
            return x, it, tol <= tight_tol
    else:
        def direction(vc, vl, grad, r, it):
            dv = -cholesky_solve(cholesky(sp.hessian_at(p, vc, vl)), grad)
            return dv, jnp.asarray(1), jnp.asarray(True)
    return direction


def statistics(s: NewtonState):
    """(v, `SapStatistics`) of the final state ``s``."""
    dtype = s.v.dtype
    return s.v, SapStatistics(s.it.astype(dtype), s.ls_it.astype(dtype), s.res, s.scale,
                              s.done.astype(dtype), s.ell, s.lin_it.astype(dtype))


def newton(p: SapProblem, v_guess, params: SapSolverParameters):
    """(v, `SapStatistics`): the Newton iterations of one problem from ``v_guess``, a
    ``lax.while_loop`` (jit- and vmap-able; `sap_batching` says how a batch runs it)."""
    tiny = jnp.finfo(p.v_star.dtype).tiny
    direction = _newton_direction(p, params)
    Av_star = sp.mul_A(p, p.v_star)

    def optimality(res, scale):
        return res <= params.abs_tolerance + params.rel_tolerance * scale

    def init(v_guess):
        vc, vl = sp.constraint_velocities(p, v_guess)
        Adv = sp.mul_A(p, v_guess - p.v_star)
        res0, scale0, grad0, ell0 = _residual(p, v_guess, vc, vl, Adv, Av_star)
        zero = jnp.asarray(0)
        return NewtonState(v_guess, vc, vl, Adv, ell0, grad0, res0, scale0, zero, zero, zero,
                           optimality(res0, scale0))

    def cond(s: NewtonState):
        return (~s.done) & (s.it < params.max_iterations)

    def body(s: NewtonState):
        dv, n_lin, tight = direction(s.vc, s.vl, s.grad, s.res / jnp.maximum(s.scale, tiny),
                                     s.it)
        dvc, dvl = sp.constraint_velocities(p, dv)
        dp = sp.mul_A(p, dv)
        line = Line(sp.constraint_line(p, s.vc, s.vl, dvc, dvl), dv @ s.Adv, dv @ dp,
                    0.5 * (s.v - p.v_star) @ s.Adv)
        alpha, n_ls = exact_line_search(p, line, s.grad @ dv, params)
        v, vc, vl = s.v + alpha * dv, s.vc + alpha * dvc, s.vl + alpha * dvl
        Adv = s.Adv + alpha * dp
        res, scale, grad, ell = _residual(p, v, vc, vl, Adv, Av_star)
        stall = (jnp.abs(s.ell - ell) < params.cost_abs_tolerance + params.cost_rel_tolerance
                 * 0.5 * (jnp.abs(s.ell) + jnp.abs(ell))) & (alpha > 0.5)
        return NewtonState(v, vc, vl, Adv, ell, grad, res, scale, s.it + 1, s.ls_it + n_ls,
                           s.lin_it + n_lin, (optimality(res, scale) & tight) | stall)

    return statistics(jax.lax.while_loop(cond, body, init(v_guess)))
