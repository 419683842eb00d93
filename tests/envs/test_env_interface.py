"""The environment interface (`jaxbody.envs`): reset and step under jit and vmap, determinism,
episodes and auto-reset, parameter randomization equal to setting the parameters by hand,
bad actions, and the gradient of a rollout's return through SAP contact against finite
differences."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
import jaxbody.envs as E
from jaxbody.envs import brax_support

KEY = jax.random.PRNGKey(7)


@pytest.fixture(scope="module")
def cartpole():
    env = E.make("cartpole")
    return env, jax.jit(env.reset), jax.jit(env.step)


def _equal(a, b, tol=0.0):
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


def test_reset_and_step_are_pure_under_jit_and_vmap(cartpole):
    env, reset, step = cartpole
    assert (env.observation_size, env.action_size, env.backend) == (5, 1, "jaxbody")
    s = reset(KEY)
    assert s.obs.shape == (5,) and s.reward.shape == s.done.shape == ()
    assert isinstance(s.context, jb.Context) and s.context is s.pipeline_state
    np.testing.assert_allclose(s.obs[1], -1.0, atol=2e-3)  # hanging: cos θ ≈ -1
    a = jnp.array([0.4])
    s1 = step(s, a)
    _equal(s1, env.step(env.reset(KEY), a), 1e-12)  # jit = eager
    assert float(s1.context.time) == pytest.approx(env.dt) and env.dt == pytest.approx(0.02)
    batch = E.VmapWrapper(env)
    keys = jax.random.split(KEY, 3)
    sb = jax.jit(batch.step)(jax.jit(batch.reset)(keys), jnp.tile(a, (3, 1)))
    assert sb.obs.shape == (3, 5)
    for i in range(3):
        _equal(jax.tree.map(lambda x, i=i: x[i], sb), step(reset(keys[i]), a), 1e-12)


def test_same_key_same_episode_other_key_other_episode(cartpole):
    _, reset, step = cartpole
    a = jnp.array([-0.7])
    _equal(step(reset(KEY), a), step(reset(KEY), a))
    assert not np.allclose(reset(KEY).obs, reset(jax.random.PRNGKey(8)).obs)


def test_auto_reset_starts_a_fresh_episode_with_the_carried_key(cartpole):
    env, _, _ = cartpole
    n = 3
    wrapped = E.AutoResetWrapper(E.EpisodeWrapper(env, episode_length=n))
    reset, step = jax.jit(wrapped.reset), jax.jit(wrapped.step)
    s = reset(KEY)
    rewards = []
    a = jnp.array([1.0])
    for _ in range(n):
        before = s
        s = step(s, a)
        rewards.append(float(s.reward))
    assert float(s.done) == 1.0 and float(s.info["truncation"]) == 1.0
    assert float(s.info["steps"]) == 0.0  # the counters of the new episode
    m = s.info["episode_metrics"]
    assert float(m["length"]) == n and float(m["sum_reward"]) == pytest.approx(sum(rewards))
    # the state is a fresh reset drawn with the key the wrapper carried
    _, fresh_key = jax.random.split(before.info["reset_key"])
    fresh = E.EpisodeWrapper(env, n).reset(fresh_key)
    _equal(s.pipeline_state, fresh.pipeline_state, 1e-15)
    np.testing.assert_allclose(s.obs, fresh.obs)
    s2 = step(s, a)  # the next episode's first step: the sums restart
    assert float(s2.done) == 0.0 and float(s2.info["steps"]) == 1.0
    assert float(s2.info["episode_metrics"]["sum_reward"]) == pytest.approx(float(s2.reward))
    # `wrap` composes them over a batch
    batch = E.wrap(env, episode_length=n, batch_size=4)
    sb = jax.jit(batch.reset)(KEY)
    assert sb.obs.shape == (4, 5) and sb.info["reset_key"].shape[0] == 4


def test_randomized_parameters_equal_parameters_set_by_hand(cartpole):
    env, _, step = cartpole
    pole = env.plant.GetBodyByName("pole")

    def heavier_pole(key, p):
        scale = jax.random.uniform(key, (), minval=1.5, maxval=3.0)
        return dataclasses.replace(p, mass=p.mass.at[pole.index()].multiply(scale))

    randomized = E.RandomizeParameters(env, heavier_pole)
    s = jax.jit(randomized.reset)(KEY)
    k_env, k_par = jax.random.split(KEY)
    mass = float(heavier_pole(k_par, env.sys).mass[pole.index()])
    assert mass > 0.1 * 1.5 - 1e-12
    by_hand = env.reset(k_env)
    by_hand = by_hand.replace(pipeline_state=pole.SetMass(by_hand.pipeline_state, mass))
    _equal(s, by_hand, 1e-15)
    a = jnp.array([0.8])
    r1, r2 = step(s, a), step(by_hand, a)
    _equal(r1, r2, 1e-12)
    assert not np.allclose(r1.obs, step(env.reset(k_env), a).obs)  # the mass mattered
    assert env.sys.mass[pole.index()] == pytest.approx(0.1)  # the default is untouched
    with pytest.raises(ValueError, match=r"changed the shape of parameter .*mass"):
        E.RandomizeParameters(env, lambda k, p: dataclasses.replace(p, mass=p.mass[:2])).reset(KEY)


def test_bad_actions_and_settings_are_refused(cartpole):
    env, reset, step = cartpole
    s = reset(KEY)
    with pytest.raises(ValueError, match=r"CartPole.step: action must have shape \(1,\)"):
        env.step(s, jnp.zeros(2))
    with pytest.raises(ValueError, match=r"action entries \[0\] are not finite"):
        env.step(s, jnp.array([jnp.nan]))
    cut = step(s, jnp.array([jnp.nan]))  # under jit: the state is kept, the episode ends
    assert float(cut.done) == 1.0 and float(cut.metrics["invalid_action"]) == 1.0
    _equal(cut.pipeline_state, s.pipeline_state)
    assert np.all(np.isfinite(cut.obs)) and float(cut.reward) == 0.0
    assert float(step(s, jnp.array([0.1])).metrics["invalid_action"]) == 0.0
    with pytest.raises(ValueError, match=r"VmapWrapper.step: action must have shape \(batch, 1\)"):
        E.VmapWrapper(env).step(s, jnp.zeros(1))
    with pytest.raises(ValueError, match="continuous"):
        _Bare(_finalized(jb.MultibodyPlant(0.0)))
    with pytest.raises(ValueError, match="n_frames must be a positive int"):
        E.CartPole(n_frames=0)
    with pytest.raises(ValueError, match="episode_length must be a positive int"):
        E.EpisodeWrapper(env, 0)
    with pytest.raises(ValueError, match="unknown environment 'walker'"):
        E.make("walker")
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        E.VmapWrapper(env, batch_size=0)
    with pytest.raises(TypeError, match="fn must be callable"):
        E.RandomizeParameters(env, 3)
    with pytest.raises(ValueError, match="fn returned .* expected the parameters' structure"):
        E.RandomizeParameters(env, lambda k, p: {"mass": p.mass}).reset(KEY)
    with pytest.raises(ValueError, match="must be finalized"):
        _Bare(jb.MultibodyPlant(0.01))
    with pytest.raises(ValueError, match="unknown robot 'spot'"):
        E.Quadruped("spot")
    with pytest.raises(ValueError, match="2 shards for 1 devices"):
        brax_support.device_put_sharded([jnp.zeros(1), jnp.zeros(1)], jax.devices()[:1])


class _Bare(E.PlantEnv):
    """A task with no reset or step: only PlantEnv's construction checks are exercised."""

    action_size = 0
    reset = step = None


