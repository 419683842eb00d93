"""The implicit-function derivative rule of forward dynamics (`algorithms/implicit_dynamics.py`).

`CalcGeneralizedAccelerations` differentiates as dv̇ = −M⁻¹ ∂r/∂x dx; `engine.forward_dynamics.accelerations_by` is the
same computation differentiated by plain autodiff through ABA / CRBA. The two must agree for every
input a user can differentiate: state, every parameter, actuation (with saturation), applied
generalized and spatial forces, force elements, gravity, disabled gravity; forward and reverse,
under vmap, and to second order (check_grads).
"""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxbody as jb
import tests.helpers.random_trees as rt
from jaxbody.engine.forward_dynamics import accelerations_by
from tests.helpers.random_trees import build_jaxbody, random_state, random_tree

TOL = 1e-9  # relative to the largest entry: two exact derivatives, different roundoff


def _close(a, b, tol=TOL):
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        scale = max(1.0, float(np.abs(np.asarray(y)).max(initial=0.0)))
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=0, atol=tol * scale)


@pytest.fixture(scope="module")
def model():
    """Every Drake joint kind, actuators with rotor inertia, an effort limit, a spring between
    two bodies, damping, and a model instance with gravity disabled."""
    rng = np.random.default_rng(31)
    spec = random_tree(rng, 7, free_fraction=0.2)
    plant = build_jaxbody(spec)
    q, v = random_state(rng, plant)
    ctx = plant.CreateDefaultContext()
    ctx = plant.SetVelocities(plant.SetPositions(ctx, jnp.asarray(q)), jnp.asarray(v))
    return plant, ctx, rng


def _with_extras():
    """A second plant: a spring-damper, an effort-limited actuator, gravity off for one instance."""
    rng = np.random.default_rng(32)
    spec = random_tree(rng, 5, kinds=("revolute", "prismatic", "ball_rpy", "quaternion_floating"),
                       free_fraction=0.0)
    plant = jb.MultibodyPlant(0.0)
    bodies = [plant.world_body()]
    main = plant.AddModelInstance("robot")
    other = plant.AddModelInstance("floating_off")
    for i, (m, c, I) in enumerate(zip(spec.masses, spec.coms, spec.I_cm)):
        G = rt._unit_inertia_about_Bo(m, c, I)
        M = jb.SpatialInertia(m, c, jb.UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2],
                                                    G[1, 2]))
        if i == len(spec.masses) - 1:  # a free body, in the instance without gravity
            bodies.append(plant.AddRigidBody(f"body{i + 1}", other, M))
        else:
            bodies.append(plant.AddRigidBody(f"body{i + 1}", main, M))
    for k, js in enumerate(j for j in spec.joints if j.child != len(spec.masses)):
        P, B = bodies[js.parent], bodies[js.child]
        F = plant.AddFrame(jb.FixedOffsetFrame(f"F{k}", P.body_frame(), jb.RigidTransform(
            jb.RotationMatrix(js.R_PF), js.p_PF)))
        Mf = plant.AddFrame(jb.FixedOffsetFrame(f"M{k}", B.body_frame(), jb.RigidTransform(
            jb.RotationMatrix(js.R_BM), js.p_BM)))
        joint = plant.AddJoint(rt._make_joint(jb, js, f"joint{k}", F, Mf))
        if js.kind == "revolute":
            plant.AddJointActuator(f"motor{k}", joint, effort_limit=0.7)
    plant.AddForceElement(jb.LinearSpringDamper(bodies[1], [0.1, 0.0, 0.0], bodies[-1],
                                                 [0.0, 0.05, 0.0], 0.4, 30.0, 2.0))
    plant.set_gravity_enabled(other, False)
    plant.Finalize()
    q, v = random_state(rng, plant)
    ctx = plant.CreateDefaultContext()
    ctx = plant.SetVelocities(plant.SetPositions(ctx, jnp.asarray(q)), jnp.asarray(v))
    return plant, ctx, rng


@pytest.fixture(scope="module")
def extras():
    return _with_extras()


def _fd_pair(plant, method):
    """(implicit rule, plain autodiff) forward dynamics of (context, inputs...)."""
    def implicit(ctx, u=None, forces=None, tau=None, spatial=None):
        return plant.CalcGeneralizedAccelerations(ctx, u, forces, method,
                                                  applied_generalized_force=tau,
                                                  applied_spatial_force=spatial)

    def plain(ctx, u=None, forces=None, tau=None, spatial=None):
        return accelerations_by(plant.compiled_model(), ctx, u, forces, tau, spatial, method)

    return implicit, plain


