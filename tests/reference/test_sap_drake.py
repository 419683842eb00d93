"""The SAP discrete step against pydrake (``discrete_contact_approximation="sap"``) on the same
scenes with the same contact properties: next velocities agree to solver tolerance for 200 steps."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("pydrake")

import jaxbody as jb  # noqa: E402
from benchmarks.contact_scenes import (  # noqa: E402
    FreeBody,
    Geom,
    Scene,
    build,
    drake_velocities,
)

STEPS = 200
TOL = 1e-6  # relative to max(1, |v|), per step


def _box_inertia(m, lx, ly, lz):
    return (m / 12 * (ly**2 + lz**2), m / 12 * (lx**2 + lz**2), m / 12 * (lx**2 + ly**2))


def _sphere(name, p, r=0.1, m=1.0, V=(0, 0, 0, 0, 0, 0)):
    return FreeBody(name, m, (0.4 * m * r * r,) * 3, p, V_WB=V)


def compare(scene, steps=STEPS):
    vd, q0, v0 = drake_velocities(scene, steps)
    plant, _ = build(scene, "jaxbody")
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    u = jnp.asarray(scene.arm_u) if scene.arm else None
    controls = None if u is None else jnp.broadcast_to(u, (steps, 7))
    r = jb.discrete_rollout(plant, ctx, num_steps=steps, controls=controls)
    vj = np.asarray(r.states[1:, plant.num_positions():])
    err = np.abs(vj - vd).max(1) / np.maximum(1.0, np.abs(vd).max(1))
    assert np.all(np.asarray(r.converged) == 1.0)
    return err.max(), vj, vd, r


def test_sphere_dropped_on_the_ground():
    scene = Scene([_sphere("ball", (0, 0, 0.15), V=(0.5, 1.0, 0, 0.3, 0, -1.0))],
                  [Geom("ball", ("sphere", 0.1)), Geom("world", ("halfspace",))])
    err, vj, _, r = compare(scene)
    assert err < TOL
    assert np.max(np.asarray(r.iterations)) > 0  # contact was solved
    assert abs(vj[-1, 5]) < 1e-3  # at rest vertically


def _sled(theta, mu):
    """A 2 kg block on four corner spheres, on a halfspace inclined by theta about y."""
    lx, ly, lz, r = 0.3, 0.2, 0.05, 0.02
    R_WI = np.array([[np.cos(theta), 0, np.sin(theta)], [0, 1, 0],
                     [-np.sin(theta), 0, np.cos(theta)]])
    n = R_WI[:, 2]
    p = n * (r + lz / 2 - 1e-4)
    body = FreeBody("sled", 2.0, _box_inertia(2.0, lx, ly, lz), tuple(p), rpy=(0, theta, 0))
    feet = [Geom("sled", ("sphere", r), p_BG=(sx * lx / 2, sy * ly / 2, -lz / 2), mu=mu)
            for sx in (-1, 1) for sy in (-1, 1)]
    return Scene([body], feet + [Geom("world", ("halfspace",), rpy=(0, theta, 0), mu=mu)])


@pytest.mark.parametrize("mu", [0.6, 0.2])
def test_block_on_an_incline_sticks_or_slides(mu):
    theta = 0.3  # tan θ = 0.309
    err, vj, _, _ = compare(_sled(theta, mu))
    assert err < TOL
    speed = np.linalg.norm(vj[-1, 3:])
    if mu > np.tan(theta):
        assert speed < 1e-3  # sticks (regularized slip ~ σ δt g)
    else:
        a = 9.81 * (np.sin(theta) - mu * np.cos(theta))
        assert speed == pytest.approx(a * STEPS * 1e-3, rel=0.05)


def test_stack_of_spheres():
    r = 0.1
    bodies = [_sphere(f"s{i}", (0.001 * i, 0, r - 1e-4 + i * (2 * r - 1e-4))) for i in range(3)]
    geoms = [Geom(b.name, ("sphere", r)) for b in bodies] + [Geom("world", ("halfspace",))]
    err, _, _, _ = compare(Scene(bodies, geoms))
    assert err < TOL


def test_spheres_falling_into_a_box():
    rng = np.random.default_rng(0)
    r = 0.08
    walls = [Geom("world", ("box", 1.0, 1.0, 0.1), p_BG=(0, 0, -0.05))]
    for s in (-1, 1):
        walls.append(Geom("world", ("box", 0.1, 1.0, 0.6), p_BG=(s * 0.3, 0, 0.3)))
        walls.append(Geom("world", ("box", 1.0, 0.1, 0.6), p_BG=(0, s * 0.3, 0.3)))
    bodies = []
    for i, (x, y, z) in enumerate([(x, y, z) for z in (0.0, 1.0) for x in (-1, 1) for y in (-1, 1)]):
        p = (x * 0.085 + 0.01 * rng.normal(), y * 0.085 + 0.01 * rng.normal(), r + z * 0.17)
        bodies.append(_sphere(f"s{i}", p, r=r, m=0.5,
                              V=tuple(np.r_[rng.normal(size=3), 0.3 * rng.normal(size=3)])))
    geoms = [Geom(b.name, ("sphere", r)) for b in bodies] + walls
    err, _, _, r_ = compare(Scene(bodies, geoms))
    assert err < TOL
    assert np.max(np.asarray(r_.iterations)) > 0


def test_arm_pushing_a_sphere():
    """The 7-dof benchmark arm (sphere on its last link) swings into a free ball."""
    probe = Scene([], [Geom("link7", ("sphere", 0.05), p_BG=(0, 0, 0.15))], arm=True)
    plant, _ = build(probe, "jaxbody")
    q0 = np.zeros(7)
    q0[[j.position_start() for j in (plant.GetJointByName(f"link{i + 1}_joint")
                                      for i in range(7))]] = probe.arm_q
    ctx = plant.SetPositions(plant.CreateDefaultContext(), q0)
    link7 = plant.GetBodyByName("link7")
    X = plant.EvalBodyPoseInWorld(ctx, link7)
    p_ee = np.asarray(X.multiply(np.array([0, 0, 0.15])))
    J = np.asarray(plant.CalcJacobianTranslationalVelocity(
        ctx, jb.JacobianWrtVariable.kV, link7.body_frame(), np.array([0, 0, 0.15]),
        plant.world_frame(), plant.world_frame()))
    d = J @ np.asarray(probe.arm_v)
    d /= np.linalg.norm(d)
    ball = _sphere("ball", tuple(p_ee + d * (0.05 + 0.08 - 2e-3)), r=0.08, m=0.3)
    scene = Scene([ball], [probe.geoms[0], Geom("ball", ("sphere", 0.08))], arm=True,
                  arm_u=(0.0, 5.0, 0.0, 2.0, 0.0, 0.0, 0.0))
    err, vj, _, r = compare(scene)
    assert err < TOL
    assert np.linalg.norm(vj[5, -3:]) > 0.1  # the ball was pushed


def test_gradient_through_a_contact_rollout_is_finite_and_matches_fd():
    scene = Scene([_sphere("ball", (0, 0, 0.099), V=(0, 0, 0, 1.0, 0, 0))],
                  [Geom("ball", ("sphere", 0.1), mu=0.3), Geom("world", ("halfspace",), mu=0.3)])
    plant, _ = build(scene, "jaxbody")
    from benchmarks.contact_scenes import initial_state

    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))

    @jax.jit
    def final_x(mu):
        mu_d = ctx.parameters.contact["dynamic_friction"] * mu  # every collision geometry
        c = plant.SetContactParameters(ctx, dynamic_friction=mu_d)
        return jb.discrete_rollout(plant, c, num_steps=30, save_trajectory=False).final_state[4]

    g = jax.grad(final_x)(1.0)
    fd = (final_x(1.0 + 1e-5) - final_x(1.0 - 1e-5)) / 2e-5
    assert np.isfinite(g)
    assert float(g) == pytest.approx(float(fd), rel=1e-3)


def test_sliding_sled_lifts_like_drake():
    """A fast slide at contact onset: SAP's regularized friction lifts the sled in both engines."""
    scene = _sled(0.0, 0.3)
    scene.bodies[0].V_WB = (0, 0, 0, 1.0, 0, 0)
    err, vj, vd, _ = compare(scene, 100)
    assert err < TOL
    assert vd[0, 5] > 0.1 and vj[0, 5] == pytest.approx(vd[0, 5], rel=1e-9)


