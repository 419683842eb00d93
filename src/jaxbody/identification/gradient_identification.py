"""Identification by gradient descent through the dynamics, over physically consistent inertias.

    minimize_θ  L(θ) = mean_{k, j} (w_j (y_j(q_k, v_k, v̇_k; π(θ)) − y_meas,kj))²
                       + μ mean((θ − θ_prior)²)

with y a measurement of `measurements.py` (joint torques by default: the inverse dynamics
prediction error) evaluated by jaxbody's RNEA under ``vmap`` over the samples, π(θ) the
log-Cholesky map of every identified body (`inertial_parameters.py`: any θ is a physical
inertia, so the optimizer is unconstrained), and w_j = 1 / RMS(y_meas,:,j) by default so that
L ≈ the relative squared prediction error. The gradient is reverse-mode autodiff through RNEA;
the whole optimization is one ``jax.jit``-compiled ``lax.scan`` over the steps, with an
``optax`` optimizer (Adam [Kingma & Ba 2015] with a cosine-decayed step by default; L-BFGS with
a zoom line search [Nocedal & Wright 2006, §7.2], ``optax.lbfgs()``, works too). Unlike least
squares this needs no regressor, and it extends as-is to nonlinear objectives (simulation error,
priors on θ) [Rucker & Wensing 2022].
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxbody.identification.inertial_parameters import (
    NUM_PARAMETERS,
    context_with_inertial_parameters,
    inertial_parameters_from_log_cholesky,
)
from jaxbody.identification.measurements import joint_torques
from jaxbody.plant.plant_key import PlantKey

DEFAULT_LEARNING_RATE = 1e-2  # Adam's initial step in θ (log-mass, COM in m, ...)


class IdentificationData(NamedTuple):
    """N samples of a motion and what was measured along it.

    Attributes:
        q: (N, nq) positions. v: (N, nv) velocities. vdot: (N, nv) accelerations.
        measured: (N, m) measurements (joint torques: m = nv).
    """

    q: jax.Array
    v: jax.Array
    vdot: jax.Array
    measured: jax.Array


class GradientIdentificationResult(NamedTuple):
    """Output of `identify_by_gradient`.

    Attributes:
        theta: (k, 10) final log-Cholesky parameters. pi: (k, 10) their inertial parameters.
        theta_history: (steps + 1, k, 10) θ before each step, then the final θ.
        loss_history: (steps + 1,) L at those θ.
    """

    theta: jax.Array
    pi: jax.Array
    theta_history: jax.Array
    loss_history: jax.Array


def predict(plant, context, bodies, pi, data, measure=joint_torques):
    """(N, m): ``measure`` at every sample of ``data`` with the bodies' parameters set to π (k, 10)."""
    ctx = context_with_inertial_parameters(context, bodies, pi)
    return jax.vmap(lambda q, v, a: measure(plant, ctx.replace(q=q, v=v), a))(
        data.q, data.v, data.vdot)


def default_weights(measured):
    """w (m,) = 1 / RMS over samples of each measured channel (1 for an all-zero channel)."""
    rms = jnp.sqrt(jnp.mean(jnp.asarray(measured) ** 2, axis=0))
    return jnp.where(rms > 0, 1.0 / jnp.where(rms > 0, rms, 1.0), 1.0)


def prediction_loss(theta, plant, context, bodies, data, measure=joint_torques, weights=None,
                    theta_prior=None, prior_weight=0.0):
    """L(θ): the weighted mean squared prediction error, plus an optional ridge toward θ_prior.

    Args:
        theta: (k, 10) log-Cholesky parameters of ``bodies``.
        plant, context, bodies, measure: as `dynamics_regressor`.
        data: `IdentificationData`.
        weights: (m,) per-channel weights, or None (`default_weights`).
        theta_prior: (k, 10) or None (no ridge). prior_weight: μ ≥ 0.
    """
    w = default_weights(data.measured) if weights is None else jnp.asarray(weights)
    pred = predict(plant, context, bodies, inertial_parameters_from_log_cholesky(theta), data, measure)
    loss = jnp.mean(((pred - data.measured) * w) ** 2)
    if theta_prior is not None:
        loss = loss + prior_weight * jnp.mean((theta - theta_prior) ** 2)
    return loss


def _stores_value(state):
    """Whether the optimizer state carries the last value and gradient (optax's line searches)."""
    try:
        return optax.tree.get(state, "value") is not None and optax.tree.get(state, "grad") is not None
    except (KeyError, ValueError):
        return False


@functools.lru_cache(maxsize=16)
def default_optimizer(steps, learning_rate=DEFAULT_LEARNING_RATE):
    """Adam with a cosine decay of the step size to 1e-3 of ``learning_rate`` over ``steps``.

    Adam's per-coordinate step normalization copes with the very different sensitivities of
    the log-Cholesky coordinates (mass and COM terms move the torques 10³-10⁶ times more than
    the inertia-shape terms), where L-BFGS stalls without a preconditioner. Cached, so that
    repeated calls reuse one compiled optimization.
    """
    return optax.adam(optax.cosine_decay_schedule(learning_rate, steps, alpha=1e-3))


