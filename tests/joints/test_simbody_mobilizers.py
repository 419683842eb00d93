"""Simbody's BendStretch, LineOrientation, FreeLine and Ellipsoid mobilizers.

Four ways:
- against Drake on random trees. BendStretch equals Drake's revolute (z) → massless body →
  prismatic (x) chain. LineOrientation, FreeLine and Ellipsoid have no Drake chain (they
  restrict or couple a ball or free joint), so they are checked as the restriction they are:
  with Drake's superset joint (BallRpy; QuaternionFloating) on the same frames, the velocity
  map v_D = B(q) u and its rate Ḃu (B = the mobilizer's own H for these kinds), the equations of
  motion must be Drake's projected ones: M = BᵀM_D B, C·u = Bᵀ(C_D·v_D + M_D Ḃu), τ_g = Bᵀτ_g,D,
  and forward dynamics solves them (1e-10);
- closed forms: a spherical Ellipsoid is a ball joint whose child frame sits a radius out
  (pydrake), Mo stays on the ellipsoid's surface to 1e-12 along a simulated motion, energy is
  conserved;
- fit round trips q → X_FM → q and u → V_FM → u for every kind, and the best fits;
- vmap equals a loop and gradients match finite differences (these kinds take the autodiff path).
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.engine.dynamics import analytic_state_derivatives
from jaxbody.joints import simbody_kinds as sk
from jaxbody.math.so3 import quaternion_to_rotation, rotation_to_quaternion, rotation_to_rpy
from tests.helpers import random_trees as rt

TOL = 1e-10
DRAKE_SUPERSET = {"line_orientation": "ball_rpy", "free_line": "quaternion_floating",
                  "ellipsoid": "quaternion_floating"}


def _spec(seed, kinds):
    """A random 6-body tree whose joints take ``kinds`` in turn (each kind at least once)."""
    rng = np.random.default_rng(500 + seed)
    spec = rt.random_tree(rng, 6, kinds=kinds, free_fraction=0.0)
    for i, js in enumerate(spec.joints):
        js.kind = kinds[(i + seed) % len(kinds)]
        js.damping = 0.0
    spec.actuated = []
    return spec, rng


def _rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


def _jb_dynamics(plant, q, v, tau):
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), q), v)
    return {"M": plant.CalcMassMatrix(ctx), "Cv": plant.CalcBiasTerm(ctx),
            "g": plant.CalcGravityGeneralizedForces(ctx),
            "fd": plant.CalcGeneralizedAccelerations(
                ctx, applied_forces=jb.MultibodyForces(plant, tau))}


def _drake_state(plant, dplant, q, v):
    """(q_D, v_D, B, Ḃu) of the Drake superset model at jaxbody's state, joint by joint."""
    qD, vD = np.zeros(dplant.num_positions()), np.zeros(dplant.num_velocities())
    B = np.zeros((dplant.num_velocities(), plant.num_velocities()))
    Bdot_u = np.zeros(dplant.num_velocities())
    for j in plant._joints:
        dj = dplant.GetJointByName(j.name())
        qj, vj = q[j.position_start():][:j.num_positions()], v[j.velocity_start():][:j.num_velocities()]
        qs, vs = dj.position_start(), dj.velocity_start()
        cols = slice(j.velocity_start(), j.velocity_start() + j.num_velocities())
        consts = {k: c[None] for k, c in j._constants.items()}
        if j.kind.name in DRAKE_SUPERSET:
            H = np.asarray(j.kind.subspace(jnp.asarray(qj)[None], consts)[0])
            Hdv = np.asarray(j.kind.subspace_dot_v(jnp.asarray(qj)[None], jnp.asarray(vj)[None],
                                                   consts)[0])
            R, p = (np.asarray(x[0]) for x in j.kind.transform(jnp.asarray(qj)[None], consts))
            if j.kind.name == "line_orientation":  # Drake's BallRpy: q = rpy, v = w_F
                qD[qs:qs + 3] = np.asarray(rotation_to_rpy(R))
                B[vs:vs + 3, cols], Bdot_u[vs:vs + 3] = H[:3], Hdv[:3]
            else:  # Drake's QuaternionFloating: q = [quat; p], v = [w_F; v_F]
                qD[qs:qs + 7] = np.concatenate([np.asarray(rotation_to_quaternion(R)), p])
                B[vs:vs + 6, cols], Bdot_u[vs:vs + 6] = H, Hdv
        else:
            qD[qs:qs + j.num_positions()] = qj
            B[vs:vs + j.num_velocities(), cols] = np.eye(j.num_velocities())
    vD = B @ v
    return qD, vD, B, Bdot_u


