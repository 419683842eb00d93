"""SetDefaultState and SetRandomState (joint random distributions drawn with a JAX key)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from tests.helpers.models import box_inertia


@pytest.fixture(scope="module")
def plant():
    p = jb.MultibodyPlant(0.0)
    a = p.AddRigidBody("a", box_inertia())
    b = p.AddRigidBody("b", box_inertia())
    c = p.AddRigidBody("c", box_inertia())
    ja = p.AddJoint(jb.RevoluteJoint("ja", p.world_frame(), a.body_frame(), [0, 0, 1]))
    jb_ = p.AddJoint(jb.PrismaticJoint("jb", a.body_frame(), b.body_frame(), [1, 0, 0]))
    ja.set_default_angle(0.3)
    jb_.set_default_translation(-0.2)
    p.Finalize()  # c floats: a quaternion floating joint
    p.SetDefaultFreeBodyPose(c, jb.RigidTransform(p=[0.0, 0.0, 1.5]))
    return p, ja, jb_, c


def test_set_default_state_restores_default_positions_and_zero_velocities(plant):
    p, *_ = plant
    ctx = p.CreateDefaultContext()
    moved = p.SetVelocities(p.SetPositions(ctx, ctx.q + 1.0), jnp.ones(p.num_velocities()))
    back = p.SetDefaultState(moved)
    np.testing.assert_array_equal(back.q, p.GetDefaultPositions())
    np.testing.assert_array_equal(back.v, np.zeros(p.num_velocities()))
    np.testing.assert_allclose(p.GetDefaultPositions()[[0, 1]], [0.3, -0.2])
    np.testing.assert_allclose(p.GetDefaultPositions()[-3:], [0.0, 0.0, 1.5])


def test_set_random_state_draws_each_joint_from_its_distribution(plant):
    p, ja, jb_, c = plant
    ctx = p.CreateDefaultContext()
    # Without distributions, a random state is the default state (as in Drake).
    np.testing.assert_array_equal(p.SetRandomState(ctx, jax.random.key(0)).q,
                                  p.GetDefaultPositions())
    free = next(j for j in p._joints if j.child_body() is c)
    ja.set_random_angle_distribution(lambda k: jax.random.uniform(k, minval=-1.0, maxval=1.0))
    jb_.set_random_translation_distribution(lambda k: 5.0 + jax.random.normal(k))
    free.set_random_quaternion_distribution_to_uniform()
    try:
        draw = jax.jit(jax.vmap(lambda k: p.SetRandomState(ctx, k).q))
        Q = np.asarray(draw(jax.random.split(jax.random.key(1), 2000)))
        assert np.all(np.abs(Q[:, 0]) <= 1.0) and abs(Q[:, 0].mean()) < 0.05
        assert abs(Q[:, 1].mean() - 5.0) < 0.1 and abs(Q[:, 1].std() - 1.0) < 0.1
        quats = Q[:, 2:6]
        np.testing.assert_allclose(np.linalg.norm(quats, axis=1), 1.0, atol=1e-12)
        assert np.all(np.abs(quats.mean(0)) < 0.05)  # uniform on S³: zero mean
        np.testing.assert_allclose(Q[:, 6:], np.tile([0.0, 0.0, 1.5], (len(Q), 1)))
        one = p.SetRandomState(p.SetVelocities(ctx, jnp.ones(p.num_velocities())),
                               jax.random.key(3))
        np.testing.assert_array_equal(one.v, np.zeros(p.num_velocities()))
        free.set_random_position_distribution(lambda k: jax.random.normal(k, (3,)))
        assert np.asarray(p.SetRandomState(ctx, jax.random.key(4)).q[6:]).std() > 0
        # A whole-q sampler replaces the parts; clearing it leaves no random part behind.
        free.set_random_positions_distribution(None)
        free.set_random_position_distribution(lambda k: jnp.zeros(3))
        q = np.asarray(p.SetRandomState(ctx, jax.random.key(5)).q)
        np.testing.assert_array_equal(q[2:6], [1.0, 0.0, 0.0, 0.0])  # quaternion: default
    finally:
        for j in (ja, jb_, free):
            j.set_random_positions_distribution(None)


def test_random_distribution_errors(plant):
    p, ja, *_ = plant
    with pytest.raises(TypeError, match="Joint 'ja'.*callable"):
        ja.set_random_positions_distribution(0.5)
    ja.set_random_positions_distribution(lambda k: jnp.zeros(3))
    try:
        with pytest.raises(ValueError, match=r"Joint 'ja'.*shape \(3,\), expected \(1,\)"):
            p.SetRandomState(p.CreateDefaultContext(), jax.random.key(0))
    finally:
        ja.set_random_positions_distribution(None)
