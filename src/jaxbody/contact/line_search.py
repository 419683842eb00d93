"""SAP's exact line search: the minimizer of ℓ(v + αΔv) over α ∈ (0, α_max].

Along the line only O(nc + nv) work is needed per evaluation once Δp = AΔv and Δvc = JΔv are
known (Castro et al. 2023, §VIII.C):
    dℓ/dα = Δpᵀ(v + αΔv − v*) − Δvcᵀ γ(α),     d²ℓ/dα² = ΔvᵀAΔv + Δvcᵀ G(α) Δvc.
The root of dℓ/dα is found by Newton's method safeguarded by bisection on the bracket [0, α_max]
(as Drake's ``DoNewtonWithBisectionFallback``), with f = −(dℓ/dα)/(dℓ/dα)(0) normalized and
tolerances |f| < 1e-8 or |Δα| < 1e-8·α_guess. Drake's early exits are kept: α_max when ℓ still
decreases there; α = 1 when the slope at 0 is already below the cost tolerance.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.contact import constraints as C
from jaxbody.contact import sap_problem as sp


def _line_derivatives(p, v, dv, dp, d2A, vc, vl, dvc, dvl, alpha):
    """(dℓ/dα, d²ℓ/dα²) at α."""
    ca, la = vc + alpha * dvc, vl + alpha * dvl
    gc, gl = sp.impulses(p, ca, la)
    d1 = dp @ (v + alpha * dv - p.v_star) - jnp.sum(dvc * gc) - dvl @ gl
    Gc = sp.contact_hessian(p, ca)
    Gl = C.limit_hessian(la, p.Rl, p.vhat_l, p.active_l, p.lower_l, p.upper_l)
    d2 = d2A + jnp.einsum("ci,cij,cj->", dvc, Gc, dvc) + jnp.sum(Gl * dvl * dvl)
    return d1, d2


def exact_line_search(p, v, dv, grad, ell_at_max_fn, params):
    """α for the Newton direction ``dv`` at ``v`` (``grad`` = ∇ℓ(v)); returns (α, iterations).

    ``ell_at_max_fn(alpha)`` evaluates ℓ(v + α dv) (used once for Drake's early exit).
    """
    dtype = v.dtype
    dp = sp.mul_A(p, dv)
    d2A = dv @ dp
    vc, vl = sp.constraint_velocities(p, v)
    dvc, dvl = sp.constraint_velocities(p, dv)
    amax = jnp.asarray(params.alpha_max, dtype)
    d0 = grad @ dv  # < 0 for a descent direction
    d_max, d2_max = _line_derivatives(p, v, dv, dp, d2A, vc, vl, dvc, dvl, amax)
    ell_max = ell_at_max_fn(amax)
    scale = jnp.maximum(-d0, jnp.finfo(dtype).tiny)
    guess = jnp.minimum(-d0 / jnp.maximum(d2_max, jnp.finfo(dtype).tiny), amax)
    x_tol = params.line_search_f_tolerance * guess

    def f(alpha):
        d1, d2 = _line_derivatives(p, v, dv, dp, d2A, vc, vl, dvc, dvl, alpha)
        return d1 / scale, d2 / scale

    def cond(s):
        _, _, _, fx, dx, it = s
        return (jnp.abs(fx) > params.line_search_f_tolerance) & (jnp.abs(dx) > x_tol) & (
            it < params.line_search_max_iterations)

    def body(s):
        lo, hi, x, fx, _, it = s
        # Shrink the bracket with the sign of f at x (f(lo) < 0 < f(hi)).
        lo = jnp.where(fx < 0, x, lo)
        hi = jnp.where(fx >= 0, x, hi)
        _, dfx = f(x)
        x_newton = x - fx / jnp.where(dfx > 0, dfx, 1.0)
        ok = (dfx > 0) & (x_newton > lo) & (x_newton < hi)
        x_new = jnp.where(ok, x_newton, 0.5 * (lo + hi))
        fx_new, _ = f(x_new)
        return lo, hi, x_new, fx_new, x_new - x, it + 1

    f0, _ = f(guess)
    init = (jnp.zeros((), dtype), amax, guess, f0, jnp.asarray(jnp.inf, dtype), jnp.asarray(0))
    _, _, alpha, _, _, iters = jax.lax.while_loop(cond, body, init)
    tiny_slope = -d0 < params.cost_abs_tolerance + params.cost_rel_tolerance * ell_max
    alpha = jnp.where(d_max <= 0, amax, jnp.where(tiny_slope, 1.0, alpha))
    iters = jnp.where((d_max <= 0) | tiny_slope, 0, iters)
    return alpha, iters
