"""SAP constraint kernels: regularization, projection γ = P(y), cost and Hessian blocks.

Two families, each vectorized over its constraints (Castro, Permenter, Han, IEEE T-RO 2023;
Drake's ``SapFrictionConeConstraint`` and ``SapLimitConstraint``):

Friction cone (compliant point contact), per contact, with vc = (vt₁, vt₂, vn) = J v:
    Rn = max(β²/(4π²)·w, 1/(δt·k·(δt + τd))),   Rt = σ·w,   v̂ = (0, 0, −φ₀/(δt + τd)),
    y = R⁻¹(v̂ − vc),   γ = P_F(y) (projection on {‖γt‖ ≤ μγn} in the R-norm):
        stiction   ‖yt‖ₛ ≤ μ yn:                          γ = y
        sliding    −μ̂‖yt‖ₛ < yn < ‖yt‖ₛ/μ:                γn = (yn + μ̂‖yt‖ₛ)/(1 + μμ̂), γt = μγn t̂
        separation otherwise:                              γ = 0
    with μ̂ = μ Rt/Rn, t̂ = yt/‖yt‖ₛ and the soft norm ‖x‖ₛ = (‖x‖² + ε²)^½ (ε = 1e-7, Drake's).
Scalar equations (Drake's ``SapHolonomicConstraint``), y = R⁻¹(v̂ − vc):  γ = clip(y, lower, upper):
unilateral (joint limits, vc = ±v_dof): [0, ∞); bilateral (couplers, balls, distances, welds):
(−∞, ∞); PD controllers with an effort limit e: [−δt·e, δt·e].

Each constraint's cost is ℓᵢ = ½ γᵢᵀ Rᵢ γᵢ, its gradient −γᵢ and its Hessian Gᵢ = −∂γᵢ/∂vc,
which the Newton step needs (G = ∂P/∂y R⁻¹; stiction R⁻¹, separation 0).

An ``active`` mask (0/1) switches a constraint slot off (γ = 0, G = 0): fixed-size arrays under
jit stand for Drake's variable-size constraint lists.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.contact.tree_jacobian import TreeJacobian

SOFT_TOLERANCE = 1.0e-7  # Drake's SapFrictionConeConstraint::SoftNorm ε


def delassus_estimate(J, inv_diag_A):
    """Drake's per-constraint diagonal Delassus estimate ``‖J diag(A)⁻¹ Jᵀ‖_F / m``.

    Args:
        J: `TreeJacobian` or dense (n, m, nv) constraint Jacobians (m equations each).
        inv_diag_A: (nv,) 1 / diag(A).
    Returns:
        (n,) w.
    """
    if isinstance(J, TreeJacobian):
        W = J.weighted_gram(inv_diag_A)
    else:
        W = jnp.einsum("cin,n,cjn->cij", J, inv_diag_A, J)
    m = W.shape[1]
    frob2 = sum(W[:, i, j] * W[:, i, j] for i in range(m) for j in range(m))
    return jnp.sqrt(frob2 + 1e-300) / m


def near_rigid_factor(beta):
    return beta * beta / (4.0 * math.pi * math.pi)


def cone_regularization(w, k, tau_d, phi0, dt, beta, sigma):
    """(R (n, 3), v̂ (n, 3)) of friction-cone constraints (see the module docstring)."""
    Rn = jnp.maximum(near_rigid_factor(beta) * w, 1.0 / (dt * k * (dt + tau_d)))
    Rt = sigma * w
    R = jnp.stack([Rt, Rt, Rn], -1)
    vn_hat = -phi0 / (dt + tau_d)
    z = jnp.zeros_like(vn_hat)
    return R, jnp.stack([z, z, vn_hat], -1)


def limit_regularization(w, g0, dt, stiffness, tau_d, beta):
    """(R (n,), v̂ (n,)) of unilateral limit equations with constraint values ``g0`` (≥ 0 when
    inside the limit)."""
    R = jnp.maximum(near_rigid_factor(beta) * w, 1.0 / (dt * stiffness * (dt + tau_d)))
    return R, -g0 / (dt + tau_d)


def _cone_parts(vc, R, vhat, mu):
    y = (vhat - vc) / R
    yt, yn = y[..., :2], y[..., 2]
    yr = jnp.sqrt(jnp.sum(yt * yt, -1) + SOFT_TOLERANCE**2)
    that = yt / yr[..., None]
    mu_hat = mu * R[..., 0] / R[..., 2]
    stiction = yr <= mu * yn
    sliding = (~stiction) & (-mu_hat * yr < yn) & (mu * yn < yr)
    return y, yr, yn, that, mu_hat, stiction, sliding


def cone_impulses(vc, R, vhat, mu, active):
    """γ (n, 3) = P_F(y) for contact velocities ``vc`` (n, 3); zero where ``active`` is 0."""
    y, yr, yn, that, mu_hat, stiction, sliding = _cone_parts(vc, R, vhat, mu)
    gn = (yn + mu_hat * yr) / (1.0 + mu * mu_hat)
    g_slide = jnp.concatenate([(mu * gn)[..., None] * that, gn[..., None]], -1)
    g = jnp.where(stiction[..., None], y, jnp.where(sliding[..., None], g_slide, 0.0))
    return g * active[..., None]


def cone_hessian(vc, R, vhat, mu, active):
    """G (n, 3, 3) = −∂γ/∂vc, Drake's analytic blocks."""
    y, yr, yn, that, mu_hat, stiction, sliding = _cone_parts(vc, R, vhat, mu)
    factor = 1.0 / (1.0 + mu * mu_hat)
    gn = (yn + mu_hat * yr) * factor
    P = that[..., :, None] * that[..., None, :]
    Pperp = jnp.eye(2, dtype=vc.dtype) - P
    m, mh = mu[..., None, None], mu_hat[..., None, None]
    dgt_dyt = m * ((gn / yr)[..., None, None] * Pperp + mh * factor[..., None, None] * P)
    dgt_dyn = (mu * factor)[..., None] * that
    dgn_dyt = (mu_hat * factor)[..., None] * that
    top = jnp.concatenate([dgt_dyt, dgt_dyn[..., :, None]], -1)
    bottom = jnp.concatenate([dgn_dyt, factor[..., None]], -1)[..., None, :]
    dPdy = jnp.concatenate([top, bottom], -2)
    Rinv = 1.0 / R
    G_slide = dPdy * Rinv[..., None, :]
    G_stick = jnp.eye(3, dtype=vc.dtype) * Rinv[..., None, :]
    G = jnp.where(stiction[..., None, None], G_stick,
                  jnp.where(sliding[..., None, None], G_slide, 0.0))
    return G * active[..., None, None]


