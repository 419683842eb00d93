"""`rollout`'s adjoint derivatives (`rollout_adjoint.linearized_rollout`) against plain autodiff
of the scan (``adjoint=False``): every differentiable input (masses, controls, controller
parameters, PD desired states, dt, the initial time and state), forward and reverse mode, a
floating body with the quaternion projection under vmap of grad, and the exclusive options.
(`test_rollout` checks the default, adjoint, gradients against finite differences.)"""

import dataclasses
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.simulation.rollout_adjoint import jax_supports_adjoint

# the adjoint needs jax >= 0.10 (rollout refuses it below); the refusal test runs on any jax
needs_adjoint = pytest.mark.skipif(not jax_supports_adjoint(),
                                   reason="the adjoint needs jax >= 0.10")

N = 12
TOL = 1e-10


def _pendulum():
    plant = jb.MultibodyPlant(0.0)
    a = plant.AddRigidBody("a", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.05, 0.05, 1.0))
    b = plant.AddRigidBody("b", jb.SpatialInertia.PointMass(0.5, np.array([0.0, 0.0, -0.7])))
    j1 = plant.AddJoint(jb.RevoluteJoint("j1", plant.world_frame(), a.body_frame(), [0, 1, 0],
                                         0.1))
    F = plant.AddFrame(jb.FixedOffsetFrame("tip", a.body_frame(), jb.RigidTransform([0, 0, -0.5])))
    j2 = plant.AddJoint(jb.RevoluteJoint("j2", F, b.body_frame(), [0, 1, 0], 0.1))
    plant.AddJointActuator("m1", j1)
    plant.AddJointActuator("m2", j2).set_controller_gains(jb.PdControllerGains(20.0, 2.0))
    plant.AddForceElement(jb.RevoluteSpring(j2, 0.3, 4.0))
    plant.Finalize()
    ctx = plant.SetPositionsAndVelocities(plant.CreateDefaultContext(),
                                          jnp.asarray([1.2, -0.7, 0.3, 1.0]))
    return plant, ctx.replace(time=0.3)


def _controller(t, x, p):
    return -p["K"] @ x[:2] * jnp.cos(t)


@pytest.fixture(scope="module")
def pendulum():
    plant, ctx = _pendulum()
    rng = np.random.default_rng(0)
    inputs = {"m": jnp.full(ctx.parameters.mass.shape, 1.1),
              "U": jnp.asarray(rng.normal(size=(N, 2))),
              "XD": jnp.asarray(rng.normal(size=(N, 4)) * 0.3),
              "P": {"K": jnp.asarray(rng.normal(size=(2, 2)))},
              "dt": jnp.asarray(0.01), "x0": jnp.asarray([1.2, -0.7, 0.3, 1.0])}

    def loss(inp, integrator, adjoint):
        c = ctx.replace(q=inp["x0"][:2], v=inp["x0"][2:], parameters=dataclasses.replace(
            ctx.parameters, mass=ctx.parameters.mass * inp["m"]))
        r = jb.rollout(plant, c, _controller, N, inp["dt"], params=inp["P"], controls=inp["U"],
                       integrator=integrator, adjoint=adjoint, desired_states=inp["XD"])
        return jnp.sum(r.states ** 2) + jnp.sum(jnp.sin(r.final_state))

    return plant, ctx, inputs, loss


def _rel(a, b):
    return jax.tree_util.tree_map(
        lambda x, y: float(jnp.max(jnp.abs(x - y)) / max(1e-300, float(jnp.max(jnp.abs(y))))),
        a, b)


@needs_adjoint
@pytest.mark.parametrize("integrator", ["rk4", "semi_implicit_euler"])
def test_adjoint_gradient_equals_plain_autodiff(pendulum, integrator):
    """RK4 (four stages) and semi-implicit Euler (two, the second read for q̇ only) cover
    the replay's cases; forward mode (jacfwd in x0) is checked against reverse mode on RK4."""
    _, _, inputs, loss = pendulum

    def both(inp):
        out = (jax.value_and_grad(loss)(inp, integrator, True),
               jax.value_and_grad(loss)(inp, integrator, False))
        if integrator == "rk4":
            out += (jax.jacfwd(lambda x0: loss(dict(inp, x0=x0), integrator, True))(inp["x0"]),)
        return out

    (va, ga), (vp, gp), *fwd = jax.jit(both)(inputs)
    assert float(abs(va - vp)) <= TOL * abs(float(vp))
    errs = _rel(ga, gp)
    assert max(jax.tree_util.tree_leaves(errs)) < TOL, errs
    assert all(float(jnp.max(jnp.abs(g))) > 0 for g in jax.tree_util.tree_leaves(gp))
    for jf in fwd:
        np.testing.assert_allclose(jf, gp["x0"], rtol=TOL, atol=0)


