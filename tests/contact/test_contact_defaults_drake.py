"""Drake's default contact properties for geometries that set none (SceneGraph's
``DefaultProximityProperties``: k = 1e6 N/m, d = 50 s/m, τ = 0.1 s, μ = 0.5) and Drake's
fallback to the penetration-allowance estimate where a default is None, against pydrake:
continuous time derivatives and discrete (kLagged) steps on a scene where some geometries set
their properties and some do not, with the allowance at its default, set before Finalize and
set after it."""

import numpy as np
import pytest

import jaxbody as jb
from tests.constraints.scenes import namespace, sphere_body

REL_TOL = 1e-10  # relative to max(1, |ẋ|∞)
ALLOWANCES = [("default", None), ("before", 2e-3), ("after", 5e-4)]


def _scene(plant, M, explicit):
    """A 1 kg ball (r = 0.1), a 3 kg ball (r = 0.05) and a ground; the geometries named in
    ``explicit`` carry their own stiffness and dissipation, the others only friction ('heavy'
    not even that)."""
    for name, r, m in (("ball", 0.1, 1.0), ("heavy", 0.05, 3.0)):
        body = sphere_body(plant, M, name, m, r)
        plant.RegisterCollisionGeometry(body, M.RigidTransform(), M.Sphere(r), name,
                                        _props(M, name, explicit))
    plant.RegisterCollisionGeometry(plant.world_body(), M.RigidTransform(), M.HalfSpace(),
                                    "ground", _props(M, "ground", explicit))


def _props(M, name, explicit):
    props = M.ProximityProperties()
    if name in explicit:
        M.AddContactMaterial(dissipation=0.7, point_stiffness=2e4,
                             friction=M.CoulombFriction(0.8, 0.5), properties=props)
    elif name != "heavy":  # 'heavy' gets its friction from the defaults too
        M.AddContactMaterial(friction=M.CoulombFriction(0.8, 0.5), properties=props)
    return props


def _config(M, fallback):
    config = M.SceneGraphConfig()
    if fallback:  # Drake's estimate from the penetration allowance
        config.default_proximity_properties.point_stiffness = None
        config.default_proximity_properties.hunt_crossley_dissipation = None
    return config


def _build(engine, explicit, when, allowance, fallback, time_step=0.0):
    M = namespace(engine)
    if engine == "jaxbody":
        plant, builder = jb.MultibodyPlant(time_step), None
        plant.set_scene_graph_config(_config(M, fallback))
        from jaxbody.geometry.collision import ContactQueryOptions

        plant.set_contact_query_options(ContactQueryOptions(single_point=True,
                                                            max_pairs_per_group=None))
    else:
        from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
        from pydrake.systems.framework import DiagramBuilder

        builder = DiagramBuilder()
        plant, scene_graph = AddMultibodyPlantSceneGraph(builder, time_step)
        scene_graph.set_config(_config(M, fallback))
        plant.set_contact_model(M.ContactModel.kPoint)
    if time_step:
        plant.set_discrete_contact_approximation(M.DiscreteContactApproximation.kLagged)
    _scene(plant, M, explicit)
    if when == "before":
        plant.set_penetration_allowance(allowance)
    plant.Finalize()
    if when == "after":
        plant.set_penetration_allowance(allowance)
    return plant, None if builder is None else builder.Build()


def _drake_state(dplant, diagram):
    M = namespace("drake")
    root = diagram.CreateDefaultContext()
    ctx = dplant.GetMyMutableContextFromRoot(root)
    for name, p, v in (("ball", [0, 0, 0.098], [0.1, 0.02, -0.05]),
                       ("heavy", [1.0, 0, 0.0492], [0.0, 0.3, 0.01])):
        body = dplant.GetBodyByName(name)
        dplant.SetFreeBodyPose(ctx, body, M.RigidTransform(p))
        dplant.SetFreeBodySpatialVelocity(ctx, body, M.SpatialVelocity(
            np.array([0.3, -0.2, 0.1]), np.asarray(v, float)))
    return root, ctx


@pytest.mark.parametrize("fallback", [False, True], ids=["scene_graph_defaults", "estimate"])
@pytest.mark.parametrize("when, allowance", ALLOWANCES, ids=[a[0] for a in ALLOWANCES])
def test_continuous_defaults_equal_drakes(fallback, when, allowance):
    pytest.importorskip("pydrake")
    for explicit in ((), ("ball",), ("ground",)):
        plant, _ = _build("jaxbody", explicit, when, allowance, fallback)
        dplant, diagram = _build("drake", explicit, when, allowance, fallback)
        _, dctx = _drake_state(dplant, diagram)
        xd = dplant.EvalTimeDerivatives(dctx).CopyToVector()
        ctx = plant.CreateDefaultContext().replace(q=np.asarray(dplant.GetPositions(dctx)),
                                                   v=np.asarray(dplant.GetVelocities(dctx)))
        xj = np.asarray(plant.CalcTimeDerivatives(ctx))
        assert np.abs(xj - xd).max() <= REL_TOL * max(1.0, np.abs(xd).max()), (explicit, xj, xd)
        results = dplant.get_contact_results_output_port().Eval(dctx)
        assert results.num_point_pair_contacts() == 2
        assert plant.get_contact_penalty_method_time_scale() == pytest.approx(
            dplant.get_contact_penalty_method_time_scale(), rel=1e-14)


