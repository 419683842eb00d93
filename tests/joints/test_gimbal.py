"""Simbody's Gimbal mobilizer (`GimbalJoint`): body-fixed 1-2-3 Euler angles with u = q̇.

Against an equivalent chain of three revolute joints (x, then the new y, then the newest z) with
massless intermediate bodies, in jaxbody and in pydrake, on random trees: mass matrix, bias,
gravity, forward and inverse dynamics to 1e-10. Closed forms and identities: R_FM, the angular
velocity, N⁺N = I; fit round trips q → R_FM → q and w → q̇ → w; the singularity at
cos θ1 = 0 raises naming the joint; vmap and gradients."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.joints.simbody_kinds import Gimbal, rotation_to_body_xyz
from jaxbody.math.so3 import rot_x, rot_y, rot_z
from tests.helpers import random_trees as rt

TOL = 1e-10
NUM_TREES = 3


def _chain_spec(spec):
    """``spec`` with every gimbal replaced by revolute x → massless → revolute y → massless →
    revolute z: (masses, coms, I_cm, [(kind, parent, child, R_PF, p_PF, R_BM, p_BM, axis)])."""
    masses, coms, I_cm = list(spec.masses), list(spec.coms), list(spec.I_cm)
    n = len(masses)
    joints = []
    for js in spec.joints:
        if js.kind != "gimbal":
            joints.append(js)
            continue
        a, b = n + 1, n + 2
        n += 2
        masses += [0.0, 0.0]
        coms += [np.zeros(3), np.zeros(3)]
        I_cm += [np.zeros((3, 3)), np.zeros((3, 3))]
        I3, z = np.eye(3), np.zeros(3)
        for parent, child, R_PF, p_PF, R_BM, p_BM, axis in (
                (js.parent, a, js.R_PF, js.p_PF, I3, z, (1, 0, 0)),
                (a, b, I3, z, I3, z, (0, 1, 0)),
                (b, js.child, I3, z, js.R_BM, js.p_BM, (0, 0, 1))):
            joints.append(rt.JointSpec("revolute", parent, child, R_PF, p_PF, R_BM, p_BM,
                                       np.asarray(axis, float), 0.0, js.damping))
    return rt.TreeSpec(masses, coms, I_cm, joints, [])


def _trees():
    out = []
    for seed in range(NUM_TREES):
        rng = np.random.default_rng(seed)
        spec = rt.random_tree(rng, 6, kinds=("gimbal", "revolute", "gimbal", "ball_rpy"),
                              free_fraction=0.0)
        spec.actuated = []
        out.append((spec, _chain_spec(spec), rng))
    return out


def _dynamics(plant, q, v, vdot, tau):
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), q), v)
    return {"M": plant.CalcMassMatrix(ctx), "Cv": plant.CalcBiasTerm(ctx),
            "g": plant.CalcGravityGeneralizedForces(ctx),
            "id": plant.CalcInverseDynamics(ctx, vdot, jb.MultibodyForces(plant)),
            "fd": plant.CalcGeneralizedAccelerations(
                ctx, applied_forces=jb.MultibodyForces(plant, tau))}


def _chain_coordinates(plant, chain, x):
    """Gimbal-model coordinates x (q or v) in the chain model's order, by joint names: each
    gimbal's 3 entries go to its three revolutes (q = angles, v = rates, as u = q̇)."""
    y = np.zeros(chain.num_positions())
    k = 0
    for j in plant._joints:
        n = j.num_positions()
        if j.kind is Gimbal:
            for i in range(3):
                y[chain.get_joint(jb.JointIndex(k + i)).position_start()] = \
                    x[j.position_start() + i]
            k += 3
        else:
            cj = chain.get_joint(jb.JointIndex(k))
            y[cj.position_start():cj.position_start() + n] = \
                x[j.position_start():j.position_start() + n]
            k += 1
    return y


@pytest.mark.parametrize("index", range(NUM_TREES))
def test_dynamics_equal_a_chain_of_revolute_joints(index):
    spec, chain_spec, rng = _trees()[index]
    plant, chain = rt.build_jaxbody(spec), rt.build_jaxbody(chain_spec)
    assert plant.num_velocities() == chain.num_velocities()
    assert plant.num_positions() == plant.num_velocities()  # no quaternions here
    for _ in range(2):
        q, v = rt.random_state(rng, plant)
        vdot, tau = rng.normal(size=(2, plant.num_velocities()))
        mine = _dynamics(plant, jnp.asarray(q), jnp.asarray(v), jnp.asarray(vdot),
                         jnp.asarray(tau))
        P = np.zeros((chain.num_velocities(), plant.num_velocities()))
        for i in range(plant.num_velocities()):
            P[:, i] = _chain_coordinates(plant, chain, np.eye(plant.num_velocities())[i])
        ref = _dynamics(chain, jnp.asarray(P @ q), jnp.asarray(P @ v), jnp.asarray(P @ vdot),
                        jnp.asarray(P @ tau))
        for key in mine:  # P is a permutation: forces and accelerations map by Pᵀ
            want = P.T @ np.asarray(ref[key]) @ P if key == "M" else P.T @ np.asarray(ref[key])
            scale = max(1.0, np.abs(want).max())
            assert np.abs(np.asarray(mine[key]) - want).max() < TOL * scale, key


