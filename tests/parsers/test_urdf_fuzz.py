"""Property-based robustness: mutate real URDF files (attribute values, deleted, duplicated or
renamed elements, bad numbers, truncated text) and check that the parser either loads a model
with only finite parameters or raises `ParseError`: never another exception, a hang or a NaN.
"""

import copy
import warnings
import xml.etree.ElementTree as ET  # test-side only: rewrites trusted, installed files

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaxbody as jb
from tests.parsers import robot_files

ET.register_namespace("drake", "http://drake.mit.edu")
MAX_EXAMPLES = 50
DEADLINE_MS = 10_000  # per example; a parse of these files takes well under a second

KITCHEN_SINK = """<?xml version="1.0"?>
<robot name="sink" xmlns:drake="http://drake.mit.edu">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="world"/>
  <link name="base">
    <inertial><origin xyz="0 0 0.1" rpy="0.1 0 0"/><mass value="2"/>
      <inertia ixx="0.1" iyy="0.2" izz="0.25" ixy="0.01" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="0.2 0.2 0.2"/></geometry><material name="red"/></visual>
    <collision name="c"><origin xyz="0 0 0.1"/><geometry><capsule radius="0.1" length="0.3"/>
      </geometry><drake:proximity_properties><drake:mu_dynamic value="0.5"/>
      <drake:point_contact_stiffness value="1e5"/><drake:relaxation_time value="0.1"/>
      </drake:proximity_properties></collision>
  </link>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><drake:ellipsoid a="0.1" b="0.2" c="0.3"/></geometry></collision></link>
  <link name="hand"><inertial><mass value="0.5"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="finger"><inertial><mass value="0.1"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="slide" type="prismatic"><parent link="world"/><child link="base"/>
    <axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="100" velocity="2"/></joint>
  <joint name="shoulder" type="revolute"><origin xyz="0 0 0.3" rpy="0 0.5 0"/>
    <parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="50" velocity="3"/><dynamics damping="0.1"/></joint>
  <drake:joint name="wrist" type="ball"><parent link="arm"/><child link="hand"/>
    <origin xyz="0 0 0.5"/></drake:joint>
  <drake:joint name="twist" type="screw"><parent link="hand"/><child link="finger"/>
    <axis xyz="0 0 1"/><drake:screw_thread_pitch value="0.01"/></drake:joint>
  <transmission name="t"><type>SimpleTransmission</type><joint name="shoulder"/>
    <actuator name="motor"><drake:rotor_inertia value="0.001"/></actuator></transmission>
  <frame name="tool" link="hand" xyz="0 0 0.1" rpy="0 0 0"/>
</robot>
"""

ATTRIBUTE_VALUES = st.one_of(
    st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1e308", "1e999", "", " ", "1 2", "1 2 3 4",
                     "x", "1,2,3", "0x10", "1_0", "world", "base", "arm", "revolute", "ball",
                     "package://nowhere/x.obj", "../../../../etc/passwd", "1 0 0", "0 0 0"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=4).map(lambda v: " ".join(map(str, v))),
    st.text(max_size=6),
)
TAGS = st.sampled_from(["link", "joint", "drake:joint", "inertial", "mass", "origin", "box",
                        "mesh", "limit", "transmission", "frame", "nonsense"])


def _sources():
    sources = {"kitchen_sink": (KITCHEN_SINK, None)}
    for rel in ("ur_description/urdf/ur5_robot.urdf",
                "double_pendulum_description/urdf/double_pendulum_simple.urdf"):
        path = robot_files.robot(rel)
        if path is not None:
            with open(path, encoding="utf-8") as f:
                sources[rel] = (f.read(), path)
    return sources


SOURCES = _sources()
TREES = {name: ET.fromstring(text) for name, (text, _) in SOURCES.items()}


@st.composite
def mutated_documents(draw):
    name = draw(st.sampled_from(sorted(SOURCES)))
    root = copy.deepcopy(TREES[name])
    parents = {child: parent for parent in root.iter() for child in parent}
    for _ in range(draw(st.integers(1, 3))):
        elements = list(root.iter())
        el = draw(st.sampled_from(elements))
        op = draw(st.sampled_from(["set", "set", "delete_attribute", "delete", "duplicate",
                                   "rename", "text"]))
        if op == "set":
            key = draw(st.sampled_from(sorted(el.attrib) or ["name"]))
            el.set(key, draw(ATTRIBUTE_VALUES))
        elif op == "delete_attribute" and el.attrib:
            del el.attrib[draw(st.sampled_from(sorted(el.attrib)))]
        elif op == "delete" and el in parents:
            parents[el].remove(el)
        elif op == "duplicate" and el in parents:
            parents[el].append(copy.deepcopy(el))
        elif op == "rename":
            el.tag = draw(TAGS)
        elif op == "text":
            el.text = draw(ATTRIBUTE_VALUES)
        parents = {child: parent for parent in root.iter() for child in parent}
    text = ET.tostring(root, encoding="unicode")
    if draw(st.integers(0, 4)) == 0:
        text = text[:draw(st.integers(0, len(text)))]
    return name, text


def _assert_finite_model(plant):
    plant.Finalize()
    params = plant.CreateDefaultContext().parameters
    for field in ("mass", "com", "unit_inertia", "frame_R", "frame_p", "damping", "gravity",
                  "rotor_inertia", "gear_ratio"):
        assert np.all(np.isfinite(np.asarray(getattr(params, field)))), field
    for j in plant._joints:
        for limits in (j.position_lower_limits(), j.position_upper_limits(),
                       j.velocity_lower_limits(), j.velocity_upper_limits()):
            assert not np.any(np.isnan(limits)), j.name()
    for g in plant.GetGeometries():
        X = g.pose_in_body()
        assert np.all(np.isfinite(np.asarray(X.GetAsMatrix4()))), g.name()


def _parse(text):
    """A plant with ``text`` added (ParseWarnings silenced), or the `ParseError` raised."""
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    robot_files.add_packages(parser.package_map())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.ParseWarning)
        parser.AddModelsFromString(text, "urdf")
    return plant


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_unmutated_sources_load(name):
    _assert_finite_model(_parse(SOURCES[name][0]))


@settings(max_examples=MAX_EXAMPLES, deadline=DEADLINE_MS, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated_documents())
def test_mutated_files_load_or_raise_parse_error(doc):
    _, text = doc
    try:
        plant = _parse(text)
    except jb.ParseError:
        return
    _assert_finite_model(plant)