@pytest.mark.parametrize("fallback", [False, True], ids=["scene_graph_defaults", "estimate"])
def test_discrete_lagged_step_uses_drakes_defaults(fallback):
    """kLagged reads the Hunt-Crossley dissipation: Drake's default 50 s/m (or the estimate)."""
    pytest.importorskip("pydrake")
    plant, _ = _build("jaxbody", (), "before", 2e-3, fallback, time_step=1e-3)
    dplant, diagram = _build("drake", (), "before", 2e-3, fallback, time_step=1e-3)
    from pydrake.systems.analysis import Simulator

    root, dctx = _drake_state(dplant, diagram)
    q0, v0 = np.asarray(dplant.GetPositions(dctx)), np.asarray(dplant.GetVelocities(dctx))
    simulator = Simulator(diagram, root)
    simulator.AdvanceTo(1e-3)
    v_drake = np.asarray(dplant.GetVelocities(dctx))
    ctx = plant.CreateDefaultContext().replace(q=q0, v=v0)
    v_jax = np.asarray(plant.CalcDiscreteStep(ctx).context.v)
    assert np.abs(v_jax - v_drake).max() <= REL_TOL * max(1.0, np.abs(v_drake).max())


def test_default_values_and_fallback():
    plant, _ = _build("jaxbody", (), "default", None, False)
    c = plant.CreateDefaultContext().parameters.contact
    np.testing.assert_array_equal(c["point_contact_stiffness"], [1e6, 1e6, 1e6])
    np.testing.assert_array_equal(c["hunt_crossley_dissipation"], [50.0, 50.0, 50.0])
    np.testing.assert_array_equal(c["relaxation_time"], [0.1, 0.1, 0.1])
    np.testing.assert_array_equal(c["static_friction"], [0.8, 0.5, 0.8])  # 'heavy': default
    plant, _ = _build("jaxbody", ("ball",), "after", 2e-3, True)
    c = plant.CreateDefaultContext().parameters.contact
    k_est = 2 * 3.0 * 9.81 / 2e-3  # the heaviest body: 3 kg
    np.testing.assert_allclose(c["point_contact_stiffness"], [2e4, k_est, k_est], rtol=1e-14)
    np.testing.assert_allclose(c["hunt_crossley_dissipation"],
                               [0.7, *(2 * [1 / np.sqrt(9.81 * 2e-3)])], rtol=1e-14)


def test_friction_none_raises_naming_the_geometry():
    config = jb.SceneGraphConfig()
    config.default_proximity_properties.static_friction = None
    config.default_proximity_properties.dynamic_friction = None
    plant = jb.MultibodyPlant(0.001)
    plant.set_scene_graph_config(config)
    _scene(plant, namespace("jaxbody"), ())
    with pytest.raises(ValueError, match="'heavy' on body 'heavy' has no .*coulomb_friction"):
        plant.Finalize()


def test_the_plant_keeps_a_validated_copy():
    config = jb.SceneGraphConfig()
    plant = jb.MultibodyPlant(0.0)
    plant.set_scene_graph_config(config)
    config.default_proximity_properties.point_stiffness = 7.0  # no effect on the plant's copy
    assert plant.get_scene_graph_config().default_proximity_properties.point_stiffness == 1e6
    with pytest.raises(TypeError, match="expected a SceneGraphConfig"):
        plant.set_scene_graph_config({"point_stiffness": 1.0})
    plant.Finalize()
    with pytest.raises(RuntimeError, match="set_scene_graph_config"):
        plant.set_scene_graph_config(jb.SceneGraphConfig())


@pytest.mark.parametrize("field, value, message", [
    ("point_stiffness", -1.0, "point_stiffness must be a finite number > 0"),
    ("hunt_crossley_dissipation", float("nan"), "hunt_crossley_dissipation must be"),
    ("static_friction", None, "both set or both None"),
    ("dynamic_friction", 0.9, "must not exceed static_friction"),
    ("compliance_type", "compliant", "only 'undefined' is supported"),
    ("compliance_type", "squishy", "must be one of"),
    ("slab_thickness", 0.1, "slab_thickness: not supported"),
])
def test_invalid_default_proximity_properties_are_named(field, value, message):
    config = jb.SceneGraphConfig()
    setattr(config.default_proximity_properties, field, value)
    with pytest.raises(ValueError, match=message):
        jb.MultibodyPlant(0.0).set_scene_graph_config(config)


def test_allowance_after_finalize_changes_the_plants_key():
    """The plant's default parameters follow a post-Finalize allowance; its content key too."""
    a, _ = _build("jaxbody", (), "default", None, True)
    b, _ = _build("jaxbody", (), "default", None, True)
    assert a == b and hash(a) == hash(b)
    b.set_penetration_allowance(2e-3)
    assert a != b
    with pytest.raises(ValueError, match="strictly positive"):
        b.set_penetration_allowance(0.0)
