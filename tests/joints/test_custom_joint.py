"""User-defined mobilizers: `CustomJoint` (X_FM(q) as a JAX function; H, Ḣv and N⁺ by
autodiff) and Simbody's `FunctionBasedJoint`.

- A CustomJoint written as a revolute, a screw, or a quaternion ball reproduces `RevoluteJoint`,
  `ScrewJoint`, `BallJoint` on random trees to 1e-12 (M, C·v, gravity, inverse and forward
  dynamics, body poses).
- A coupled nonlinear knee (rolling contact of two circles): body velocities equal finite
  differences of the poses, accelerations the second differences along the motion, energy is
  conserved in a simulation.
- FunctionBased with the identity functions about x, y, z is Simbody's Gimbal (1e-12).
- vmap equals a loop; gradients pass check_grads (forward and reverse).
- Bad definitions give errors naming the joint.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxbody as jb
from jaxbody.engine.dynamics import analytic_state_derivatives
from jaxbody.math.so3 import axis_angle_to_rotation, quaternion_to_rotation, rot_z, skew
from tests.helpers import random_trees as rt

TOL = 1e-12


def _rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


def _revolute_pose(axis):
    def X_FM(q):
        return axis_angle_to_rotation(jnp.asarray(axis, q.dtype), q[0]), jnp.zeros(3, q.dtype)
    return X_FM


def _screw_pose(axis, pitch):
    def X_FM(q):
        a = jnp.asarray(axis, q.dtype)
        return axis_angle_to_rotation(a, q[0]), a * pitch * q[0] / (2 * np.pi)
    return X_FM


def _ball_pose(q):
    return quaternion_to_rotation(q), jnp.zeros(3, q.dtype)


def _ball_qdot_map(q):
    """q̇ = ½ E(q) w_FM_F (Drake's quaternion rate map)."""
    qs, qv = q[0], q[1:]
    return 0.5 * jnp.concatenate([-qv[None], qs * jnp.eye(3, dtype=q.dtype) - skew(qv)], 0)


def _build(spec, custom):
    """``spec`` built in jaxbody, its revolute/screw/ball joints as CustomJoints if ``custom``."""
    if not custom:
        return rt.build_jaxbody(spec)
    original = rt._make_joint

    def make(mod, js, name, F, M):
        if js.kind == "revolute":
            return jb.CustomJoint(name, F, M, _revolute_pose(tuple(js.axis)), 1,
                                  damping=js.damping)
        if js.kind == "screw":
            return jb.CustomJoint(name, F, M, _screw_pose(tuple(js.axis), js.pitch), 1,
                                  damping=js.damping)
        if js.kind == "ball":
            return jb.CustomJoint(name, F, M, _ball_pose, 4, 3, qdot_map=_ball_qdot_map,
                                  has_quaternion=True, damping=js.damping)
        return original(mod, js, name, F, M)

    rt._make_joint = make
    try:
        return rt.build_jaxbody(spec)
    finally:
        rt._make_joint = original


def _dynamics(plant, q, v, vdot, tau):
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), q), v)
    out = {"M": plant.CalcMassMatrix(ctx), "Cv": plant.CalcBiasTerm(ctx),
           "g": plant.CalcGravityGeneralizedForces(ctx),
           "id": plant.CalcInverseDynamics(ctx, vdot, jb.MultibodyForces(plant)),
           "fd": plant.CalcGeneralizedAccelerations(
               ctx, applied_forces=jb.MultibodyForces(plant, tau))}
    for b in range(1, plant.num_bodies()):
        out[f"X{b}"] = plant.EvalBodyPoseInWorld(ctx, plant.get_body(jb.BodyIndex(b))) \
            .GetAsMatrix4()
    return out


@pytest.mark.parametrize("seed", range(2))
def test_custom_revolute_screw_and_ball_reproduce_the_built_in_joints(seed):
    rng = np.random.default_rng(40 + seed)
    spec = rt.random_tree(rng, 6, kinds=("revolute", "screw", "ball", "prismatic"),
                          free_fraction=0.0)
    for i, js in enumerate(spec.joints):
        js.kind = ("revolute", "screw", "ball", "prismatic")[(i + seed) % 4]
    spec.actuated = []
    ref, mine = _build(spec, False), _build(spec, True)
    assert any(j.kind.name.startswith("custom:") for j in mine._joints)
    assert not analytic_state_derivatives(mine.compiled_model())
    q, v = rt.random_state(rng, ref)
    vdot, tau = rng.normal(size=(2, ref.num_velocities()))
    a = _dynamics(ref, *(jnp.asarray(x) for x in (q, v, vdot, tau)))
    b = _dynamics(mine, *(jnp.asarray(x) for x in (q, v, vdot, tau)))
    for key in a:
        assert _rel(b[key], a[key]) < TOL, key