def _double_pendulum_with_limits(engine, dt):
    from pydrake.multibody import plant as dplant
    from pydrake.multibody import tree as dtree

    from benchmarks.contact_scenes import _mods

    tree, math, plant_mod, _ = _mods(engine)
    plant = plant_mod.MultibodyPlant(dt)
    M1 = tree.SpatialInertia.MakeFromCentralInertia(1.0, np.array([0, 0, -0.5]),
                                                    tree.RotationalInertia(0.08, 0.08, 0.08))
    M2 = tree.SpatialInertia.MakeFromCentralInertia(0.7, np.array([0, 0, -0.4]),
                                                    tree.RotationalInertia(0.05, 0.05, 0.05))
    l1, l2 = plant.AddRigidBody("l1", M1), plant.AddRigidBody("l2", M2)
    j1 = plant.AddJoint(tree.RevoluteJoint("j1", plant.world_frame(), l1.body_frame(), [0, 1, 0],
                                           0.1))
    F = plant.AddFrame(tree.FixedOffsetFrame("f", l1.body_frame(), math.RigidTransform([0, 0, -1.0])))
    j2 = plant.AddJoint(tree.RevoluteJoint("j2", F, l2.body_frame(), [0, 1, 0], 0.05))
    j1.set_position_limits([-0.3], [0.4])
    j2.set_position_limits([-0.2], [0.5])
    if engine == "drake":
        assert tree is dtree
        plant.set_discrete_contact_approximation(dplant.DiscreteContactApproximation.kSap)
    plant.Finalize()
    return plant


