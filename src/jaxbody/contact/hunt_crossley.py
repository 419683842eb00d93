"""Drake's convex Hunt & Crossley contact constraint in SAP (``SapHuntCrossleyConstraint``): the
kSimilar and kLagged discrete contact approximations [Castro, Han, Masterjohn, "A Theory of
Irrotational Contact Fields", 2023].

Per contact, with vc = (vt, vn) = J v in the contact frame (vn > 0 separating), stiffness k,
Hunt-Crossley dissipation d, friction μ, the previous elastic force fₑ₀ = k·x₀ (x₀ the
penetration) and normal velocity vn₀:

    n(v)  = δt·(fₑ₀ − δt·k·v)₊·(1 − d·v)₊                      (normal impulse at vn = v)
    N(v)  = N⁺(min(v, v̂)),  N⁺(v) = δt·[v(fₑ₀ + ½Δf) − ½d v²(fₑ₀ + ⅔Δf)],  Δf = −δt·k·v,
            v̂ = min(fₑ₀/(δt·k), 1/d)                             (its antiderivative)
    n₀    = (δt·fₑ₀)₊·(1 − d·vn₀)₊,   ε = max(v_s, μ·σ·w·n₀)   (v_s the stiction tolerance)
    ‖vt‖ₛ = √(‖vt‖² + ε²) − ε,   t̂ₛ = vt/(‖vt‖ₛ + ε)

- Similar: z = vn − μ‖vt‖ₛ;  γ = (−μ·n(z)·t̂ₛ, n(z));  ℓ = −N(z).
- Lagged:  z = vn;           γ = (−μ·n₀·t̂ₛ, n(z));   ℓ = −N(z) + μ·n₀·‖vt‖ₛ.

Both costs are convex, −∂ℓ/∂vc = γ, and G = ∂²ℓ/∂vc² (P = t̂ₛt̂ₛᵀ, P⊥ = I − P, n' = dn/dz):
    Similar: Gtt = −μ²n'P + μ·n·P⊥/(‖vt‖ₛ + ε),  Gtn = μ·n'·t̂ₛ,  Gnn = −n'
    Lagged:  Gtt = μ·n₀·P⊥/(‖vt‖ₛ + ε),           Gtn = 0,        Gnn = −n'
An ``active`` mask (0/1) switches slots off, as for the friction cones.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

_TINY = 1e-20  # Drake's guard: v̂ → ∞ as k or d → 0


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class HuntCrossley:
    """Per-contact data of the Hunt & Crossley constraints of a SAP problem.

    Attributes:
        k, d: (nc,) combined stiffness (N/m) and dissipation (s/m).
        fe0: (nc,) elastic force at the start of the step, k·x₀ (N).
        n0: (nc,) the previous normal impulse estimate n₀ (N·s).
        eps: (nc,) the friction regularization ε (m/s).
        dt: () the time step.
        lagged: () 1 for kLagged, 0 for kSimilar.
    """

    k: jax.Array
    d: jax.Array
    fe0: jax.Array
    n0: jax.Array
    eps: jax.Array
    dt: jax.Array
    lagged: jax.Array


def make(dt, w, k, d, fe0, vn0, mu, stiction_tolerance, sigma, lagged) -> HuntCrossley:
    """The constraint data (Drake's ``DoMakeData``) from the Delassus estimate ``w`` (nc,)."""
    n0 = jnp.maximum(0.0, dt * fe0) * jnp.maximum(0.0, 1.0 - d * vn0)
    eps = jnp.maximum(stiction_tolerance, mu * sigma * w * n0)
    dtype = fe0.dtype
    return HuntCrossley(k, d, fe0, n0, eps, jnp.asarray(dt, dtype),
                        jnp.asarray(1.0 if lagged else 0.0, dtype))


def _impulse(hc, v):
    """n(v) and n'(v)."""
    fe = hc.fe0 - hc.dt * hc.k * v
    damping = 1.0 - hc.d * v
    on = (fe > 0) & (damping > 0)
    n = jnp.where(on, hc.dt * fe * damping, 0.0)
    dn = jnp.where(on, -hc.dt * (hc.k * hc.dt * damping + hc.d * fe), 0.0)
    return n, dn


def _antiderivative(hc, v):
    v_hat = jnp.minimum(hc.fe0 / hc.dt / (hc.k + _TINY), 1.0 / (hc.d + _TINY))
    v = jnp.minimum(v, v_hat)
    df = -hc.dt * hc.k * v
    return hc.dt * (v * (hc.fe0 + 0.5 * df) - hc.d * v * v / 2.0 * (hc.fe0 + 2.0 / 3.0 * df))


def _parts(hc, vc, mu):
    vt, vn = vc[..., :2], vc[..., 2]
    vt_soft = jnp.sqrt(jnp.sum(vt * vt, -1) + hc.eps * hc.eps) - hc.eps
    t_soft = vt / (vt_soft + hc.eps)[..., None]
    z = jnp.where(hc.lagged > 0, vn, vn - mu * vt_soft)
    return vt_soft, t_soft, z


def impulses(hc, vc, mu, active):
    """γ (nc, 3) = −∂ℓ/∂vc."""
    _, t_soft, z = _parts(hc, vc, mu)
    n, _ = _impulse(hc, z)
    n_friction = jnp.where(hc.lagged > 0, hc.n0, n)
    g = jnp.concatenate([(-mu * n_friction)[..., None] * t_soft, n[..., None]], -1)
    return g * active[..., None]


def cost(hc, vc, mu, active):
    """Σ ℓᵢ over active slots."""
    vt_soft, _, z = _parts(hc, vc, mu)
    ell = -_antiderivative(hc, z) + jnp.where(hc.lagged > 0, mu * vt_soft * hc.n0, 0.0)
    return jnp.sum(ell * active)


def hessian(hc, vc, mu, active):
    """G (nc, 3, 3) = ∂²ℓ/∂vc² = −∂γ/∂vc (Drake's ``DoCalcCostHessian``)."""
    vt_soft, t_soft, z = _parts(hc, vc, mu)
    n, dn = _impulse(hc, z)
    P = t_soft[..., :, None] * t_soft[..., None, :]
    Pperp = jnp.eye(2, dtype=vc.dtype) - P
    inv = (1.0 / (vt_soft + hc.eps))[..., None, None]
    m = mu[..., None, None]
    lag = hc.lagged > 0
    Gt = jnp.where(lag, m * hc.n0[..., None, None] * Pperp * inv,
                   -m * m * dn[..., None, None] * P + m * n[..., None, None] * Pperp * inv)
    Gtn = jnp.where(lag, 0.0, (mu * dn)[..., None] * t_soft)
    top = jnp.concatenate([Gt, Gtn[..., :, None]], -1)
    bottom = jnp.concatenate([Gtn, -dn[..., None]], -1)[..., None, :]
    return jnp.concatenate([top, bottom], -2) * active[..., None, None]
