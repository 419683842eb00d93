"""Compiled-code identity: two plants share compiled code only when nothing traced code reads
off them differs: a plant's identity is its compiled `Model`, whose key hashes the model's own
fields (`jaxbody.model.content_key`).

- the regression: two plants identical but for an actuator's effort limit gave one trajectory
  in one process (the second reused the first's compiled rollout);
- every builder setter, changed one at a time from a model that uses them all, gives a plant
  that neither compares equal nor shares a trace;
- every field of every element, perturbed in the builder, changes the model's key (nothing is
  left out);
- equal builds still compare equal and share compiled code.
"""

from __future__ import annotations

import copy

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.engine.dynamics import mass_matrix
from jaxbody.geometry.collision.query import ContactQueryOptions
from jaxbody.plant.plant_key import PlantKey

BASE = dict(
    time_step=1e-3, mass=1.2, com=(0.0, 0.0, -0.2), box=(0.1, 0.1, 0.4),
    frame_p=(0.0, 0.0, -0.5), frame_rpy=(0.0, 0.0, 0.0), axis=(0.0, 1.0, 0.0),
    slider_axis=(1.0, 0.0, 0.0), damping=0.1, pos_limits=(-1.0, 1.0), vel_limits=(-5.0, 5.0),
    acc_limits=(-50.0, 50.0), effort=20.0, rotor_inertia=0.0, gear_ratio=1.0,
    spring_k=10.0, spring_q0=0.2, lsd=(0.3, 40.0, 1.0), bushing_k=(10.0, 20.0, 30.0),
    hinge_friction=0.5, gravity=(0.0, 0.0, -9.81), gravity_on=True, default_q=0.0,
    free_z=0.5, sphere_r=0.05, mu=(0.6, 0.5), stiffness=1e5, dissipation=2.0, relaxation=0.1,
    ground_z=0.0, adjacent_filter=True, exclude_pair=False, single_point=False,
    max_pairs=128, max_points=16, max_active=None, weld_p=(0.0, 0.0, 0.0), color=(1, 0, 0, 1),
    instance_name="robot", joint_name="shoulder",
)

# One alternative per builder value: each must give a plant with its own compiled code.
VARIANTS = dict(
    time_step=2e-3, mass=1.3, com=(0.0, 0.01, -0.2), box=(0.1, 0.1, 0.5), frame_p=(0.0, 0.0, -0.4),
    frame_rpy=(0.1, 0.0, 0.0), axis=(0.0, 0.0, 1.0), slider_axis=(0.0, 1.0, 0.0), damping=0.2,
    pos_limits=(-1.0, 0.5), vel_limits=(-4.0, 5.0), acc_limits=(-50.0, 40.0), effort=30.0,
    rotor_inertia=0.01, gear_ratio=2.0, spring_k=11.0, spring_q0=0.3, lsd=(0.3, 40.0, 2.0),
    bushing_k=(10.0, 20.0, 31.0), hinge_friction=0.6, gravity=(0.0, 0.0, -9.8),
    gravity_on=False, default_q=0.1, free_z=0.6, sphere_r=0.06, mu=(0.7, 0.5), stiffness=2e5,
    dissipation=3.0, relaxation=0.2, ground_z=0.01, adjacent_filter=False, exclude_pair=True,
    single_point=True, max_pairs=64, max_points=8, max_active=4, weld_p=(0.0, 0.1, 0.0),
    color=(0, 1, 0, 1), instance_name="robot2", joint_name="hip",
)


