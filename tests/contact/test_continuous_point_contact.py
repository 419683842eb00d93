"""Continuous-time compliant point contact (Drake's penalty method: Hunt & Crossley normal
force, Stribeck friction) against pydrake's continuous plant: the time derivatives at random
states with active contacts (sticking, in the Stribeck transition, sliding, approaching and
separating) agree to 1e-10; closed forms: a resting sphere's contact force equals its weight,
the Stribeck curve's knots; the contact-model switches refuse what is not implemented."""

import numpy as np
import pytest

import jaxbody as jb
from jaxbody.contact.compliant_point_contact import stribeck_friction
from tests.constraints.scenes import box_body, namespace, sphere_body

K, D, MU = 2e4, 0.7, (0.8, 0.5)


def scene(plant, M):
    """A ground; a 0.1 m sphere; a box on four corner spheres; two spheres, one on the other."""
    ground = plant.world_body()
    for name, r, m in (("ball", 0.1, 1.0), ("s1", 0.05, 0.5), ("s2", 0.05, 0.3)):
        _geom(plant, M, sphere_body(plant, M, name, m, r), M.Sphere(r), name)
    box = box_body(plant, M, "box", 2.0, 0.3, 0.2, 0.1)
    for i, (x, y) in enumerate([(x, y) for x in (-0.15, 0.15) for y in (-0.1, 0.1)]):
        _geom(plant, M, box, M.Sphere(0.01), f"c{i}", M.RigidTransform([x, y, -0.05]))
    _geom(plant, M, ground, M.HalfSpace(), "ground")


def _geom(plant, M, body, shape, name, X=None):
    props = M.ProximityProperties()
    M.AddContactMaterial(dissipation=D, point_stiffness=K,
                         friction=M.CoulombFriction(*MU), properties=props)
    plant.RegisterCollisionGeometry(body, M.RigidTransform() if X is None else X, shape, name,
                                    props)


def _build(engine):
    M = namespace(engine)
    if engine == "jaxbody":
        plant = jb.MultibodyPlant(0.0)
        scene(plant, M)
        plant.set_stiction_tolerance(0.01)
        from jaxbody.geometry.collision import ContactQueryOptions

        plant.set_contact_query_options(ContactQueryOptions(single_point=True,
                                                            max_pairs_per_group=None))
        plant.Finalize()
        return plant, None
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph, ContactModel
    from pydrake.systems.framework import DiagramBuilder

    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.0)
    scene(plant, M)
    plant.set_contact_model(ContactModel.kPoint)
    plant.set_stiction_tolerance(0.01)
    plant.Finalize()
    return plant, builder.Build()


def _random_state(rng, plant, M, ctx, engine):
    """Every free body touching: the ball 1-3 mm deep, the box on its corners, s2 resting in
    s1; velocities spanning sticking (< v_s), the Stribeck transition and sliding."""
    def pose(name, p, rpy=(0, 0, 0), V=(0,) * 6):
        X = M.RigidTransform(M.RollPitchYaw(list(rpy)), list(p))
        Vs = M.SpatialVelocity(np.asarray(V[:3], float), np.asarray(V[3:], float))
        body = plant.GetBodyByName(name)
        if engine == "jaxbody":
            c = plant.SetFreeBodyPose(ctx[0], body, X)
            ctx[0] = plant.SetFreeBodySpatialVelocity(c, body, Vs)
        else:
            plant.SetFreeBodyPose(ctx[0], body, X)
            plant.SetFreeBodySpatialVelocity(ctx[0], body, Vs)

    slip = rng.choice([0.003, 0.015, 0.04, 0.5])
    pose("ball", (0.0, 0.0, 0.1 - rng.uniform(1e-3, 3e-3)),
         V=(*rng.normal(size=3), slip, rng.normal() * slip, rng.normal() * 0.05))
    pose("box", (1.0, 0.0, 0.06 - rng.uniform(5e-4, 2e-3)), rpy=(0.01, -0.01, 0.3),
         V=(*(0.2 * rng.normal(size=3)), *(0.1 * rng.normal(size=3))))
    pose("s1", (2.0, 0.0, 0.05 - 1e-3), V=(*(0.1 * rng.normal(size=3)), 0.02, 0.0, 0.0))
    pose("s2", (2.01, 0.0, 0.15 - 2e-3), V=(*rng.normal(size=3), *(0.3 * rng.normal(size=3))))