PROJECTED_KINDS = ("line_orientation", "free_line", "ellipsoid", "revolute", "ball_rpy")


@pytest.fixture(scope="module", params=range(2), ids=lambda s: f"tree{s}")
def projected_case(request):
    pytest.importorskip("pydrake")
    spec, rng = _spec(request.param, PROJECTED_KINDS)
    plant = rt.build_jaxbody(spec)
    dspec = rt.TreeSpec(spec.masses, spec.coms, spec.I_cm,
                        [dataclasses.replace(js, kind=DRAKE_SUPERSET.get(js.kind, js.kind))
                         for js in spec.joints], [])
    return plant, rt.build_drake(dspec), rng


def test_restricted_kinds_are_drakes_projected_equations(projected_case):
    plant, dplant, rng = projected_case
    assert {j.kind.name for j in plant._joints} >= {"line_orientation", "free_line", "ellipsoid"}
    for _ in range(2):
        q, v = rt.random_state(rng, plant)
        tau = rng.normal(size=plant.num_velocities())
        mine = _jb_dynamics(plant, jnp.asarray(q), jnp.asarray(v), jnp.asarray(tau))
        qD, vD, B, Bdot_u = _drake_state(plant, dplant, q, v)
        dctx = dplant.CreateDefaultContext()
        dplant.SetPositions(dctx, qD)
        dplant.SetVelocities(dctx, vD)
        MD = dplant.CalcMassMatrix(dctx)
        want = {"M": B.T @ MD @ B, "Cv": B.T @ (dplant.CalcBiasTerm(dctx) + MD @ Bdot_u),
                "g": B.T @ dplant.CalcGravityGeneralizedForces(dctx)}
        want["fd"] = np.linalg.solve(want["M"], tau + want["g"] - want["Cv"])
        for key, value in want.items():
            assert _rel(mine[key], value) < TOL, key


def _chain_spec(spec):
    """Every bend_stretch replaced by revolute z → massless body → prismatic x."""
    masses, coms, I_cm = list(spec.masses), list(spec.coms), list(spec.I_cm)
    joints = []
    for js in spec.joints:
        if js.kind != "bend_stretch":
            joints.append(js)
            continue
        masses.append(0.0)
        coms.append(np.zeros(3))
        I_cm.append(np.zeros((3, 3)))
        a = len(masses)
        I3, z = np.eye(3), np.zeros(3)
        joints.append(rt.JointSpec("revolute", js.parent, a, js.R_PF, js.p_PF, I3, z,
                                   np.array([0.0, 0.0, 1.0]), 0.0, 0.0))
        joints.append(rt.JointSpec("prismatic", a, js.child, I3, z, js.R_BM, js.p_BM,
                                   np.array([1.0, 0.0, 0.0]), 0.0, 0.0))
    return rt.TreeSpec(masses, coms, I_cm, joints, [])


