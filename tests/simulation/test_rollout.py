"""Rollouts and integrators: convergence orders (state and energy), unit quaternions, energy
balance along damped trajectories, jit/vmap/grad (initial state, controls, masses) against
finite differences, checkpointing, non-finite detection, the adaptive integrator, errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.simulation import INTEGRATORS

T_ORDER, N_ORDER = 0.5, 50  # horizon (s) and steps per compiled call in the order test
EXPECTED_ORDER = {"explicit_euler": 1.0, "semi_implicit_euler": 1.0, "rk2": 2.0, "rk4": 4.0}
ORDER_SLACK = 0.35
FD_RTOL = 1e-5


def _double_pendulum(damping=0.0, actuated=False, spring=False):
    plant = jb.MultibodyPlant(0.0)
    a = plant.AddRigidBody("a", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.05, 0.05, 1.0))
    b = plant.AddRigidBody("b", jb.SpatialInertia.PointMass(0.5, np.array([0.0, 0.0, -0.7])))
    j1 = plant.AddJoint(jb.RevoluteJoint("j1", plant.world_frame(), a.body_frame(), [0, 1, 0],
                                         damping))
    F = plant.AddFrame(jb.FixedOffsetFrame("tip", a.body_frame(), jb.RigidTransform([0, 0, -0.5])))
    j2 = plant.AddJoint(jb.RevoluteJoint("j2", F, b.body_frame(), [0, 1, 0], damping))
    if actuated:
        plant.AddJointActuator("m1", j1)
        plant.AddJointActuator("m2", j2)
    if spring:
        plant.AddForceElement(jb.RevoluteSpring(j2, 0.3, 4.0))
        plant.AddForceElement(jb.LinearSpringDamper(plant.world_body(), [0.3, 0, 0.2], b,
                                                    [0, 0, -0.7], 0.8, 10.0, 0.7))
    plant.Finalize()
    ctx = plant.SetPositionsAndVelocities(plant.CreateDefaultContext(),
                                          jnp.asarray([1.2, -0.7, 0.3, 1.0]))
    return plant, ctx


@pytest.fixture(scope="module")
def conservative():
    return _double_pendulum()


def _energy(plant, ctx, x):
    c = plant.SetPositionsAndVelocities(ctx, x)
    return plant.CalcKineticEnergy(c) + plant.CalcPotentialEnergy(c)


def test_integrator_orders_state_and_energy(conservative):
    plant, ctx = conservative
    ref = jb.simulate_adaptive(plant, ctx, T_ORDER, rtol=1e-13, atol=1e-13).final_state
    E0 = _energy(plant, ctx, jnp.concatenate([ctx.q, ctx.v]))
    rates = {}
    for name in INTEGRATORS:
        run = jax.jit(lambda c, dt, name=name: jb.rollout(
            plant, c, None, N_ORDER, dt, integrator=name, save_trajectory=False).final_state)
        errs, eerrs = [], []
        for m in (1, 2, 4):
            c, dt = ctx, T_ORDER / (N_ORDER * m)
            for _ in range(m):
                c = plant.SetPositionsAndVelocities(c, run(c, dt))
            x = jnp.concatenate([c.q, c.v])
            errs.append(float(jnp.max(jnp.abs(x - ref))))
            eerrs.append(abs(float(_energy(plant, ctx, x) - E0)))
        rate = np.log2(errs[1] / errs[2])
        rates[name] = (rate, np.log2(eerrs[1] / eerrs[2]))
        assert abs(rate - EXPECTED_ORDER[name]) < ORDER_SLACK, (name, errs)
    # Energy conservation to the integrator's order (semi-implicit Euler: bounded, order 1 here).
    assert abs(rates["rk4"][1] - 4.0) < ORDER_SLACK, rates
    assert abs(rates["explicit_euler"][1] - 1.0) < ORDER_SLACK, rates
    print("measured (state, energy) convergence rates:", rates)


def test_quaternions_stay_unit_norm():
    plant = jb.MultibodyPlant(0.0)
    plant.AddRigidBody("box", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.4, 0.9))
    plant.Finalize()
    ctx = plant.SetVelocities(plant.CreateDefaultContext(), jnp.asarray([3.0, 0.1, 5.0, 0, 0, 0]))
    out = jb.rollout(plant, ctx, None, 300, 0.01)
    norms = jnp.linalg.norm(out.states[:, :4], axis=1)
    assert float(jnp.max(jnp.abs(norms - 1))) < 1e-14
    # Unprojected (as Drake's integrators): the norm drifts by RK4's local error only.
    free = jb.rollout(plant, ctx, None, 300, 0.01, project_quaternions=False)
    drift = float(jnp.max(jnp.abs(jnp.linalg.norm(free.states[:, :4], axis=1) - 1)))
    assert 1e-14 < drift < 1e-6, drift
    # Adaptive: every saved state's quaternion is normalized on its own.
    ts = jnp.asarray([0.5, 1.0, 2.0, 3.0])
    ad = jb.simulate_adaptive(plant, ctx, 3.0, ts=ts, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(jnp.linalg.norm(ad.states[:, :4], axis=1), 1.0, atol=1e-14)
    np.testing.assert_allclose(ad.states, out.states[jnp.asarray([50, 100, 200, 300])],
                               atol=1e-5)  # RK4 at 0.01 s: ~1e-6
    assert 0 < int(ad.num_accepted_steps) <= int(ad.num_steps)
    # Free rigid body: angular momentum about the COM is conserved (gravity acts at the COM).
    L = [plant.CalcSpatialMomentumInWorldAboutPoint(plant.SetPositionsAndVelocities(ctx, x),
                                                    x[4:7]).rotational() for x in out.states[::100]]
    np.testing.assert_allclose(L[-1], L[0], atol=1e-6)


def test_energy_balance_along_damped_trajectory():
    plant, ctx = _double_pendulum(damping=0.2, spring=True)
    dt, n = 1e-3, 400
    out = jb.rollout(plant, ctx, None, n, dt)

    def powers(x):
        c = plant.SetPositionsAndVelocities(ctx, x)
        return (_energy(plant, ctx, x), plant.CalcNonConservativePower(c)
                + plant.CalcJointDampingPower(c))

    E, P = jax.jit(jax.vmap(powers))(out.states)
    dissipated = np.sum((P[1:] + P[:-1]) * 0.5) * dt  # trapezoid, O(dt²)
    assert abs(float(E[-1] - E[0] - dissipated)) < 1e-5 * abs(float(dissipated))
    assert float(E[-1] - E[0]) < 0


@pytest.fixture(scope="module")
def actuated():
    plant, ctx = _double_pendulum(damping=0.05, actuated=True)
    us = 0.3 * jnp.sin(jnp.linspace(0, 3, 40))[:, None] * jnp.asarray([1.0, -0.5])
    return plant, ctx, us


def _loss(plant, ctx, x0, us, masses):
    c = plant.SetPositionsAndVelocities(ctx, x0)
    for i in range(1, plant.num_bodies()):  # the world's mass is not a parameter
        c = plant.get_body(jb.BodyIndex(i)).SetMass(c, masses[i])
    out = jb.rollout(plant, c, None, us.shape[0], 0.01, controls=us, save_trajectory=False)
    return jnp.sum(out.final_state**2)


def _fd(f, x, h=1e-6):
    x = np.asarray(x, float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(jnp.asarray(x + e)) - f(jnp.asarray(x - e))) / (2 * h)
    return g


@pytest.mark.slow
def test_gradients_match_finite_differences(actuated):
    plant, ctx, us = actuated
    x0, m0 = jnp.concatenate([ctx.q, ctx.v]), ctx.parameters.mass
    loss = jax.jit(lambda x, u, m: _loss(plant, ctx, x, u, m))
    gx, gu, gm = jax.jit(jax.grad(lambda x, u, m: _loss(plant, ctx, x, u, m), argnums=(0, 1, 2)))(
        x0, us, m0)
    np.testing.assert_allclose(gx, _fd(lambda x: loss(x, us, m0), x0), rtol=FD_RTOL, atol=1e-8)
    np.testing.assert_allclose(gm[1:], _fd(lambda m: loss(x0, us, m), m0)[1:], rtol=FD_RTOL,
                               atol=1e-8)
    gu_fd = _fd(lambda u5: loss(x0, us.at[:5].set(u5), m0), us[:5])  # first 5 steps, by FD
    np.testing.assert_allclose(gu[:5], gu_fd, rtol=FD_RTOL, atol=1e-8)


@pytest.mark.slow
def test_checkpointing_gives_the_same_gradient(actuated):
    plant, ctx, us = actuated

    def g(cp):
        f = lambda u: jnp.sum(jb.rollout(plant, ctx, None, 40, 0.01, controls=u,  # noqa: E731
                                         checkpoint=cp).final_state ** 2)
        return jax.jit(jax.grad(f))(us)

    base = g(False)
    for cp in (True, 8):
        np.testing.assert_allclose(g(cp), base, rtol=1e-12, atol=1e-14)


def test_vmap_over_states_controls_and_parameters_equals_loop(actuated):
    plant, ctx, us = actuated
    x0s = jnp.asarray(np.random.default_rng(0).normal(size=(3, 4)))
    masses = ctx.parameters.mass[None] * jnp.asarray([[1.0], [1.5], [0.7]])
    f = jax.jit(lambda x, u, m: _loss(plant, ctx, x, u, m))
    batched = jax.jit(jax.vmap(lambda x, u, m: _loss(plant, ctx, x, u, m)))
    usb = jnp.stack([us, -us, 2 * us])
    loop = [f(x0s[i], usb[i], masses[i]) for i in range(3)]
    np.testing.assert_allclose(batched(x0s, usb, masses), loop, rtol=1e-12)


def test_controller_params_nonfinite_and_final_only(actuated):
    plant, ctx, _ = actuated

    def pd(t, x, params):
        return -params["kp"] * x[:2] - params["kd"] * x[2:] + jnp.where(t > 0.045, jnp.nan, 0.0)

    params = {"kp": jnp.asarray(5.0), "kd": jnp.asarray(1.0)}
    out = jb.rollout(plant, ctx, pd, 10, 0.01, params=params)
    assert int(out.first_nonfinite_step) == 5  # step 4 spans t in [0.04, 0.05]: its RK4 stages
    # past t = 0.045 see NaN, so x_5 is the first non-finite state
    ok = jb.rollout(plant, ctx, pd, 4, 0.01, params=params, save_trajectory=False)
    assert ok.states is None and int(ok.first_nonfinite_step) == -1
    np.testing.assert_allclose(ok.final_state, out.states[4], rtol=1e-14)


def test_adaptive_matches_fine_rk4(conservative):
    plant, ctx = conservative
    ts = jnp.asarray([0.1, 0.3])
    ad = jb.simulate_adaptive(plant, ctx, 0.3, ts=ts, rtol=1e-12, atol=1e-12)
    rk = jb.rollout(plant, ctx, None, 300, 1e-3)
    np.testing.assert_allclose(ad.states, rk.states[jnp.asarray([100, 300])], atol=1e-9)
    assert int(ad.first_nonfinite_step) == -1


def test_errors(actuated):
    plant, ctx, us = actuated
    with pytest.raises(ValueError, match="integrator"):
        jb.rollout(plant, ctx, None, 5, 0.01, integrator="rk45")
    with pytest.raises(ValueError, match=r"controls: expected shape \(5, 2\)"):
        jb.rollout(plant, ctx, None, 5, 0.01, controls=jnp.zeros((5, 3)))
    with pytest.raises(ValueError, match="divisor"):
        jb.rollout(plant, ctx, None, 5, 0.01, checkpoint=2)
    with pytest.raises(ValueError, match="num_steps"):
        jb.rollout(plant, ctx, None, 0, 0.01)
    discrete = jb.MultibodyPlant(0.01)
    discrete.AddRigidBody("b", jb.SpatialInertia.SolidBoxWithMass(1.0, .1, .1, .1))
    discrete.Finalize()
    with pytest.raises(ValueError, match="discrete"):
        jb.rollout(discrete, discrete.CreateDefaultContext(), None, 5, 0.01)
