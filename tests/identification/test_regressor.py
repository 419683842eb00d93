"""The regressor: y = Y π + y₀ (ID identity), Y = ∂y/∂π, and the measurement functions."""

from functools import partial
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbody import identification as ident
from tests.identification.arm import (
    TOOL_MASS,
    fourier_samples,
    pendulum_about_y,
    random_inertial_parameters,
    three_link_arm,
)

TOL = 1e-10  # affine identities, relative to max(1, |y|)
DAMPING = 0.3  # N·m·s/rad on every joint of the test arm
G = 9.81  # default gravity (m/s²)


def _close(a, b, tol=TOL):
    a, b = np.asarray(a), np.asarray(b)
    assert np.abs(a - b).max() <= tol * max(1.0, np.abs(b).max()), np.abs(a - b).max()


@pytest.fixture(scope="module")
def arm():
    """The 3-link arm (damped, with a known tool), 4 states, and jitted functions of (ctx, v̇)."""
    plant, links = three_link_arm(damping=DAMPING, tool=True)
    wrenches = partial(ident.joint_reaction_wrenches, bodies=links)
    q, v, vdot = fourier_samples(3, 4, seed=1)
    ctx0 = plant.CreateDefaultContext()
    return SimpleNamespace(
        plant=plant, links=links, wrenches=wrenches, vdot=vdot,
        ctx=[ctx0.replace(q=jnp.asarray(q[k]), v=jnp.asarray(v[k])) for k in range(4)],
        ctx0=ctx0, q=q, v=v,
        reg=jax.jit(lambda c, a: ident.dynamics_regressor(plant, c, a, links)),
        reg_w=jax.jit(lambda c, a: ident.dynamics_regressor(plant, c, a, links, wrenches)),
        tau=jax.jit(lambda c, a: ident.joint_torques(plant, c, a)),
        wr=jax.jit(wrenches, static_argnums=0))


def test_torques_are_affine_in_pi_at_random_states(arm):
    rng = np.random.default_rng(0)
    rnea = jax.jit(lambda c, a: (arm.plant.CalcInverseDynamics(c, a)
                                 - arm.plant.CalcGravityGeneralizedForces(c) + DAMPING * c.v))
    for ctx, vdot in zip(arm.ctx, arm.vdot):
        Y, y0 = arm.reg(ctx, vdot)
        assert Y.shape == (3, 30) and y0.shape == (3,)
        pi = random_inertial_parameters(rng, 3)
        c = ident.context_with_inertial_parameters(ctx, arm.links, pi)
        _close(Y @ pi.ravel() + y0, rnea(c, vdot))
        _close(Y @ pi.ravel() + y0, arm.tau(c, vdot))


def test_regressor_equals_jacfwd_at_any_pi(arm):
    ctx, vdot = arm.ctx[0], arm.vdot[0]
    pi = jnp.asarray(random_inertial_parameters(np.random.default_rng(1), 3).ravel())
    for measure, reg in ((ident.joint_torques, arm.reg), (arm.wrenches, arm.reg_w)):
        J = jax.jit(jax.jacfwd(lambda p, m=measure: m(arm.plant, ident.context_with_inertial_parameters(
            ctx, arm.links, p.reshape(3, 10)), vdot)))(pi)
        _close(reg(ctx, vdot).Y, J)


def test_all_bodies_without_damping_give_tau_equals_Y_pi():
    plant, links = three_link_arm()
    q, v, vdot = fourier_samples(3, 3, seed=2)
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q[1]), v=jnp.asarray(v[1]))
    Y, y0 = jax.jit(lambda c, a: ident.dynamics_regressor(plant, c, a, links))(ctx, vdot[1])
    _close(y0, np.zeros(3))
    pi = ident.inertial_parameters_from_context(ctx, links).ravel()
    _close(Y @ pi, plant.CalcInverseDynamics(ctx, vdot[1]) - plant.CalcGravityGeneralizedForces(ctx))


def test_joint_torques_invert_forward_dynamics(arm):
    ctx, vdot = arm.ctx[2], arm.vdot[2]
    tau = arm.tau(ctx, vdot)
    _close(arm.plant.CalcGeneralizedAccelerations(ctx, applied_generalized_force=tau), vdot, 1e-9)