class ConeLine(NamedTuple):
    """A line of contact velocities vc + α·Δvc in the cone's own variables, from
    `cone_line`: y(α) = y0 − α·dy with y = R⁻¹(v̂ − vc); every division done once here."""

    y0: jax.Array  # (n, 3) R⁻¹(v̂ − vc)
    dy: jax.Array  # (n, 3) R⁻¹Δvc
    dvc: jax.Array  # (n, 3) Δvc
    R: jax.Array  # (n, 3)
    mu: jax.Array  # (n,)
    mu_hat: jax.Array  # (n,) μ Rt/Rn
    factor: jax.Array  # (n,) 1/(1 + μμ̂)
    active: jax.Array  # (n,)


def cone_line(vc, dvc, R, vhat, mu, active) -> ConeLine:
    """`ConeLine` of the contact velocities vc + α·dvc (each (n, 3))."""
    mu_hat = mu * R[..., 0] / R[..., 2]
    return ConeLine((vhat - vc) / R, dvc / R, dvc, R, mu, mu_hat, 1.0 / (1.0 + mu * mu_hat),
                    active)


def cone_line_terms(line: ConeLine, alpha):
    """Per contact, at α on the line: (Δvcᵀγ, Δvcᵀ G Δvc, ½γᵀRγ), each (n,).

    The numbers `cone_impulses` and `cone_hessian` give, written component by component with
    G·Δvc = ∂P/∂y (R⁻¹Δvc) formed without the 3×3 blocks, and with one reciprocal square
    root as the only non-polynomial operation (so XLA fuses the whole pass), for the line
    search, which needs only these three sums per trial step."""
    y = line.y0 - alpha * line.dy
    y1, y2, yn = y[..., 0], y[..., 1], y[..., 2]
    s2 = y1 * y1 + y2 * y2 + SOFT_TOLERANCE**2
    inv_r = jax.lax.rsqrt(s2)
    yr = s2 * inv_r  # the soft norm ‖yt‖ₛ
    t1, t2 = y1 * inv_r, y2 * inv_r
    mu, mu_hat, factor = line.mu, line.mu_hat, line.factor
    stiction = yr <= mu * yn
    sliding = (~stiction) & (-mu_hat * yr < yn) & (mu * yn < yr)
    gn = (yn + mu_hat * yr) * factor
    d1, d2, dn = line.dvc[..., 0], line.dvc[..., 1], line.dvc[..., 2]
    u1, u2, un = line.dy[..., 0], line.dy[..., 1], line.dy[..., 2]
    ut = u1 * t1 + u2 * t2  # t̂ᵀ(R⁻¹Δvc)t
    c = mu * gn * inv_r
    along = (mu * mu_hat * factor - c) * ut + mu * factor * un
    slide_q = c * (d1 * u1 + d2 * u2) + (d1 * t1 + d2 * t2) * along + dn * (
        mu_hat * factor * ut + factor * un)
    stick_q = d1 * u1 + d2 * u2 + dn * un
    q = jnp.where(stiction, stick_q, jnp.where(sliding, slide_q, 0.0))
    g1 = jnp.where(stiction, y1, jnp.where(sliding, mu * gn * t1, 0.0))
    g2 = jnp.where(stiction, y2, jnp.where(sliding, mu * gn * t2, 0.0))
    g3 = jnp.where(stiction, yn, jnp.where(sliding, gn, 0.0))
    dg = d1 * g1 + d2 * g2 + dn * g3
    R = line.R
    cost = 0.5 * (g1 * g1 * R[..., 0] + g2 * g2 * R[..., 1] + g3 * g3 * R[..., 2])
    return dg * line.active, q * line.active, cost * line.active


