"""The SAP problem: data, cost ℓ(v), momentum residual ∇ℓ(v) and Hessian H(v).

    ℓ(v) = ½ (v − v*)ᵀ A (v − v*) + Σᵢ ½ γᵢᵀ Rᵢ γᵢ,        γᵢ = P(−Rᵢ⁻¹(Jᵢ v − v̂ᵢ)),
    ∇ℓ(v) = A (v − v*) − Jᵀ γ,        H(v) = A + Jᵀ G J.

`SapProblem` is a pytree of arrays only, so a problem is built by differentiable code (from
masses, stiffness, friction, …) and the implicit gradient of the solution flows back into those
parameters (see `sap_solver`). Constraint slots have fixed sizes; ``*_active`` masks (0/1) switch
slots off.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.contact import constraints as C
from jaxbody.contact import hunt_crossley as hcm
from jaxbody.contact.tree_hessian import TreeHessian, limit_rows, tree_blocks
from jaxbody.contact.tree_jacobian import TreeJacobian
from jaxbody.math.small_spd import block_matvec


@jax.tree_util.register_static
@dataclasses.dataclass(frozen=True)
class SelectionRows:
    """Static (no leaves under jit, vmap): the first ``count`` rows of a `SapProblem`'s ``Jl``
    each hold a single ±1 (the joint-limit rows), so their part of JᵀGJ is the diagonal
    Σ_l G_l J_l², a matrix-vector product instead of a congruence."""

    count: int


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class SapProblem:
    """Arrays of one SAP problem.

    Attributes:
        A: (nv, nv) dynamics matrix M + δt·D (SPD), or None when ``A_tree`` holds it (a plant
            of several trees, whose A is block diagonal by tree; `dense_A` makes the matrix).
        v_star: (nv,) free-motion velocities.
        Jc: `TreeJacobian` of the nc contacts (3 rows each: t₁, t₂, n of the contact frame);
            ``TreeJacobian.from_dense`` wraps a dense (nc, 3, nv) array.
        Rc: (nc, 3) regularization (Rt, Rt, Rn).
        vhat_c: (nc, 3) bias velocities (0, 0, v̂n).
        mu: (nc,) friction coefficients.
        active_c: (nc,) 0/1.
        Jl: (nl, nv) Jacobian rows of the scalar constraints: unilateral (joint limits) and
            bilateral (couplers) equations.
        Rl, vhat_l, active_l: (nl,) their regularization, bias and mask.
        scale_mask: (nv,) 1 for velocities of trees that have an active constraint (Drake's
            "participating" dofs, used by the stopping criterion), 0 elsewhere.
        A_tree: None, or (T+1, d, d) the tree blocks of A (`tree_hessian.tree_blocks`,
            identity on pad entries) when ``Jc`` is in tree form: products with A then cost
            O(T·d²), not O(nv²). `sap_solver.solve` fills it in from ``A``
            (`with_tree_blocks`); the discrete step builds it directly and leaves ``A`` None.
        lower_l: None (every row unilateral: γ ≥ 0), or (nl,) each row's lower impulse bound
            (0: unilateral, −∞: bilateral).
        upper_l: None (no upper bound), or (nl,) each row's upper impulse bound (+∞, or δt·e
            for an effort-limited PD controller).
        hc: None (contacts are friction cones: kSap), or `hunt_crossley.HuntCrossley`: the
            contacts are Drake's Hunt & Crossley constraints (kSimilar, kLagged); ``Rc`` and
            ``vhat_c`` are then unused.
        selection_rows: `SelectionRows` (static): how many of ``Jl``'s first rows are ±1 on a
            single velocity (joint limits), whose part of JᵀGJ is diagonal.
    """

    A: jax.Array | None
    v_star: jax.Array
    Jc: TreeJacobian
    Rc: jax.Array
    vhat_c: jax.Array
    mu: jax.Array
    active_c: jax.Array
    Jl: jax.Array
    Rl: jax.Array
    vhat_l: jax.Array
    active_l: jax.Array
    scale_mask: jax.Array
    A_tree: jax.Array | None = None
    lower_l: jax.Array | None = None
    upper_l: jax.Array | None = None
    hc: hcm.HuntCrossley | None = None
    selection_rows: SelectionRows | None = None


@dataclasses.dataclass(frozen=True)
class SapSolverParameters:
    """Drake's ``SapSolverParameters`` defaults (exact line search)."""

    abs_tolerance: float = 1e-14
    rel_tolerance: float = 1e-6
    cost_abs_tolerance: float = 1e-30
    cost_rel_tolerance: float = 1e-15
    max_iterations: int = 100
    line_search_max_iterations: int = 100
    alpha_max: float = 1.5
    line_search_f_tolerance: float = 1e-8
    # jaxbody's own: how each Newton system H Δv = −∇ℓ is solved. "dense": one Cholesky of H
    # (nv × nv); "pcg": conjugate gradients on H in tree layout with block-Jacobi
    # preconditioning (`tree_hessian`), to relative preconditioned residual ``cg_tolerance``
    # within ``cg_max_iterations`` (0: 2·nv); "auto": "pcg" when the contact Jacobian is in
    # tree form (several trees) and nv > `sap_newton.DENSE_MAX_NV` (128), else "dense" (measured
    # on batches of 64, one core: dense is 1.04x PCG's speed on 8 spheres, nv = 48, and 1.6x on a
    # 12-sphere pile, nv = 72, with Drake's iterates to 1e-14 instead of 1e-7; PCG is 1.18x
    # dense's speed on 27 spheres in a box, nv = 162).
    linear_solver: str = "auto"
    cg_tolerance: float = 1e-10
    cg_max_iterations: int = 0
    # How exactly conjugate gradients solve each Newton system. "exact": to ``cg_tolerance``
    # every iteration (Drake's exact Newton iterates, so the answer equals Drake's to 1e-10).
    # "adaptive": inexact Newton (Eisenstat & Walker 1996): the first iteration, and every one
    # whose scaled residual r = ‖D∇ℓ‖ / max(‖DAv‖, ‖DJᵀγ‖) is below 1e-5, solves to
    # ``cg_tolerance``; the others to the relative tolerance η = min(0.1, r); the solve stops only
    # after a tight step. The answer is the optimum to the same criterion, with several times
    # fewer CG iterations on large problems (a 100-sphere pile: 250 instead of 1486 in a step),
    # but through other iterates than Drake's, so it agrees with Drake only to Drake's own
    # ``rel_tolerance`` (~1e-7 relative). Ignored by the dense solver.
    cg_forcing: str = "exact"


