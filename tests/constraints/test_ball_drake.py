"""Ball constraints (point P of A on point Q of B) in the SAP step: against pydrake, two and
three free rods joined end to end by ball constraints only, tumbling under gravity for 200
steps; against closed forms, a rod hung from the world by its tip (a ball pendulum's period).
pydrake 1.51 crashes (segmentation fault) stepping a ball constraint that involves the world
body, so the world-anchored case is checked against the closed form only."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb

DT, STEPS = 1e-3, 200
L, M = 0.5, 1.0


def _rods(engine, n, anchored=True):
    """n free rods (1 kg, 0.5 m along z) in a chain: each rod's top on the previous rod's
    bottom, and (``anchored``) rod 0's top on the world origin (ball constraints)."""
    if engine == "jaxbody":
        import jaxbody as M_

        plant = jb.MultibodyPlant(time_step=DT)
        SpatialInertia, UnitInertia, RigidTransform, RollPitchYaw = (
            M_.SpatialInertia, M_.UnitInertia, M_.RigidTransform, M_.RollPitchYaw)
    else:
        from pydrake.math import RigidTransform, RollPitchYaw
        from pydrake.multibody.plant import DiscreteContactApproximation, MultibodyPlant
        from pydrake.multibody.tree import SpatialInertia, UnitInertia

        plant = MultibodyPlant(time_step=DT)
        plant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
    rods = [plant.AddRigidBody(f"rod{i}", SpatialInertia(M, np.zeros(3),
                                                           UnitInertia.SolidBox(0.05, 0.05, L)))
            for i in range(n)]
    top, bottom = np.array([0, 0, L / 2]), np.array([0, 0, -L / 2])
    ids = [plant.AddBallConstraint(plant.world_body(), np.zeros(3), rods[0], top)] if anchored \
        else []
    for a, b in zip(rods[:-1], rods[1:]):
        ids.append(plant.AddBallConstraint(a, bottom, b, top))
    plant.Finalize()
    # Initial poses: each rod tilted, hanging (roughly) from the previous one's end.
    X, p_end, poses = None, np.zeros(3), []
    for i in range(n):
        R = RollPitchYaw(0.4 + 0.3 * i, -0.2 * i, 0.1).ToRotationMatrix()
        p = p_end - np.asarray(R.matrix()) @ top
        poses.append(RigidTransform(R, p))
        p_end = p + np.asarray(R.matrix()) @ bottom
    del X
    return plant, rods, ids, poses


def _drake_velocities(n):
    from pydrake.multibody.math import SpatialVelocity
    from pydrake.systems.analysis import Simulator

    plant, rods, _, poses = _rods("drake", n, anchored=False)
    sim = Simulator(plant)
    ctx = sim.get_mutable_context()
    for i, (rod, X) in enumerate(zip(rods, poses)):
        plant.SetFreeBodyPose(ctx, rod, X)
        plant.SetFreeBodySpatialVelocity(ctx, rod, SpatialVelocity(
            np.array([0.5, -0.3 * i, 0.2]), np.zeros(3)))
    q0, v0 = plant.GetPositions(ctx).copy(), plant.GetVelocities(ctx).copy()
    sim.Initialize()
    out = []
    for k in range(STEPS):
        sim.AdvanceTo((k + 1) * DT)
        out.append(plant.GetVelocities(ctx).copy())
    return np.asarray(out), q0, v0


@pytest.mark.parametrize("n", [2, 3], ids=["two_rods", "three_rods"])
def test_rods_joined_by_balls_equal_drakes(n):
    pytest.importorskip("pydrake")
    vd, q0, v0 = _drake_velocities(n)
    plant, rods, ids, _ = _rods("jaxbody", n, anchored=False)
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    r = jb.discrete_rollout(plant, ctx, num_steps=STEPS)
    vj = np.asarray(r.states[1:, plant.num_positions():])
    assert np.all(np.asarray(r.converged) == 1.0)
    assert np.abs(vj - vd).max() < 1e-8 * np.abs(vd).max()