R_FEMUR, R_TIBIA = 0.05, 0.12  # the rolling knee's circle radii (m)


def _knee(q):
    """A planar rolling-contact knee: a circle of radius R_TIBIA on the tibia rolls without
    slipping on a circle of radius R_FEMUR on the femur; θ = q0 turns M about z and moves Mo
    along a coupled, nonlinear path."""
    th = q[0]
    phi = th * R_TIBIA / (R_FEMUR + R_TIBIA)  # where the contact point is on the femur
    c = (R_FEMUR + R_TIBIA) * jnp.stack([jnp.sin(phi), -jnp.cos(phi), 0.0 * phi])
    R = rot_z(th)
    return R, c + R @ jnp.asarray([0.0, R_TIBIA, 0.0], q.dtype)


def _knee_plant():
    plant = jb.MultibodyPlant(0.0)
    thigh = plant.AddRigidBody("thigh", jb.SpatialInertia.SolidBoxWithMass(3.0, 0.1, 0.4, 0.1))
    shank = plant.AddRigidBody("shank", jb.SpatialInertia.SolidBoxWithMass(2.0, 0.08, 0.4, 0.08))
    plant.AddJoint(jb.RevoluteJoint("hip", plant.world_frame(), thigh.body_frame(), [0, 0, 1]))
    plant.AddJoint(jb.CustomJoint("knee", thigh.body_frame(), shank.body_frame(), _knee, 1,
                                  position_names=["angle"], velocity_names=["rate"]))
    plant.mutable_gravity_field().set_gravity_vector([0.0, -9.81, 0.0])
    plant.Finalize()
    return plant, shank


def _pose(plant, body, q):
    ctx = plant.SetPositions(plant.CreateDefaultContext(), q)
    X = plant.EvalBodyPoseInWorld(ctx, body)
    return np.asarray(X.rotation().matrix()), np.asarray(X.translation())


def test_rolling_knee_matches_finite_differences():
    plant, shank = _knee_plant()
    assert plant.GetPositionNames()[-1].endswith("knee_angle")
    q = jnp.asarray([0.3, -0.8])
    v = jnp.asarray([0.7, -1.3])
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), q), v)
    V = plant.EvalBodySpatialVelocityInWorld(ctx, shank)
    h = 1e-6
    (Rp, pp), (Rm, pm) = _pose(plant, shank, q + h * v), _pose(plant, shank, q - h * v)
    R0 = _pose(plant, shank, q)[0]
    W = (Rp - Rm) / (2 * h) @ R0.T
    np.testing.assert_allclose(V.rotational(), [W[2, 1], W[0, 2], W[1, 0]], atol=1e-8)
    np.testing.assert_allclose(V.translational(), (pp - pm) / (2 * h), atol=1e-8)
    # acceleration along q(t) = q + v t + ½ v̇ t², v̇ the plant's forward dynamics
    vdot = plant.CalcGeneralizedAccelerations(ctx)
    A = plant.EvalBodySpatialAccelerationInWorld(ctx, shank)
    h = 1e-4
    qt = [q + v * t + 0.5 * vdot * t * t for t in (-h, 0.0, h)]
    p = [_pose(plant, shank, x)[1] for x in qt]
    np.testing.assert_allclose(A.translational(), (p[0] - 2 * p[1] + p[2]) / h ** 2, atol=1e-5)


def test_rolling_knee_conserves_energy():
    plant, _ = _knee_plant()
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(),
                                                 jnp.asarray([0.3, -0.8])), jnp.asarray([1.0, 2.0]))
    out = jb.rollout(plant, ctx, num_steps=1000, dt=1e-3)
    x = np.asarray(out.final_state)
    end = plant.SetVelocities(plant.SetPositions(ctx, jnp.asarray(x[:2])), jnp.asarray(x[2:]))
    E0 = plant.CalcKineticEnergy(ctx) + plant.CalcPotentialEnergy(ctx)
    E1 = plant.CalcKineticEnergy(end) + plant.CalcPotentialEnergy(end)
    assert abs(float(E1 - E0)) < 1e-8 * abs(float(E0))


def _identity(x):
    return x[0]


def _zero(x):
    return 0.0 * jnp.sum(x)


