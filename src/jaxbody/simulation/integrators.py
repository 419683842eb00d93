"""Fixed-step integrators for a continuous plant, ẋ = f(t, x) with x = [q; v].

Each step function has the signature ``step(f, t, x, dt, nq) -> x_next`` with
``f(t, x) -> ẋ`` (nq + nv,). Orders (global error): explicit Euler 1, semi-implicit
(symplectic) Euler 1, RK2 2, RK4 4 [Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.1]:

    explicit Euler:       x⁺ = x + h f(t, x)
    semi-implicit Euler:  v⁺ = v + h v̇(t, q, v),   q⁺ = q + h N(q) v⁺
    RK2 (Heun, explicit trapezoid; Drake's ``RungeKutta2Integrator``):
                          k1 = f(t, x), k2 = f(t + h, x + h k1),   x⁺ = x + h/2 (k1 + k2)
    RK4:                  k1 = f(t, x), k2 = f(t + h/2, x + h/2 k1), k3 = f(t + h/2, x + h/2 k2),
                          k4 = f(t + h, x + h k3),   x⁺ = x + h/6 (k1 + 2 k2 + 2 k3 + k4)

Quaternions. The exact flow of q̇ = ½ q ⊗ ω keeps ‖q‖ constant, a discrete step does not;
`normalize_quaternions` divides every quaternion block of q (QuaternionFloating and Ball
joints, ``[qw, qx, qy, qz]``) by its norm, and `rollout` applies it after every step. This is a
projection onto the constraint manifold, of the order of the local error, so the integrator's
order is kept.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np


def explicit_euler_step(f, t, x, dt, nq=None):
    """x + dt f(t, x) (first order)."""
    return x + dt * f(t, x)


def semi_implicit_euler_step(f, t, x, dt, nq):
    """v⁺ = v + dt v̇(t, q, v); q⁺ = q + dt N(q) v⁺ (first order, symplectic for
    separable mechanical systems). Under ``jit`` the v̇ of the second call is dead code."""
    xdot = f(t, x)
    v1 = x[nq:] + dt * xdot[nq:]
    qdot = f(t, jnp.concatenate([x[:nq], v1]))[:nq]
    return jnp.concatenate([x[:nq] + dt * qdot, v1])


def rk2_step(f, t, x, dt, nq=None):
    """Heun's second-order step (Drake's fixed-step ``RungeKutta2Integrator``)."""
    k1 = f(t, x)
    k2 = f(t + dt, x + dt * k1)
    return x + (0.5 * dt) * (k1 + k2)


def rk4_step(f, t, x, dt, nq=None):
    """The classic fourth-order Runge-Kutta step."""
    k1 = f(t, x)
    k2 = f(t + 0.5 * dt, x + 0.5 * dt * k1)
    k3 = f(t + 0.5 * dt, x + 0.5 * dt * k2)
    k4 = f(t + dt, x + dt * k3)
    return x + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


INTEGRATORS = {
    "explicit_euler": explicit_euler_step,
    "semi_implicit_euler": semi_implicit_euler_step,
    "rk2": rk2_step,
    "rk4": rk4_step,
}


def quaternion_indices(plant) -> np.ndarray:
    """(k, 4) static indices into q (and so into x = [q; v]) of every quaternion block."""
    rows = [g.qidx[:, :4] for g in plant._topology.groups if g.kind.has_quaternion]
    return np.concatenate(rows, 0) if rows else np.zeros((0, 4), np.int64)


def normalize_quaternions(plant, x):
    """x (or q) with every quaternion block divided by its norm; identity without quaternions."""
    idx = quaternion_indices(plant)
    if idx.size == 0:
        return x
    quat = x[idx]
    return x.at[idx].set(quat / jnp.linalg.norm(quat, axis=-1, keepdims=True))
