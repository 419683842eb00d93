"""Joint kinds: closed-form transforms, motion subspaces against derivatives of X_FM(q),
q̇ ↔ v maps, Simbody kinds against equivalent Drake-kind compositions, and singularities."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxbody as jb
from jaxbody.joints import kind_registry, kinds, simbody_kinds
from jaxbody.math.so3 import rot_x, rot_y, rot_z, unskew
from tests.helpers.models import single_joint_plant

TOL = 1e-12
AXIS = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
CONSTANTS = {
    "revolute": {"axis": AXIS[None]},
    "prismatic": {"axis": AXIS[None]},
    "screw": {"axis": AXIS[None], "pitch": np.array([0.4])},
    "ellipsoid": {"semi_axes": np.array([[0.3, 0.5, 0.7]])},
}
MOVING_KINDS = [k for k in kind_registry.ALL_KINDS if k.nv > 0]


def _random_q(kind, rng):
    q = rng.uniform(-1.2, 1.2, size=kind.nq)
    if kind.has_quaternion:
        quat = rng.normal(size=4)
        q[:4] = quat / np.linalg.norm(quat)
    return jnp.asarray(q)[None]


def _consts(kind):
    return CONSTANTS.get(kind.name, {})


@pytest.mark.parametrize("kind", MOVING_KINDS, ids=lambda k: k.name)
def test_subspace_is_derivative_of_transform(kind):
    """V_FM_F = H v must equal the time derivative of X_FM(q(t)) with q̇ = N(q) v."""
    rng = np.random.default_rng(0)
    q = _random_q(kind, rng)
    v = jnp.asarray(rng.normal(size=(1, kind.nv)))
    c = _consts(kind)
    qdot = jnp.einsum("kij,kj->ki", kind.N(q, c), v)
    (R, p), (Rdot, pdot) = jax.jvp(lambda x: kind.transform(x, c), (q,), (qdot,))
    w_F = unskew(Rdot[0] @ R[0].T)
    V = kind.subspace(q, c)[0] @ v[0]
    np.testing.assert_allclose(V[:3], w_F, atol=TOL)
    np.testing.assert_allclose(V[3:], pdot[0], atol=TOL)


@pytest.mark.parametrize("kind", MOVING_KINDS, ids=lambda k: k.name)
def test_subspace_dot_is_derivative_of_subspace(kind):
    rng = np.random.default_rng(1)
    q = _random_q(kind, rng)
    v = jnp.asarray(rng.normal(size=(1, kind.nv)))
    c = _consts(kind)
    qdot = jnp.einsum("kij,kj->ki", kind.N(q, c), v)
    _, Hdot = jax.jvp(lambda x: kind.subspace(x, c), (q,), (qdot,))
    np.testing.assert_allclose(kind.subspace_dot_v(q, v, c)[0], Hdot[0] @ v[0], atol=TOL)


@pytest.mark.parametrize("kind", MOVING_KINDS, ids=lambda k: k.name)
def test_nplus_is_left_inverse_of_n(kind):
    rng = np.random.default_rng(2)
    q = _random_q(kind, rng) * (1.7 if kind.has_quaternion else 1.0)  # non-unit quaternions too
    c = _consts(kind)
    NpN = kind.Nplus(q, c)[0] @ kind.N(q, c)[0]
    np.testing.assert_allclose(NpN, np.eye(kind.nv), atol=TOL)


def test_closed_form_transforms():
    th = jnp.array([[0.7]])
    R, p = kinds.Revolute.transform(th, {"axis": np.array([[0.0, 0.0, 1.0]])})
    np.testing.assert_allclose(R[0], rot_z(0.7), atol=TOL)
    R, p = kinds.Screw.transform(th, {"axis": np.array([[0.0, 0.0, 1.0]]), "pitch": np.array([0.5])})
    np.testing.assert_allclose(p[0], [0, 0, 0.5 * 0.7 / (2 * np.pi)], atol=TOL)
    R, _ = kinds.Universal.transform(jnp.array([[0.3, -0.4]]), {})
    np.testing.assert_allclose(R[0], rot_x(0.3) @ rot_y(-0.4), atol=TOL)
    R, p = kinds.Planar.transform(jnp.array([[0.3, -0.4, 0.5]]), {})
    np.testing.assert_allclose(p[0], [0.3, -0.4, 0.0], atol=TOL)
    np.testing.assert_allclose(R[0], rot_z(0.5), atol=TOL)
    R, _ = kinds.BallRpy.transform(jnp.array([[0.1, 0.2, 0.3]]), {})
    np.testing.assert_allclose(R[0], rot_z(0.3) @ rot_y(0.2) @ rot_x(0.1), atol=TOL)
    R, p = simbody_kinds.Cylindrical.transform(jnp.array([[0.4, 0.9]]), {})
    np.testing.assert_allclose(R[0], rot_z(0.4), atol=TOL)
    np.testing.assert_allclose(p[0], [0, 0, 0.9], atol=TOL)
    # A half-turn about z as a quaternion [0, 0, 0, 1], even when not normalized.
    R, _ = simbody_kinds.Ball.transform(jnp.array([[0.0, 0.0, 0.0, 3.0]]), {})
    np.testing.assert_allclose(R[0], rot_z(np.pi), atol=TOL)


def test_rpy_rate_matrix_singularity_flag():
    assert bool(kinds.gimbal_lock(jnp.array([0.0, np.pi / 2 - 1e-4, 0.0])))
    assert not bool(kinds.gimbal_lock(jnp.array([0.0, np.pi / 2 - 1e-2, 0.0])))


def _pose_and_velocity(plant, body, q, v):
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), q), v)
    X = plant.EvalBodyPoseInWorld(ctx, body)
    V = plant.EvalBodySpatialVelocityInWorld(ctx, body)
    return X.GetAsMatrix4(), V.get_coeffs()


def _two_joint_chain(first, second):
    """World -F- joint1 -massless body- joint2 -M- body, offsets as in single_joint_plant."""
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("body", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3))
    mid = plant.AddRigidBody("mid", jb.SpatialInertia.SolidSphereWithMass(1e-3, 0.01))
    F = plant.AddFrame(jb.FixedOffsetFrame(
        "F", plant.world_frame(), jb.RigidTransform(jb.RollPitchYaw([0.1, -0.2, 0.3]), [0.1, 0.2, 0.3])))
    M = plant.AddFrame(jb.FixedOffsetFrame(
        "M", body.body_frame(), jb.RigidTransform(jb.RollPitchYaw([-0.3, 0.2, 0.1]), [0.0, -0.1, 0.2])))
    plant.AddJoint(first("j1", F, mid.body_frame()))
    plant.AddJoint(second("j2", mid.body_frame(), M))
    plant.Finalize()
    return plant, body


def test_cylindrical_equals_revolute_then_prismatic():
    plant, body, _ = single_joint_plant(jb.CylindricalJoint)
    chain, cbody = _two_joint_chain(
        lambda n, F, M: jb.RevoluteJoint(n, F, M, [0, 0, 1]),
        lambda n, F, M: jb.PrismaticJoint(n, F, M, [0, 0, 1]))
    q, v = jnp.array([0.7, -0.4]), jnp.array([0.3, 1.1])
    for a, b in zip(_pose_and_velocity(plant, body, q, v), _pose_and_velocity(chain, cbody, q, v)):
        np.testing.assert_allclose(a, b, atol=TOL)


def test_translational_equals_rpy_floating_without_rotation():
    plant, body, _ = single_joint_plant(jb.TranslationalJoint)
    ref, rbody, _ = single_joint_plant(jb.RpyFloatingJoint)
    p, vel = jnp.array([0.2, -0.3, 0.5]), jnp.array([1.0, -2.0, 0.5])
    a = _pose_and_velocity(plant, body, p, vel)
    b = _pose_and_velocity(ref, rbody, jnp.concatenate([jnp.zeros(3), p]),
                           jnp.concatenate([jnp.zeros(3), vel]))
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, atol=TOL)


def test_ball_equals_quaternion_floating_without_translation():
    plant, body, _ = single_joint_plant(jb.BallJoint)
    ref, rbody, _ = single_joint_plant(jb.QuaternionFloatingJoint)
    quat = jnp.array([0.5, -0.3, 0.7, 0.1]) / np.linalg.norm([0.5, -0.3, 0.7, 0.1])
    w = jnp.array([0.3, -0.2, 0.9])
    a = _pose_and_velocity(plant, body, quat, w)
    b = _pose_and_velocity(ref, rbody, jnp.concatenate([quat, jnp.zeros(3)]),
                           jnp.concatenate([w, jnp.zeros(3)]))
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, atol=TOL)


def test_ball_rpy_map_raises_at_gimbal_lock():
    plant, _, joint = single_joint_plant(jb.BallRpyJoint)
    ctx = joint.set_angles(plant.CreateDefaultContext(), jnp.array([0.1, np.pi / 2, 0.2]))
    with pytest.raises(Exception, match="gimbal lock"):
        jax.block_until_ready(plant.MapVelocityToQDot(ctx, jnp.ones(3)))
    with pytest.raises(Exception, match="gimbal lock"):
        jax.block_until_ready(jax.jit(plant.MakeVelocityToQDotMap)(ctx))
    # N⁺ is defined everywhere.
    assert np.all(np.isfinite(plant.MakeQDotToVelocityMap(ctx)))


def test_joint_constructor_errors():
    plant = jb.MultibodyPlant(0.0)
    b = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    W = plant.world_frame()
    with pytest.raises(ValueError, match="axis must be a nonzero"):
        jb.RevoluteJoint("r", W, b.body_frame(), [0, 0, 0])
    with pytest.raises(ValueError, match="axis must have shape"):
        jb.PrismaticJoint("p", W, b.body_frame(), [0, 1])
    with pytest.raises(ValueError, match="damping must be finite and >= 0"):
        jb.RevoluteJoint("r", W, b.body_frame(), [0, 0, 1], -1.0)
    with pytest.raises(ValueError, match="lower limits .* exceed"):
        jb.PrismaticJoint("p", W, b.body_frame(), [0, 0, 1], 1.0, -1.0)
    with pytest.raises(ValueError, match="damping must have shape"):
        jb.PlanarJoint("pl", W, b.body_frame(), [0.0, 1.0])
    with pytest.raises(ValueError, match="screw_pitch"):
        jb.ScrewJoint("s", W, b.body_frame(), [0, 0, 1], np.nan, 0.0)
    with pytest.raises(ValueError, match="joined to itself"):
        jb.RevoluteJoint("r", b.body_frame(), b.body_frame(), [0, 0, 1])
    with pytest.raises(TypeError, match="must be a Frame"):
        jb.RevoluteJoint("r", b, b.body_frame(), [0, 0, 1])
    with pytest.raises(TypeError, match="too many positional"):
        jb.RevoluteJoint("r", W, b.body_frame(), [0, 0, 1], 1, 2, 3, 4)


def test_joint_accessors_round_trip():
    plant, _, joint = single_joint_plant(jb.RevoluteJoint, [0, 0, 1], -1.0, 2.0, 0.3)
    ctx = joint.set_angle(plant.CreateDefaultContext(), 0.4)
    ctx = joint.set_angular_rate(ctx, -0.2)
    assert float(joint.get_angle(ctx)) == pytest.approx(0.4)
    assert float(joint.get_angular_rate(ctx)) == pytest.approx(-0.2)
    assert joint.position_lower_limit() == -1.0 and joint.position_upper_limit() == 2.0
    assert joint.damping() == pytest.approx(0.3)
    assert joint.type_name() == "revolute"
    plant, _, joint = single_joint_plant(jb.QuaternionFloatingJoint)
    X = jb.RigidTransform(jb.RollPitchYaw([0.3, -0.2, 1.0]), [1.0, 2.0, 3.0])
    ctx = joint.set_pose(plant.CreateDefaultContext(), X)
    np.testing.assert_allclose(joint.get_pose(ctx).GetAsMatrix4(), X.GetAsMatrix4(), atol=TOL)
    plant, _, joint = single_joint_plant(jb.RpyFloatingJoint)
    ctx = joint.set_pose(plant.CreateDefaultContext(), X)
    np.testing.assert_allclose(joint.get_pose(ctx).GetAsMatrix4(), X.GetAsMatrix4(), atol=TOL)
    np.testing.assert_allclose(joint.get_angles(ctx), [0.3, -0.2, 1.0], atol=TOL)


@pytest.mark.parametrize("kind", MOVING_KINDS, ids=lambda k: k.name)
def test_kernel_gradients(kind):
    """check_grads (forward and reverse) of every kernel of every kind."""
    rng = np.random.default_rng(3)
    q = _random_q(kind, rng)
    v = jnp.asarray(rng.normal(size=(1, kind.nv)))
    c = _consts(kind)

    def f(q, v):
        R, p = kind.transform(q, c)
        return (jnp.sum(R * R[..., ::-1]) + jnp.sum(p) + jnp.sum(kind.subspace(q, c) ** 2)
                + jnp.sum(kind.subspace_dot_v(q, v, c)) + jnp.sum(kind.N(q, c))
                + jnp.sum(kind.Nplus(q, c)))

    check_grads(f, (q, v), order=1, modes=["fwd", "rev"], eps=1e-6)