@pytest.mark.parametrize("seed", range(2))
def test_bend_stretch_equals_drakes_revolute_prismatic_chain(seed):
    pytest.importorskip("pydrake")
    spec, rng = _spec(seed, ("bend_stretch", "revolute", "bend_stretch", "ball_rpy"))
    plant, dchain = rt.build_jaxbody(spec), rt.build_drake(_chain_spec(spec))
    assert plant.num_velocities() == dchain.num_velocities()
    q, v = rt.random_state(rng, plant)
    tau = rng.normal(size=plant.num_velocities())
    # coordinates by joint: bend_stretch k's (θ, x) go to the chain's two joints in order
    P = np.zeros((plant.num_velocities(), plant.num_velocities()))
    k = 0
    for j in plant._joints:
        for i in range(j.num_velocities()):
            dj = dchain.GetJointByName(f"joint{k + (i if j.kind.name == 'bend_stretch' else 0)}")
            col = dj.velocity_start() + (0 if j.kind.name == "bend_stretch" else i)
            P[col, j.velocity_start() + i] = 1.0
        k += 2 if j.kind.name == "bend_stretch" else 1
    mine = _jb_dynamics(plant, jnp.asarray(q), jnp.asarray(v), jnp.asarray(tau))
    dctx = dchain.CreateDefaultContext()
    dchain.SetPositions(dctx, P @ q)
    dchain.SetVelocities(dctx, P @ v)
    MD = dchain.CalcMassMatrix(dctx)
    want = {"M": P.T @ MD @ P, "Cv": P.T @ dchain.CalcBiasTerm(dctx),
            "g": P.T @ dchain.CalcGravityGeneralizedForces(dctx)}
    want["fd"] = np.linalg.solve(want["M"], tau + want["g"] - want["Cv"])
    for key, value in want.items():
        assert _rel(mine[key], value) < TOL, key


def _single(joint_factory, inertia=None):
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("b", inertia or jb.SpatialInertia.SolidBoxWithMass(
        2.0, 0.1, 0.3, 0.5))
    joint = plant.AddJoint(joint_factory(plant.world_frame(), body.body_frame()))
    plant.Finalize()
    return plant, joint, body


def test_spherical_ellipsoid_is_a_ball_joint_a_radius_out():
    """radii (r, r, r): Mo = r·Mz, so the body turns about Fo as on Drake's BallRpy joint whose
    child frame sits at −r along Mz of the ellipsoid's M frame."""
    pytest.importorskip("pydrake")
    from pydrake.math import RigidTransform as DRT
    from pydrake.multibody import tree as dt
    from pydrake.multibody.plant import MultibodyPlant as DPlant

    r = 0.4
    M_B = jb.SpatialInertia.SolidBoxWithMass(2.0, 0.1, 0.3, 0.5)
    plant, joint, body = _single(lambda F, M: jb.EllipsoidJoint("e", F, M, (r, r, r)), M_B)
    d = DPlant(0.0)
    G = np.asarray(M_B.get_unit_inertia().CopyToFullMatrix3())
    dbody = d.AddRigidBody("b", dt.SpatialInertia(2.0, np.zeros(3), dt.UnitInertia(
        G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2])))
    Mp = d.AddFrame(dt.FixedOffsetFrame("Mp", dbody.body_frame(), DRT([0.0, 0.0, -r])))
    d.AddJoint(dt.BallRpyJoint("ball", d.world_frame(), Mp))
    d.Finalize()
    rng = np.random.default_rng(3)
    for _ in range(3):
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        w = rng.normal(size=3)
        ctx = joint.SetVelocities(joint.set_quaternion(plant.CreateDefaultContext(), quat), w)
        dctx = d.CreateDefaultContext()
        d.SetPositions(dctx, np.asarray(rotation_to_rpy(quaternion_to_rotation(quat))))
        d.SetVelocities(dctx, w)
        np.testing.assert_allclose(plant.CalcMassMatrix(ctx), d.CalcMassMatrix(dctx), atol=TOL)
        np.testing.assert_allclose(plant.CalcBiasTerm(ctx), d.CalcBiasTerm(dctx), atol=TOL)
        np.testing.assert_allclose(plant.CalcGravityGeneralizedForces(ctx),
                                   d.CalcGravityGeneralizedForces(dctx), atol=TOL)
        X = plant.EvalBodyPoseInWorld(ctx, body).GetAsMatrix4()
        np.testing.assert_allclose(X, d.EvalBodyPoseInWorld(dctx, dbody).GetAsMatrix4(),
                                   atol=1e-12)