def build(before_finalize=None, **overrides):
    """A discrete plant that exercises every builder setter, with ``overrides`` applied (and
    ``before_finalize(plant)`` called just before Finalize)."""
    c = {**BASE, **overrides}
    plant = jb.MultibodyPlant(time_step=c["time_step"])
    mi = plant.AddModelInstance(c["instance_name"])
    lx, ly, lz = c["box"]
    inertia = jb.SpatialInertia.MakeFromCentralInertia(c["mass"], np.asarray(c["com"]),
                                                       jb.RotationalInertia(*(c["mass"] / 12 * np.array(
                                                           [ly**2 + lz**2, lx**2 + lz**2, lx**2 + ly**2]))))
    upper = plant.AddRigidBody("upper", mi, inertia)
    lower = plant.AddRigidBody("lower", mi, jb.SpatialInertia.SolidBoxWithMass(0.5, 0.1, 0.1, 0.2))
    tool = plant.AddRigidBody("tool", mi, jb.SpatialInertia.SolidSphereWithMass(0.1, 0.03))
    ball = plant.AddRigidBody("ball", jb.default_model_instance(),
                              jb.SpatialInertia.SolidSphereWithMass(0.2, c["sphere_r"]))
    shoulder = plant.AddJoint(jb.RevoluteJoint(c["joint_name"], plant.world_frame(),
                                               upper.body_frame(), c["axis"], c["damping"]))
    shoulder.set_position_limits([c["pos_limits"][0]], [c["pos_limits"][1]])
    shoulder.set_velocity_limits([c["vel_limits"][0]], [c["vel_limits"][1]])
    shoulder.set_acceleration_limits([c["acc_limits"][0]], [c["acc_limits"][1]])
    F = plant.AddFrame(jb.FixedOffsetFrame("elbow_frame", upper.body_frame(), jb.RigidTransform(
        jb.RollPitchYaw(c["frame_rpy"]), c["frame_p"])))
    slider = plant.AddJoint(jb.PrismaticJoint("slider", F, lower.body_frame(), c["slider_axis"]))
    plant.WeldFrames(lower.body_frame(), tool.body_frame(), jb.RigidTransform(c["weld_p"]))
    actuator = plant.AddJointActuator("motor", shoulder, c["effort"])
    actuator.set_default_rotor_inertia(c["rotor_inertia"])
    actuator.set_default_gear_ratio(c["gear_ratio"])
    plant.AddForceElement(jb.RevoluteSpring(shoulder, c["spring_q0"], c["spring_k"]))
    plant.AddForceElement(jb.LinearSpringDamper(upper, [0, 0, 0], ball, [0, 0, 0], *c["lsd"]))
    plant.AddForceElement(jb.LinearBushingRollPitchYaw(
        plant.world_frame(), ball.body_frame(), c["bushing_k"], [1, 1, 1], [5, 5, 5], [1, 1, 1]))
    cfg = jb.DoorHingeConfig()
    cfg.dynamic_friction_torque = c["hinge_friction"]
    plant.AddForceElement(jb.DoorHinge(shoulder, cfg))
    plant.AddForceElement(jb.PrismaticSpring(slider, 0.0, 1.0))
    plant.mutable_gravity_field().set_gravity_vector(c["gravity"])
    plant.set_gravity_enabled(mi, c["gravity_on"])
    props = jb.ProximityProperties()
    jb.AddContactMaterial(c["dissipation"], c["stiffness"], jb.CoulombFriction(*c["mu"]), props)
    props.AddProperty("material", "relaxation_time", c["relaxation"])
    plant.RegisterCollisionGeometry(ball, jb.RigidTransform(), jb.Sphere(c["sphere_r"]), "ball",
                                    props)
    plant.RegisterCollisionGeometry(tool, jb.RigidTransform(), jb.Sphere(0.03), "tool",
                                    jb.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(upper, jb.RigidTransform(), jb.Sphere(0.02), "upper",
                                    jb.CoulombFriction(0.5, 0.5))  # adjacent to lower
    plant.RegisterCollisionGeometry(lower, jb.RigidTransform(), jb.Box(0.1, 0.1, 0.2), "lower",
                                    jb.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform([0, 0, c["ground_z"]]),
                                    jb.HalfSpace(), "ground", jb.CoulombFriction(1.0, 1.0))
    plant.RegisterVisualGeometry(ball, jb.RigidTransform(), jb.Sphere(c["sphere_r"]), "ball_v",
                                 c["color"])
    plant.set_adjacent_bodies_collision_filters(c["adjacent_filter"])
    if c["exclude_pair"]:
        plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(
            ("a", jb.GeometrySet(plant.GetCollisionGeometriesForBody(ball))),
            ("b", jb.GeometrySet(plant.GetCollisionGeometriesForBody(tool))))
    plant.set_contact_query_options(ContactQueryOptions(
        single_point=c["single_point"], max_pairs_per_group=c["max_pairs"],
        max_points_per_pair=c["max_points"]))
    if c["max_active"] is not None:
        plant.set_max_active_contacts(c["max_active"])
    plant.SetDefaultFreeBodyPose(ball, jb.RigidTransform([0.3, 0.0, c["free_z"]]))
    if before_finalize is not None:
        before_finalize(plant)
    plant.Finalize()
    shoulder.set_default_angle(c["default_q"])  # after Finalize, as Drake allows
    return plant


@pytest.fixture(scope="module")
def base():
    return build()


def test_effort_limit_regression():
    """The reported reproduction: u = 40 through a 1 N·m and a 50 N·m actuator, in one process."""
    def pendulum(limit):
        plant = jb.MultibodyPlant(time_step=0.0)
        link = plant.AddRigidBody("link", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 1.0))
        pin = plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), link.body_frame(),
                                              [0, 1, 0]))
        plant.AddJointActuator("a", pin, limit)
        plant.Finalize()
        return plant

    finals = {}
    for limit in (1.0, 50.0):
        plant = pendulum(limit)
        out = jb.rollout(plant, plant.CreateDefaultContext(), num_steps=10, dt=0.01,
                         controls=jnp.full((10, 1), 40.0))
        finals[limit] = np.asarray(out.states[-1])
    # v after 10 steps of semi-implicit integration grows with the saturated torque.
    assert finals[50.0][1] > 30 * finals[1.0][1] > 0