def _finalized(plant):
    plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.Finalize()
    return plant


def test_return_gradient_through_contact_equals_finite_differences():
    env = E.make("push", n_frames=1)  # one SAP step per action: the smallest program
    assert (env.observation_size, env.action_size) == (14, 2)
    s0 = env.reset(KEY)

    def ret(actions):
        def body(s, a):
            s = env.step(s, a)
            return s, s.reward
        s, r = jax.lax.scan(body, s0, actions)
        return jnp.sum(r), s.pipeline_state

    actions = jnp.tile(jnp.array([0.9, 0.1]), (6, 1))  # push the box along +x
    value_and_grad = jax.jit(jax.value_and_grad(ret, has_aux=True))
    (value, final), grad = value_and_grad(actions)
    f = lambda a: value_and_grad(a)[0][0]  # noqa: E731 (one compiled function)
    box_x = final.q[env.plant.GetJointByName("box").position_start() + 4]
    assert float(box_x) > 1e-3  # the finger moved the box: the gradient crosses contact
    assert np.all(np.isfinite(grad))
    d = jax.random.normal(jax.random.PRNGKey(1), actions.shape)
    eps = 1e-5
    fd = (f(actions + eps * d) - f(actions - eps * d)) / (2 * eps)
    assert float(jnp.vdot(grad, d)) == pytest.approx(float(fd), rel=1e-4, abs=1e-8)
