"""Typed indices refuse each other in lookups, as Drake's type-safe indices do: a JointIndex is
not a BodyIndex. Plain integers are still accepted (a documented convenience)."""

import numpy as np
import pytest

import jaxbody as jb
from jaxbody.core.elements import FrameIndex, JointActuatorIndex, ModelInstanceIndex


@pytest.fixture(scope="module")
def plant():
    p = jb.MultibodyPlant(0.0)
    b = p.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    j = p.AddJoint(jb.RevoluteJoint("j", p.world_frame(), b.body_frame(), [0, 0, 1]))
    p.AddJointActuator("a", j)
    p.Finalize()
    return p


def test_each_lookup_takes_its_own_index_or_an_int(plant):
    assert plant.get_body(jb.BodyIndex(1)).name() == "b"
    assert plant.get_body(1).name() == "b" and plant.get_body(np.int64(1)).name() == "b"
    assert plant.get_joint(jb.JointIndex(0)).name() == "j"
    assert plant.get_frame(FrameIndex(0)).name() == plant.world_frame().name()
    assert plant.get_joint_actuator(JointActuatorIndex(0)).name() == "a"
    assert plant.num_actuators(ModelInstanceIndex(1)) == 1


@pytest.mark.parametrize("lookup,index,expected", [
    ("get_body", jb.JointIndex(0), "BodyIndex"),
    ("get_joint", jb.BodyIndex(1), "JointIndex"),
    ("get_frame", jb.BodyIndex(0), "FrameIndex"),
    ("get_joint_actuator", jb.JointIndex(0), "JointActuatorIndex"),
    ("get_body", True, "BodyIndex"),
    ("get_body", 1.0, "BodyIndex"),
])
def test_another_kind_of_index_is_refused(plant, lookup, index, expected):
    with pytest.raises(TypeError, match=f"{lookup}: expected a {expected}, got"):
        getattr(plant, lookup)(index)


def test_model_instance_arguments_refuse_other_indices(plant):
    with pytest.raises(TypeError, match="expected a ModelInstanceIndex, got BodyIndex"):
        plant.num_actuators(jb.BodyIndex(1))