def identify_by_gradient(plant, context, data, theta0, bodies, steps=2000, optimizer=None, *,
                         measure=joint_torques, weights=None, theta_prior=None,
                         prior_weight=0.0) -> GradientIdentificationResult:
    """Minimizes `prediction_loss` over θ from ``theta0`` for ``steps`` optimizer steps.

    Args:
        plant: a finalized `MultibodyPlant`. context: its `Context` (all other parameters).
        data: `IdentificationData` with ``measured`` from ``measure``.
        theta0: (k, 10) initial log-Cholesky parameters (e.g.
            ``log_cholesky_from_inertial_parameters(pi_guess)``).
        bodies: the k identified body indices.
        steps: number of optimizer steps (static).
        optimizer: an ``optax`` transformation, or None for `default_optimizer` (Adam, cosine
            decay); line-search optimizers (``optax.lbfgs()``) get ``value``, ``grad`` and
            ``value_fn``, and their stored value and gradient are reused. Pass the same object
            again to reuse the compiled optimization.
        measure, weights, theta_prior, prior_weight: as `prediction_loss`; ``measure`` is
            static (a hashable function).

    Returns:
        `GradientIdentificationResult`.

    Example:
        >>> import jax, numpy as np, optax, jaxbody as jb
        >>> jax.config.update("jax_enable_x64", True)
        >>> from jaxbody import identification as ident
        >>> plant = jb.MultibodyPlant(0.0)
        >>> b = plant.AddRigidBody("b", jb.SpatialInertia.PointMass(2.0, np.array([0.0, 0, -1])))
        >>> _ = plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), b.body_frame(), [0, 1, 0]))
        >>> plant.Finalize()
        >>> ctx, t = plant.CreateDefaultContext(), np.linspace(0, 3, 40)
        >>> q, v, a = np.sin(2 * t)[:, None], 2 * np.cos(2 * t)[:, None], -4 * np.sin(2 * t)[:, None]
        >>> pi_true = ident.inertial_parameters_from_context(ctx, [b.index()])
        >>> data = ident.IdentificationData(q, v, a, np.zeros((40, 1)))
        >>> data = data._replace(measured=ident.predict(plant, ctx, [b.index()], pi_true, data))
        >>> pi0 = pi_true.at[0, 0].mul(1.3).at[0, 4:7].add(0.1)  # heavier, fatter
        >>> theta0 = ident.log_cholesky_from_inertial_parameters(pi0)
        >>> res = ident.identify_by_gradient(plant, ctx, data, theta0, [b.index()], steps=30,
        ...                                  optimizer=optax.lbfgs())
        >>> bool(res.loss_history[-1] < 1e-12 * res.loss_history[0])
        True
    """
    bodies = tuple(int(b) for b in np.asarray(bodies, np.int64).reshape(-1))
    theta0 = jnp.asarray(theta0, context.v.dtype)
    if theta0.shape != (len(bodies), NUM_PARAMETERS):
        raise ValueError(f"identify_by_gradient: theta0: expected shape ({len(bodies)}, "
                         f"{NUM_PARAMETERS}), got {theta0.shape}")
    w = default_weights(data.measured) if weights is None else jnp.asarray(weights)
    opt = default_optimizer(int(steps)) if optimizer is None else optimizer
    theta, thetas, losses = _optimize(PlantKey(plant), bodies, measure, opt, int(steps), context, data,
                                      theta0, w, theta_prior, jnp.asarray(prior_weight))
    return GradientIdentificationResult(theta, inertial_parameters_from_log_cholesky(theta),
                                        thetas, losses)


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3, 4))
def _optimize(key, bodies, measure, opt, steps, context, data, theta0, w, theta_prior,
              prior_weight):
    """The optimization as one ``lax.scan``: (θ_final, θ history, loss history)."""
    plant = key.plant  # compiled once per model (`PlantKey`)

    def loss_fn(theta):
        return prediction_loss(theta, plant, context, bodies, data, measure, w, theta_prior,
                               prior_weight)

    state0 = opt.init(theta0)
    value_and_grad = (optax.value_and_grad_from_state(loss_fn) if _stores_value(state0)
                      else lambda theta, state: jax.value_and_grad(loss_fn)(theta))

    def step(carry, _):
        theta, state = carry
        value, grad = value_and_grad(theta, state=state)
        updates, state = opt.update(grad, state, theta, value=value, grad=grad, value_fn=loss_fn)
        return (optax.apply_updates(theta, updates), state), (theta, value)

    # steps + 1 scan iterations: the last one only evaluates L at the final θ (its update is
    # dropped), which avoids compiling a separate loss graph.
    _, (thetas, losses) = jax.lax.scan(step, (theta0, state0), None, length=steps + 1)
    return thetas[-1], thetas, losses