class LimitLine(NamedTuple):
    """A line of scalar-row velocities vl + α·Δvl (`limit_line`), y(α) = y0 − α·dy."""

    y0: jax.Array  # (n,) R⁻¹(v̂ − vl)
    dy: jax.Array  # (n,) R⁻¹Δvl
    dvl: jax.Array  # (n,)
    R: jax.Array
    active: jax.Array
    lower: jax.Array | None
    upper: jax.Array | None


def limit_line(vl, dvl, R, vhat, active, lower=None, upper=None) -> LimitLine:
    return LimitLine((vhat - vl) / R, dvl / R, dvl, R, active, lower, upper)


def limit_line_terms(line: LimitLine, alpha):
    """Per row, at α: (Δvlᵀγ, G Δvl², ℓᵢ) as `limit_impulses`, `limit_hessian` and the cost
    (`limit_cost` with an upper bound, ½Rγ² without) give them."""
    y = line.y0 - alpha * line.dy
    lo = 0.0 if line.lower is None else line.lower
    g = jnp.maximum(y, lo)
    inside = y > lo
    if line.upper is not None:
        g = jnp.minimum(g, line.upper)
        inside = inside & (y < line.upper)
    g = g * line.active
    q = jnp.where(inside, line.dvl * line.dy, 0.0) * line.active
    if line.upper is None:
        cost = 0.5 * line.R * g * g
    else:  # γ(v̂ − vl) − ½Rγ² with v̂ − vl = R·y
        cost = line.R * g * y - 0.5 * line.R * g * g
    return line.dvl * g, q, cost


def limit_impulses(vc, R, vhat, active, lower=None, upper=None):
    """γ (n,) = clip(R⁻¹(v̂ − vc), lower, upper) per equation (Drake's
    ``SapHolonomicConstraint`` projection): ``lower`` 0 (None) for unilateral equations (joint
    limits), −∞ for bilateral ones (couplers, balls, welds, distances); ``upper`` +∞ (None)
    except for effort-limited PD controllers (±δt·e)."""
    y = (vhat - vc) / R
    g = jnp.maximum(y, 0.0 if lower is None else lower)
    if upper is not None:
        g = jnp.minimum(g, upper)
    return g * active


def limit_hessian(vc, R, vhat, active, lower=None, upper=None):
    """G (n,) = R⁻¹ where lower < y < upper (lower 0 when None, upper +∞), else 0."""
    y = (vhat - vc) / R
    inside = y > (0.0 if lower is None else lower)
    if upper is not None:
        inside = inside & (y < upper)
    return jnp.where(inside, 1.0 / R, 0.0) * active


def limit_cost(vc, R, vhat, gamma):
    """Σ ℓᵢ of scalar equations with impulses ``gamma`` = clip(y): ℓ = γ(v̂ − vc) − ½Rγ², i.e.
    ½Ry² inside the bounds and R(b·y − ½b²) clamped at a bound b: continuous, with
    −∂ℓ/∂vc = γ (Drake's ``ClampAntiderivative`` for PD controllers; a unilateral row gives
    ½Rγ²)."""
    return jnp.sum(gamma * (vhat - vc) - 0.5 * R * gamma * gamma)
