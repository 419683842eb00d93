"""Force elements without a reference engine: power balance dE/dt = Pnc (+ joint damping), the
conservative power Pc = −dU/dt, gradients w.r.t. element parameters, vmap over parameters,
CalcForceElementsContribution, and every error path."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from tests.helpers import force_models as fm

POWER_TOL = 1e-9  # relative to max(1, |P|)


@pytest.fixture(scope="module")
def model():
    plant, info = fm.build("jaxbody", "all")
    rng = np.random.default_rng(3)
    q, v = fm.random_state(rng, plant)
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), jnp.asarray(q)),
                              jnp.asarray(v))
    return plant, info, ctx


def _energy_rates(plant, ctx):
    """(dE/dt, dU/dt, Pnc, P_damping, Pc) at ctx, with dE/dt from a JVP along ẋ."""
    nq = plant.num_positions()

    def energies(x):
        c = plant.SetPositionsAndVelocities(ctx, x)
        return plant.CalcKineticEnergy(c) + plant.CalcPotentialEnergy(c), plant.CalcPotentialEnergy(c)

    x = jnp.concatenate([ctx.q, ctx.v])
    xdot = plant.CalcTimeDerivatives(ctx)
    _, (dE, dU) = jax.jvp(energies, (x,), (xdot,))
    del nq
    return dE, dU, plant.CalcNonConservativePower(ctx), plant.CalcJointDampingPower(ctx), \
        plant.CalcConservativePower(ctx)


def test_power_balance_all_elements(model):
    plant, _, ctx = model
    dE, dU, Pnc, Pd, Pc = jax.jit(lambda c: _energy_rates(plant, c))(ctx)
    scale = max(1.0, float(abs(Pnc)), float(abs(Pd)))
    assert abs(float(dE - (Pnc + Pd))) < POWER_TOL * scale
    assert abs(float(Pc + dU)) < POWER_TOL * max(1.0, float(abs(Pc)))
    assert float(Pnc) != 0.0


def test_bushing_energy_and_power_match_their_definitions(model):
    plant, info, ctx = model
    b = info["bushing"]
    U = b.CalcPotentialEnergy(ctx)
    rpy = b.CalcBushingRollPitchYawAngles(ctx).vector()
    xyz = b.CalcBushingDisplacement(ctx)
    k012, _, kxyz, _ = (np.asarray(k) for k in fm.BUSHING_K)
    assert np.isclose(U, 0.5 * (k012 @ rpy**2 + kxyz @ xyz**2))
    X_AB = b.CalcBushingFrameBPoseInA(ctx)
    X_AC = plant.CalcRelativeTransform(ctx, b.frameA(), b.frameC())
    np.testing.assert_allclose(X_AB.translation(), 0.5 * X_AC.translation(), atol=1e-14)
    R_AB = np.asarray(X_AB.rotation().matrix())
    np.testing.assert_allclose(R_AB @ R_AB, X_AC.rotation().matrix(), atol=1e-12)
    # Element power equals the power of its spatial forces on frames A and C.
    F_A = b.CalcBushingSpatialForceOnFrameA(ctx)
    F_C = b.CalcBushingSpatialForceOnFrameC(ctx)
    W = plant.world_frame()
    V_A = plant.CalcSpatialVelocity(ctx, b.frameA(), W, b.frameA())
    V_C = plant.CalcSpatialVelocity(ctx, b.frameC(), W, b.frameC())
    P = F_A.dot(V_A) + F_C.dot(V_C)
    P_elem = b.CalcConservativePower(ctx) + b.CalcNonConservativePower(ctx)
    assert abs(float(P - P_elem)) < POWER_TOL * max(1.0, abs(float(P)))
    # Undamped and isotropic: conservative (the circulatory term of anisotropic Kxyz vanishes).
    c = b.SetTorqueDampingConstants(b.SetForceDampingConstants(ctx, jnp.zeros(3)), jnp.zeros(3))
    assert abs(float(b.CalcNonConservativePower(b.SetForceStiffnessConstants(
        c, jnp.full(3, 150.0))))) < 1e-10
    assert abs(float(b.CalcNonConservativePower(c))) > 1e-6


def test_contribution_includes_damping_and_gravity(model):
    plant, _, ctx = model
    f = plant.CalcForceElementsContribution(ctx)
    tau_total = plant.CalcGeneralizedForces(ctx, f)
    tau_g = plant.CalcGravityGeneralizedForces(ctx)
    # Removing gravity and damping leaves the elements' own part, which is non-zero.
    rest = tau_total - tau_g + ctx.parameters.damping * ctx.v
    assert np.abs(np.asarray(rest)).max() > 1e-3
    xdot_no_inputs = plant.CalcTimeDerivatives(ctx)
    M = plant.CalcMassMatrix(ctx)
    vdot = np.linalg.solve(M, tau_total - plant.CalcBiasTerm(ctx))
    np.testing.assert_allclose(xdot_no_inputs[plant.num_positions():], vdot, rtol=1e-9, atol=1e-9)


def test_gradient_wrt_element_parameters_matches_finite_differences(model):
    plant, info, ctx = model
    b, lsd = info["bushing"], info["lsd"]

    def f(k, d):
        c = b.SetTorqueStiffnessConstants(ctx, k)
        c = lsd.SetDamping(c, d)
        return jnp.sum(plant.CalcTimeDerivatives(c) ** 2)

    g = jax.jit(f)
    k0, d0 = jnp.asarray(fm.BUSHING_K[0]), jnp.asarray(3.0)
    gk, gd = jax.jit(jax.grad(f, argnums=(0, 1)))(k0, d0)
    h = 1e-6
    fd_k = [(g(k0.at[i].add(h), d0) - g(k0.at[i].add(-h), d0)) / (2 * h) for i in range(3)]
    fd_d = (g(k0, d0 + h) - g(k0, d0 - h)) / (2 * h)
    np.testing.assert_allclose(gk, fd_k, rtol=1e-6)
    np.testing.assert_allclose(gd, fd_d, rtol=1e-6)


def test_vmap_over_spring_parameters_equals_loop():
    plant2 = jb.MultibodyPlant(0.0)
    link = plant2.AddRigidBody("link", jb.SpatialInertia.PointMass(1.0, np.array([0, 0, -1.0])))
    joint = plant2.AddJoint(jb.RevoluteJoint("pin", plant2.world_frame(), link.body_frame(), [0, 1, 0]))
    spring = plant2.AddForceElement(jb.RevoluteSpring(joint, 0.2, 3.0))
    plant2.Finalize()
    ctx = plant2.SetPositions(plant2.CreateDefaultContext(), jnp.asarray([0.7]))
    ks = jnp.linspace(0.0, 10.0, 5)
    one = jax.jit(lambda k: plant2.CalcTimeDerivatives(spring.SetStiffness(ctx, k)))
    f = jax.jit(jax.vmap(one))
    loop = [one(k) for k in ks]
    np.testing.assert_allclose(f(ks), np.stack(loop), rtol=1e-12)
    assert spring.GetStiffness(spring.SetStiffness(ctx, 4.0)) == 4.0


def test_errors():
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("b", jb.SpatialInertia.SolidBoxWithMass(1.0, .1, .1, .1))
    rev = plant.AddJoint(jb.RevoluteJoint("rev", plant.world_frame(), body.body_frame(), [0, 0, 1]))
    with pytest.raises(RuntimeError, match="already contains a gravity field"):
        plant.AddForceElement(jb.UniformGravityFieldElement())
    with pytest.raises(ValueError, match="stiffness"):
        jb.RevoluteSpring(rev, 0.0, -1.0)
    with pytest.raises(TypeError, match="PrismaticJoint"):
        jb.PrismaticSpring(rev, 0.0, 1.0)
    with pytest.raises(ValueError, match="free_length"):
        jb.LinearSpringDamper(plant.world_body(), [0, 0, 0], body, [0, 0, 0], 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="damping"):
        jb.LinearSpringDamper(plant.world_body(), [0, 0, 0], body, [0, 0, 0], 1.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="torque_damping"):
        jb.LinearBushingRollPitchYaw(plant.world_frame(), body.body_frame(), [1, 1, 1],
                                     [1, -1, 1], [1, 1, 1], [1, 1, 1])
    cfg = jb.DoorHingeConfig(viscous_friction=-1.0)
    with pytest.raises(ValueError, match="viscous_friction"):
        jb.DoorHinge(rev, cfg)
    other = jb.MultibodyPlant(0.0)
    ob = other.AddRigidBody("o", jb.SpatialInertia.SolidBoxWithMass(1.0, .1, .1, .1))
    with pytest.raises(ValueError, match="not part of the plant"):
        plant.AddForceElement(jb.LinearSpringDamper(ob, [0, 0, 0], body, [0, 0, 0], 1.0, 1.0, 1.0))
    with pytest.raises(TypeError, match="ForceElement"):
        plant.AddForceElement(rev)
    lsd = plant.AddForceElement(jb.LinearSpringDamper(plant.world_body(), [0.5, 0, 0], body,
                                                      [0.5, 0, 0], 1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="already added"):
        plant.AddForceElement(lsd)
    plant.AddJointActuator("act", rev, effort_limit=1.0)
    plant.Finalize()
    with pytest.raises(RuntimeError, match="finalized"):
        plant.AddForceElement(jb.RevoluteSpring(rev, 0.0, 1.0))
    with pytest.raises(RuntimeError, match="Post-finalize"):
        plant.set_gravity_enabled(jb.default_model_instance(), False)
    ctx = plant.CreateDefaultContext()
    with pytest.raises(ValueError, match="nearly zero"):
        plant.CalcTimeDerivatives(ctx)
    ctx = plant.SetPositions(ctx, jnp.asarray([0.3]))
    with pytest.raises(ValueError, match=r"actuation: expected shape \(1,\)"):
        plant.CalcTimeDerivatives(ctx, jnp.zeros(2))
    with pytest.raises(ValueError, match=r"actuation for model instance 'DefaultModelInstance'"):
        plant.CalcTimeDerivatives(ctx, {jb.default_model_instance(): jnp.zeros(3)})
    with pytest.raises(ValueError, match=r"applied_generalized_force: expected shape \(1,\)"):
        plant.CalcTimeDerivatives(ctx, applied_generalized_force=jnp.zeros(4))
    bad = jb.ExternallyAppliedSpatialForce(body.index(), jnp.zeros(3), jnp.zeros(5))
    with pytest.raises(ValueError, match=r"F_Bq_W: expected shape \(6,\)"):
        plant.CalcTimeDerivatives(ctx, applied_spatial_force=[bad])
    bad = jb.ExternallyAppliedSpatialForce(body.index(), jnp.zeros(2), jnp.zeros(6))
    with pytest.raises(ValueError, match=r"p_BoBq_B: expected shape \(3,\)"):
        plant.CalcTimeDerivatives(ctx, applied_spatial_force=[bad])
    bad = jb.ExternallyAppliedSpatialForce(jb.BodyIndex(7), jnp.zeros(3), jnp.zeros(6))
    with pytest.raises(ValueError, match="body_index 7"):
        plant.CalcTimeDerivatives(ctx, applied_spatial_force=[bad])
    with pytest.raises(ValueError, match="stiffness"):
        lsd.SetStiffness(ctx, jnp.zeros(3))
    assert plant.num_force_elements() == 2
    assert plant.get_force_element(jb.ForceElementIndex(1)) is lsd
    np.testing.assert_array_equal(plant.GetEffortUpperLimits(), [1.0])


def test_saturation_clamps_and_keeps_gradient_inside_limits():
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("b", jb.SpatialInertia.SolidBoxWithMass(1.0, .1, .1, .1))
    rev = plant.AddJoint(jb.RevoluteJoint("rev", plant.world_frame(), body.body_frame(), [0, 0, 1]))
    plant.AddJointActuator("act", rev, effort_limit=2.0)
    plant.Finalize()
    ctx = plant.CreateDefaultContext()
    a = lambda u: plant.CalcGeneralizedAccelerations(ctx, jnp.asarray([u]))[0]  # noqa: E731
    assert np.isclose(a(5.0), a(2.0)) and np.isclose(a(-5.0), a(-2.0))
    assert jax.grad(a)(1.0) > 0 and jax.grad(a)(3.0) == 0


def test_gravity_disabled_instance():
    plant = jb.MultibodyPlant(0.0)
    mi = plant.AddModelInstance("floating")
    plant.AddRigidBody("b", mi, jb.SpatialInertia.SolidBoxWithMass(1.0, .1, .2, .3))
    plant.set_gravity_enabled(mi, False)
    plant.Finalize()
    assert not plant.is_gravity_enabled(mi) and plant.is_gravity_enabled(jb.default_model_instance())
    ctx = plant.CreateDefaultContext()
    for method in ("aba", "crba"):
        np.testing.assert_allclose(plant.CalcGeneralizedAccelerations(ctx, method=method), 0,
                                   atol=1e-14)
    assert plant.CalcPotentialEnergy(ctx) == 0
    f = plant.CalcForceElementsContribution(ctx)
    np.testing.assert_allclose(f.body_forces(), 0)