def test_time_derivatives_equal_drakes():
    pytest.importorskip("pydrake")
    plant, _ = _build("jaxbody")
    dplant, diagram = _build("drake")
    rng = np.random.default_rng(0)
    M_d = namespace("drake")
    for _ in range(8):
        seed = rng.integers(1 << 30)
        dctx = diagram.CreateDefaultContext()
        pctx = [dplant.GetMyMutableContextFromRoot(dctx)]
        _random_state(np.random.default_rng(seed), dplant, M_d, pctx, "drake")
        xd = dplant.EvalTimeDerivatives(pctx[0]).CopyToVector()
        q, v = dplant.GetPositions(pctx[0]), dplant.GetVelocities(pctx[0])
        ctx = plant.CreateDefaultContext().replace(q=np.asarray(q), v=np.asarray(v))
        xj = np.asarray(plant.CalcTimeDerivatives(ctx))
        scale = max(1.0, np.abs(xd).max())
        assert np.abs(xj - xd).max() < 1e-10 * scale, (np.abs(xj - xd).max(), scale)
        results = dplant.get_contact_results_output_port().Eval(pctx[0])
        assert results.num_point_pair_contacts() >= 6  # every body touches


def _infos(results):
    """{(body, body) sorted: (force on the larger-index body, point, approach speed, slip)}"""
    out = {}
    for i in range(results.num_point_pair_contacts()):
        c = results.point_pair_contact_info(i)
        a, b = int(c.bodyA_index()), int(c.bodyB_index())
        f = np.asarray(c.contact_force()) * (1.0 if b > a else -1.0)
        key = (min(a, b), max(a, b), round(float(np.asarray(c.contact_point())[0]), 2),
               round(float(np.asarray(c.contact_point())[1]), 2))
        out[key] = (f, np.asarray(c.contact_point()), c.separation_speed(), c.slip_speed())
    return out


def test_contact_results_equal_drakes():
    """Drake's continuous ``ContactResults`` (force on B at the midpoint, approach speed as
    'separation speed', slip) and generalized contact forces, point by point, to 1e-10."""
    pytest.importorskip("pydrake")
    plant, _ = _build("jaxbody")
    dplant, diagram = _build("drake")
    M_d = namespace("drake")
    for seed in (1, 2, 3):
        dctx = diagram.CreateDefaultContext()
        pctx = [dplant.GetMyMutableContextFromRoot(dctx)]
        _random_state(np.random.default_rng(seed), dplant, M_d, pctx, "drake")
        q, v = dplant.GetPositions(pctx[0]), dplant.GetVelocities(pctx[0])
        ctx = plant.CreateDefaultContext().replace(q=np.asarray(q), v=np.asarray(v))
        want = _infos(dplant.get_contact_results_output_port().Eval(pctx[0]))
        got = _infos(plant.CalcContactResults(ctx))
        assert sorted(got) == sorted(want)
        for key, (f, p, vn, slip) in want.items():
            g = got[key]
            np.testing.assert_allclose(g[0], f, atol=1e-10 * max(1.0, np.abs(f).max()))
            np.testing.assert_allclose(g[1], p, atol=1e-12)
            assert abs(g[2] - vn) < 1e-12 and abs(g[3] - slip) < 1e-12
        tau_d = dplant.get_generalized_contact_forces_output_port(
            dplant.GetModelInstanceByName("DefaultModelInstance")).Eval(pctx[0])
        tau_j = np.asarray(plant.CalcGeneralizedContactForces(ctx))
        np.testing.assert_allclose(tau_j, tau_d, atol=1e-10 * max(1.0, np.abs(tau_d).max()))


