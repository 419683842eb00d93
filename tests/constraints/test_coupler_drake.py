"""Coupler constraints (q₀ = ρ q₁ + Δq) in the SAP step against pydrake's discrete SAP plant:
two geared pendulums (ratio 1.5, offset 0.2) on separate trees and on one tree, with a joint
limit, stepped 200 times; velocities agree step by step to 1e-8 of the largest speed."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb

pytest.importorskip("pydrake")

DT, STEPS = 2e-3, 200
RHO, OFFSET = 1.5, 0.2


def _pendulums(engine, serial=False, coupled=True):
    """Two pendulums (rods of 1 kg and 0.5 kg, 0.4 m and 0.3 m) on revolute joints about y, the
    second hung from the world beside the first (two trees) or from the first's tip (one tree);
    coupled q₀ = 1.5 q₁ + 0.2; the second joint limited to ±1 rad. The same builder calls in
    jaxbody and pydrake."""
    if engine == "jaxbody":
        M = jb
        plant = jb.MultibodyPlant(time_step=DT)
    else:
        from pydrake import math as dm
        from pydrake.multibody import plant as dp
        from pydrake.multibody import tree as dt

        class M:  # noqa: N801 (pydrake's names under one roof)
            SpatialInertia, UnitInertia, RevoluteJoint = (dt.SpatialInertia, dt.UnitInertia,
                                                          dt.RevoluteJoint)
            FixedOffsetFrame, RigidTransform = dt.FixedOffsetFrame, dm.RigidTransform

        plant = dp.MultibodyPlant(time_step=DT)
        plant.set_discrete_contact_approximation(dp.DiscreteContactApproximation.kSap)
    bodies = []
    for name, mass, L in (("a", 1.0, 0.4), ("b", 0.5, 0.3)):
        G = M.UnitInertia.SolidBox(0.02, 0.02, L).ShiftFromCenterOfMass(np.array([0, 0, L / 2]))
        bodies.append(plant.AddRigidBody(name, M.SpatialInertia(mass, np.array([0, 0, -L / 2]),
                                                                 G)))
    ja = plant.AddJoint(M.RevoluteJoint("ja", plant.world_frame(), bodies[0].body_frame(),
                                        np.array([0.0, 1.0, 0.0])))
    base, p = (bodies[0], (0.0, 0.0, -0.4)) if serial else (plant.world_body(), (0.5, 0.0, 0.0))
    F = plant.AddFrame(M.FixedOffsetFrame("F", base.body_frame(),
                                          M.RigidTransform(np.array(p))))
    jb_ = plant.AddJoint(M.RevoluteJoint("jb", F, bodies[1].body_frame(),
                                         np.array([0.0, 1.0, 0.0])))
    jb_.set_position_limits(np.array([-1.0]), np.array([1.0]))
    cid = plant.AddCouplerConstraint(ja, jb_, RHO, OFFSET) if coupled else None
    plant.Finalize()
    return plant, cid


def _rollouts(serial):
    q0 = np.array([0.5, 0.1]) if not serial else np.array([0.4, 0.3])
    v0 = np.array([0.3, -1.0])
    from pydrake.systems.analysis import Simulator

    dplant, _ = _pendulums("drake", serial)
    sim = Simulator(dplant)
    ctx = sim.get_mutable_context()
    dplant.SetPositions(ctx, q0)
    dplant.SetVelocities(ctx, v0)
    sim.Initialize()
    vd = []
    for k in range(STEPS):
        sim.AdvanceTo((k + 1) * DT)
        vd.append(dplant.GetVelocities(ctx).copy())
    plant, cid = _pendulums("jaxbody", serial)
    c = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    r = jb.discrete_rollout(plant, c, num_steps=STEPS)
    return plant, cid, np.asarray(r.states[1:, 2:]), np.asarray(vd), r


@pytest.mark.parametrize("serial", [False, True], ids=["two_trees", "one_tree"])
def test_geared_pendulums_equal_drakes(serial):
    plant, cid, vj, vd, r = _rollouts(serial)
    scale = np.abs(vd).max()
    assert np.abs(vj - vd).max() < 1e-8 * scale
    assert np.all(np.asarray(r.converged) == 1.0)
    q = np.asarray(r.states[-1, :2])
    assert abs(q[0] - RHO * q[1] - OFFSET) < 1e-3  # held to the constraint (near rigid)


@pytest.fixture(scope="module")
def geared():
    plant, cid = _pendulums("jaxbody", serial=False)
    ctx = plant.CreateDefaultContext().replace(q=jnp.array([0.5, 0.2]), v=jnp.array([0.3, 0.2]))
    return plant, cid, ctx


def test_constraint_api(geared):
    plant, cid, ctx = geared
    assert plant.num_constraints() == 1 and plant.GetConstraintIds() == [cid]
    assert (plant.num_coupler_constraints(), plant.num_ball_constraints()) == (1, 0)
    assert isinstance(cid, jb.MultibodyConstraintId)
    spec = plant.get_coupler_constraint_specs(cid)
    assert (spec.gear_ratio, spec.offset) == (RHO, OFFSET)
    assert plant.GetConstraintActiveStatus(ctx, cid) is True
    off = plant.SetConstraintActiveStatus(ctx, cid, False)
    assert plant.GetConstraintActiveStatus(off, cid) is False
    assert plant.GetConstraintActiveStatus(ctx, cid) is True  # contexts are immutable
    with pytest.raises(ValueError, match="no constraint with id"):
        plant.GetConstraintActiveStatus(ctx, jb.MultibodyConstraintId(3))
    with pytest.raises(TypeError, match="expected a MultibodyConstraintId"):
        plant.GetConstraintActiveStatus(ctx, jb.JointIndex(0))


def test_bad_couplers_are_refused():
    def plant_with(time_step=DT, joint=jb.RevoluteJoint):
        plant = jb.MultibodyPlant(time_step=time_step)
        body = [plant.AddRigidBody(n, jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
                for n in ("a", "b")]
        j0 = plant.AddJoint(jb.RevoluteJoint("j0", plant.world_frame(), body[0].body_frame(),
                                             np.array([0.0, 0.0, 1.0])))
        args = (np.array([0.0, 0.0, 1.0]),) if joint is jb.RevoluteJoint else ()
        j1 = plant.AddJoint(joint("j1", plant.world_frame(), body[1].body_frame(), *args))
        return plant, j0, j1

    plant, j0, j1 = plant_with(time_step=0.0)
    with pytest.raises(ValueError, match="only supported for discrete"):
        plant.AddCouplerConstraint(j0, j1, 2.0)
    plant, j0, j1 = plant_with(joint=jb.BallJoint)
    with pytest.raises(ValueError, match="single-DOF joints; joint 'j1'"):
        plant.AddCouplerConstraint(j0, j1, 2.0)
    plant, j0, j1 = plant_with()
    with pytest.raises(ValueError, match="gear_ratio and offset must be finite"):
        plant.AddCouplerConstraint(j0, j1, float("nan"))
    with pytest.raises(ValueError, match="coupled to itself"):
        plant.AddCouplerConstraint(j0, j0, 2.0)
    plant.Finalize()
    with pytest.raises(Exception, match="Finalize"):
        plant.AddCouplerConstraint(j0, j1, 2.0)


def _final_q(plant, ctx, steps=30):
    return jb.discrete_rollout(plant, ctx, num_steps=steps, save_trajectory=False).final_state[:2]


def test_status_and_parameters_batch_and_differentiate(geared):
    """vmap over the active status and the gear ratio; an inactive coupler leaves the joints
    free (the step of a plant without it); the final state's derivative w.r.t. ρ and Δq matches
    finite differences, forward and reverse."""
    plant, cid, ctx = geared
    run = jax.jit(lambda c: _final_q(plant, c))
    on_off = jax.vmap(lambda s: plant.SetConstraintActiveStatus(ctx, cid, s))(jnp.array([1., 0.]))
    qs = jax.jit(jax.vmap(lambda c: _final_q(plant, c)))(on_off)
    q_on, q_off = np.asarray(qs[0]), np.asarray(qs[1])
    np.testing.assert_allclose(q_on, run(ctx), atol=1e-12)
    assert abs(q_on[0] - RHO * q_on[1] - OFFSET) < 0.02 * abs(0.5 - RHO * 0.2 - OFFSET) + 1e-3
    free, _ = _pendulums("jaxbody", serial=False, coupled=False)
    q_free = _final_q(free, free.CreateDefaultContext().replace(q=ctx.q, v=ctx.v))
    np.testing.assert_allclose(q_off, q_free, atol=1e-12)  # inactive: as if absent
    assert np.abs(q_on - q_off).max() > 1e-4
    ratios = jnp.array([1.2, 1.5, 2.0])
    per = jax.jit(jax.vmap(lambda rho: _final_q(
        plant, plant.SetCouplerConstraintParameters(ctx, cid, gear_ratio=rho))))(ratios)
    for rho, q in zip(np.asarray(ratios), np.asarray(per)):
        assert abs(q[0] - rho * q[1] - OFFSET) < 0.05

    def f(rho, offset):
        c = plant.SetCouplerConstraintParameters(ctx, cid, gear_ratio=rho, offset=offset)
        return _final_q(plant, c, steps=10)

    from jax.test_util import check_grads

    check_grads(jax.jit(f), (jnp.asarray(RHO), jnp.asarray(OFFSET)), order=1,
                modes=["fwd", "rev"], atol=1e-5, rtol=1e-5, eps=1e-6)
