"""The conversions the parsers and builders share with the kernels (`so3`, `inertia`): NumPy in,
NumPy float64 out; JAX in, JAX out; both the same numbers."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.math import so3
from jaxbody.math.inertia import point_mass_unit_inertia


def test_quaternion_conversions_on_host_and_device_agree():
    rng = np.random.default_rng(3)
    for _ in range(50):
        q = rng.normal(size=4)
        R = so3.quaternion_to_rotation(q)
        assert isinstance(R, np.ndarray) and R.dtype == np.float64
        assert isinstance(so3.quaternion_to_rotation(jnp.asarray(q)), jax.Array)
        np.testing.assert_allclose(R, so3.quaternion_to_rotation(jnp.asarray(q)), atol=1e-15)
        np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-14)  # non-unit q: still a rotation
        back = so3.rotation_to_quaternion(R)
        assert isinstance(back, np.ndarray) and back[0] >= 0
        np.testing.assert_allclose(back, np.sign(q[0]) * q / np.linalg.norm(q), atol=1e-14)
    for R in (np.eye(3), np.diag([1.0, -1, -1]), np.diag([-1.0, 1, -1]), np.diag([-1.0, -1, 1])):
        q = so3.rotation_to_quaternion(R)  # half-turns: each pivot branch
        np.testing.assert_allclose(so3.quaternion_to_rotation(q), R, atol=1e-15)


def test_point_mass_unit_inertia_is_the_parallel_axis_term():
    p = np.array([0.3, -0.2, 0.5])
    G = point_mass_unit_inertia(p)
    assert isinstance(G, np.ndarray)
    np.testing.assert_allclose(G, -so3.skew(jnp.asarray(p)) @ so3.skew(jnp.asarray(p)),
                               atol=1e-15)
    np.testing.assert_allclose(G @ p, np.zeros(3), atol=1e-15)  # no inertia about its own line
    u = np.array([0.0, 0.0, 1.0])
    assert abs(u @ G @ u - (0.3**2 + 0.2**2)) < 1e-15  # squared distance from the z axis
    batch = point_mass_unit_inertia(jnp.asarray(np.stack([p, 2 * p])))
    assert isinstance(batch, jax.Array) and batch.shape == (2, 3, 3)
    np.testing.assert_allclose(batch[1], 4 * G, atol=1e-15)