def test_reaction_wrench_closed_form_static_pendulum():
    plant, (b,) = pendulum_about_y()
    ctx = plant.CreateDefaultContext()
    m, c, _ = ident.mass_com_unit_inertia(ident.inertial_parameters_from_context(ctx, [b])[0])
    F = ident.joint_reaction_wrenches(plant, ctx, np.zeros(1), bodies=[b])
    # At rest the pin holds the weight: force m g up, torque about Bo = c × (m g ẑ).
    _close(F, np.concatenate([np.cross(c, [0.0, 0.0, m * G]), [0.0, 0.0, m * G]]))


def test_reaction_wrench_projects_to_joint_torque(arm):
    axes = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]], float)  # in each link's frame (= M)
    for ctx, vdot in zip(arm.ctx, arm.vdot):
        F = np.asarray(arm.wr(arm.plant, ctx, vdot)).reshape(3, 6)
        _close(np.sum(axes * F[:, :3], 1), arm.tau(ctx, vdot) - DAMPING * ctx.v)


def test_reaction_wrench_at_the_base_is_the_total_weight_at_rest(arm):
    ctx = arm.ctx0.replace(q=arm.ctx[0].q)
    F = arm.wr(arm.plant, ctx, np.zeros(3))[3:6]  # force on the subtree of link 1, in link 1
    R_WB, _ = arm.plant.CalcBodyPosesInWorld(ctx)
    total = 1.5 + 1.0 + 0.6 + TOOL_MASS  # the three links and the welded tool
    _close(R_WB[int(arm.links[0])] @ F, [0.0, 0.0, total * G])


def test_torques_and_wrenches_in_one_pass(arm):
    both = jax.jit(lambda c, a: ident.joint_torques_and_wrenches(arm.plant, c, a, bodies=arm.links))
    for ctx, vdot in zip(arm.ctx[:2], arm.vdot[:2]):
        _close(both(ctx, vdot), np.concatenate([arm.tau(ctx, vdot), arm.wr(arm.plant, ctx, vdot)]))


def test_wrenches_are_affine_in_pi(arm):
    ctx, vdot = arm.ctx[3], arm.vdot[3]
    Y, y0 = arm.reg_w(ctx, vdot)
    assert Y.shape == (18, 30)
    pi = random_inertial_parameters(np.random.default_rng(3), 3)
    _close(Y @ pi.ravel() + y0, arm.wr(arm.plant, ident.context_with_inertial_parameters(
        ctx, arm.links, pi), vdot))


def test_stacked_equals_loop(arm):
    Y, y0 = jax.jit(lambda q, v, a: ident.stacked_regressor(arm.plant, arm.ctx0, q, v, a, arm.links))(
        arm.q, arm.v, arm.vdot)
    assert Y.shape == (4 * 3, 30)
    for k, (ctx, vdot) in enumerate(zip(arm.ctx, arm.vdot)):
        Yk, y0k = arm.reg(ctx, vdot)
        _close(Y[3 * k:3 * k + 3], Yk)
        _close(y0[3 * k:3 * k + 3], y0k)


def test_shape_errors(arm):
    plant, links, ctx = arm.plant, arm.links, arm.ctx0
    with pytest.raises(ValueError, match="dynamics_regressor: vdot"):
        ident.dynamics_regressor(plant, ctx, np.zeros(2), links)
    with pytest.raises(ValueError, match="stacked_regressor: v:"):
        ident.stacked_regressor(plant, ctx, arm.q, arm.v[:, :2], arm.vdot, links)
    with pytest.raises(ValueError, match="stacked_regressor: vdot"):
        ident.stacked_regressor(plant, ctx, arm.q, arm.v, arm.vdot[:2], links)
    with pytest.raises(ValueError, match="joint_reaction_wrenches: vdot"):
        ident.joint_reaction_wrenches(plant, ctx, np.zeros(4), bodies=links)
    with pytest.raises(ValueError, match="joint_torques_and_wrenches: vdot"):
        ident.joint_torques_and_wrenches(plant, ctx, np.zeros(4), bodies=links)