def test_joint_limits_match_drake():
    from pydrake.systems.analysis import Simulator

    dt, q0, v0 = 1e-3, np.array([0.2, -0.1]), np.array([2.0, -3.0])
    dp = _double_pendulum_with_limits("drake", dt)
    dc = dp.CreateDefaultContext()
    dp.SetPositions(dc, q0)
    dp.SetVelocities(dc, v0)
    sim = Simulator(dp, dc)
    vd = []
    for k in range(300):
        sim.AdvanceTo((k + 1) * dt)
        vd.append(dp.GetVelocities(dc).copy())
    jp = _double_pendulum_with_limits("jaxbody", dt)
    ctx = jp.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    r = jb.discrete_rollout(jp, ctx, num_steps=300)
    vj = np.asarray(r.states[1:, 2:])
    np.testing.assert_allclose(vj, np.asarray(vd), rtol=0, atol=1e-9)
    assert np.max(np.asarray(r.iterations)) > 0  # the limits engaged


def _drake_contact_results(scene):
    """Drake's ContactResults of the step from the scene's initial state, by body names, and
    its generalized contact forces. Drake's output ports are sampled: after one step they
    report the step that was taken."""
    from pydrake.systems.analysis import Simulator

    from benchmarks.contact_scenes import initial_state

    plant, diagram = build(scene, "drake")
    q0, v0 = initial_state(scene, plant, "drake")
    sim = Simulator(diagram)
    ctx = plant.GetMyMutableContextFromRoot(sim.get_mutable_context())
    plant.SetPositions(ctx, q0)
    plant.SetVelocities(ctx, v0)
    sim.Initialize()
    sim.AdvanceTo(scene.dt)
    results = plant.get_contact_results_output_port().Eval(ctx)
    tau = np.zeros(plant.num_velocities())
    from pydrake.multibody.tree import ModelInstanceIndex

    for i in range(plant.num_model_instances()):
        mi = ModelInstanceIndex(i)
        if plant.num_velocities(mi):
            t = plant.get_generalized_contact_forces_output_port(mi).Eval(ctx)
            plant.SetVelocitiesInArray(mi, t, tau)
    infos = []
    for k in range(results.num_point_pair_contacts()):
        info = results.point_pair_contact_info(k)
        pp = info.point_pair()
        infos.append(dict(
            a=plant.get_body(info.bodyA_index()).name(), b=plant.get_body(info.bodyB_index()).name(),
            f=np.asarray(info.contact_force()), p=np.asarray(info.contact_point()),
            sep=info.separation_speed(), slip=info.slip_speed(), n=np.asarray(pp.nhat_BA_W),
            depth=pp.depth))
    return infos, tau, q0, v0


@pytest.mark.parametrize("which", ["sphere", "stack", "sled"])
def test_contact_results_equal_drakes(which):
    """Every point contact of a step (bodies, point, force, normal, depth, separation and slip
    speeds) and the generalized contact forces, against Drake's contact results output."""
    r = 0.1
    if which == "sphere":
        scene = Scene([_sphere("ball", (0, 0, r - 2e-3), V=(0.5, 1.0, 0, 0.3, 0, -1.0))],
                      [Geom("ball", ("sphere", r)), Geom("world", ("halfspace",))])
    elif which == "stack":
        bodies = [_sphere(f"s{i}", (0.001 * i, 0, r - 1e-3 + i * (2 * r - 1e-3)),
                          V=(0, 0, 0, 0.1 * i, 0, -0.2)) for i in range(3)]
        scene = Scene(bodies, [Geom(b.name, ("sphere", r)) for b in bodies]
                      + [Geom("world", ("halfspace",))])
    else:
        scene = _sled(0.3, 0.2)
    want, tau_want, q0, v0 = _drake_contact_results(scene)
    plant, _ = build(scene, "jaxbody")
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    got = plant.CalcContactResults(ctx)
    assert got.num_point_pair_contacts() == len(want) > 0
    np.testing.assert_allclose(got.generalized_contact_forces(), tau_want,
                               atol=1e-10 * max(1.0, np.abs(tau_want).max()))
    for k in range(got.num_point_pair_contacts()):
        info = got.point_pair_contact_info(k)
        a, b = plant.get_body(info.bodyA_index()).name(), plant.get_body(info.bodyB_index()).name()
        p = np.asarray(info.contact_point())
        # the same pair, possibly with A and B the other way round (forces and normals flip)
        match = [w for w in want if {w["a"], w["b"]} == {a, b}
                 and np.allclose(w["p"], p, atol=1e-8)]
        assert len(match) == 1, (a, b, p)
        w = match[0]
        s = 1.0 if (w["a"], w["b"]) == (a, b) else -1.0
        scale = max(1.0, np.abs(w["f"]).max())
        np.testing.assert_allclose(s * np.asarray(info.contact_force()), w["f"], atol=1e-10 * scale)
        np.testing.assert_allclose(p, w["p"], atol=1e-10)
        np.testing.assert_allclose(s * np.asarray(info.point_pair().nhat_BA_W), w["n"], atol=1e-10)
        assert info.point_pair().depth == pytest.approx(w["depth"], abs=1e-10)
        assert info.separation_speed() == pytest.approx(w["sep"], abs=1e-10)
        assert info.slip_speed() == pytest.approx(w["slip"], abs=1e-10)