def test_ball_pendulum_has_the_pendulums_period():
    """A rod hung by its tip swings with the compound pendulum's small-angle period
    T = 2π √(I_tip / (m g L/2)), I_tip = m L²/3 (thin rod + its width), to 0.5 %."""
    plant, rods, ids, _ = _rods("jaxbody", 1)
    theta0 = 0.05
    R = jb.RollPitchYaw(theta0, 0.0, 0.0).ToRotationMatrix()
    p = -np.asarray(R.matrix()) @ np.array([0, 0, L / 2])
    ctx = plant.SetFreeBodyPose(plant.CreateDefaultContext(), rods[0], jb.RigidTransform(R, p))
    steps = 3000
    r = jax.jit(lambda c: jb.discrete_rollout(plant, c, num_steps=steps))(ctx)
    w = np.asarray(r.states[:, plant.num_positions()])  # ω_x
    crossings = np.flatnonzero((w[:-1] > 0) & (w[1:] <= 0)) * DT
    period = np.mean(np.diff(crossings))
    I_tip = M * (L**2 + 0.05**2) / 12 + M * (L / 2) ** 2
    T = 2 * np.pi * np.sqrt(I_tip / (M * 9.81 * L / 2))
    assert period == pytest.approx(T, rel=5e-3)
    # The tip stays on the world origin (near-rigid: to the step's resolution).
    end = ctx.replace(q=r.states[-1, :7])
    p_WQ = plant.CalcPointsPositions(end, rods[0].body_frame(), np.array([0, 0, L / 2]),
                                     plant.world_frame())
    assert np.linalg.norm(np.asarray(p_WQ)) < 1e-4


def test_bad_ball_constraints_are_refused():
    plant = jb.MultibodyPlant(time_step=DT)
    body = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    with pytest.raises(ValueError, match="body_A and body_B are both 'b'"):
        plant.AddBallConstraint(body, np.zeros(3), body, np.zeros(3))
    with pytest.raises(ValueError, match="p_AP must be 3 finite numbers"):
        plant.AddBallConstraint(plant.world_body(), np.array([0.0, np.nan, 0.0]), body)
    continuous = jb.MultibodyPlant(time_step=0.0)
    b2 = continuous.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    with pytest.raises(ValueError, match="only supported for discrete"):
        continuous.AddBallConstraint(continuous.world_body(), np.zeros(3), b2)
    welded = jb.MultibodyPlant(time_step=DT)
    b3 = welded.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    welded.WeldFrames(welded.world_frame(), b3.body_frame())
    welded.AddBallConstraint(welded.world_body(), np.zeros(3), b3, np.zeros(3))
    with pytest.raises(ValueError, match="is a ball constraint, not a coupler constraint"):
        welded.get_coupler_constraint_specs(jb.MultibodyConstraintId(0))
    assert welded.get_ball_constraint_specs(jb.MultibodyConstraintId(0)).p_BQ == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="'world' and 'b' where both are welded to the world is "
                                         "not allowed"):
        welded.Finalize()  # at Finalize, as Drake


def test_default_p_BQ_is_where_P_is_in_the_default_configuration():
    """p_BQ=None: Q is the point of B at P in the default configuration (resolved lazily, also
    when first needed inside jit); the step equals the one with p_BQ given."""
    def plant_with(p_BQ):
        plant = jb.MultibodyPlant(time_step=DT)
        rod = plant.AddRigidBody("rod", jb.SpatialInertia(M, np.zeros(3),
                                                           jb.UnitInertia.SolidBox(0.05, 0.05, L)))
        plant.AddBallConstraint(plant.world_body(), np.array([0.1, 0.0, 0.2]), rod, p_BQ)
        plant.Finalize()
        return plant

    implicit, explicit = plant_with(None), plant_with(np.array([0.1, 0.0, 0.2]))
    v0 = jnp.array([0.3, -0.2, 0.1, 0.0, 0.5, 0.0])
    steps = [jax.jit(lambda c, p=p: p.CalcDiscreteStep(c).context.v)(
        p.CreateDefaultContext().replace(v=v0)) for p in (implicit, explicit)]
    np.testing.assert_allclose(steps[0], steps[1], atol=1e-14)
    spec = implicit.get_ball_constraint_specs(implicit.GetConstraintIds()[0])
    np.testing.assert_allclose(spec.p_BQ, (0.1, 0.0, 0.2), atol=1e-15)


def test_gradient_through_a_ball_constrained_rollout_matches_finite_differences():
    """d(final state)/d(initial velocity and trunk mass) through 10 steps of two rods joined by
    a ball constraint and hung from the world: forward and reverse mode against central
    differences (the SAP solve differentiates implicitly)."""
    from jax.test_util import check_grads

    plant, rods, _, poses = _rods("jaxbody", 2)
    ctx = plant.CreateDefaultContext()
    for rod, X in zip(rods, poses):
        ctx = plant.SetFreeBodyPose(ctx, rod, X)

    def final(v0, mass):
        c = rods[1].SetMass(ctx, mass).replace(v=v0)
        return jb.discrete_rollout(plant, c, num_steps=10, save_trajectory=False).final_state

    v0 = jnp.asarray(np.random.default_rng(3).uniform(-0.5, 0.5, plant.num_velocities()))
    check_grads(jax.jit(final), (v0, jnp.asarray(M)), order=1, modes=["fwd", "rev"],
                atol=1e-5, rtol=1e-5, eps=1e-6)
