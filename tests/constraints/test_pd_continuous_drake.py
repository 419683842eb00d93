"""PD-controlled actuators in continuous plants, as Drake applies them there: explicitly,
u = clamp(−Kp(q − q_d) − Kd(v − v_d) + u_ff, −e, e) in place of the actuation input of each
armed actuator. Time derivatives at random states against pydrake's continuous plant with its
desired state port fixed (effort limits hit and not hit), to 1e-10 relative; the net actuation;
a disarmed controller (no desired state: Drake's unconnected port) leaves the actuation input
alone; `rollout` takes the desired states per step."""

import jax
import numpy as np
import pytest

import jaxbody as jb
from tests.constraints.test_pd_controllers import arm

GAINS = [(30.0, 3.0), (50.0, 2.0), (20.0, 0.5)]


def _plants(M):
    plant = M.MultibodyPlant(0.0)
    arm(plant, M, gains=GAINS, pushing=False)
    # a second instance: a prismatic slider with a plain (not PD) actuator and a PD one
    mi = plant.AddModelInstance("slider")
    y = np.array([0.0, 1.0, 0.0])
    s1 = plant.AddRigidBody("s1", mi, M.SpatialInertia.SolidBoxWithMass(0.5, 0.1, 0.1, 0.1))
    s2 = plant.AddRigidBody("s2", mi, M.SpatialInertia.SolidBoxWithMass(0.3, 0.1, 0.1, 0.1))
    j1 = plant.AddJoint(M.PrismaticJoint("slide", plant.world_frame(), s1.body_frame(), y))
    j2 = plant.AddJoint(M.RevoluteJoint("spin", s1.body_frame(), s2.body_frame(), y))
    plant.AddJointActuator("slide_act", j1, 5.0)
    plant.AddJointActuator("spin_act", j2, 2.0).set_controller_gains(
        M.PdControllerGains(p=8.0, d=0.7))
    plant.Finalize()
    return plant, mi


@pytest.fixture(scope="module")
def pair():
    pytest.importorskip("pydrake")
    import pydrake.math as pm
    import pydrake.multibody.plant as mbp
    import pydrake.multibody.tree as mbt

    class M:  # the pydrake names `arm` uses
        MultibodyPlant = mbp.MultibodyPlant
        RigidTransform = pm.RigidTransform

    for name in ("SpatialInertia", "UnitInertia", "FixedOffsetFrame", "RevoluteJoint",
                 "PrismaticJoint", "PdControllerGains"):
        setattr(M, name, getattr(mbt, name))
    return _plants(jb), _plants(M)


def _drake_xdot(dp, mi_d, x, u, xd, nu_arm):
    ctx = dp.CreateDefaultContext()
    dp.SetPositionsAndVelocities(ctx, x)
    dp.get_actuation_input_port().FixValue(ctx, u)
    if xd is not None:
        n = nu_arm
        arm_xd = np.concatenate([xd[:n], xd[len(u):len(u) + n]])
        sl_xd = np.concatenate([xd[n:len(u)], xd[len(u) + n:]])
        dp.get_desired_state_input_port(_default_instance()).FixValue(ctx, arm_xd)
        dp.get_desired_state_input_port(mi_d).FixValue(ctx, sl_xd)
    return (dp.EvalTimeDerivatives(ctx).CopyToVector(),
            dp.get_net_actuation_output_port().Eval(ctx))


@pytest.mark.parametrize("spread", [0.05, 3.0])  # limits not hit / hit
def test_time_derivatives_equal_drake(pair, spread):
    (jp, _), (dp, mi_d) = pair
    rng = np.random.default_rng(7)
    nx, nu = jp.num_multibody_states(), jp.num_actuators()
    saturated = 0
    for _ in range(5):
        x = rng.uniform(-1, 1, nx)
        xd = np.concatenate([x[:nu] + spread * rng.uniform(-1, 1, nu),
                             x[nx - nu:] + spread * rng.uniform(-1, 1, nu)])
        u = rng.uniform(-0.5, 0.5, nu)
        ref, u_ref = _drake_xdot(dp, mi_d, x, u, xd, 3)
        ctx = jp.SetPositionsAndVelocities(jp.CreateDefaultContext(), x)
        got = np.asarray(jp.CalcTimeDerivatives(ctx, u, desired_state=xd))
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10 * np.abs(ref).max())
        u_net = np.asarray(jp.CalcNetActuation(ctx, u, desired_state=xd))
        np.testing.assert_allclose(u_net, u_ref, rtol=0, atol=1e-12 * np.abs(u_ref).max())
        lim = np.array([np.inf, 40.0, 15.0, 5.0, 2.0])
        saturated += int(np.sum(np.isclose(np.abs(u_ref), lim)))
    assert (saturated > 0) == (spread > 1), saturated


def test_per_instance_and_disarmed(pair):
    (jp, mi), (dp, mi_d) = pair
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, jp.num_multibody_states())
    u = rng.uniform(-0.5, 0.5, 5)
    ctx = jp.SetPositionsAndVelocities(jp.CreateDefaultContext(), x)
    # no desired state: every controller disarmed, the actuation input applies (as Drake)
    ref, _ = _drake_xdot(dp, mi_d, x, u, None, 3)
    got = np.asarray(jp.CalcTimeDerivatives(ctx, u))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10 * np.abs(ref).max())
    # only the slider's desired state given: the arm's controllers stay disarmed
    sl = rng.uniform(-1, 1, 4)
    dctx = dp.CreateDefaultContext()
    dp.SetPositionsAndVelocities(dctx, x)
    dp.get_actuation_input_port().FixValue(dctx, u)
    dp.get_desired_state_input_port(mi_d).FixValue(dctx, sl)
    ref = dp.EvalTimeDerivatives(dctx).CopyToVector()
    got = np.asarray(jp.CalcTimeDerivatives(ctx, u, desired_state={mi: sl}))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10 * np.abs(ref).max())
    with pytest.raises(ValueError, match="CalcGeneralizedAccelerations: desired_state"):
        jp.CalcTimeDerivatives(ctx, u, desired_state=np.full(10, np.nan))


def test_rollout_takes_desired_states(pair):
    (jp, _), _ = pair
    ctx = jp.CreateDefaultContext()
    xd = np.tile(np.array([0.3, 0.5, -0.4, 0.1, 0.2, 0, 0, 0, 0, 0]), (4, 1))
    out = jb.rollout(jp, ctx, num_steps=4, dt=1e-3, integrator="explicit_euler",
                     desired_states=xd, project_quaternions=False)
    x = np.concatenate([ctx.q, ctx.v])
    for k in range(4):
        c = jp.SetPositionsAndVelocities(ctx, x)
        x = x + 1e-3 * np.asarray(jp.CalcTimeDerivatives(c, desired_state=xd[k]))
    np.testing.assert_allclose(out.final_state, x, rtol=0, atol=1e-12)
    g = jax.grad(lambda k: jb.rollout(jp, ctx, num_steps=4, dt=1e-3, desired_states=xd * k,
                                      save_trajectory=False).final_state[0])(1.0)
    assert np.isfinite(g) and g != 0


def _default_instance():
    from pydrake.multibody.tree import default_model_instance
    return default_model_instance()
