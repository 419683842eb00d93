"""PD-controlled actuators (Drake's implicit ``SapPdControllerConstraint``) against pydrake's
discrete SAP plant: a 3-joint arm with proportional, derivative and stiff (near-rigid) gains,
effort limits and feed-forward, its tip pushing a ball along the ground; velocities agree step
by step over 200 steps to 1e-8 of the largest speed. Closed forms: with gravity compensation
as feed-forward the arm settles exactly on its target; a saturated actuator applies exactly its
effort limit. Gradients w.r.t. the gains match finite differences; vmap over gains."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from tests.constraints.scenes import add_geometry, compare, set_free, sphere_body

DT = 2e-3
QD = np.array([0.6, 0.9, -1.2])
VD = np.array([0.2, 0.0, 0.0])
U_FF = np.array([0.0, 2.0, 0.0])
GAINS = [(300.0, 30.0), (500.0, 0.0), (1e9, 1e6)]  # PD, P only, near-rigid
LIMITS = [np.inf, 40.0, 15.0]


def arm(plant, M, gains=GAINS, pushing=True):
    """Base yaw (z), shoulder and elbow (y) joints, 0.4 m and 0.35 m links, a 5 cm sphere at the
    tip; PD gains per joint; a 0.3 kg ball on the ground in the tip's way."""
    y, z = np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0])
    base = plant.AddRigidBody("base", M.SpatialInertia.SolidCylinderWithMass(2.0, 0.05, 0.1, z))
    upper = plant.AddRigidBody("upper", M.SpatialInertia(
        1.0, np.array([0.2, 0, 0]), M.UnitInertia.SolidBox(0.4, 0.04, 0.04).ShiftFromCenterOfMass(
            np.array([-0.2, 0.0, 0.0]))))
    lower = plant.AddRigidBody("lower", M.SpatialInertia(
        0.6, np.array([0.175, 0, 0]), M.UnitInertia.SolidBox(0.35, 0.03, 0.03)
        .ShiftFromCenterOfMass(np.array([-0.175, 0.0, 0.0]))))
    F0 = plant.AddFrame(M.FixedOffsetFrame("F0", plant.world_frame(),
                                           M.RigidTransform([0.0, 0.0, 0.3])))
    j0 = plant.AddJoint(M.RevoluteJoint("yaw", F0, base.body_frame(), z))
    j1 = plant.AddJoint(M.RevoluteJoint("shoulder", base.body_frame(), upper.body_frame(), y))
    F2 = plant.AddFrame(M.FixedOffsetFrame("F2", upper.body_frame(),
                                           M.RigidTransform([0.4, 0.0, 0.0])))
    j2 = plant.AddJoint(M.RevoluteJoint("elbow", F2, lower.body_frame(), y))
    for j, (p, d), e in zip((j0, j1, j2), gains, LIMITS):
        a = plant.AddJointActuator(f"{j.name()}_act", j, e)
        a.set_controller_gains(M.PdControllerGains(p=p, d=d))
    if pushing:
        add_geometry(plant, M, plant.world_body(), M.HalfSpace(), name="ground")
        add_geometry(plant, M, lower, M.Sphere(0.05), M.RigidTransform([0.35, 0.0, 0.0]),
                     name="tip")
        add_geometry(plant, M, sphere_body(plant, M, "ball", 0.3, 0.06), M.Sphere(0.06),
                     name="ball")

    def init(plant, ctx, M):
        q0, v0 = np.array([0.3, 0.3, -0.5]), np.array([0.5, -0.2, 0.4])
        if isinstance(plant, jb.MultibodyPlant):
            ctx = ctx.replace(q=ctx.q.at[:3].set(q0), v=ctx.v.at[:3].set(v0))
        else:
            q, v = plant.GetPositions(ctx), plant.GetVelocities(ctx)
            q[:3], v[:3] = q0, v0
            plant.SetPositions(ctx, q)
            plant.SetVelocities(ctx, v)
        if pushing:  # ahead of the tip, which sweeps about z and down
            ctx = set_free(plant, ctx, M, "ball", (0.5, 0.36, 0.0595))
        return ctx

    return init, {"u": U_FF, "xd": np.concatenate([QD, VD])}


def test_pd_arm_pushing_a_ball_equals_drake():
    pytest.importorskip("pydrake")
    err, vj, vd, r, plant = compare(arm)
    assert np.all(np.asarray(r.converged) == 1.0)
    assert err < 1e-8, err
    assert np.abs(vj[-1, 3:]).max() > 0.05  # the ball was pushed


@pytest.fixture(scope="module")
def still_arm():
    plant = jb.MultibodyPlant(time_step=DT)
    arm(plant, jb, gains=[(300.0, 30.0), (500.0, 40.0), (200.0, 20.0)], pushing=False)
    plant.Finalize()
    return plant


def test_gravity_compensated_arm_settles_on_its_target(still_arm):
    """u_ff = −τ_g(q_d): at q = q_d the PD law adds nothing, so the arm settles on q_d (the
    effort limits are not reached)."""
    plant = still_arm
    ctx = plant.CreateDefaultContext()
    tau_g = np.asarray(plant.CalcGravityGeneralizedForces(plant.SetPositions(ctx, QD)))
    xd = np.concatenate([QD, np.zeros(3)])
    r = jb.discrete_rollout(plant, ctx, num_steps=2000,
                            controls=jnp.broadcast_to(-tau_g, (2000, 3)), desired_states=xd,
                            save_trajectory=False)
    np.testing.assert_allclose(r.final_state[:3], QD, atol=1e-9)
    np.testing.assert_allclose(r.final_state[3:], 0.0, atol=1e-7)


