"""Brax's own wrappers drive a jaxbody environment with no adapter (the `rl` extra): domain
randomization through Brax's ``randomization_fn``. Brax's PPO training the cart-pole past the
best of 1,024 random episodes, the quadruped and the push task, and analytic policy gradients
through contact on the push task, are in notebooks/learning.ipynb, which the test suite runs
(tests/test_notebooks.py) and whose cells assert the returns reached."""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody.envs as E

pytest.importorskip("brax")
E.patch_jax_for_brax()  # Brax 0.14.2 calls two functions JAX 0.10 removed

from brax.envs.wrappers import training as brax_training  # noqa: E402


def test_brax_domain_randomization_wrapper_drives_a_jaxbody_env():
    env = E.make("cartpole")
    pole = int(env.plant.GetBodyByName("pole").index())

    def randomize(sys, rng):  # Brax's signature: (sys, a batch of keys) -> (sys batch, axes)
        scale = jax.vmap(lambda k: jax.random.uniform(k, (), minval=0.5, maxval=2.0))(rng)
        mass = jnp.tile(sys.mass, (rng.shape[0], 1)).at[:, pole].multiply(scale)
        axes = jax.tree.map(lambda _: None, sys)
        return dataclasses.replace(sys, mass=mass), dataclasses.replace(axes, mass=0)

    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    wrapped = brax_training.wrap(env, episode_length=2, action_repeat=1,
                                 randomization_fn=functools.partial(randomize, rng=keys))
    s = jax.jit(wrapped.reset)(keys)
    masses = np.asarray(s.pipeline_state.parameters.mass[:, pole])
    expected = np.asarray(randomize(env.sys, keys)[0].mass[:, pole])
    np.testing.assert_allclose(masses, expected)
    assert len(set(np.round(masses, 6))) == 3 and env.sys.mass[pole] == pytest.approx(0.1)
    step = jax.jit(wrapped.step)
    a = jnp.full((3, 1), 0.5)
    s1 = step(s, a)
    s2 = step(s1, a)  # the episode limit: Brax's auto-reset puts back the first state
    assert np.all(np.asarray(s2.done) == 1.0)
    np.testing.assert_allclose(s2.obs, s.obs)
    assert not np.allclose(s1.obs[0], s1.obs[2])  # same start, other masses, other motion
