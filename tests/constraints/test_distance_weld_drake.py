"""Distance, weld and ball constraints in the SAP step against pydrake's discrete SAP plant, with
contact: free bodies tied by rigid and compliant distance constraints and by welds, dropped on a
ground; a four-bar linkage closed by a ball constraint; velocities agree step by step over 200
steps to 1e-8 of the largest speed. Closed form: a body welded to the world stays put under
load."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from tests.constraints.scenes import add_geometry, box_body, compare, jaxbody_rollout, set_free, sphere_body

pytest.importorskip("pydrake")


def ties_on_ground(plant, M):
    """Spheres tied by a rigid distance (0.3 m) and by a compliant one (k 300 N/m, c 3 N·s/m,
    free length 0.25 m, started stretched), a box (on four corner spheres) welded to a sphere,
    all falling on a ground with spin and sideways speed."""
    add_geometry(plant, M, plant.world_body(), M.HalfSpace(), name="ground")
    for name in ("s1", "s2", "s3", "s4", "s5"):
        add_geometry(plant, M, sphere_body(plant, M, name), M.Sphere(0.05), name=name)
    box = box_body(plant, M, "bx", 1.0, 0.2, 0.1, 0.05)
    for i, (x, y) in enumerate([(x, y) for x in (-0.1, 0.1) for y in (-0.05, 0.05)]):
        # corner spheres, not a Box: Drake's box–half-space point is one of several tied
        # corners, chosen by FCL's vertex order
        add_geometry(plant, M, box, M.Sphere(0.01), M.RigidTransform([x, y, -0.025]),
                     name=f"bx{i}")
    B = plant.GetBodyByName
    plant.AddDistanceConstraint(B("s1"), [0.0, 0.0, 0.05], B("s2"), [0.0, 0.0, -0.05], 0.3)
    plant.AddDistanceConstraint(B("s3"), [0.0, 0.0, 0.0], B("s4"), [0.0, 0.0, 0.0], 0.25,
                                300.0, 3.0)
    plant.AddWeldConstraint(B("bx"), M.RigidTransform(M.RollPitchYaw([0.0, 0.3, 0.0]),
                                                      [0.1, 0.0, 0.025]),
                            B("s5"), M.RigidTransform([0.0, 0.0, -0.05]))

    def init(plant, ctx, M):
        # consistent with the rigid ties (s2 0.3 m from s1 at 0.5 rad from the vertical; s5
        # on the weld frame, moving with the box); the spring starts stretched
        p2 = np.array([0.0, 0.0, 0.17]) + 0.3 * np.array([np.sin(0.5), 0.0, np.cos(0.5)])
        p5 = np.array([-0.4 + 0.05 * np.sin(0.3), 0.0, 0.125 + 0.05 * np.cos(0.3)])
        v5 = (0.5, 0.0, 0.0, 0.0, 0.3 - 0.5 * (p5[2] - 0.1), 0.0)
        for name, p, rpy, V in (("s1", (0.0, 0.0, 0.12), (0, 0, 0), (0, 0, 1.0, 0.3, 0, 0)),
                                ("s2", p2 + [0, 0, 0.05], (0, 0, 0), (0, 0, 0, 0.3, 0.2, 0)),
                                ("s3", (0.5, 0.0, 0.2), (0, 0, 0), (0, 0, 0, 0, 0, 0)),
                                ("s4", (0.5, 0.3, 0.25), (0, 0, 0), (0, 0, 0, 0, 0, 0.5)),
                                ("bx", (-0.5, 0.0, 0.1), (0, 0, 0), (0.5, 0, 0, 0, 0.3, 0)),
                                ("s5", p5, (0, 0.3, 0), v5)):
            ctx = set_free(plant, ctx, M, name, p, rpy, V)
        return ctx

    return init, {}


def four_bar(plant, M):
    """A parallelogram four-bar in the x–z plane (crank 0.3, coupler 0.5, rocker 0.3, ground
    0.5): three revolute joints about y, the coupler's tip held to the rocker's by a ball
    constraint; a sphere on the coupler swings down onto a ledge."""
    a, b = 0.3, 0.5
    crank = plant.AddRigidBody("crank", M.SpatialInertia.SolidBoxWithMass(1.0, 0.02, 0.02, a))
    coupler = plant.AddRigidBody("coupler", M.SpatialInertia.SolidBoxWithMass(0.5, b, 0.02,
                                                                                0.02))
    rocker = plant.AddRigidBody("rocker", M.SpatialInertia.SolidBoxWithMass(0.8, 0.02, 0.02, a))
    y = np.array([0.0, 1.0, 0.0])
    plant.AddJoint(M.RevoluteJoint("j1", plant.world_frame(), crank.body_frame(), y))
    tip = plant.AddFrame(M.FixedOffsetFrame("crank_tip", crank.body_frame(),
                                            M.RigidTransform([0.0, 0.0, -a])))
    plant.AddJoint(M.RevoluteJoint("j2", tip, coupler.body_frame(), y))
    O2 = plant.AddFrame(M.FixedOffsetFrame("O2", plant.world_frame(),
                                           M.RigidTransform([b, 0.0, 0.0])))
    plant.AddJoint(M.RevoluteJoint("j3", O2, rocker.body_frame(), y))
    plant.AddBallConstraint(coupler, [b, 0.0, 0.0], rocker, [0.0, 0.0, -a])
    add_geometry(plant, M, coupler, M.Sphere(0.04), M.RigidTransform([0.25, 0.0, -0.04]),
                 name="bob")
    add_geometry(plant, M, plant.world_body(), M.Box(0.2, 0.2, 0.1),
                 M.RigidTransform([0.2, 0.0, -0.41]), name="ledge")

    def init(plant, ctx, M):
        q, v = np.array([0.5, -0.5, 0.5]), np.array([-1.0, 1.0, -1.0])
        if isinstance(plant, jb.MultibodyPlant):
            return ctx.replace(q=jnp.asarray(q), v=jnp.asarray(v))
        plant.SetPositions(ctx, q)
        plant.SetVelocities(ctx, v)
        return ctx

    return init, {}


@pytest.mark.parametrize("scene", [ties_on_ground, four_bar], ids=["ties", "four_bar"])
def test_constrained_scenes_equal_drakes(scene):
    err, vj, vd, r, plant = compare(scene)
    assert np.all(np.asarray(r.converged) == 1.0)
    assert err < 1e-8, err


def test_ties_hold_their_constraints():
    plant, r = jaxbody_rollout(ties_on_ground, 2e-3, 200)
    ctx = plant.CreateDefaultContext()
    ctx = ctx.replace(q=r.final_state[:plant.num_positions()])
    p = {n: np.asarray(plant.EvalBodyPoseInWorld(ctx, plant.GetBodyByName(n)).translation())
         for n in ("s1", "s2", "s3", "s4", "s5", "bx")}
    X1 = plant.EvalBodyPoseInWorld(ctx, plant.GetBodyByName("s1"))
    X2 = plant.EvalBodyPoseInWorld(ctx, plant.GetBodyByName("s2"))
    d = np.linalg.norm(np.asarray(X2.multiply(np.array([0, 0, -0.05])))
                       - np.asarray(X1.multiply(np.array([0, 0, 0.05]))))
    assert d == pytest.approx(0.3, abs=1e-4)  # rigid: near-rigid SAP error
    assert np.linalg.norm(p["s4"] - p["s3"]) < 0.3  # the spring pulled them together
    assert p["bx"][2] < 0.04 and p["s1"][2] < 0.06  # landed (corner spheres 0.035)


def test_welded_body_stays_put_under_load():
    """A 2 kg box welded to the world at 0.5 m, pushed by 20 N sideways and 5 N·m and under
    gravity. The weld is near-rigid (Drake's R = β²/(4π²)·w, β = 0.1), so it settles at the
    static offset where its impulse γ = −δt·F balances the load: g = −2δt·R·γ = 2δt²·R·F
    (v̂ = −g/(2δt)); after 500 steps the pose equals that closed form to 1e-12 and nothing
    drifts (v < 1e-9)."""
    dt = 1e-3
    plant = jb.MultibodyPlant(time_step=dt)
    box = plant.AddRigidBody("box", jb.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.1, 0.1))
    X_WB = jb.RigidTransform(jb.RollPitchYaw([0.1, 0.2, 0.3]), [0.0, 0.0, 0.5])
    plant.AddWeldConstraint(plant.world_body(), X_WB, box, jb.RigidTransform())
    plant.Finalize()
    ctx = plant.SetFreeBodyPose(plant.CreateDefaultContext(), box, X_WB)
    force = np.array([20.0, 0.0, -2.0 * 9.81])
    F = [jb.ExternallyAppliedSpatialForce(box.index(), np.zeros(3),
                                          jb.SpatialForce([0.0, 0.0, 5.0], [20.0, 0.0, 0.0]))]
    step = jax.jit(lambda c: plant.CalcDiscreteStep(c, applied_spatial_force=F))
    for _ in range(500):
        r = step(ctx)
        ctx = r.context
    # the closed form: w = ‖J diag(M)⁻¹ Jᵀ‖_F / 6 with J the box's spatial Jacobian at Bo
    J = np.asarray(plant.CalcJacobianSpatialVelocity(
        ctx, jb.JacobianWrtVariable.kV, box.body_frame(), np.zeros(3), plant.world_frame(),
        plant.world_frame()))
    W = J @ np.diag(1.0 / np.diag(np.asarray(plant.CalcMassMatrix(ctx)))) @ J.T
    R = 0.1**2 / (4 * np.pi**2) * np.linalg.norm(W) / 6
    X = plant.EvalBodyPoseInWorld(ctx, box)
    offset = np.asarray(X.translation()) - np.asarray(X_WB.translation())
    np.testing.assert_allclose(offset, 2 * dt**2 * R * force, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(r.contact.weld_impulses)[0, 3:], -dt * force,
                               rtol=1e-6, atol=1e-12)  # SAP's rel_tolerance
    assert np.abs(np.asarray(ctx.v)).max() < 1e-9


def geared_wheels(plant, M):
    """A driven wheel (about y, 1.5 N·m) geared to a second one, q_drive = −2.5 q_arm + 0.1,
    whose 0.3 m arm (a pendulum) swings a 4 cm ball into a block."""
    y = np.array([0.0, 1.0, 0.0])
    drive = plant.AddRigidBody("drive", M.SpatialInertia.SolidCylinderWithMass(
        2.0, 0.1, 0.02, y))
    arm = plant.AddRigidBody("arm", M.SpatialInertia(
        0.5, np.array([0.0, 0.0, -0.3]), M.UnitInertia.SolidSphere(0.04).ShiftFromCenterOfMass(
            np.array([0.0, 0.0, 0.3]))))
    jd = plant.AddJoint(M.RevoluteJoint("jd", plant.world_frame(), drive.body_frame(), y))
    F = plant.AddFrame(M.FixedOffsetFrame("F", plant.world_frame(),
                                          M.RigidTransform([0.25, 0.0, 0.0])))
    ja = plant.AddJoint(M.RevoluteJoint("ja", F, arm.body_frame(), y))
    plant.AddJointActuator("motor", jd)
    plant.AddCouplerConstraint(jd, ja, -2.5, 0.1)
    add_geometry(plant, M, arm, M.Sphere(0.04), M.RigidTransform([0.0, 0.0, -0.3]), name="bob")
    add_geometry(plant, M, plant.world_body(), M.Box(0.1, 0.2, 0.2),
                 M.RigidTransform([0.25 + 0.3 * np.sin(0.8) + 0.085, 0.0, -0.21]), name="block")

    def init(plant, ctx, M):
        q, v = np.array([0.1 - 2.5 * 0.3, 0.3]), np.array([-2.5, 1.0])  # on the coupler
        if isinstance(plant, jb.MultibodyPlant):
            return ctx.replace(q=jnp.asarray(q), v=jnp.asarray(v))
        plant.SetPositions(ctx, q)
        plant.SetVelocities(ctx, v)
        return ctx

    return init, {"u": np.array([1.5])}


def test_geared_wheels_drive_a_pendulum_into_a_block_as_drake():
    err, vj, vd, r, plant = compare(geared_wheels)
    assert np.all(np.asarray(r.converged) == 1.0)
    assert err < 1e-8, err
    assert np.max(np.asarray(r.iterations)) > 1  # the bob hit the block
