"""State, position, velocity and actuator names and the unique floating base, against pydrake."""

import numpy as np
import pytest

import jaxbody as jb
from tests.helpers.random_trees import build_drake, build_jaxbody, random_tree

pytest.importorskip("pydrake")


@pytest.fixture(scope="module", params=[41, 42, 43])
def plants(request):
    """Random trees of every Drake joint kind (free bodies included), in both engines."""
    spec = random_tree(np.random.default_rng(request.param), 8, free_fraction=0.2)
    return build_jaxbody(spec), build_drake(spec)


def test_names_equal_drakes(plants):
    mine, drake = plants
    for prefix in (True, False):
        for suffix in (True, False):
            assert mine.GetPositionNames(add_model_instance_prefix=prefix,
                                         always_add_suffix=suffix) == drake.GetPositionNames(
                add_model_instance_prefix=prefix, always_add_suffix=suffix)
            assert mine.GetVelocityNames(add_model_instance_prefix=prefix,
                                         always_add_suffix=suffix) == drake.GetVelocityNames(
                add_model_instance_prefix=prefix, always_add_suffix=suffix)
        assert mine.GetStateNames(add_model_instance_prefix=prefix) == drake.GetStateNames(
            add_model_instance_prefix=prefix)
        assert mine.GetActuatorNames(add_model_instance_prefix=prefix) == drake.GetActuatorNames(
            add_model_instance_prefix=prefix)
    default = mine.GetModelInstanceByName("DefaultModelInstance")
    ddefault = drake.GetModelInstanceByName("DefaultModelInstance")
    assert mine.GetPositionNames(default) == drake.GetPositionNames(ddefault)
    assert mine.GetStateNames(default) == drake.GetStateNames(ddefault)
    assert mine.GetActuatorNames(default) == drake.GetActuatorNames(ddefault)
    assert len(mine.GetStateNames()) == mine.num_positions() + mine.num_velocities()


def test_unique_floating_base_matches_drake():
    """One instance per robot: a floating one, a fixed one, one with two floating bodies."""
    engines = {}
    for mod_name in ("jaxbody", "drake"):
        if mod_name == "jaxbody":
            plant, M = jb.MultibodyPlant(0.0), jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1)
            Revolute = jb.RevoluteJoint
        else:
            from pydrake.multibody.plant import MultibodyPlant
            from pydrake.multibody.tree import RevoluteJoint, SpatialInertia

            plant, M = MultibodyPlant(0.0), SpatialInertia.SolidSphereWithMass(1.0, 0.1)
            Revolute = RevoluteJoint
        names = ("floating", "fixed", "two")
        inst = [plant.AddModelInstance(n) for n in names]
        base = plant.AddRigidBody("base", inst[0], M)
        leg = plant.AddRigidBody("leg", inst[0], M)
        plant.AddJoint(Revolute("hip", base.body_frame(), leg.body_frame(), [0, 0, 1]))
        link = plant.AddRigidBody("link", inst[1], M)
        plant.AddJoint(Revolute("pin", plant.world_frame(), link.body_frame(), [0, 1, 0]))
        plant.AddRigidBody("a", inst[2], M)
        plant.AddRigidBody("b", inst[2], M)
        plant.Finalize()
        engines[mod_name] = (plant, inst)
    (mine, mi), (drake, di) = engines["jaxbody"], engines["drake"]
    for a, b in zip(mi, di):
        assert mine.HasUniqueFloatingBaseBody(a) == drake.HasUniqueFloatingBaseBody(b)
    assert mine.GetUniqueFloatingBaseBodyOrThrow(mi[0]).name() == "base"
    assert drake.GetUniqueFloatingBaseBodyOrThrow(di[0]).name() == "base"
    assert mine.GetUniqueFreeBaseBodyOrThrow(mi[0]).name() == "base"
    for k in (1, 2):
        with pytest.raises(ValueError, match=f"'{('fixed', 'two')[k - 1]}' does not have a unique"):
            mine.GetUniqueFloatingBaseBodyOrThrow(mi[k])


def test_simbody_kinds_follow_the_pattern():
    plant = jb.MultibodyPlant(0.0)
    M = jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1)
    a, b, c = (plant.AddRigidBody(n, M) for n in ("a", "b", "c"))
    plant.AddJoint(jb.BallJoint("ball", plant.world_frame(), a.body_frame()))
    plant.AddJoint(jb.CylindricalJoint("cyl", a.body_frame(), b.body_frame()))
    plant.AddJoint(jb.TranslationalJoint("tra", b.body_frame(), c.body_frame()))
    plant.Finalize()
    assert plant.GetPositionNames(add_model_instance_prefix=False) == [
        "ball_qw", "ball_qx", "ball_qy", "ball_qz", "cyl_qz", "cyl_z", "tra_x", "tra_y", "tra_z"]
    assert plant.GetVelocityNames(add_model_instance_prefix=False) == [
        "ball_wx", "ball_wy", "ball_wz", "cyl_wz", "cyl_vz", "tra_vx", "tra_vy", "tra_vz"]


def test_every_kind_names_each_entry():
    from jaxbody.joints.kind_registry import ALL_KINDS

    for kind in ALL_KINDS:
        q_names, v_names = kind.suffixes
        assert (len(q_names), len(v_names)) == (kind.nq, kind.nv), kind.name
        assert len(set(q_names)) == kind.nq and len(set(v_names)) == kind.nv, kind.name


def test_names_need_finalize_and_a_valid_instance():
    plant = jb.MultibodyPlant(0.0)
    with pytest.raises(Exception, match="GetPositionNames"):
        plant.GetPositionNames()
    plant.Finalize()
    with pytest.raises(ValueError, match="GetVelocityNames: invalid model instance 7"):
        plant.GetVelocityNames(jb.ModelInstanceIndex(7))
    with pytest.raises(TypeError, match="GetActuatorNames: expected a ModelInstanceIndex, got 'x'"):
        plant.GetActuatorNames("x")