@needs_adjoint
def test_implicit_stages_equal_plain_autodiff(pendulum, monkeypatch):
    """Without a controller or desired states the adjoint linearizes its stages from the
    plant's implicit form (`CalcTimeDerivativesLinearization` at the recorded ẋ, no forward
    dynamics again; damping, a spring, actuation): masses, controls, dt and x0 by reverse mode,
    and x0 by forward mode, equal plain autodiff's."""
    plant, ctx, inputs, _ = pendulum
    inp = {k: inputs[k] for k in ("m", "U", "dt", "x0")}
    traced = []
    linearization = plant.CalcTimeDerivativesLinearization
    monkeypatch.setattr(plant, "CalcTimeDerivativesLinearization",
                        lambda *a: traced.append(1) or linearization(*a))

    def loss(inp, adjoint):
        c = ctx.replace(q=inp["x0"][:2], v=inp["x0"][2:], parameters=dataclasses.replace(
            ctx.parameters, mass=ctx.parameters.mass * inp["m"]))
        r = jb.rollout(plant, c, None, N, inp["dt"], controls=inp["U"], adjoint=adjoint)
        return jnp.sum(r.states ** 2) + jnp.sum(jnp.sin(r.final_state))

    (va, ga), (vp, gp), jf = jax.jit(lambda i: (
        jax.value_and_grad(loss)(i, True), jax.value_and_grad(loss)(i, False),
        jax.jacfwd(lambda x0: loss(dict(i, x0=x0), True))(i["x0"])))(inp)
    assert traced, "the adjoint did not take the plant's implicit form"
    assert float(abs(va - vp)) <= TOL * abs(float(vp))
    errs = _rel(ga, gp)
    assert max(jax.tree_util.tree_leaves(errs)) < TOL, errs
    assert all(float(jnp.max(jnp.abs(g))) > 0 for g in jax.tree_util.tree_leaves(gp))
    np.testing.assert_allclose(jf, gp["x0"], rtol=TOL, atol=0)


@pytest.fixture(scope="module")
def tumbling_box():
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("box", jb.SpatialInertia.SolidBoxWithMass(2.0, 0.1, 0.3, 0.6))
    plant.AddForceElement(jb.LinearSpringDamper(plant.world_body(), [0.0, 0, 0.5], body,
                                                [0.05, 0.1, 0], 0.3, 40.0, 0.5))
    plant.Finalize()
    ctx = plant.SetVelocities(plant.CreateDefaultContext(),
                              jnp.asarray([3.0, -1.0, 2.0, 0.1, 0.2, -0.3]))
    return plant, ctx


@needs_adjoint
def test_floating_body_quaternion_projection_under_vmap(tumbling_box):
    """The quaternion projection is part of the replayed step; gradients of a batch of
    initial velocities (vmap of grad) equal plain autodiff's, member by member."""
    plant, ctx = tumbling_box

    def loss(v0, adjoint):
        r = jb.rollout(plant, ctx.replace(v=v0), None, N, 0.01, integrator="rk4",
                       adjoint=adjoint, save_trajectory=False)
        return jnp.sum(r.final_state[:4] * jnp.arange(1.0, 5.0)) + jnp.sum(r.final_state ** 2)

    v0s = ctx.v + jnp.asarray([[0.0], [0.5], [-1.0]])
    ga = jax.jit(jax.vmap(jax.grad(loss), (0, None)), static_argnums=1)(v0s, True)
    gp = jax.jit(jax.grad(loss), static_argnums=1)
    gp = jnp.stack([gp(v, False) for v in v0s])
    assert float(jnp.max(jnp.abs(ga - gp)) / jnp.max(jnp.abs(gp))) < TOL


@needs_adjoint
def test_adjoint_and_checkpoint_are_exclusive(pendulum):
    plant, ctx, _, _ = pendulum
    with pytest.raises(ValueError, match="adjoint=True and checkpoint"):
        jb.rollout(plant, ctx, None, 4, 0.01, adjoint=True, checkpoint=2)
    with pytest.raises(ValueError, match="adjoint must be None, True or False"):
        jb.rollout(plant, ctx, None, 4, 0.01, adjoint="yes")
    # checkpoint alone takes plain autodiff
    out = jb.rollout(plant, ctx, None, 4, 0.01, checkpoint=2)
    assert out.states.shape == (5, 4)


def test_old_jax_refuses_the_adjoint_by_name(pendulum, monkeypatch):
    plant, ctx, _, _ = pendulum
    # the module (the package exports the function under the same name)
    monkeypatch.setattr(sys.modules["jaxbody.simulation.rollout"], "jax_supports_adjoint",
                        lambda: False)
    with pytest.raises(ValueError, match="adjoint=True needs jax >= 0.10"):
        jb.rollout(plant, ctx, None, 4, 0.01, adjoint=True)
    assert jb.rollout(plant, ctx, None, 4, 0.01).states.shape == (5, 4)  # default: plain
