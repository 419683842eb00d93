"""Classical identification: linear least squares on the stacked regressor, with base-parameter
rank and per-parameter identifiability [Gautier & Khalil 1990; Khalil & Dombre 2002, ch. 12].

Given Y (M, p) stacked over samples and measurements y (M,) with y ≈ Y π + y₀:

    D = diag(‖Y_:,i‖)                      column equilibration (parameters have mixed units;
                                           columns below ZERO_COLUMN_TOL · max‖Y_:,j‖ are zero)
    A = Y D⁻¹ = U S Vᵀ                      thin SVD, s₀ ≥ s₁ ≥ ...
    rank r = #{s_i > rank_tol · s₀}         the number of base (identifiable) parameter combinations
    π = π_prior + D⁻¹ V diag(f_i / s_i) Uᵀ (y − y₀ − Y π_prior),
        f_i = s_i² / (s_i² + λ) for i < r, 0 otherwise,   λ = ridge · s₀²

So directions of π that the data determine are fitted (up to the tiny Tikhonov factor f_i), and
directions in the null space of Y (what no motion reveals: the mass of a link welded to the
world, of a link whose origin stays on fixed joint axes, ...) stay at the prior. Parameter i is
identifiable on its own exactly when the unit vector e_i has no component in the null space:
    null_component_i = ‖Π_null e_i‖ = (Σ_{j ≥ r} V_ij²)^½     (0: identifiable, 1: not at all).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

RANK_TOL = 1e-9  # relative singular-value threshold of the base-parameter rank (float64 data)
RIDGE = 1e-14  # Tikhonov weight relative to s₀²: only directions near the rank cut are damped
ZERO_COLUMN_TOL = 1e-10  # a column this small relative to the largest is autodiff round-off


class LeastSquaresResult(NamedTuple):
    """Output of `identify_least_squares`.

    Attributes:
        pi: (p,) identified parameters.
        rank: int scalar, the base-parameter rank of Y (identifiable combinations).
        singular_values: (p,) of the column-equilibrated Y, descending.
        residual_rms: RMS of w ⊙ (y − y₀ − Y π) (units of y when unweighted).
        null_component: (p,) ‖Π_null e_i‖ ∈ [0, 1] per parameter; ≈ 0 for parameters the data
            identify individually.
    """

    pi: jax.Array
    rank: jax.Array
    singular_values: jax.Array
    residual_rms: jax.Array
    null_component: jax.Array


def identify_least_squares(Y_stack, tau_stack, *, offset=None, weights=None, prior=None,
                           ridge=RIDGE, rank_tol=RANK_TOL) -> LeastSquaresResult:
    """Least-squares π from stacked regressors, with the unidentifiable part left at ``prior``.

    Args:
        Y_stack: (M, p) stacked regressor (`stacked_regressor`), M ≥ p.
        tau_stack: (M,) stacked measurements (torques, wrenches).
        offset: (M,) y₀ of `stacked_regressor`, or None (zero).
        weights: (M,) row weights w (weighted least squares: minimize ‖w ⊙ (Y π + y₀ − y)‖²;
            1 / σ_row is the best linear unbiased choice for independent noise), or None.
        prior: (p,) π_prior, or None (zero); the answer in the null space of Y.
        ridge: λ / s₀², the Tikhonov weight (raise it with noisy, poorly exciting data).
        rank_tol: relative singular-value threshold of the rank.

    Returns:
        `LeastSquaresResult`.

    Example:
        >>> import numpy as np
        >>> Y = np.array([[1.0, 1.0, 0.0], [2.0, 2.0, 1.0], [0.0, 0.0, 3.0], [1.0, 1.0, 1.0]])
        >>> res = identify_least_squares(Y, Y @ np.array([1.0, 2.0, 3.0]), prior=np.array([0.5, 0.5, 0.0]))
        >>> int(res.rank), np.round(np.asarray(res.pi), 6).tolist()  # p0 + p1 = 3; p0 - p1 from prior
        (2, [1.5, 1.5, 3.0])
        >>> np.round(np.asarray(res.null_component), 3).tolist()
        [0.707, 0.707, 0.0]
    """
    Y = jnp.asarray(Y_stack)
    if Y.ndim != 2 or Y.shape[0] < Y.shape[1]:
        raise ValueError(f"identify_least_squares: Y_stack: expected shape (M, p) with M >= p, "
                         f"got {Y.shape}")
    M, p = Y.shape
    y = jnp.asarray(tau_stack, Y.dtype)
    if y.shape != (M,):
        raise ValueError(f"identify_least_squares: tau_stack: expected shape ({M},), got {y.shape}")
    y0 = jnp.zeros(M, Y.dtype) if offset is None else jnp.asarray(offset, Y.dtype)
    pi0 = jnp.zeros(p, Y.dtype) if prior is None else jnp.asarray(prior, Y.dtype)
    w = jnp.ones(M, Y.dtype) if weights is None else jnp.asarray(weights, Y.dtype)
    if y0.shape != (M,) or w.shape != (M,) or pi0.shape != (p,):
        raise ValueError(f"identify_least_squares: offset, weights and prior: expected shapes "
                         f"({M},), ({M},) and ({p},), got {y0.shape}, {w.shape} and {pi0.shape}")
    return _solve(Y * w[:, None], (y - y0) * w, pi0, ridge, rank_tol)


@jax.jit
def _solve(Y, y, pi0, ridge, rank_tol):
    D = jnp.linalg.norm(Y, axis=0)
    zero = D <= ZERO_COLUMN_TOL * jnp.max(D)  # round-off columns: scaling would inflate them
    D = jnp.where(zero, 1.0, D)
    U, s, Vt = jnp.linalg.svd(jnp.where(zero, 0.0, Y / D), full_matrices=False)
    kept = s > rank_tol * s[0]
    f_over_s = jnp.where(kept, s / (s**2 + ridge * s[0] ** 2), 0.0)
    z = Vt.T @ (f_over_s * (U.T @ (y - Y @ pi0)))
    pi = pi0 + z / D
    null = jnp.sqrt(jnp.sum(jnp.where(kept[:, None], 0.0, Vt**2), axis=0))
    rms = jnp.sqrt(jnp.mean((y - Y @ pi) ** 2))
    return LeastSquaresResult(pi, jnp.sum(kept), s, rms, null)