def test_ellipsoid_keeps_mo_on_the_surface_and_conserves_energy():
    radii = np.array([0.3, 0.5, 0.7])
    plant, joint, body = _single(lambda F, M: jb.EllipsoidJoint("e", F, M, radii))
    ctx = joint.SetVelocities(joint.set_quaternion(plant.CreateDefaultContext(),
                                                   [0.9, 0.2, -0.3, 0.1]), [1.0, -2.0, 0.5])
    out = jb.rollout(plant, ctx, num_steps=2000, dt=2.5e-4)
    nq = plant.num_positions()
    for x in np.asarray(out.states)[::100]:
        c = plant.SetPositions(ctx, jnp.asarray(x[:nq]))
        p = np.asarray(plant.EvalBodyPoseInWorld(c, body).translation())
        assert abs(np.sum((p / radii) ** 2) - 1.0) < 1e-12
    xN = np.asarray(out.final_state)
    final = plant.SetVelocities(plant.SetPositions(ctx, jnp.asarray(xN[:nq])),
                                jnp.asarray(xN[nq:]))
    E0 = plant.CalcKineticEnergy(ctx) + plant.CalcPotentialEnergy(ctx)
    E1 = plant.CalcKineticEnergy(final) + plant.CalcPotentialEnergy(final)
    assert abs(float(E1 - E0)) < 1e-8 * max(1.0, abs(float(E0)))


def _X(R, p):
    return jb.RigidTransform(jb.RotationMatrix(np.asarray(R)), np.asarray(p))


def test_fit_round_trips():
    rng = np.random.default_rng(7)
    radii = np.array([0.3, 0.5, 0.7])
    for _ in range(5):
        quat = rng.normal(size=4)
        quat = quat / np.linalg.norm(quat) * np.sign(quat[0])
        for factory, q in (
                (lambda F, M: jb.LineOrientationJoint("j", F, M), quat),
                (lambda F, M: jb.FreeLineJoint("j", F, M), np.r_[quat, rng.normal(size=3)]),
                (lambda F, M: jb.EllipsoidJoint("j", F, M, radii), quat),
                (lambda F, M: jb.BendStretchJoint("j", F, M), rng.uniform(-2, 2, 2))):
            plant, joint, _ = _single(factory)
            ctx0 = plant.CreateDefaultContext()
            consts = {k: c[None] for k, c in joint._constants.items()}
            Rq, pq = (np.asarray(x[0]) for x in joint.kind.transform(jnp.asarray(q)[None],
                                                                      consts))
            ctx = joint.SetQToFitTransform(ctx0, _X(Rq, pq))
            q_fit = np.asarray(joint.GetPositions(ctx))
            R2, p2 = (np.asarray(x[0]) for x in joint.kind.transform(jnp.asarray(q_fit)[None],
                                                                      consts))
            np.testing.assert_allclose(R2, Rq, atol=1e-10)
            np.testing.assert_allclose(p2, pq, atol=1e-10)
            # velocities: u → V_FM → u
            u = rng.normal(size=joint.num_velocities())
            H = np.asarray(joint.kind.subspace(jnp.asarray(q)[None], consts)[0])
            V = H @ u
            ctx = joint.SetPositions(ctx0, jnp.asarray(q))
            got = joint.GetVelocities(joint.SetUToFitVelocity(ctx, V))
            np.testing.assert_allclose(got, u, atol=1e-10)


