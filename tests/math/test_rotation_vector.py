"""`so3.rotation_to_rotation_vector` (the weld constraint's a_PQ): the inverse of the
axis-angle map for angles in [0, π], finite and exact near the identity, with gradients that
match finite differences (forward and reverse)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from jaxbody.math.so3 import axis_angle_to_rotation, rotation_to_rotation_vector


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-7, 1e-3, 0.5, 2.0, 3.1])
def test_round_trip(angle):
    rng = np.random.default_rng(int(angle * 1e3))
    k = rng.normal(size=3)
    k /= np.linalg.norm(k)
    a = np.asarray(rotation_to_rotation_vector(axis_angle_to_rotation(jnp.asarray(k), angle)))
    np.testing.assert_allclose(a, angle * k, atol=1e-14)


def test_gradients_near_identity_and_far():
    def f(w):
        theta = jnp.linalg.norm(w)
        return rotation_to_rotation_vector(axis_angle_to_rotation(w / theta, theta))

    for w in ([1e-4, -2e-4, 3e-4], [0.4, -1.1, 0.7]):
        w = jnp.asarray(w)
        check_grads(f, (w,), order=1, modes=("fwd", "rev"), eps=1e-6, rtol=1e-6)
        np.testing.assert_allclose(jax.jacfwd(f)(w), np.eye(3), atol=1e-9)  # the identity map
    J = jax.jacfwd(rotation_to_rotation_vector)(jnp.eye(3))
    assert np.all(np.isfinite(J))