def with_tree_blocks(p: SapProblem) -> SapProblem:
    """``p`` with ``A_tree`` set when its Jacobian is in tree form (unchanged otherwise)."""
    if p.Jc.is_dense or p.A_tree is not None:
        return p
    return dataclasses.replace(p, A_tree=tree_blocks(p.Jc, p.A))


def dense_A(p: SapProblem):
    """A as an (nv, nv) matrix (made from ``A_tree`` when ``A`` is None)."""
    return p.A if p.A is not None else p.Jc.dense_from_tree_blocks(p.A_tree)


def diagonal_A(p: SapProblem):
    """(nv,) the diagonal of A."""
    if p.A is not None:
        return jnp.diagonal(p.A)
    return p.Jc.from_tree(jnp.diagonal(p.A_tree, axis1=1, axis2=2))


def mul_A(p: SapProblem, x):
    """A x for x (nv,), by tree blocks when ``p.A_tree`` is set."""
    if p.A_tree is None:
        return p.A @ x
    return p.Jc.from_tree(block_matvec(p.A_tree, p.Jc.to_tree(x)))


def constraint_velocities(p: SapProblem, v):
    return p.Jc.apply(v), p.Jl @ v


def contact_impulses(p: SapProblem, vc):
    """γ (nc, 3) of the contact constraints at contact velocities ``vc``."""
    if p.hc is not None:
        return hcm.impulses(p.hc, vc, p.mu, p.active_c)
    return C.cone_impulses(vc, p.Rc, p.vhat_c, p.mu, p.active_c)


def contact_hessian(p: SapProblem, vc):
    """G (nc, 3, 3) = −∂γ/∂vc of the contact constraints."""
    if p.hc is not None:
        return hcm.hessian(p.hc, vc, p.mu, p.active_c)
    return C.cone_hessian(vc, p.Rc, p.vhat_c, p.mu, p.active_c)


def impulses(p: SapProblem, vc, vl):
    return (contact_impulses(p, vc),
            C.limit_impulses(vl, p.Rl, p.vhat_l, p.active_l, p.lower_l, p.upper_l))


def generalized_impulse(p: SapProblem, gc, gl):
    """Jᵀ γ: (nv,)."""
    return p.Jc.apply_transpose(gc) + p.Jl.T @ gl


def constraint_cost(p: SapProblem, gc, gl, vl, vc):
    """Σ ℓᵢ: ½γᵀRγ per cone (the Hunt & Crossley cost with ``p.hc``); per scalar row ½Rγ², or
    `constraints.limit_cost` when some row has an upper bound (a clamped PD controller's cost
    is not ½Rγ²)."""
    if p.hc is not None:
        cone = hcm.cost(p.hc, vc, p.mu, p.active_c)
    else:
        cone = 0.5 * jnp.sum(gc * gc * p.Rc)
    if p.upper_l is None:
        return cone + 0.5 * jnp.sum(gl * gl * p.Rl)
    return cone + C.limit_cost(vl, p.Rl, p.vhat_l, gl)