def test_best_fits_of_what_cannot_be_represented():
    # BendStretch: translation out of the xy plane keeps the in-plane part (polar coordinates)
    plant, joint, _ = _single(lambda F, M: jb.BendStretchJoint("j", F, M))
    ctx = joint.SetQToFitTranslation(plant.CreateDefaultContext(), [0.0, 2.0, 5.0])
    np.testing.assert_allclose(joint.GetPositions(ctx), [np.pi / 2, 2.0], atol=1e-14)
    # LineOrientation: the spin about Mz is dropped from an angular velocity
    plant, joint, _ = _single(lambda F, M: jb.LineOrientationJoint("j", F, M))
    ctx = joint.SetUToFitAngularVelocity(plant.CreateDefaultContext(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(joint.get_angular_velocity(ctx), [1.0, 2.0, 0.0], atol=1e-14)
    assert joint.SetQToFitTranslation(ctx, [1.0, 2.0, 3.0]) is ctx
    # Ellipsoid: a translation is reached in direction, on the surface
    radii = np.array([0.3, 0.5, 0.7])
    plant, joint, body = _single(lambda F, M: jb.EllipsoidJoint("j", F, M, radii))
    target = np.array([1.0, -2.0, 0.5])
    ctx = joint.SetQToFitTranslation(plant.CreateDefaultContext(), target)
    p = np.asarray(plant.EvalBodyPoseInWorld(ctx, body).translation())
    np.testing.assert_allclose(np.cross(p, target), 0.0, atol=1e-12)
    assert p @ target > 0 and abs(np.sum((p / radii) ** 2) - 1) < 1e-12
    # ... and a tangential linear velocity is reproduced, the spin kept
    ctx = joint.SetVelocities(ctx, jnp.asarray([0.1, 0.2, 0.3]))
    H = np.asarray(joint._subspace(ctx))
    want = H[3:] @ np.array([0.7, -0.4, 0.2])
    got_ctx = joint.SetUToFitLinearVelocity(ctx, want)
    np.testing.assert_allclose(H[3:] @ np.asarray(got_ctx.v), want, atol=1e-12)
    with pytest.raises(ValueError, match="radii must be three positive"):
        jb.EllipsoidJoint("bad", plant.world_frame(), body.body_frame(), (1.0, 0.0, 1.0))


def test_vmap_and_gradients_on_the_autodiff_path():
    """These kinds' columns are not carried rigidly: the plant differentiates them by autodiff
    (not the analytic RNEA derivatives); vmap runs the batch-minor kernels."""
    spec, rng = _spec(0, PROJECTED_KINDS)
    plant = rt.build_jaxbody(spec)
    assert not analytic_state_derivatives(plant.compiled_model())
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
    assert sk.Ellipsoid.moves is None and sk.LineOrientation.moves is None


def test_accessors_and_bad_fit_inputs():
    plant, joint, _ = _single(lambda F, M: jb.BendStretchJoint("bs", F, M))
    ctx = joint.SetPositions(plant.CreateDefaultContext(), jnp.asarray([0.4, 1.5]))
    assert float(joint.get_angle(ctx)) == 0.4 and float(joint.get_length(ctx)) == 1.5
    plant, joint, _ = _single(lambda F, M: jb.FreeLineJoint("fl", F, M))
    ctx = joint.set_translation(plant.CreateDefaultContext(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(joint.get_translation(ctx), [1.0, 2.0, 3.0], atol=0)
    ctx = joint.SetUToFitLinearVelocity(ctx, [0.1, 0.2, 0.3])
    np.testing.assert_allclose(joint.get_translational_velocity(ctx), [0.1, 0.2, 0.3], atol=0)
    plant = jb.MultibodyPlant(0.0)
    b = plant.AddRigidBody("b", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    line = plant.AddJoint(jb.LineOrientationJoint("lo", plant.world_frame(), b.body_frame()))
    line.set_default_quaternion([0.0, 1.0, 0.0, 0.0])
    plant.Finalize()
    np.testing.assert_allclose(line.get_quaternion(plant.CreateDefaultContext()), [0, 1, 0, 0])
    plant, joint, _ = _single(lambda F, M: jb.EllipsoidJoint("el", F, M, (0.3, 0.4, 0.5)))
    np.testing.assert_allclose(joint.radii(), [0.3, 0.4, 0.5])
    ctx = plant.CreateDefaultContext()
    with pytest.raises(ValueError, match="EllipsoidJoint 'el'.SetUToFitAngularVelocity: "
                                         "expected shape \\(3,\\)"):
        joint.SetUToFitAngularVelocity(ctx, [1.0, 2.0])
    with pytest.raises(ValueError, match="'el'.SetQToFitRotation: expected shape \\(3, 3\\)"):
        joint.SetQToFitRotation(ctx, np.eye(2))
    with pytest.raises(ValueError, match="'el'.SetUToFitVelocity: expected shape \\(6,\\)"):
        joint.SetUToFitVelocity(ctx, np.zeros(5))
    with pytest.raises(TypeError, match="'el'.SetQToFitTransform: X_FM must be a RigidTransform"):
        joint.SetQToFitTransform(ctx, np.eye(4))
