"""Continuous-time compliant point contact (Drake's penalty method for a continuous plant,
``MultibodyPlant::CalcContactResultsContinuousPointPair``).

For each penetrating point pair (A, B) with depth x = −φ > 0, normal n̂ (from B into A) and
witness points p_WCa, p_WCb, at the midpoint C = (p_WCa + p_WCb)/2:
    v = v_WBc − v_WAc  (B's contact point relative to A's),   vₙ = v·n̂  (> 0: approaching)
    fₙ = k·x·(1 + d·vₙ)             (Hunt & Crossley; the pair acts only while fₙ > 0)
    vₜ = v − vₙ n̂,  s = ‖vₜ‖,  fₜ = μ(s)·fₙ·vₜ/s   (zero for s ≤ 1e-14)
    f_A = fₙ n̂ + fₜ at C,  f_B = −f_A
with k, d the pair's combined stiffness and Hunt-Crossley dissipation and μ(s) Drake's Stribeck
curve (`stribeck_friction`) between the static and dynamic coefficients with the stiction
tolerance v_s. Pure and vectorized over the query's point slots; differentiable away from the
switches (contact onset, s = 0, the Stribeck knots).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

MIN_SLIP = 1e-14  # m/s: Drake's "indistinguishable from zero" tangential speed


def _step5(x):
    x3 = x * x * x
    return x3 * (10.0 + x * (6.0 * x - 15.0))  # 10x³ − 15x⁴ + 6x⁵


def stribeck_friction(slip, mu_s, mu_d, v_stiction):
    """Drake's ``StribeckModel::ComputeFrictionCoefficient``: μ(s) rises from 0 to μs over
    [0, v_s] and falls to μd over [v_s, 3 v_s] (smooth quintic steps), μd beyond."""
    v = slip / v_stiction
    rise = mu_s * _step5(jnp.clip(v, 0.0, 1.0))
    fall = mu_s - (mu_s - mu_d) * _step5(jnp.clip((v - 1.0) / 2.0, 0.0, 1.0))
    return jnp.where(v >= 3.0, mu_d, jnp.where(v >= 1.0, fall, rise))


class PenaltyForces(NamedTuple):
    """Per point slot (P,): the force f_A (P, 3) on A at C in World, the point p_WC (P, 3),
    whether the pair acts (fₙ > 0), fₙ, the approach speed vₙ and the slip speed ‖vₜ‖."""

    f_A: jax.Array
    p_WC: jax.Array
    active: jax.Array
    fn: jax.Array
    vn: jax.Array
    slip: jax.Array


def penalty_forces(pc, V_WA, V_WB, p_WAo, p_WBo, v_stiction) -> PenaltyForces:
    """The penalty forces of each point slot (`PenaltyForces`).

    Args:
        pc: `PointContacts` of the configuration (``k``, ``d``, ``mu_static``, ``mu`` per slot).
        V_WA, V_WB: (P, 6) spatial velocities [w; v_Bo] of each slot's bodies, in World.
        p_WAo, p_WBo: (P, 3) their origins.
        v_stiction: the stiction tolerance (m/s).
    """
    p_WC = 0.5 * (pc.p_WCa + pc.p_WCb)
    v_WAc = V_WA[:, 3:] + jnp.cross(V_WA[:, :3], p_WC - p_WAo)
    v_WBc = V_WB[:, 3:] + jnp.cross(V_WB[:, :3], p_WC - p_WBo)
    v = v_WBc - v_WAc
    n = pc.nhat_BA_W
    vn = jnp.sum(v * n, -1)
    x = -pc.phi
    fn = pc.k * x * (1.0 + pc.d * vn)
    active = pc.valid & (x > 0) & (fn > 0)
    fn = jnp.where(active, fn, 0.0)
    vt = v - vn[:, None] * n
    s2 = jnp.sum(vt * vt, -1)
    sliding = s2 > MIN_SLIP * MIN_SLIP
    slip = jnp.sqrt(jnp.where(sliding, s2, 1.0))
    mu = stribeck_friction(slip, pc.mu_static, pc.mu, v_stiction)
    t_hat = vt / slip[:, None]
    ft = jnp.where(sliding, mu * fn, 0.0)
    f_A = fn[:, None] * n + ft[:, None] * t_hat
    return PenaltyForces(f_A, p_WC, active, fn, vn, jnp.where(sliding, slip, 0.0))


def body_wrenches(num_bodies, pc, f_A, p_WC, p_WAo, p_WBo):
    """(num_bodies, 6) wrenches [τ about Bo; f] in World of the contact forces: f_A at C on A,
    −f_A at C on B."""
    F_A = jnp.concatenate([jnp.cross(p_WC - p_WAo, f_A), f_A], -1)
    F_B = -jnp.concatenate([jnp.cross(p_WC - p_WBo, f_A), f_A], -1)
    F = jnp.zeros((num_bodies, 6), f_A.dtype)
    return F.at[pc.body_a].add(F_A).at[pc.body_b].add(F_B)