def test_equal_builds_share_compiled_code(base):
    other = build()
    assert other == base and hash(other) == hash(base)
    traces = []

    @jax.jit
    def f(q):
        traces.append(1)
        return q

    def g(plant, ctx):
        traces.append(1)
        return plant.CalcMassMatrix(ctx)

    jg = jax.jit(g, static_argnums=0)
    jg(base, base.CreateDefaultContext())
    jg(other, other.CreateDefaultContext())
    assert len(traces) == 1
    # the compiled models are equal too: engine functions keyed on them share compiled code
    model, other_model = base.compiled_model(), other.compiled_model()
    assert model is not other_model and model == other_model and hash(model) == hash(other_model)

    def m(model, ctx):
        traces.append(1)
        return mass_matrix(model, ctx)

    jm = jax.jit(m, static_argnums=0)
    jm(model, base.CreateDefaultContext())
    jm(other_model, other.CreateDefaultContext())
    assert len(traces) == 2


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_builder_value_is_part_of_the_key(base, name):
    variant = build(**{name: VARIANTS[name]})
    assert variant != base
    traces = []

    def f(plant, ctx):
        traces.append(1)
        return ctx.q

    jf = jax.jit(f, static_argnums=0)
    jf(base, base.CreateDefaultContext())
    jf(variant, variant.CreateDefaultContext())
    assert len(traces) == 2
    assert variant.compiled_model() != base.compiled_model()


def test_every_variant_name_is_a_builder_value():
    assert set(VARIANTS) == set(BASE)


