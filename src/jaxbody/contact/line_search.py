"""SAP's exact line search: the minimizer of ℓ(v + αΔv) over α ∈ (0, α_max].

Along the line only O(nc) work is needed per evaluation once Δp = AΔv and Δvc = JΔv are known
(Castro et al. 2023, §VIII.C); with the `Line`'s scalars a = Δvᵀ A (v − v*) and b = ΔvᵀAΔv,
    dℓ/dα = a + αb − Δvcᵀ γ(α),     d²ℓ/dα² = b + Δvcᵀ G(α) Δvc,
    ℓ(α) = ½(v − v*)ᵀA(v − v*) + αa + ½α²b + Σᵢ ℓᵢ(vc + αΔvc),
the constraint sums in one fused pass over the contacts (`sap_problem.line_terms`).
The root of dℓ/dα is found by Newton's method safeguarded by bisection on the bracket [0, α_max]
(as Drake's ``DoNewtonWithBisectionFallback``), with f = −(dℓ/dα)/(dℓ/dα)(0) normalized and
tolerances |f| < 1e-8 or |Δα| < 1e-8·α_guess. Drake's early exits are kept: α_max when ℓ still
decreases there; α = 1 when the slope at 0 is already below the cost tolerance.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.contact import sap_problem as sp


class Line(NamedTuple):
    """ℓ restricted to v + αΔv, from what one Newton iteration computes once.

    Attributes:
        constraints: `sap_problem.ConstraintLine`, the constraint velocities along the line.
        slope_A: Δvᵀ A (v − v*).
        curv_A: Δvᵀ A Δv.
        ell_A: ½ (v − v*)ᵀ A (v − v*).
    """

    constraints: sp.ConstraintLine
    slope_A: jax.Array
    curv_A: jax.Array
    ell_A: jax.Array


def along(p, line: Line, alpha):
    """(dℓ/dα, d²ℓ/dα², ℓ) at α."""
    d1c, d2c, ell_c = sp.line_terms(p, line.constraints, alpha)
    d1 = line.slope_A + alpha * line.curv_A - d1c
    ell = line.ell_A + alpha * (line.slope_A + 0.5 * alpha * line.curv_A) + ell_c
    return d1, line.curv_A + d2c, ell


def exact_line_search(p, line: Line, d0, params):
    """α for a Newton direction with slope ``d0`` = ∇ℓ(v)ᵀΔv (< 0) at α = 0; returns
    (α, iterations)."""
    dtype = line.slope_A.dtype
    amax = jnp.asarray(params.alpha_max, dtype)
    d_max, d2_max, ell_max = along(p, line, amax)
    inv_scale = 1.0 / jnp.maximum(-d0, jnp.finfo(dtype).tiny)
    guess = jnp.minimum(-d0 / jnp.maximum(d2_max, jnp.finfo(dtype).tiny), amax)
    x_tol = params.line_search_f_tolerance * guess

    def f(alpha):
        d1, d2, _ = along(p, line, alpha)
        return d1 * inv_scale, d2 * inv_scale

    def cond(s):
        _, _, _, fx, _, dx, it = s
        return (jnp.abs(fx) > params.line_search_f_tolerance) & (jnp.abs(dx) > x_tol) & (
            it < params.line_search_max_iterations)

    def body(s):
        # One evaluation per iteration: f and f' at the new point together.
        lo, hi, x, fx, dfx, _, it = s
        # Shrink the bracket with the sign of f at x (f(lo) < 0 < f(hi)).
        lo = jnp.where(fx < 0, x, lo)
        hi = jnp.where(fx >= 0, x, hi)
        x_newton = x - fx / jnp.where(dfx > 0, dfx, 1.0)
        ok = (dfx > 0) & (x_newton > lo) & (x_newton < hi)
        x_new = jnp.where(ok, x_newton, 0.5 * (lo + hi))
        fx_new, dfx_new = f(x_new)
        return lo, hi, x_new, fx_new, dfx_new, x_new - x, it + 1

    f0, df0 = f(guess)
    init = (jnp.zeros((), dtype), amax, guess, f0, df0, jnp.asarray(jnp.inf, dtype),
            jnp.asarray(0))
    _, _, alpha, _, _, _, iters = jax.lax.while_loop(cond, body, init)
    tiny_slope = -d0 < params.cost_abs_tolerance + params.cost_rel_tolerance * ell_max
    alpha = jnp.where(d_max <= 0, amax, jnp.where(tiny_slope, 1.0, alpha))
    iters = jnp.where((d_max <= 0) | tiny_slope, 0, iters)
    return alpha, iters