def cost(p: SapProblem, v):
    dv = v - p.v_star
    vc, vl = constraint_velocities(p, v)
    gc, gl = impulses(p, vc, vl)
    return 0.5 * dv @ mul_A(p, dv) + constraint_cost(p, gc, gl, vl, vc)


def gradient(p: SapProblem, v):
    """∇ℓ(v) = A(v − v*) − Jᵀγ: the momentum residual."""
    gc, gl = impulses(p, *constraint_velocities(p, v))
    return mul_A(p, v - p.v_star) - generalized_impulse(p, gc, gl)


class ConstraintLine(NamedTuple):
    """The constraint velocities along a Newton direction, vc + α·Δvc and vl + α·Δvl, in the
    form `line_terms` evaluates at each trial α (made once per direction by `constraint_line`).

    Attributes:
        cone: `constraints.ConeLine` (friction cones), or None for Hunt & Crossley contacts,
            whose line is then ``vc`` + α·``dvc``.
        vc, dvc: (nc, 3) each for Hunt & Crossley contacts; None with cones.
        limits: `constraints.LimitLine` of the scalar rows.
    """

    cone: C.ConeLine | None
    vc: jax.Array | None
    dvc: jax.Array | None
    limits: C.LimitLine


def constraint_line(p: SapProblem, vc, vl, dvc, dvl) -> ConstraintLine:
    """`ConstraintLine` through (vc, vl) = J v along (Δvc, Δvl) = J Δv."""
    limits = C.limit_line(vl, dvl, p.Rl, p.vhat_l, p.active_l, p.lower_l, p.upper_l)
    if p.hc is None:
        return ConstraintLine(C.cone_line(vc, dvc, p.Rc, p.vhat_c, p.mu, p.active_c), None,
                              None, limits)
    return ConstraintLine(None, vc, dvc, limits)


def line_terms(p: SapProblem, line: ConstraintLine, alpha):
    """At α on the line: (Δvᵀ Jᵀγ, Δvᵀ JᵀGJ Δv, Σℓᵢ), the constraint parts of ℓ's first and
    second derivative in α and of ℓ itself (`line_search`): one fused pass over every
    constraint and one reduction (`constraints.cone_line_terms`, `limit_line_terms`)."""
    per_row = C.limit_line_terms(line.limits, alpha)
    if line.cone is not None:
        per_contact = C.cone_line_terms(line.cone, alpha)
        terms = jnp.concatenate([jnp.stack(per_contact), jnp.stack(per_row)], -1)
        return tuple(jnp.sum(terms, -1))
    vc, dvc = line.vc, line.dvc
    ca = vc + alpha * dvc
    gc, Gc = contact_impulses(p, ca), contact_hessian(p, ca)
    d1 = jnp.sum(dvc * gc) + jnp.sum(per_row[0])
    d2 = jnp.einsum("ci,cij,cj->", dvc, Gc, dvc) + jnp.sum(per_row[1])
    return d1, d2, hcm.cost(p.hc, ca, p.mu, p.active_c) + jnp.sum(per_row[2])


def hessian(p: SapProblem, v):
    """H(v) = A + Jᵀ G J: (nv, nv), SPD."""
    return hessian_at(p, *constraint_velocities(p, v))


def hessian_at(p: SapProblem, vc, vl):
    """H = A + Jᵀ G J at the constraint velocities (vc, vl) = J v."""
    Gc = contact_hessian(p, vc)
    Gl = C.limit_hessian(vl, p.Rl, p.vhat_l, p.active_l, p.lower_l, p.upper_l)
    if p.A is None:
        H = p.Jc.congruence(Gc, tree_blocks=p.A_tree)
    else:
        H = p.A + p.Jc.congruence(Gc)
    k = p.selection_rows.count if p.selection_rows is not None else 0
    if k:
        S = p.Jl[:k]
        H = H + jnp.diag(Gl[:k] @ (S * S))
    Jr = p.Jl[k:]
    return H + jnp.einsum("ln,l,lm->nm", Jr, Gl[k:], Jr) if Jr.shape[0] else H


def tree_hessian(p: SapProblem, v):
    """H(v) as a `TreeHessian` (tree-blocked operator; needs ``p.Jc`` in tree form)."""
    return tree_hessian_at(p, *constraint_velocities(p, v))


def tree_hessian_at(p: SapProblem, vc, vl):
    """`tree_hessian` at the constraint velocities (vc, vl) = J v."""
    Gc = contact_hessian(p, vc)
    Gl = C.limit_hessian(vl, p.Rl, p.vhat_l, p.active_l, p.lower_l, p.upper_l)
    A_tree = tree_blocks(p.Jc, p.A) if p.A_tree is None else p.A_tree
    return TreeHessian(A_tree, p.Jc, Gc, limit_rows(p.Jc, p.Jl), Gl)