def _perturbed(value):
    """A different value of the same kind, or None where there is nothing to perturb."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return type(value)(value + 1) if np.isfinite(value) else 0.0
    if isinstance(value, np.ndarray) and value.size and value.dtype.kind in "fiub":
        out = value.copy()
        x = out.flat[0]
        out.flat[0] = (not x) if out.dtype == bool else (x + 1 if np.isfinite(x) else 0)
        return out
    if isinstance(value, str):
        return value + "_"
    return None


def _element_fields(plant):
    """(list name, position, field name) of every perturbable field of every element (not the
    indices, which the plant assigns)."""
    for list_name in ("_bodies", "_frames", "_joints", "_actuators", "_force_elements",
                      "_geometries"):
        for i, element in enumerate(getattr(plant, list_name)):
            for field, value in vars(element).items():
                if _perturbed(value) is not None and field != "_index":
                    yield list_name, i, field


# set again by build() after Finalize (as Drake allows), so a perturbation before is overwritten
OVERWRITTEN_AFTER_FINALIZE = {("_joints", 0, "_default_q")}


def test_every_element_field_is_part_of_the_key(base):
    """Every field of every element, perturbed in the builder just before Finalize, gives a
    different compiled model (or an error at Finalize): nothing the builder holds is left out of
    the model and its key."""
    fields = []
    build(before_finalize=lambda plant: fields.extend(_element_fields(plant)))
    assert len(fields) > 60
    for list_name, i, field in fields:
        if (list_name, i, field) in OVERWRITTEN_AFTER_FINALIZE:
            continue

        def perturb(plant, list_name=list_name, i=i, field=field):
            element = getattr(plant, list_name)[i]
            setattr(element, field, _perturbed(copy.copy(getattr(element, field))))

        try:
            plant = build(before_finalize=perturb)
        except (ValueError, RuntimeError, TypeError, IndexError, KeyError):
            continue  # a perturbation Finalize rejects
        assert plant != base, f"{list_name}[{i}].{field} is not part of the model's key"
        assert plant.compiled_model().key != base.compiled_model().key


def test_setters_after_finalize_refresh_the_key():
    plant = build()
    before = plant.compiled_model()
    plant.GetJointByName(BASE["joint_name"]).set_default_angle(VARIANTS["default_q"])
    assert plant.compiled_model() != before and plant.compiled_model().key != before.key
    assert plant == build(default_q=VARIANTS["default_q"])


CALLS = {  # calls that leave compiled queries and jitted conveniences on the plant
    "contact_results": lambda p: p.CalcContactResults(p.CreateDefaultContext()),  # a jitted step
    "point_contacts": lambda p: p.CalcPointContacts(p.CreateDefaultContext()),
    "surfaces": lambda p: p.ComputeContactSurfaces(p.CreateDefaultContext()),
    "default_angle": lambda p: p.GetJointByName(BASE["joint_name"]).set_default_angle(
        BASE["default_q"]),  # the same value again: refreshes the key
    "model": lambda p: p.compiled_model(),
}


def test_equal_builds_stay_equal_after_any_sequence_of_calls(base):
    """What a plant computes (compiled queries, jitted conveniences, its model) never enters
    its identity, whatever was called before its model is compiled again: a random sequence
    of calls on one of two equal builds, each followed by a recompile."""
    other = build()
    for name in np.random.default_rng(0).permutation(sorted(CALLS)):
        CALLS[name](other)
        other._model_changed()
        assert other == base and hash(other) == hash(base), f"after {name}"
        assert other.compiled_model() == base.compiled_model(), f"after {name}"
    assert other != build(stiffness=VARIANTS["stiffness"])


def test_plant_key_freezes_identity_across_setters():
    """A `PlantKey` (what the rollouts pass to jit) keeps the identity of the model it was made
    with, so a setter after Finalize neither poisons the compiled code cached under it nor
    serves it to a plant equal to the changed one."""
    plant = build()
    traces = []

    def f(key, ctx):
        traces.append(1)
        return ctx.q

    jf = jax.jit(f, static_argnums=0)
    before = PlantKey(plant)
    jf(before, plant.CreateDefaultContext())
    plant.GetJointByName(BASE["joint_name"]).set_default_angle(VARIANTS["default_q"])
    after = PlantKey(plant)
    assert after != before and before == PlantKey(build())
    jf(after, plant.CreateDefaultContext())
    jf(PlantKey(build(default_q=VARIANTS["default_q"])), plant.CreateDefaultContext())
    jf(PlantKey(build()), plant.CreateDefaultContext())
    assert len(traces) == 2