def test_chain_reference_matches_pydrake():
    """The chain model with its massless bodies is also what pydrake computes (so the
    comparison above is with Drake's numbers)."""
    pytest.importorskip("pydrake")
    spec, chain_spec, rng = _trees()[0]
    chain, dchain = rt.build_jaxbody(chain_spec), rt.build_drake(chain_spec)
    q, v = rt.random_state(rng, chain)
    ctx = chain.SetVelocities(chain.SetPositions(chain.CreateDefaultContext(), q), v)
    dctx = dchain.CreateDefaultContext()
    dchain.SetPositions(dctx, q)
    dchain.SetVelocities(dctx, v)
    np.testing.assert_allclose(chain.CalcMassMatrix(ctx), dchain.CalcMassMatrix(dctx),
                               atol=1e-10)
    np.testing.assert_allclose(chain.CalcBiasTerm(ctx), dchain.CalcBiasTerm(dctx), atol=1e-10)


def _one_gimbal():
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("b", jb.SpatialInertia.SolidBoxWithMass(2.0, 0.1, 0.3, 0.5))
    joint = plant.AddJoint(jb.GimbalJoint("g", plant.world_frame(), body.body_frame()))
    plant.Finalize()
    return plant, joint, body


def test_closed_forms_and_identities():
    plant, joint, body = _one_gimbal()
    q = jnp.asarray([0.3, -0.7, 1.1])
    qd = jnp.asarray([0.4, -0.2, 0.9])
    ctx = joint.set_angle_rates(joint.set_angles(plant.CreateDefaultContext(), q), qd)
    R = rot_x(q[0]) @ rot_y(q[1]) @ rot_z(q[2])
    X = plant.EvalBodyPoseInWorld(ctx, body)
    np.testing.assert_allclose(X.rotation().matrix(), R, atol=1e-15)
    np.testing.assert_allclose(X.translation(), 0.0, atol=0)
    # w = R' Rᵀ as a vector, by finite differences of R along q̇
    h = 1e-6
    dR = ((rot_x(q[0] + h * qd[0]) @ rot_y(q[1] + h * qd[1]) @ rot_z(q[2] + h * qd[2]))
          - (rot_x(q[0] - h * qd[0]) @ rot_y(q[1] - h * qd[1]) @ rot_z(q[2] - h * qd[2]))) / (2 * h)
    W = dR @ R.T
    w = np.array([W[2, 1], W[0, 2], W[1, 0]])
    np.testing.assert_allclose(joint.get_angular_velocity(ctx), w, atol=1e-9)
    V = plant.EvalBodySpatialVelocityInWorld(ctx, body)
    np.testing.assert_allclose(V.rotational(), w, atol=1e-9)
    N, Np = plant.MakeVelocityToQDotMap(ctx), plant.MakeQDotToVelocityMap(ctx)
    np.testing.assert_allclose(Np @ N, np.eye(3), atol=0)


def test_fit_round_trips():
    plant, joint, _ = _one_gimbal()
    rng = np.random.default_rng(1)
    ctx0 = plant.CreateDefaultContext()
    for _ in range(20):
        q = rng.uniform([-np.pi, -1.5, -np.pi], [np.pi, 1.5, np.pi])
        R = jb.RotationMatrix(rot_x(q[0]) @ rot_y(q[1]) @ rot_z(q[2]))
        ctx = joint.SetQToFitRotation(ctx0, R)
        np.testing.assert_allclose(joint.get_angles(ctx), q, atol=1e-10)
        ctx = joint.SetQToFitTransform(ctx0, jb.RigidTransform(R, [1.0, 2.0, 3.0]))
        np.testing.assert_allclose(joint.get_angles(ctx), q, atol=1e-10)
        w = rng.normal(size=3)
        ctx = joint.SetUToFitAngularVelocity(joint.set_angles(ctx0, q), w)
        np.testing.assert_allclose(joint.get_angular_velocity(ctx), w, atol=1e-10)
    assert joint.SetQToFitTranslation(ctx0, [1.0, 0, 0]) is ctx0  # cannot translate
    # At the singularity the fit still returns the rotation (never throws).
    R = rot_x(0.4) @ rot_y(np.pi / 2) @ rot_z(0.0)
    got = rotation_to_body_xyz(R)
    np.testing.assert_allclose(rot_x(got[0]) @ rot_y(got[1]) @ rot_z(got[2]), R, atol=1e-12)


def test_singularity_raises_naming_the_joint():
    plant, joint, _ = _one_gimbal()
    ctx = joint.set_angles(plant.CreateDefaultContext(), jnp.asarray([0.2, np.pi / 2, 0.1]))
    with pytest.raises(ValueError, match="gimbal joint 'g' is at its singularity"):
        plant.CalcGeneralizedAccelerations(ctx)


def test_vmap_and_gradients():
    """vmap over states equals a loop (the batch-minor kernels take gimbal joints); the
    gradient of a forward-dynamics loss matches central differences."""
    spec, _, rng = _trees()[1]
    plant = rt.build_jaxbody(spec)
    base = plant.CreateDefaultContext()
    qs = jnp.asarray(np.stack([rt.random_state(rng, plant)[0] for _ in range(8)]))  # the kernel's batch
    v = jnp.asarray(rng.normal(size=plant.num_velocities()))

    def fd(q):
        return plant.CalcGeneralizedAccelerations(plant.SetVelocities(
            plant.SetPositions(base, q), v))

    batched = jax.jit(jax.vmap(fd))(qs)
    np.testing.assert_allclose(batched, np.stack([fd(q) for q in qs]), atol=1e-11)
    loss = jax.jit(lambda q: jnp.sum(fd(q) ** 2))
    g = jax.grad(loss)(qs[0])
    e = jnp.asarray(rng.normal(size=qs.shape[1]))
    h = 1e-6
    num = (loss(qs[0] + h * e) - loss(qs[0] - h * e)) / (2 * h)
    np.testing.assert_allclose(g @ e, num, rtol=1e-6)