def test_saturated_actuator_applies_its_effort_limit(still_arm):
    """The elbow (limit 15 N·m) asked to move 2 rad away: its impulse is exactly δt·15."""
    plant = still_arm
    ctx = plant.CreateDefaultContext()
    xd = np.concatenate([[0.0, 0.0, 2.0], np.zeros(3)])
    res = plant.CalcDiscreteStep(ctx, desired_state=xd)
    g = np.asarray(res.contact.pd_impulses)
    assert g[2] == pytest.approx(DT * 15.0, rel=1e-12)
    assert abs(g[1]) < DT * 40.0


def test_disarmed_controllers_apply_the_actuation_input(still_arm):
    """Without a desired state the controllers do nothing and u acts as on a plant without
    gains (Drake's documented semantics)."""
    plant = still_arm
    bare = jb.MultibodyPlant(time_step=DT)
    arm(bare, jb, pushing=False)
    for a in bare._actuators:  # the same plant without gains
        a._gains = None
    bare.Finalize()
    ctx = plant.SetPositions(plant.CreateDefaultContext(), QD)
    u = np.array([1.0, 30.0, -5.0])
    v1 = plant.CalcDiscreteStep(ctx, u).context.v
    v2 = bare.CalcDiscreteStep(bare.SetPositions(bare.CreateDefaultContext(), QD), u).context.v
    np.testing.assert_allclose(v1, v2, atol=1e-14)
    assert np.all(np.asarray(plant.CalcDiscreteStep(ctx, u).contact.pd_impulses) == 0)


def test_gradients_and_vmap_over_gains(still_arm):
    plant = still_arm
    act = plant.GetJointActuatorByName("shoulder_act")
    ctx = plant.SetPositions(plant.CreateDefaultContext(), np.array([0.1, 0.3, -0.5]))
    xd = jnp.asarray(np.concatenate([QD, np.zeros(3)]))

    g = act.GetControllerGains(ctx)
    assert (float(g.p), float(g.d)) == (500.0, 40.0) and act.get_controller_gains() == g

    def final_q(kp):
        c = act.SetControllerGains(ctx, jb.PdControllerGains(kp, 40.0))
        r = jb.discrete_rollout(plant, c, num_steps=30, desired_states=xd,
                                save_trajectory=False)
        return r.final_state[1]

    from jax.test_util import check_grads

    check_grads(final_q, (jnp.asarray(500.0),), order=1, modes=("fwd", "rev"), eps=1e-2,
                rtol=1e-5)
    kps = jnp.array([100.0, 500.0, 2000.0])
    batched = jax.vmap(final_q)(kps)
    np.testing.assert_allclose(batched, [final_q(k) for k in kps], rtol=1e-12)
    assert batched[2] > batched[1] > batched[0]  # stiffer tracks q_d = 0.9 faster


def test_bad_gains_and_desired_states_are_refused(still_arm):
    plant = jb.MultibodyPlant(time_step=DT)
    b = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    j = plant.AddJoint(jb.RevoluteJoint("j", plant.world_frame(), b.body_frame(), [0, 0, 1]))
    a = plant.AddJointActuator("a", j)
    for bad in (jb.PdControllerGains(-1.0, 0.0), jb.PdControllerGains(0.0, 0.0),
                jb.PdControllerGains(np.nan, 1.0)):
        with pytest.raises(ValueError, match="PD gains must be finite"):
            a.set_controller_gains(bad)
    with pytest.raises(ValueError, match="PdControllerGains"):
        a.set_controller_gains((1.0, 2.0))
    with pytest.raises(ValueError, match="desired_state contains NaN"):
        still_arm.CalcDiscreteStep(still_arm.CreateDefaultContext(),
                                   desired_state=np.array([0.0, np.nan, 0, 0, 0, 0]))
    with pytest.raises(ValueError, match=r"desired_state.*shape \(6,\)"):
        still_arm.CalcDiscreteStep(still_arm.CreateDefaultContext(), desired_state=np.zeros(4))
    plant.Finalize()
    with pytest.raises(ValueError, match="no actuator has PD gains"):
        plant.CalcDiscreteStep(plant.CreateDefaultContext(), desired_state=np.zeros(2))
    with pytest.raises(RuntimeError, match="no controller"):
        a.get_controller_gains()


def test_net_actuation_equals_drakes():
    """`CalcNetActuation` of one step (the P-only shoulder saturates at 40 N·m, the stiff elbow
    at 15) equals pydrake's sampled net actuation output after that step."""
    pytest.importorskip("pydrake")
    from tests.constraints.scenes import build, drake_simulator

    def scene(plant, M):
        return arm(plant, M, pushing=False)

    dplant, sim, ctx, q0, v0, inputs = drake_simulator(scene, DT)
    sim.AdvanceTo(DT)
    u_drake = dplant.get_net_actuation_output_port().Eval(ctx)
    plant, _, _, _ = build(scene, "jaxbody", DT)
    c = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    u = plant.CalcNetActuation(c, inputs["u"], inputs["xd"])
    np.testing.assert_allclose(u, u_drake, rtol=1e-9, atol=1e-9)
    assert abs(u_drake[1]) == pytest.approx(40.0) and abs(u_drake[2]) == pytest.approx(15.0)