def test_contact_disabled_is_pure_dynamics():
    """``set_contact_enabled(False)``: the geometry stays, no contact acts (a Drake plant
    without SceneGraph): a sphere sunk into the ground falls freely."""
    plant = jb.MultibodyPlant(0.0)
    M = namespace("jaxbody")
    scene(plant, M)
    plant.set_contact_enabled(False)
    plant.Finalize()
    assert not plant.get_contact_enabled() and not plant.GetCollisionCandidates()
    assert len(plant.GetCollisionGeometriesForBody(plant.GetBodyByName("ball"))) == 1
    ctx = plant.SetFreeBodyPose(plant.CreateDefaultContext(), plant.GetBodyByName("ball"),
                                jb.RigidTransform([0.0, 0.0, 0.05]))
    vdot = np.asarray(plant.CalcGeneralizedAccelerations(ctx))
    np.testing.assert_allclose(vdot.reshape(-1, 6)[:, 3:], [[0, 0, -9.81]] * 4, atol=1e-12)
    assert plant.CalcContactResults(ctx).num_point_pair_contacts() == 0
    with pytest.raises(RuntimeError):
        plant.set_contact_enabled(True)


def test_resting_sphere_carries_its_weight():
    """At the static penetration x = mg/k (at rest) the normal force equals the weight, so
    the sphere's acceleration is zero."""
    plant, _ = _build("jaxbody")
    ctx = plant.CreateDefaultContext()
    ball = plant.GetBodyByName("ball")
    x = 1.0 * 9.81 / (K / 2)  # two geometries of stiffness K in series
    ctx = plant.SetFreeBodyPose(ctx, ball, jb.RigidTransform([0.0, 0.0, 0.1 - x]))
    for name, z in (("box", 5.0), ("s1", 5.5), ("s2", 6.0)):  # out of the way, falling
        ctx = plant.SetFreeBodyPose(ctx, plant.GetBodyByName(name), jb.RigidTransform(
            [3.0 * z, 0.0, z]))
    vdot = np.asarray(plant.CalcGeneralizedAccelerations(ctx))
    (j,) = [j for j in (plant.get_joint(i) for i in range(plant.num_joints()))
            if j.child_body().index() == ball.index()]
    start = j.velocity_start()
    np.testing.assert_allclose(vdot[start:start + 6], 0.0, atol=1e-10)


def test_stribeck_curve_knots():
    v_s = 0.01
    mu = [float(stribeck_friction(s, 0.8, 0.5, v_s)) for s in (0.0, v_s, 2 * v_s, 3 * v_s, 1.0)]
    np.testing.assert_allclose(mu, [0.0, 0.8, 0.65, 0.5, 0.5], atol=1e-15)


def test_contact_model_switches():
    plant = jb.MultibodyPlant(1e-3)
    assert plant.get_contact_model() is jb.ContactModel.kHydroelasticWithFallback  # Drake's
    assert plant.get_discrete_contact_approximation() is jb.DiscreteContactApproximation.kSap
    plant.set_contact_model(jb.ContactModel.kHydroelastic)  # no surface: raises at Finalize
    assert plant.get_contact_model() is jb.ContactModel.kHydroelastic
    with pytest.raises(ValueError, match="kTamsi is not supported"):
        plant.set_discrete_contact_approximation(jb.DiscreteContactApproximation.kTamsi)
    with pytest.raises(ValueError, match="strictly positive"):
        plant.set_penetration_allowance(0.0)
    plant.set_contact_model(jb.ContactModel.kPoint)
    plant.Finalize()
    assert plant.get_contact_penalty_method_time_scale() == pytest.approx(
        1.0 / np.sqrt(9.81 / 1e-3))


def test_stiction_tolerance_is_set_before_finalize():
    """After Finalize it is refused (jit-compiled code keyed on the plant could keep the old
    value); bad values and types are refused with the argument named."""
    plant, _ = _build("jaxbody")
    with pytest.raises(RuntimeError, match="set_stiction_tolerance"):
        plant.set_stiction_tolerance(0.001)
    fresh = jb.MultibodyPlant(0.0)
    with pytest.raises(ValueError, match="v_stiction must be > 0"):
        fresh.set_stiction_tolerance(0.0)
    with pytest.raises(TypeError, match="expected a bool"):
        fresh.set_contact_enabled("no")
