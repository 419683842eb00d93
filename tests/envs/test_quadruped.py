"""The quadruped tasks (`jaxbody.envs.Quadruped`, example-robot-data's Go1): the walking reward
on hand-set states. That the Go1, dropped from a perturbed standing posture, lands and stands on
its PD targets through SAP contact (every one of 16 episodes earning over 80 % of the standing
reward) is asserted in notebooks/learning.ipynb, which the test suite runs."""

import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody.envs as E
from tests.helpers.installed import missing_distributions

pytestmark = pytest.mark.skipif(bool(missing_distributions(("example-robot-data",))),
                                reason="needs example-robot-data")


def test_walking_reward_pays_for_the_target_speed_along_the_trunks_heading():
    env = E.make("quadruped", target_speed=0.5)
    q0 = np.asarray(env._q0, float)
    nv, bq, bv = env.plant.num_velocities(), env._base_q, env._base_v
    a = jnp.zeros(12)

    def reward(yaw, v_world_xy):
        q = q0.copy()
        q[bq:bq + 4] = [np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)]
        v = np.zeros(nv)
        v[bv + 3:bv + 5] = v_world_xy
        r, (_, _, forward) = env.reward(env.pipeline_init(q, v), a)
        return float(r), float(forward)

    at_target = reward(0.0, [0.5, 0.0])
    assert at_target == pytest.approx((1.0, 0.5))  # standing posture at v*: tracking 1
    turned = reward(np.pi / 2, [0.0, 0.5])  # facing +y, moving along +y
    assert turned == pytest.approx(at_target)
    still, _ = reward(0.0, [0.0, 0.0])
    assert still == pytest.approx((1.0 + np.exp(-0.25 / 0.1)) / 2)
    sideways, forward = reward(np.pi / 2, [0.5, 0.0])  # moving across its heading
    assert forward == pytest.approx(0.0, abs=1e-12)
    assert sideways == pytest.approx((1.0 + np.exp(-0.5 / 0.1)) / 2)
    with pytest.raises(ValueError, match="target_speed"):
        E.make("quadruped", target_speed=float("nan"))
