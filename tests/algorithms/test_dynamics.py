"""Dynamics in four layers: closed forms (pendulum, acrobot, prismatic chain, torque-free body),
identities (ABA = M⁻¹(τ − C v + τ_g), ID(FD) = τ, vᵀṀv = 2vᵀCv, Ṁ − 2C skew, M SPD,
KE = ½vᵀMv, energy conservation), gradients (check_grads forward and reverse), float32."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxbody as jb
from tests.helpers.models import double_pendulum, pendulum
from tests.helpers.random_trees import build_jaxbody, random_state, random_tree

TOL = 1e-11
G = 9.81


def _ctx(plant, q, v):
    return plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), jnp.asarray(q)),
                               jnp.asarray(v))


@pytest.fixture(scope="module")
def tree():
    rng = np.random.default_rng(21)
    spec = random_tree(rng, 9, free_fraction=0.2)
    for js in spec.joints:
        js.damping = 0.0
    plant = build_jaxbody(spec)
    q, v = random_state(rng, plant)
    return plant, _ctx(plant, q, v), rng


@pytest.fixture(scope="module")
def chain_tree():
    """Revolute/prismatic/screw only, so q̇ = v and Christoffel symbols are plain derivatives."""
    rng = np.random.default_rng(22)
    plant = build_jaxbody(random_tree(rng, 6, kinds=("revolute", "prismatic", "screw"),
                                      free_fraction=0.0))
    q, v = random_state(rng, plant)
    return plant, _ctx(plant, q, v), rng


def test_pendulum_closed_form():
    plant, _ = pendulum(length=1.5, mass=2.0)
    th, thd = 0.6, 1.1
    ctx = _ctx(plant, [th], [thd])
    np.testing.assert_allclose(plant.CalcMassMatrix(ctx), [[2.0 * 1.5**2]], atol=TOL)
    np.testing.assert_allclose(plant.CalcBiasTerm(ctx), [0.0], atol=TOL)
    np.testing.assert_allclose(plant.CalcGravityGeneralizedForces(ctx),
                               [-2.0 * G * 1.5 * np.sin(th)], atol=TOL)
    np.testing.assert_allclose(plant.CalcGeneralizedAccelerations(ctx),
                               [-G / 1.5 * np.sin(th)], atol=TOL)
    np.testing.assert_allclose(plant.CalcPotentialEnergy(ctx), -2.0 * G * 1.5 * np.cos(th),
                               atol=TOL)
    np.testing.assert_allclose(plant.CalcKineticEnergy(ctx), 0.5 * 2.0 * 1.5**2 * thd**2, atol=TOL)


def test_acrobot_mass_matrix_and_bias():
    l1, l2, m1, m2 = 1.0, 0.7, 1.0, 0.5
    plant, _, _ = double_pendulum(l1, l2, m1, m2)
    q1, q2, v1, v2 = 0.3, -0.8, 0.9, -1.7
    ctx = _ctx(plant, [q1, q2], [v1, v2])
    c2, s2 = np.cos(q2), np.sin(q2)
    M = np.array([[m1 * l1**2 + m2 * (l1**2 + l2**2 + 2 * l1 * l2 * c2), m2 * (l2**2 + l1 * l2 * c2)],
                  [m2 * (l2**2 + l1 * l2 * c2), m2 * l2**2]])
    Cv = np.array([-m2 * l1 * l2 * s2 * (2 * v1 * v2 + v2**2), m2 * l1 * l2 * s2 * v1**2])
    np.testing.assert_allclose(plant.CalcMassMatrix(ctx), M, atol=TOL)
    np.testing.assert_allclose(plant.CalcBiasTerm(ctx), Cv, atol=TOL)


def test_prismatic_chain():
    plant = jb.MultibodyPlant(0.0)
    a = plant.AddRigidBody("a", jb.SpatialInertia.SolidSphereWithMass(2.0, 0.1))
    b = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(3.0, 0.1))
    plant.AddJoint(jb.PrismaticJoint("x1", plant.world_frame(), a.body_frame(), [1, 0, 0]))
    plant.AddJoint(jb.PrismaticJoint("x2", a.body_frame(), b.body_frame(), [1, 0, 0]))
    plant.Finalize()
    ctx = _ctx(plant, [0.3, -0.2], [1.0, 2.0])
    np.testing.assert_allclose(plant.CalcMassMatrix(ctx), [[5.0, 3.0], [3.0, 3.0]], atol=TOL)
    np.testing.assert_allclose(plant.CalcBiasTerm(ctx), [0.0, 0.0], atol=TOL)
    np.testing.assert_allclose(plant.CalcGravityGeneralizedForces(ctx), [0.0, 0.0], atol=TOL)


def test_torque_free_rigid_body_follows_euler_equations():
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("body", jb.SpatialInertia.SolidBoxWithMass(3.0, 0.2, 0.5, 0.9))
    plant.Finalize()
    ctx = plant.SetGravityVector(plant.CreateDefaultContext(), jnp.zeros(3))
    R = jb.RollPitchYaw([0.4, -0.3, 1.2]).ToRotationMatrix()
    ctx = plant.SetFreeBodyPose(ctx, body, jb.RigidTransform(R, [1.0, 2.0, 3.0]))
    w_W = jnp.array([0.7, -1.3, 2.1])
    ctx = plant.SetFreeBodySpatialVelocity(body, jb.SpatialVelocity(w_W, jnp.array([0.1, 0, 0])), ctx)
    I_B = np.asarray(jb.SpatialInertia.SolidBoxWithMass(3.0, 0.2, 0.5, 0.9)
                     .CalcRotationalInertia().CopyToFullMatrix3())
    w_B = R.matrix().T @ w_W
    wdot_B = np.linalg.solve(I_B, -np.cross(w_B, I_B @ w_B))
    vdot = plant.CalcGeneralizedAccelerations(ctx)
    np.testing.assert_allclose(vdot[:3], R.matrix() @ wdot_B, atol=TOL)
    np.testing.assert_allclose(vdot[3:], np.zeros(3), atol=TOL)


def test_forward_dynamics_identities(tree):
    plant, ctx, rng = tree
    tau_g = plant.CalcGravityGeneralizedForces(ctx)
    M, Cv = plant.CalcMassMatrix(ctx), plant.CalcBiasTerm(ctx)
    for method in ("aba", "crba"):
        vdot = plant.CalcGeneralizedAccelerations(ctx, method=method)
        np.testing.assert_allclose(vdot, np.linalg.solve(M, tau_g - Cv), atol=1e-10)
        # ID(FD) = τ: the inverse dynamics of the computed accelerations gives back gravity.
        np.testing.assert_allclose(plant.CalcInverseDynamics(ctx, vdot), tau_g, atol=1e-10)
    np.testing.assert_allclose(M, M.T, atol=1e-14)
    assert np.linalg.eigvalsh(M).min() > 0
    np.testing.assert_allclose(plant.CalcKineticEnergy(ctx), 0.5 * ctx.v @ M @ ctx.v, atol=1e-12)
    np.testing.assert_allclose(plant.CalcMassMatrixViaInverseDynamics(ctx), M, atol=1e-12)


def test_mdot_minus_2c_is_skew(chain_tree):
    plant, ctx, _ = chain_tree

    def M_of(q):
        return plant.CalcMassMatrix(plant.SetPositions(ctx, q))

    dMdq = jax.jit(jax.jacfwd(M_of))(ctx.q)  # (nv, nv, nq)
    v = ctx.v
    Mdot = dMdq @ v
    # Christoffel form: C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) v_k.
    C = 0.5 * (Mdot + jnp.einsum("ikj,k->ij", dMdq, v) - jnp.einsum("jki,k->ij", dMdq, v))
    np.testing.assert_allclose(C @ v, plant.CalcBiasTerm(ctx), atol=1e-10)
    S = Mdot - 2 * C
    np.testing.assert_allclose(S, -S.T, atol=1e-10)


def test_vt_mdot_v_is_twice_vt_cv(tree):
    plant, ctx, _ = tree
    qdot = plant.MapVelocityToQDot(ctx, ctx.v)
    _, Mdot = jax.jit(lambda q, dq: jax.jvp(
        lambda x: plant.CalcMassMatrix(plant.SetPositions(ctx, x)), (q,), (dq,)))(ctx.q, qdot)
    np.testing.assert_allclose(ctx.v @ Mdot @ ctx.v, 2 * ctx.v @ plant.CalcBiasTerm(ctx), atol=1e-10)


def test_energy_conserved_without_damping(tree):
    plant, ctx, _ = tree
    dt, steps = 1e-3, 300

    def f(x):
        c = plant.SetPositionsAndVelocities(ctx, x)
        return plant.CalcTimeDerivatives(c)

    def step(x, _):
        k1 = f(x)
        k2 = f(x + 0.5 * dt * k1)
        k3 = f(x + 0.5 * dt * k2)
        k4 = f(x + dt * k3)
        return x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4), None

    def energy(x):
        c = plant.SetPositionsAndVelocities(ctx, x)
        return plant.CalcKineticEnergy(c) + plant.CalcPotentialEnergy(c)

    x0 = plant.GetPositionsAndVelocities(ctx)
    xT, _ = jax.jit(lambda x: jax.lax.scan(step, x, None, length=steps))(x0)
    E0, ET = energy(x0), energy(xT)
    assert abs(ET - E0) < 1e-6 * max(1.0, abs(E0))


def test_power_is_energy_rate(tree):
    plant, ctx, _ = tree
    qdot = plant.MapVelocityToQDot(ctx, ctx.v)
    _, dU = jax.jvp(lambda q: plant.CalcPotentialEnergy(plant.SetPositions(ctx, q)), (ctx.q,), (qdot,))
    np.testing.assert_allclose(plant.CalcConservativePower(ctx), -dU, atol=1e-10)


def test_gradients_wrt_state_and_inertial_parameters():
    rng = np.random.default_rng(23)
    plant = build_jaxbody(random_tree(rng, 4, kinds=("revolute", "ball_rpy", "prismatic",
                                                     "quaternion_floating")))
    q, v = random_state(rng, plant)
    ctx = _ctx(plant, q, v)
    body = plant._bodies[2]

    def f(q, v, mass, com, tau):
        c = plant.SetVelocities(plant.SetPositions(ctx, q), v)
        c = body.SetCenterOfMassInBodyFrame(body.SetMass(c, mass), com)
        M = plant.CalcMassMatrix(c)
        ID = plant.CalcInverseDynamics(c, tau)
        FD = plant.CalcGeneralizedAccelerations(
            c, applied_forces=jb.MultibodyForces(plant, tau), method="aba")
        return jnp.sum(M * M) + jnp.sum(ID * tau) + jnp.sum(FD**2)

    args = (ctx.q, ctx.v, jnp.asarray(1.7), jnp.array([0.05, -0.02, 0.1]),
            jnp.asarray(rng.normal(size=plant.num_velocities())))
    check_grads(jax.jit(f), args, order=1, modes=["fwd", "rev"], eps=1e-6, atol=1e-5, rtol=1e-5)


def test_float32_error_is_small(tree):
    plant, ctx, _ = tree
    c32 = ctx.astype(jnp.float32)
    for fn, tol in ((plant.CalcMassMatrix, 1e-5), (plant.CalcBiasTerm, 1e-4),
                    (plant.CalcGeneralizedAccelerations, 1e-3)):
        a32, a64 = np.asarray(fn(c32)), np.asarray(fn(ctx))
        assert a32.dtype == np.float32
        err = np.abs(a32 - a64).max() / max(1.0, np.abs(a64).max())
        assert err < tol, (fn.__name__, err)


def test_vmap_over_masses_equals_loop(tree):
    plant, ctx, _ = tree
    body = plant._bodies[1]

    def fd(m):
        return plant.CalcGeneralizedAccelerations(body.SetMass(ctx, m))

    ms = jnp.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(jax.jit(jax.vmap(fd))(ms), jnp.stack([fd(m) for m in ms]), atol=1e-12)


def test_dynamics_argument_errors(tree):
    plant, ctx, _ = tree
    with pytest.raises(ValueError, match="known_vdot"):
        plant.CalcInverseDynamics(ctx, jnp.zeros(2))
    with pytest.raises(ValueError, match="actuation"):
        plant.CalcGeneralizedAccelerations(ctx, jnp.zeros(5))
    with pytest.raises(ValueError, match="method must be"):
        plant.CalcGeneralizedAccelerations(ctx, method="euler")
    with pytest.raises(ValueError, match="proposed_derivatives"):
        plant.CalcImplicitTimeDerivativesResidual(ctx, jnp.zeros(3))
    with pytest.raises(ValueError, match="generalized_forces"):
        jb.MultibodyForces(plant, jnp.zeros(1))
    with pytest.raises(ValueError, match="more than once"):
        plant.MakeStateSelectorMatrix([jb.JointIndex(0), jb.JointIndex(0)])


def test_forces_without_body_forces_are_known_zero(tree):
    """A `MultibodyForces` whose body forces were never set carries None for them (the dynamics
    skip their terms); every result equals that of explicit zero body forces, and adding one
    force makes them an array."""
    plant, ctx, rng = tree
    tau = jnp.asarray(rng.normal(size=plant.num_velocities()))
    lazy = jb.MultibodyForces(plant, tau)
    explicit = jb.MultibodyForces(plant, tau, jnp.zeros((plant.num_bodies(), 6)))
    assert lazy.body_forces_if_any() is None and lazy.num_bodies() == plant.num_bodies()
    np.testing.assert_array_equal(lazy.body_forces(), explicit.body_forces())
    assert (lazy + lazy).body_forces_if_any() is None
    with pytest.raises(ValueError, match="num_bodies"):  # no plant and no size for them
        jb.MultibodyForces(None, tau)
    assert jax.tree_util.tree_map(lambda x: x, lazy).body_forces_if_any() is None
    body = plant.get_body(jb.BodyIndex(1))
    pushed = lazy.AddInForceInWorld(body, jnp.arange(6.0))
    np.testing.assert_array_equal(pushed.body_forces()[1], np.arange(6.0))
    for f in (lambda c, F: plant.CalcGeneralizedAccelerations(c, applied_forces=F),
              lambda c, F: plant.CalcInverseDynamics(c, jnp.ones(plant.num_velocities()), F),
              lambda c, F: jax.jacfwd(lambda q: plant.CalcGeneralizedAccelerations(
                  c.replace(q=q), applied_forces=F))(c.q)):
        np.testing.assert_allclose(f(ctx, lazy), f(ctx, explicit), rtol=1e-12, atol=1e-12)
