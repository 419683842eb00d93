"""Distance and weld constraints as Context parameters: active status and distance parameters
set per Context, batched with vmap and differentiated (gradients of constrained rollouts match
finite differences, forward and reverse); the errors Drake raises."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxbody as jb

DT = 2e-3


def _two_spheres():
    """Two free 0.5 kg spheres tied by a compliant distance constraint (ℓ 0.3, k 200, c 2) and a
    box welded to the second one; no gravity, no contact."""
    plant = jb.MultibodyPlant(time_step=DT)
    plant.mutable_gravity_field().set_gravity_vector([0.0, 0.0, 0.0])
    a = plant.AddRigidBody("a", jb.SpatialInertia.SolidSphereWithMass(0.5, 0.05))
    b = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(0.5, 0.05))
    box = plant.AddRigidBody("box", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.2, 0.1, 0.1))
    dist = plant.AddDistanceConstraint(a, [0.0, 0.0, 0.0], b, [0.0, 0.0, 0.0], 0.3, 200.0, 2.0)
    weld = plant.AddWeldConstraint(b, jb.RigidTransform([0.1, 0.0, 0.0]), box,
                                   jb.RigidTransform([-0.1, 0.0, 0.0]))
    plant.Finalize()
    ctx = plant.CreateDefaultContext()
    ctx = plant.SetFreeBodyPose(ctx, b, jb.RigidTransform([0.4, 0.0, 0.0]))
    ctx = plant.SetFreeBodyPose(ctx, box, jb.RigidTransform([0.6, 0.0, 0.0]))
    ctx = plant.SetFreeBodySpatialVelocity(ctx, a, jb.SpatialVelocity(np.zeros(3),
                                                                        [0.0, 0.3, 0.0]))
    return plant, ctx, dist, weld


@pytest.fixture(scope="module")
def tied():
    return _two_spheres()


def _gap(plant, ctx, x):
    c = ctx.replace(q=x[:plant.num_positions()])
    pa = plant.EvalBodyPoseInWorld(c, plant.GetBodyByName("a")).translation()
    pb = plant.EvalBodyPoseInWorld(c, plant.GetBodyByName("b")).translation()
    return jnp.linalg.norm(pb - pa)


def test_distance_parameters_in_the_context(tied):
    plant, ctx, dist, _ = tied
    p = plant.GetDistanceConstraintParams(ctx, dist)
    assert (float(p.distance()), float(p.stiffness()), float(p.damping())) == (0.3, 200.0, 2.0)
    spec = plant.get_distance_constraint_specs(dist)
    assert (spec.distance, spec.stiffness, spec.id) == (0.3, 200.0, dist)
    assert plant.get_distance_constraint_specs() == [spec]
    (weld_spec,) = plant.get_weld_constraint_specs()
    np.testing.assert_allclose(weld_spec.X_BQ.translation(), [-0.1, 0.0, 0.0])
    assert (plant.num_distance_constraints(), plant.num_weld_constraints()) == (1, 1)
    with pytest.raises(ValueError, match="is a distance constraint, not a weld"):
        plant.get_weld_constraint_specs(dist)
    stiff = plant.SetDistanceConstraintParams(ctx, dist, jb.DistanceConstraintParams(
        p.bodyA(), p.p_AP(), p.bodyB(), p.p_BQ(), 0.35, np.inf, 0.0))
    r = jb.discrete_rollout(plant, stiff, num_steps=300, save_trajectory=False)
    assert float(_gap(plant, ctx, r.final_state)) == pytest.approx(0.35, abs=1e-5)  # rigid now
    with pytest.raises(ValueError, match="bodies and points"):
        plant.SetDistanceConstraintParams(ctx, dist, jb.DistanceConstraintParams(
            p.bodyA(), [0.0, 0.0, 0.1], p.bodyB(), p.p_BQ(), 0.3))
    with pytest.raises(ValueError, match="distance > 0"):
        plant.SetDistanceConstraintParams(ctx, dist, jb.DistanceConstraintParams(
            p.bodyA(), p.p_AP(), p.bodyB(), p.p_BQ(), -0.3))


def test_inactive_constraints_let_the_bodies_go(tied):
    plant, ctx, dist, weld = tied
    off = plant.SetConstraintActiveStatus(plant.SetConstraintActiveStatus(ctx, dist, False),
                                          weld, False)
    assert not plant.GetConstraintActiveStatus(off, dist)
    r = jb.discrete_rollout(plant, off, num_steps=50, save_trajectory=False)
    v = np.asarray(r.final_state[plant.num_positions():])
    np.testing.assert_allclose(v, np.asarray(off.v), atol=1e-14)  # no force at all


def test_vmap_over_length_and_active_status(tied):
    plant, ctx, dist, weld = tied
    p = plant.GetDistanceConstraintParams(ctx, dist)

    def final_gap(length, on):
        c = plant.SetDistanceConstraintParams(ctx, dist, jb.DistanceConstraintParams(
            p.bodyA(), p.p_AP(), p.bodyB(), p.p_BQ(), length, 200.0, 2.0))
        c = plant.SetConstraintActiveStatus(c, dist, on)
        r = jb.discrete_rollout(plant, c, num_steps=100, save_trajectory=False)
        return _gap(plant, ctx, r.final_state)

    lengths, on = jnp.array([0.25, 0.3, 0.4]), jnp.array([1.0, 1.0, 0.0])
    batched = jax.vmap(final_gap)(lengths, on)
    serial = [final_gap(x, o) for x, o in zip(lengths, on)]
    np.testing.assert_allclose(batched, serial, rtol=1e-12)
    assert batched[0] < batched[1]  # the shorter spring pulls closer


@pytest.mark.slow
def test_gradients_through_distance_and_weld_rollouts(tied):
    """d/d(length, stiffness, initial velocity) of the final gap plus the welded box's height,
    from rollouts with the compliant distance and the weld active, forward and reverse, against
    finite differences."""
    plant, ctx, dist, _ = tied
    p = plant.GetDistanceConstraintParams(ctx, dist)
    box = plant.GetBodyByName("box")

    def f(length, k, vz):
        c = plant.SetDistanceConstraintParams(ctx, dist, jb.DistanceConstraintParams(
            p.bodyA(), p.p_AP(), p.bodyB(), p.p_BQ(), length, k, 2.0))
        c = c.replace(v=c.v.at[11].set(vz))  # b's z velocity (b is the second free body)
        r = jb.discrete_rollout(plant, c, num_steps=25, save_trajectory=False)
        q = r.final_state[:plant.num_positions()]
        z_box = plant.EvalBodyPoseInWorld(ctx.replace(q=q), box).translation()[2]
        return _gap(plant, ctx, r.final_state) + z_box

    check_grads(f, (jnp.asarray(0.3), jnp.asarray(200.0), jnp.asarray(0.2)), order=1,
                modes=("fwd", "rev"), eps=1e-4, rtol=1e-5)


def test_errors_as_drake():
    cont = jb.MultibodyPlant(time_step=0.0)
    a = cont.AddRigidBody("a", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    with pytest.raises(ValueError, match="only supported for discrete"):
        cont.AddDistanceConstraint(a, [0, 0, 0], cont.world_body(), [0, 0, 0], 1.0)
    with pytest.raises(ValueError, match="only supported for discrete"):
        cont.AddWeldConstraint(a, jb.RigidTransform(), cont.world_body(), jb.RigidTransform())
    plant = jb.MultibodyPlant(time_step=DT)
    a = plant.AddRigidBody("a", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    W = plant.world_body()
    with pytest.raises(ValueError, match="both 'a'"):
        plant.AddDistanceConstraint(a, [0, 0, 0], a, [0, 0, 1], 1.0)
    for kwargs, msg in ((dict(distance=0.0), "distance must be"),
                        (dict(distance=1.0, stiffness=0.0), "stiffness must be"),
                        (dict(distance=1.0, damping=-1.0), "damping must be")):
        with pytest.raises(ValueError, match=msg):
            plant.AddDistanceConstraint(a, [0, 0, 0], W, [0, 0, 0], **kwargs)
    with pytest.raises(ValueError, match="p_AP must be 3 finite"):
        plant.AddDistanceConstraint(a, [0, 0], W, [0, 0, 0], 1.0)
    with pytest.raises(ValueError, match="X_AP must be a RigidTransform"):
        plant.AddWeldConstraint(a, np.eye(4), W, jb.RigidTransform())
    b = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.WeldFrames(W.body_frame(), b.body_frame())
    plant.AddWeldConstraint(b, jb.RigidTransform(), W, jb.RigidTransform())
    with pytest.raises(ValueError, match="weld constraint between bodies 'b' and 'world' where "
                                         "both are welded to the world"):
        plant.Finalize()  # at Finalize, as Drake
    done = jb.MultibodyPlant(time_step=DT)
    c = done.AddRigidBody("c", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    done.Finalize()
    with pytest.raises(Exception, match="after Finalize"):
        done.AddDistanceConstraint(c, [0, 0, 0], done.world_body(), [0, 0, 0], 1.0)


def test_contact_results_report_constraint_impulses(tied):
    """`ContactResults.constraint_impulse(id)`: the step's impulse of each constraint (the
    stretched spring pulls b toward a: a negative impulse along p̂ on b), zero when inactive."""
    plant, ctx, dist, weld = tied
    res = plant.CalcContactResults(ctx)
    step = plant.CalcDiscreteStep(ctx).contact
    g = res.constraint_impulse(dist)
    assert g.shape == (1,) and g[0] < 0
    # k·(0.4 − 0.3) = 20 N pulls, minus the damping and the implicit step's relaxation
    assert -g[0] / DT == pytest.approx(20.0, rel=0.05)
    np.testing.assert_allclose(res.constraint_impulse(weld), np.asarray(step.weld_impulses)[0])
    np.testing.assert_allclose(res.constraint_force(dist), g / DT)
    off = plant.SetConstraintActiveStatus(ctx, dist, False)
    assert plant.CalcContactResults(off).constraint_impulse(dist)[0] == 0.0
    with pytest.raises(ValueError, match="no constraint with id"):
        res.constraint_impulse(jb.MultibodyConstraintId(7))