@pytest.fixture(scope="module")
def state_derivatives(model):
    """method -> {"implicit" | "plain": {"fwd": ..., "rev": ...}}: jitted functions of (q, v),
    "fwd" returning (v̇, (∂v̇/∂q, ∂v̇/∂v)) by forward mode, "rev" the Jacobians by reverse mode;
    each compiled once (when first called) and shared by the tests that differentiate the state."""
    plant, ctx, _ = model

    @functools.cache
    def get(method):
        out = {}
        for name, f in zip(("implicit", "plain"), _fd_pair(plant, method)):
            def of_state(q, v, f=f):
                return f(plant.SetVelocities(plant.SetPositions(ctx, q), v))

            out[name] = {
                "fwd": jax.jit(lambda q, v, g=of_state: (g(q, v), jax.jacfwd(g, argnums=(0, 1))(q, v))),
                "rev": jax.jit(jax.jacrev(of_state, argnums=(0, 1)))}
        return out

    return get


@pytest.mark.parametrize("method, modes", [("aba", ("fwd", "rev")), ("crba", ("fwd",))])
def test_state_jacobians_match_plain_autodiff(model, state_derivatives, method, modes):
    """The rule does not depend on the method (only the primal does): reverse mode once."""
    _, ctx, _ = model
    fns = state_derivatives(method)

    for mode in modes:
        got = fns["implicit"][mode](ctx.q, ctx.v)
        want = fns["plain"][mode](ctx.q, ctx.v)
        _close(got, want)
    (got, _), (want, _) = (fns[name]["fwd"](ctx.q, ctx.v) for name in ("implicit", "plain"))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-11)


def test_parameter_gradient_matches_plain_autodiff(model):
    """Every parameter at once (masses, inertias, frames, damping, rotor inertia, gravity).

    Unit inertias are compared by their symmetric part: the only directions in which a
    symmetric matrix can move (ABA and RNEA extend differently to non-symmetric matrices)."""
    plant, ctx, rng = model
    w = jnp.asarray(rng.normal(size=plant.num_velocities()))
    implicit, plain = _fd_pair(plant, "aba")

    def loss(f):
        return jax.jit(jax.grad(lambda P: jnp.sum(w * f(ctx.replace(parameters=P)) ** 2)))

    got, want = loss(implicit)(ctx.parameters), loss(plain)(ctx.parameters)

    def sym(P):
        G = P.unit_inertia
        return dataclasses.replace(P, unit_inertia=0.5 * (G + jnp.swapaxes(G, -1, -2)))

    _close(sym(got), sym(want))


def test_inputs_and_force_elements_match_plain_autodiff(extras):
    """Saturated actuation, MultibodyForces, generalized and spatial forces, a spring-damper,
    disabled gravity: Jacobians w.r.t. every input, both modes."""
    plant, ctx, rng = extras
    implicit, plain = _fd_pair(plant, plant.forward_dynamics_method())
    nu, nv, nb = plant.num_actuators(), plant.num_velocities(), plant.num_bodies()
    u = jnp.asarray(rng.normal(size=nu) * 2.0)  # some beyond the 0.7 limit
    tau = jnp.asarray(rng.normal(size=nv))
    Fb = jnp.asarray(rng.normal(size=(nb, 6)))
    F_app = jnp.asarray(rng.normal(size=6))
    body = plant.GetBodyByName("body2")

    def run(f):
        def g(q, v, u, tau, Fb, F_app):
            c = plant.SetVelocities(plant.SetPositions(ctx, q), v)
            forces = jb.MultibodyForces(plant, tau, Fb)
            spatial = [jb.ExternallyAppliedSpatialForce(body.index(), jnp.array([0.1, 0.2, 0.0]),
                                                        F_app)]
            return f(c, u, forces, 0.5 * tau, spatial)
        return g

    def both_modes(f):  # one compiled function per rule (it shares the primal between modes)
        return jax.jit(lambda *a: tuple(jac(f, argnums=tuple(range(6)))(*a)
                                        for jac in (jax.jacfwd, jax.jacrev)))

    args = (ctx.q, ctx.v, u, tau, Fb, F_app)
    got, want = both_modes(run(implicit))(*args), both_modes(run(plain))(*args)
    for g, w in zip(got, want):  # forward, then reverse mode
        _close(g, w)


