"""Context: immutability, state accessors (whole plant and per instance), array selectors,
free bodies, parameters, wrong sizes, foreign contexts, and jit cache reuse."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from tests.helpers.models import box_inertia


def _two_instance_plant():
    plant = jb.MultibodyPlant(0.0)
    arm = plant.AddModelInstance("arm")
    box = plant.AddModelInstance("box")
    l1 = plant.AddRigidBody("l1", arm, box_inertia())
    l2 = plant.AddRigidBody("l2", arm, box_inertia())
    plant.AddJoint(jb.RevoluteJoint("j1", plant.world_frame(), l1.body_frame(), [0, 0, 1]))
    plant.AddJoint(jb.PrismaticJoint("j2", l1.body_frame(), l2.body_frame(), [1, 0, 0]))
    cube = plant.AddRigidBody("cube", box, box_inertia(2.0))
    plant.AddJointActuator("a1", plant.GetJointByName("j1"))
    plant.AddJointActuator("a2", plant.GetJointByName("j2"))
    plant.Finalize()
    return plant, arm, box, cube


@pytest.fixture(scope="module")
def setup():
    return _two_instance_plant()


def test_default_context(setup):
    plant, _, _, cube = setup
    ctx = plant.CreateDefaultContext()
    assert ctx.q.shape == (9,) and ctx.v.shape == (8,)
    np.testing.assert_array_equal(ctx.q, [0, 0, 1, 0, 0, 0, 0, 0, 0])
    assert float(ctx.get_time()) == 0.0
    assert float(cube.get_mass(ctx)) == 2.0
    with pytest.raises(AttributeError, match="immutable"):
        ctx.q = jnp.zeros(9)


def test_state_setters_return_new_contexts(setup):
    plant, arm, box, _ = setup
    ctx = plant.CreateDefaultContext()
    ctx2 = plant.SetPositions(ctx, arm, jnp.array([0.5, -0.2]))
    np.testing.assert_array_equal(plant.GetPositions(ctx2, arm), [0.5, -0.2])
    np.testing.assert_array_equal(plant.GetPositions(ctx), plant.CreateDefaultContext().q)
    ctx3 = plant.SetVelocities(ctx2, box, jnp.arange(6.0))
    np.testing.assert_array_equal(plant.GetVelocities(ctx3, box), np.arange(6.0))
    np.testing.assert_array_equal(plant.GetVelocities(ctx3, arm), [0, 0])
    x = plant.GetPositionsAndVelocities(ctx3)
    assert x.shape == (17,)
    ctx4 = plant.SetPositionsAndVelocities(plant.CreateDefaultContext(), x)
    np.testing.assert_array_equal(plant.GetPositionsAndVelocities(ctx4), x)
    xa = plant.GetPositionsAndVelocities(ctx3, arm)
    np.testing.assert_array_equal(xa, [0.5, -0.2, 0, 0])
    ctx5 = plant.SetPositionsAndVelocities(ctx, arm, jnp.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(plant.GetPositionsAndVelocities(ctx5, arm), [1, 2, 3, 4])
    assert float(ctx.SetTime(2.5).get_time()) == 2.5


def test_wrong_sizes_raise(setup):
    plant, arm, _, _ = setup
    ctx = plant.CreateDefaultContext()
    with pytest.raises(ValueError, match=r"SetPositions: q: expected shape \(9,\), got \(3,\)"):
        plant.SetPositions(ctx, jnp.zeros(3))
    with pytest.raises(ValueError, match=r"q_instance: expected shape \(2,\)"):
        plant.SetPositions(ctx, arm, jnp.zeros(3))
    with pytest.raises(ValueError, match="SetVelocities: v"):
        plant.SetVelocities(ctx, jnp.zeros((2, 8)))
    with pytest.raises(ValueError, match="MapVelocityToQDot: v"):
        plant.MapVelocityToQDot(ctx, jnp.zeros(9))
    with pytest.raises(ValueError, match="MapQDotToVelocity: qdot"):
        plant.MapQDotToVelocity(ctx, jnp.zeros(8))
    with pytest.raises(ValueError, match="GetPositionsFromArray: array"):
        plant.GetPositionsFromArray(arm, jnp.zeros(4))
    with pytest.raises(ValueError, match="SetActuationInArray: u_instance"):
        plant.SetActuationInArray(arm, jnp.zeros(3), jnp.zeros(2))
    with pytest.raises(ValueError, match="SetGravityVector"):
        plant.SetGravityVector(ctx, jnp.zeros(2))
    with pytest.raises(ValueError, match="SetDefaultPositions"):
        plant.SetDefaultPositions(np.zeros(2))


def test_foreign_context_raises(setup):
    plant, _, _, _ = setup
    other = jb.MultibodyPlant(0.0)
    other.AddRigidBody("x", box_inertia())
    other.Finalize()
    with pytest.raises(ValueError, match="different plant"):
        plant.GetPositions(other.CreateDefaultContext())
    with pytest.raises(TypeError, match="expected a Context"):
        plant.GetPositions(np.zeros(9))


def test_array_selectors(setup):
    plant, arm, box, _ = setup
    q = jnp.arange(9.0)
    np.testing.assert_array_equal(plant.GetPositionsFromArray(box, q), np.arange(2, 9))
    q2 = plant.SetPositionsInArray(arm, jnp.array([-1.0, -2.0]), q)
    np.testing.assert_array_equal(q2[:2], [-1, -2])
    v = jnp.arange(8.0)
    np.testing.assert_array_equal(plant.GetVelocitiesFromArray(arm, v), [0, 1])
    v2 = plant.SetVelocitiesInArray(box, jnp.zeros(6), v)
    np.testing.assert_array_equal(v2, [0, 1, 0, 0, 0, 0, 0, 0])
    u = jnp.array([3.0, 4.0])
    np.testing.assert_array_equal(plant.GetActuationFromArray(arm, u), [3, 4])
    np.testing.assert_array_equal(plant.SetActuationInArray(arm, jnp.array([5.0, 6.0]), u), [5, 6])


def test_free_body_pose_and_velocity(setup):
    plant, _, _, cube = setup
    ctx = plant.CreateDefaultContext()
    X = jb.RigidTransform(jb.RollPitchYaw([0.2, 0.3, -0.4]), [1.0, -2.0, 0.5])
    ctx = plant.SetFreeBodyPose(ctx, cube, X)
    np.testing.assert_allclose(plant.GetFreeBodyPose(ctx, cube).GetAsMatrix4(), X.GetAsMatrix4(),
                               atol=1e-14)
    np.testing.assert_allclose(plant.EvalBodyPoseInWorld(ctx, cube).GetAsMatrix4(),
                               X.GetAsMatrix4(), atol=1e-14)
    V = jb.SpatialVelocity([0.1, 0.2, 0.3], [1.0, 2.0, 3.0])
    ctx = plant.SetFreeBodySpatialVelocity(cube, V, ctx)
    np.testing.assert_allclose(plant.EvalBodySpatialVelocityInWorld(ctx, cube).get_coeffs(),
                               V.get_coeffs(), atol=1e-14)
    ctx = plant.SetFreeBodySpatialVelocity(ctx, cube, V)
    with pytest.raises(ValueError, match="not a free body"):
        plant.SetFreeBodyPose(ctx, plant.GetBodyByName("l1"), X)


def test_default_positions(setup):
    plant, arm, _, _ = _two_instance_plant()
    plant.SetDefaultPositions(arm, np.array([0.3, 0.1]))
    np.testing.assert_array_equal(plant.CreateDefaultContext().q[:2], [0.3, 0.1])
    plant.GetJointByName("j1").set_default_positions([0.7])
    np.testing.assert_array_equal(plant.GetDefaultPositions(arm), [0.7, 0.1])


def test_parameter_setters(setup):
    plant, _, _, cube = setup
    ctx = plant.CreateDefaultContext()
    ctx2 = cube.SetMass(ctx, 3.5)
    assert float(cube.get_mass(ctx2)) == 3.5 and float(cube.get_mass(ctx)) == 2.0
    ctx3 = cube.SetCenterOfMassInBodyFrame(ctx2, jnp.array([0.1, 0.0, 0.0]))
    np.testing.assert_array_equal(cube.CalcCenterOfMassInBodyFrame(ctx3), [0.1, 0, 0])
    M = jb.SpatialInertia.SolidSphereWithMass(4.0, 0.2)
    ctx4 = cube.SetSpatialInertiaInBodyFrame(ctx, M)
    np.testing.assert_allclose(
        cube.CalcSpatialInertiaInBodyFrame(ctx4).CopyToFullMatrix6(), M.CopyToFullMatrix6())
    g = plant.SetGravityVector(ctx, jnp.array([0.0, 0.0, -1.62]))
    np.testing.assert_array_equal(g.parameters.gravity, [0, 0, -1.62])
    j1 = plant.GetJointByName("j1")
    ctx5 = j1.SetDampingVector(ctx, jnp.array([0.4]))
    np.testing.assert_array_equal(j1.GetDampingVector(ctx5), [0.4])


def test_context_is_a_pytree_for_jit_vmap_grad(setup):
    plant, arm, _, cube = setup
    ctx = plant.CreateDefaultContext()

    def height(c, mass):
        c = cube.SetMass(c, mass)
        return plant.CalcCenterOfMassPositionInWorld(c)[0]

    # grad with respect to a parameter leaf, through jit.
    g = jax.jit(jax.grad(height, argnums=1))(ctx, 2.0)
    assert np.isfinite(g)
    # vmap over contexts built from a batch of positions equals a Python loop.
    qs = jnp.asarray(np.random.default_rng(0).normal(size=(5, 2)))

    def tip(q):
        c = plant.SetPositions(ctx, arm, q)
        return plant.EvalBodyPoseInWorld(c, plant.GetBodyByName("l2")).translation()

    batched = jax.vmap(tip)(qs)
    looped = jnp.stack([tip(q) for q in qs])
    np.testing.assert_allclose(batched, looped, atol=1e-14)


def test_equal_models_do_not_retrace():
    traces = []

    def f(plant, ctx):
        traces.append(1)
        return plant.CalcCenterOfMassPositionInWorld(ctx)

    jf = jax.jit(f, static_argnums=0)
    p1, _, _, _ = _two_instance_plant()
    p2, _, _, _ = _two_instance_plant()
    jf(p1, p1.CreateDefaultContext())
    jf(p2, p2.CreateDefaultContext())
    assert len(traces) == 1


def test_float32_context(setup):
    plant, arm, _, cube = setup
    ctx = plant.CreateDefaultContext(dtype=jnp.float32)
    ctx = plant.SetPositions(ctx, arm, jnp.array([0.3, 0.2]))
    X = plant.EvalBodyPoseInWorld(ctx, plant.GetBodyByName("l2"))
    assert X.translation().dtype == jnp.float32
    ctx64 = plant.SetPositions(plant.CreateDefaultContext(), arm, jnp.array([0.3, 0.2]))
    X64 = plant.EvalBodyPoseInWorld(ctx64, plant.GetBodyByName("l2"))
    np.testing.assert_allclose(X.GetAsMatrix4(), X64.GetAsMatrix4(), atol=1e-6)
    assert plant.CreateDefaultContext().astype(jnp.float32).q.dtype == jnp.float32


def test_default_free_body_pose():
    X = jb.RigidTransform(jb.RollPitchYaw([0.1, 0.2, 0.3]), [1.0, 0.0, 1.0])
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("b", box_inertia())
    plant.SetDefaultFreeBodyPose(body, X)
    np.testing.assert_allclose(plant.GetDefaultFreeBodyPose(body).GetAsMatrix4(), X.GetAsMatrix4())
    plant.Finalize()
    ctx = plant.CreateDefaultContext()
    np.testing.assert_allclose(plant.EvalBodyPoseInWorld(ctx, body).GetAsMatrix4(), X.GetAsMatrix4(),
                               atol=1e-14)
    X2 = jb.RigidTransform(p=[0.0, 2.0, 0.0])
    plant.SetDefaultFreeBodyPose(body, X2)
    np.testing.assert_allclose(plant.GetDefaultFreeBodyPose(body).GetAsMatrix4(), X2.GetAsMatrix4(),
                               atol=1e-14)


def test_free_body_joint_order_matches_drake_policy():
    """Floating joints are added in Drake's base-body order (most-often parent first)."""
    plant = jb.MultibodyPlant(0.0)
    z, x, a = (plant.AddRigidBody(n, box_inertia()) for n in ("z", "x", "a"))
    plant.AddJoint(jb.RevoluteJoint("k", a.body_frame(), x.body_frame(), [0, 0, 1]))
    plant.Finalize()
    # pydrake 1.51 gives joints [k, a, z] with q starts [7, 0, 8].
    assert [j.name() for j in plant._joints] == ["k", "a", "z"]
    assert [j.position_start() for j in plant._joints] == [7, 0, 8]
