"""Analytic policy gradients through SAP contact: a short optax loop over ``jax.grad`` of the
batched rollout return trains a policy to push the box toward its goal (`jaxbody.envs.Push`)."""

import jax
import jax.numpy as jnp
import numpy as np
import optax

import jaxbody.envs as E

BATCH, HORIZON, ITERATIONS = 16, 50, 80  # 16 pushes of 1 s per gradient step


def _init(key, sizes=(14, 32, 2)):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=False):
        key, k = jax.random.split(key)
        layers.append((jax.random.normal(k, (a, b)) * (0.1 / np.sqrt(a)), jnp.zeros(b)))
    return layers


def _policy(layers, obs):
    h = obs
    for W, b in layers:
        h = jnp.tanh(h @ W + b)  # hidden layers, and the action's [-1, 1]
    return h


def test_policy_gradients_through_contact_bring_the_box_to_its_goal():
    env = E.make("push")
    reset, step = jax.vmap(env.reset), jax.vmap(env.step)

    def rollout(layers, key):
        s = reset(jax.random.split(key, BATCH))

        def body(s, _):
            s = step(s, _policy(layers, s.obs))
            return s, s.reward

        s, rewards = jax.lax.scan(body, s, None, length=HORIZON)
        return -jnp.mean(jnp.sum(rewards, 0)), jnp.mean(s.metrics["distance"])

    opt = optax.adam(1e-2)

    @jax.jit
    def update(layers, opt_state, key):
        (loss, distance), grad = jax.value_and_grad(rollout, has_aux=True)(layers, key)
        updates, opt_state = opt.update(grad, opt_state, layers)
        finite = jnp.all(jnp.array([jnp.all(jnp.isfinite(g)) for g in jax.tree.leaves(grad)]))
        return optax.apply_updates(layers, updates), opt_state, distance, finite

    layers = _init(jax.random.PRNGKey(0))
    opt_state = opt.init(layers)

    def final_distance(layers):  # on 16 held-out goals; the update it computes is dropped
        return float(update(layers, opt_state, jax.random.PRNGKey(99))[2])

    before = final_distance(layers)
    key = jax.random.PRNGKey(1)
    for _ in range(ITERATIONS):
        key, k = jax.random.split(key)
        layers, opt_state, _, finite = update(layers, opt_state, k)
        assert bool(finite)  # every gradient through the contact rollout is finite
    after = final_distance(layers)
    # measured: 0.233 m -> 0.098 m (2.4x) after 80 updates, 64,000 environment steps
    assert after < before / 1.8, (before, after)
