"""The contact-slot capacity of a discrete step: the compact problem gives the step of the full
one (values and gradients), serially and batched, including a batch where one member has more
penetrating points than the capacity (the whole batch then solves the full problem)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.contact import capacity as cap

R, M = 0.05, 0.5


def _plant(capacity, max_active=None):
    plant = jb.MultibodyPlant(time_step=1e-3)
    friction = jb.CoulombFriction(0.5, 0.5)
    for i in range(6):
        b = plant.AddRigidBody(f"s{i}", jb.SpatialInertia.SolidSphereWithMass(M, R))
        plant.RegisterCollisionGeometry(b, jb.RigidTransform(), jb.Sphere(R), f"g{i}", friction)
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                    "ground", friction)
    plant.set_contact_capacity(capacity)
    if max_active is not None:
        plant.set_max_active_contacts(max_active)
    plant.Finalize()
    return plant


@pytest.fixture(scope="module")
def plants():
    return _plant(4), _plant(None)


def _state(plant, n_down, rng):
    """Spheres 0..n_down-1 pressed 0.1 mm into the ground side by side, the rest high up."""
    ctx = plant.CreateDefaultContext()
    for i in range(6):
        z = R - 1e-4 if i < n_down else 0.5 + 0.2 * i
        X = jb.RigidTransform(np.array([0.3 * i, 0.0, z]) + rng.uniform(-1e-5, 1e-5, 3))
        ctx = plant.SetFreeBodyPose(ctx, plant.GetBodyByName(f"s{i}"), X)
    return ctx.replace(v=jnp.asarray(rng.uniform(-0.05, 0.05, plant.num_velocities())))


@pytest.fixture(scope="module")
def batch(plants):
    rng = np.random.default_rng(0)
    ctxs = [_state(plants[0], n, rng) for n in (3, 2, 5)]  # the last one overflows 4
    return jax.tree_util.tree_map(lambda *x: jnp.stack(x), *ctxs)


@pytest.fixture(scope="module")
def steps(plants):
    return [jax.jit(jax.vmap(lambda c, p=p: p.CalcDiscreteStep(c))) for p in plants]


def _close(a, b):
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-12, atol=1e-14)


def test_resolved_capacity(plants):
    assert plants[0].get_contact_capacity() == 4
    assert plants[1].get_contact_capacity() is None
    assert _plant("auto").get_contact_capacity() is None  # 21 slots: not worth compacting
    assert cap.default_capacity(486, 27) == 88
    assert cap.default_capacity(36, 8) is None


@pytest.mark.parametrize("members", [[0, 1, 1], [0, 1, 2]], ids=["fits", "one-overflows"])
def test_batched_compact_step_equals_full_step(steps, batch, members):
    sub = jax.tree_util.tree_map(lambda x: x[np.asarray(members)], batch)
    got, want = steps[0](sub), steps[1](sub)
    assert np.asarray(got.contact.active).sum(-1).tolist() == [[3, 2, 5][m] for m in members]
    _close((got.context.q, got.context.v, got.contact.gamma, got.contact.vc,
            got.contact.tau_contact, got.contact.active, got.stats.iterations),
           (want.context.q, want.context.v, want.contact.gamma, want.contact.vc,
            want.contact.tau_contact, want.contact.active, want.stats.iterations))


def test_serial_compact_step_and_its_gradient_equal_the_full_ones(plants, batch):
    ctx = jax.tree_util.tree_map(lambda x: x[0], batch)

    def loss(plant):
        def f(q, v):
            return jnp.sum(plant.CalcDiscreteStep(ctx.replace(q=q, v=v)).context.v ** 2)
        return jax.jit(jax.value_and_grad(f, argnums=(0, 1)))

    _close(loss(plants[0])(ctx.q, ctx.v), loss(plants[1])(ctx.q, ctx.v))


def test_batch_all_keeps_one_branch_under_vmap():
    def f(x):
        return jax.lax.cond(cap.batch_all(x[0] < 2.0), jnp.sin, jnp.cos, x).sum()

    X = jnp.array([[1.0, 3.0], [1.5, 2.0]])
    jaxpr = str(jax.make_jaxpr(jax.vmap(f))(X))
    assert "cond[" in jaxpr and "select_n" not in jaxpr
    np.testing.assert_allclose(jax.vmap(f)(X), jnp.sin(X).sum(1))
    np.testing.assert_allclose(jax.vmap(f)(X.at[1, 0].set(3.0)), jnp.cos(X.at[1, 0].set(3.0))
                               .sum(1))
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(X), jnp.cos(X))
    assert bool(cap.batch_all(jnp.asarray(True)))


def test_bad_capacity_names_itself():
    plant = jb.MultibodyPlant(time_step=1e-3)
    for bad in (0, -3, 2.5, "big", True):
        with pytest.raises(ValueError, match="set_contact_capacity: n must be"):
            plant.set_contact_capacity(bad)


def test_a_dropped_contact_is_reported_by_the_rollout(batch):
    """`set_max_active_contacts` drops the shallowest penetrating points; the step's and the
    rollout's overflow flags say so (3 and 5 penetrating points against a cap of 2 and 4)."""
    plant = _plant(None, max_active=4)
    roll = jax.jit(jax.vmap(lambda c: jb.discrete_rollout(plant, c, num_steps=2,
                                                         save_trajectory=False)))
    r = roll(batch)
    assert r.contact_overflow.shape == (3, 2)
    assert np.asarray(r.contact_overflow[:, 0]).tolist() == [False, False, True]
    assert np.asarray(r.first_overflow_step).tolist() == [-1, -1, 1]
    # on_overflow="raise": an error naming the step, from a concrete result or under jit.
    one = jax.tree_util.tree_map(lambda x: x[2], batch)
    fine = jax.tree_util.tree_map(lambda x: x[0], batch)
    with pytest.raises(ValueError, match="at step 1, a contact may have been missed"):
        jb.discrete_rollout(plant, one, num_steps=2, on_overflow="raise")
    r_fine = jb.discrete_rollout(plant, fine, num_steps=2, on_overflow="raise")
    assert int(r_fine.first_overflow_step) == -1
    jitted = jax.jit(lambda c: jb.discrete_rollout(plant, c, num_steps=2, save_trajectory=False,
                                                   on_overflow="raise").final_state)
    with pytest.raises(Exception, match="a contact may have been missed"):
        jax.block_until_ready(jitted(one))
    with pytest.raises(ValueError, match="on_overflow must be 'report' or 'raise'"):
        jb.discrete_rollout(plant, fine, num_steps=2, on_overflow="warn")
