"""The quadruped standing task (`jaxbody.envs.Quadruped`, example-robot-data's Go1): dropped
from a perturbed standing posture, it lands and stands on its PD targets through SAP contact."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody.envs as E
from tests.helpers.installed import missing_distributions

pytestmark = pytest.mark.skipif(bool(missing_distributions(("example-robot-data",))),
                                reason="needs example-robot-data")


def test_go1_dropped_lands_and_stands_on_its_pd_targets():
    env = E.make("quadruped")
    assert (env.observation_size, env.action_size) == (34, 12)
    s0 = jax.jit(env.reset)(jax.random.PRNGKey(0))
    z_stand = env.standing_height
    assert float(s0.obs[0]) > z_stand + 0.009  # dropped from above its standing height

    @jax.jit
    def stand(s):
        def body(s, _):
            s = env.step(s, jnp.zeros(12))
            return s, (s.reward, s.done)
        return jax.lax.scan(body, s, None, length=50)  # 1 s

    s, (rewards, done) = stand(s0)
    assert not np.any(np.asarray(done))
    assert float(s.metrics["upright"]) > 0.98
    assert abs(float(s.metrics["height"]) - z_stand) < 0.02
    assert float(rewards[-1]) > 0.8  # standing near its posture earns about 1 per step
    assert np.all(np.isfinite(np.asarray(s.obs)))