def test_function_based_with_identity_functions_is_a_gimbal():
    def build(make):
        plant = jb.MultibodyPlant(0.0)
        b = plant.AddRigidBody("b", jb.SpatialInertia.SolidBoxWithMass(2.0, 0.1, 0.3, 0.5))
        F = plant.AddFrame(jb.FixedOffsetFrame("F", plant.world_frame(),
                                               jb.RigidTransform([0.1, 0.2, 0.3])))
        plant.AddJoint(make(F, b.body_frame()))
        plant.Finalize()
        return plant

    fb = build(lambda F, M: jb.FunctionBasedJoint(
        "j", F, M, 3, [_identity] * 3 + [_zero] * 3, [[0], [1], [2], [], [], []]))
    gimbal = build(lambda F, M: jb.GimbalJoint("j", F, M))
    rng = np.random.default_rng(5)
    q, v, vdot, tau = (jnp.asarray(x) for x in rng.normal(size=(4, 3)) * 0.7)
    a, b = _dynamics(gimbal, q, v, vdot, tau), _dynamics(fb, q, v, vdot, tau)
    for key in a:
        assert _rel(b[key], a[key]) < TOL, key


def test_function_based_coupled_translation():
    """One coordinate drives a rotation about z and a translation along x that is a cubic of
    it (a coupled knee as OpenSim writes it): p_FM = f(θ) x̂ exactly."""
    def slide(x):
        return 0.02 * x[0] + 0.01 * x[0] ** 3

    plant = jb.MultibodyPlant(0.0)
    b = plant.AddRigidBody("b", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    joint = plant.AddJoint(jb.FunctionBasedJoint(
        "knee", plant.world_frame(), b.body_frame(), 1,
        [_zero, _zero, _identity, slide, _zero, _zero], [[], [], [0], [0], [], []]))
    plant.Finalize()
    ctx = plant.SetPositions(plant.CreateDefaultContext(), jnp.asarray([0.8]))
    X = plant.EvalBodyPoseInWorld(ctx, b)
    np.testing.assert_allclose(X.translation(), [slide(np.array([0.8])), 0, 0], atol=1e-15)
    np.testing.assert_allclose(X.rotation().matrix(), rot_z(0.8), atol=1e-15)
    assert joint.num_positions() == joint.num_velocities() == 1


def test_vmap_and_gradients():
    plant, _ = _knee_plant()
    base = plant.CreateDefaultContext()

    def fd(q, v):
        return plant.CalcGeneralizedAccelerations(plant.SetVelocities(
            plant.SetPositions(base, q), v))

    rng = np.random.default_rng(2)
    qs, vs = (jnp.asarray(rng.normal(size=(5, 2))) for _ in range(2))
    batched = jax.jit(jax.vmap(fd))(qs, vs)
    np.testing.assert_allclose(batched, np.stack([fd(q, v) for q, v in zip(qs, vs)]),
                               atol=1e-12)
    check_grads(jax.jit(fd), (qs[0], vs[0]), order=1, modes=["fwd", "rev"], eps=1e-6)


def test_bad_definitions_are_named():
    plant = jb.MultibodyPlant(0.0)
    b = plant.AddRigidBody("b", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    W, B = plant.world_frame(), b.body_frame()
    with pytest.raises(TypeError, match="'bad': X_FM must be a function"):
        jb.CustomJoint("bad", W, B, "not a function", 1)
    with pytest.raises(ValueError, match="'bad': X_FM\\(q\\) must give R_FM \\(3, 3\\)"):
        jb.CustomJoint("bad", W, B, lambda q: (jnp.eye(2), jnp.zeros(3)), 1)
    with pytest.raises(ValueError, match="'bad'.*not orthonormal"):
        jb.CustomJoint("bad", W, B, lambda q: (2.0 * jnp.eye(3), jnp.zeros(3)), 1)
    with pytest.raises(TypeError, match="RigidTransform or a pair"):
        jb.CustomJoint("bad", W, B, lambda q: 3.0, 1)
    with pytest.raises(ValueError, match="needs qdot_map"):
        jb.CustomJoint("bad", W, B, _ball_pose, 4, 3)
    with pytest.raises(ValueError, match="num_velocities"):
        jb.CustomJoint("bad", W, B, _ball_pose, 2, 3)
    with pytest.raises(ValueError, match="six functions"):
        jb.FunctionBasedJoint("bad", W, B, 1, [_identity])
    with pytest.raises(ValueError, match="out of range"):
        jb.FunctionBasedJoint("bad", W, B, 1, [_identity] * 6, [[1]] * 6)


def test_joints_of_one_definition_share_a_kind():
    f = _revolute_pose((0.0, 0.0, 1.0))
    plant = jb.MultibodyPlant(0.0)
    b1 = plant.AddRigidBody("b1", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    b2 = plant.AddRigidBody("b2", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    j1 = plant.AddJoint(jb.CustomJoint("j1", plant.world_frame(), b1.body_frame(), f, 1))
    j2 = plant.AddJoint(jb.CustomJoint("j2", b1.body_frame(), b2.body_frame(), f, 1))
    plant.Finalize()
    assert j1.kind is j2.kind
    assert len([g for g in plant._topology.groups if g.kind is j1.kind]) == 1