@pytest.mark.parametrize("which", ["model", "extras"])
def test_linearization_at_known_derivatives_equals_jacfwd(model, extras, which):
    """`CalcTimeDerivativesLinearization` (the rollout adjoint's stage model, no forward
    dynamics evaluated) against jacfwd of ẋ by plain autodiff through ABA (not the implicit
    rule): ∂ẋ/∂x, M⁻¹, and the actuation tangent as −diag(1, M⁻¹) ∂R/∂u from the implicit
    residual. Both plants: every joint kind, and the spring-damper, saturated actuators and
    gravity-disabled instance of `extras`."""
    plant, ctx, rng = model if which == "model" else extras
    nq, nu = plant.num_positions(), plant.num_actuators()
    u = jnp.asarray(rng.normal(size=nu) * 2.0) if nu else None
    _, plain = _fd_pair(plant, "aba")

    def xdot(x, u):
        c = ctx.replace(q=x[:nq], v=x[nq:])
        return jnp.concatenate([plant.MapVelocityToQDot(c, c.v), plain(c, u)])

    @jax.jit
    def run(x, u):
        k = xdot(x, u)
        c = ctx.replace(q=x[:nq], v=x[nq:])
        lin = plant.CalcTimeDerivativesLinearization(c, k, u)
        out = (lin.A, lin.mass_matrix_inverse, jax.jacfwd(xdot)(x, u), plant.CalcMassMatrix(c))
        if u is None:
            return out
        R_u = jax.jacfwd(lambda u_: plant.CalcImplicitTimeDerivativesResidual(c, k, u_))(u)
        via_R = -jnp.concatenate([R_u[:nq], lin.mass_matrix_inverse @ R_u[nq:]])
        return out + (via_R, jax.jacfwd(xdot, 1)(x, u))

    got = run(jnp.concatenate([ctx.q, ctx.v]), u)
    np.testing.assert_allclose(xdot(jnp.concatenate([ctx.q, ctx.v]), u),
                               plant.CalcTimeDerivatives(ctx, u), rtol=0, atol=1e-10)
    _close(got[0], got[2])
    _close(got[1] @ got[3], jnp.eye(plant.num_velocities()))
    if u is not None:
        _close(got[4], got[5])
    with pytest.raises(ValueError, match="time_derivatives"):
        plant.CalcTimeDerivativesLinearization(ctx, jnp.zeros(3))


def test_vmap_of_jacobian_and_jacobian_of_vmap(model, state_derivatives):
    """Against the per-sample derivatives of the state test (compiled once, there): ∂v̇/∂q by
    forward mode, and ∇_q Σ v̇² = 2 (∂v̇/∂q)ᵀ v̇ with the Jacobian by reverse mode."""
    plant, ctx, rng = model
    implicit, _ = _fd_pair(plant, "aba")
    one = state_derivatives("aba")["implicit"]
    qs = jnp.stack([jnp.asarray(random_state(rng, plant)[0]) for _ in range(3)])

    def fd_q(q):
        return implicit(plant.SetPositions(ctx, q))

    per_sample = [one["fwd"](q, ctx.v) for q in qs]  # (v̇, (∂v̇/∂q, ∂v̇/∂v))
    batched, of_vmap = jax.jit(lambda Q: (  # both in one compiled function
        jax.vmap(jax.jacfwd(fd_q))(Q), jax.grad(lambda Q: jnp.sum(jax.vmap(fd_q)(Q) ** 2))(Q)))(qs)
    _close(batched, jnp.stack([jac[0] for _, jac in per_sample]))
    one_grad = [2 * one["rev"](q, ctx.v)[0].T @ a for q, (a, _) in zip(qs, per_sample)]
    _close(of_vmap, jnp.stack(one_grad))


@pytest.mark.slow
def test_check_grads_second_order():
    rng = np.random.default_rng(33)
    plant = build_jaxbody(random_tree(rng, 2, kinds=("revolute", "quaternion_floating"),
                                      free_fraction=0.0))
    q, v = random_state(rng, plant)
    ctx = plant.CreateDefaultContext()
    tau = jnp.asarray(rng.normal(size=plant.num_velocities()))

    @jax.jit
    def f(q, v, tau):
        c = plant.SetVelocities(plant.SetPositions(ctx, q), v)
        return plant.CalcGeneralizedAccelerations(c, applied_generalized_force=tau, method="aba")

    # reverse over reverse: first-order forward and reverse derivatives are compared with
    # plain autodiff above (jacfwd, jacrev); fwd-over-fwd here doubled this test's compile time
    check_grads(f, (jnp.asarray(q), jnp.asarray(v), tau), order=2, modes=["rev"],
                eps=1e-5, atol=1e-4, rtol=1e-4)
