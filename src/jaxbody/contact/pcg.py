"""Preconditioned conjugate gradients for SAP's Newton systems H x = b (H SPD).

    r₀ = b,  z₀ = M⁻¹r₀,  p₀ = z₀;   for k = 0, 1, …:
        α = rₖᵀzₖ / pₖᵀHpₖ,   xₖ₊₁ = xₖ + αpₖ,   rₖ₊₁ = rₖ − αHpₖ,
        zₖ₊₁ = M⁻¹rₖ₊₁,   pₖ₊₁ = zₖ₊₁ + (rₖ₊₁ᵀzₖ₊₁ / rₖᵀzₖ) pₖ,
stopping when rᵀM⁻¹r ≤ tol²·bᵀM⁻¹b (the preconditioned residual, relative) or after
``max_iterations``. A bounded ``lax.while_loop`` of matrix-free products: under ``vmap`` every
member runs to the batch's largest count, members already converged held fixed. Not
differentiated through (`sap_solver` differentiates the Newton system implicitly instead).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def pcg(matvec, precondition, b, tol, max_iterations):
    """(x, iterations) with H x ≈ b; ``matvec(x)`` = H x and ``precondition(r)`` = M⁻¹ r act on
    arrays shaped like ``b``."""
    dtype = b.dtype
    z = precondition(b)
    rz0 = jnp.sum(b * z)
    stop = (tol * tol) * rz0

    def cond(s):
        _, _, _, rz, it = s
        return (rz > stop) & (it < max_iterations)

    def body(s):
        x, r, p, rz, it = s
        Hp = matvec(p)
        alpha = rz / jnp.maximum(jnp.sum(p * Hp), jnp.finfo(dtype).tiny)
        x = x + alpha * p
        r = r - alpha * Hp
        z = precondition(r)
        rz_new = jnp.sum(r * z)
        p = z + (rz_new / jnp.maximum(rz, jnp.finfo(dtype).tiny)) * p
        return x, r, p, rz_new, it + 1

    init = (jnp.zeros_like(b), b, z, rz0, jnp.asarray(0))
    x, _, _, _, it = jax.lax.while_loop(cond, body, init)
    return x, it
