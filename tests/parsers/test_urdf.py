"""URDF parsing, element by element, against closed forms and Drake's documented conventions:
links and inertias, every joint type, limits and damping, transmissions, frames, floating
bases, model instances and scoping."""

import numpy as np
import pytest

import jaxbody as jb
from jaxbody.parsers.inertia import rotation_from_rpy
from tests.parsers.urdf_text import link, load, robot

EXACT = 1e-14  # poses and inertias built from the same numbers agree to round-off

def joint_urdf(kind, extra="", tag="joint", parent="a", child="b"):
    return robot(link("a") + link("b") + f'<{tag} name="j" type="{kind}"><parent link="{parent}"/>'
                 f'<child link="{child}"/><origin xyz="0.1 0.2 0.3" rpy="0.3 -0.2 0.1"/>{extra}</{tag}>')


# ---- model instances, links and inertias -------------------------------------------------------
def test_model_instance_named_after_robot():
    plant, instances, _ = load(robot(link("a"), name="arm"))
    assert instances == [jb.ModelInstanceIndex(2)]
    assert plant.GetModelInstanceName(instances[0]) == "arm"
    assert plant.GetBodyByName("a").model_instance() == instances[0]


def test_inertia_about_com_in_rotated_inertial_frame():
    rpy, p = np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.2, 0.3])
    I = np.array([[1.0, 0.1, 0.05], [0.1, 2.0, 0.02], [0.05, 0.02, 2.5]])
    text = robot('<link name="a"><inertial><origin xyz="0.1 0.2 0.3" rpy="0.1 0.2 0.3"/>'
                 '<mass value="2"/><inertia ixx="1" iyy="2" izz="2.5" ixy="0.1" ixz="0.05" '
                 'iyz="0.02"/></inertial></link>')
    plant, _, _ = load(text)
    M = plant.GetBodyByName("a").default_spatial_inertia()
    R = rotation_from_rpy(rpy)
    G_expected = R @ I @ R.T / 2.0 + (p @ p * np.eye(3) - np.outer(p, p))
    assert float(M.get_mass()) == 2.0
    np.testing.assert_allclose(np.asarray(M.get_com()), p, atol=EXACT)
    np.testing.assert_allclose(np.asarray(M.get_unit_inertia().CopyToFullMatrix3()), G_expected,
                               atol=EXACT)


def test_missing_or_empty_inertial_is_massless():
    plant, _, _ = load(robot('<link name="a"/><link name="b"><inertial/></link>'))
    for name in "ab":
        M = plant.GetBodyByName(name).default_spatial_inertia()
        assert float(M.get_mass()) == 0.0
        assert not np.any(np.asarray(M.get_unit_inertia().CopyToFullMatrix3()))


def test_triangle_inequality_violation_gets_drakes_stand_in_with_warning():
    text = robot('<link name="a"><inertial><origin xyz="0.1 0 0"/><mass value="2"/>'
                 '<inertia ixx="1" iyy="1" izz="5" ixy="0" ixz="0" iyz="0"/></inertial></link>')
    plant, _, warns = load(text)
    assert any("<literal-string>.urdf:3: <inertial>" in w and "triangle" in w for w in warns)
    M = plant.GetBodyByName("a").default_spatial_inertia()
    r = np.cbrt(3 / (4 * np.pi) * 2.0 / 1000.0)  # a 2 kg sphere of water
    G_expected = 0.4 * r * r * np.eye(3) + np.diag([0.0, 0.01, 0.01])
    assert abs(float(M.get_mass()) - 2.0) < 1e-12
    np.testing.assert_allclose(np.asarray(M.get_unit_inertia().CopyToFullMatrix3()), G_expected,
                               atol=EXACT)


def test_world_link_is_the_world_body():
    text = robot('<link name="world"/>' + link("a")
                 + '<joint name="j" type="fixed"><parent link="world"/><child link="a"/></joint>')
    plant, _, _ = load(text)
    joint = plant.GetJointByName("j")
    assert joint.parent_body().index() == 0 and joint.frame_on_parent().name() == "j_parent"
    assert plant.num_positions() == 0 and plant.IsAnchored(plant.GetBodyByName("a"))


# ---- joints ------------------------------------------------------------------------------------
def test_revolute_joint_frames_axis_limits_and_damping():
    extra = ('<axis xyz="0 2 0"/><limit lower="-1" upper="2" effort="5" velocity="3" '
             'drake:acceleration="4"/><dynamics damping="0.7"/>')
    plant, _, _ = load(joint_urdf("revolute", extra))
    j = plant.GetJointByName("j")
    assert isinstance(j, jb.RevoluteJoint)
    np.testing.assert_allclose(j.revolute_axis(), [0, 1, 0])
    assert (j.position_lower_limit(), j.position_upper_limit(), j.damping()) == (-1.0, 2.0, 0.7)
    assert (j.velocity_lower_limits()[0], j.velocity_upper_limits()[0]) == (-3.0, 3.0)
    assert (j.acceleration_lower_limits()[0], j.acceleration_upper_limits()[0]) == (-4.0, 4.0)
    F, M = j.frame_on_parent(), j.frame_on_child()
    assert (F.name(), F.body().name(), M.name()) == ("j_parent", "a", "b") and M.is_body_frame()
    X = F.GetFixedPoseInBodyFrame()
    np.testing.assert_allclose(np.asarray(X.translation()), [0.1, 0.2, 0.3], atol=EXACT)
    np.testing.assert_allclose(np.asarray(X.rotation().matrix()),
                               rotation_from_rpy([0.3, -0.2, 0.1]), atol=EXACT)


def test_default_axis_is_x_and_continuous_is_revolute():
    plant, _, _ = load(joint_urdf("continuous"))
    j = plant.GetJointByName("j")
    assert j.type_name() == "revolute"
    np.testing.assert_allclose(j.revolute_axis(), [1, 0, 0])
    assert j.position_lower_limit() == -np.inf and j.velocity_upper_limits()[0] == np.inf


SCREW = '<axis xyz="0 0 2"/><drake:screw_thread_pitch value="0.04"/><dynamics damping="0.3"/>'


@pytest.mark.parametrize("kind, tag, extra, type_name, nv", [
    ("prismatic", "joint", '<axis xyz="0 0 1"/><limit lower="0" upper="0.5"/>', "prismatic", 1),
    ("fixed", "joint", "", "weld", 0),
    ("ball", "drake:joint", '<dynamics damping="0.2"/>', "ball_rpy", 3),
    ("universal", "drake:joint", '<dynamics damping="0.2"/>', "universal", 2),
    ("screw", "drake:joint", SCREW, "screw", 1),
])
def test_other_joint_types(kind, tag, extra, type_name, nv):
    plant, _, _ = load(joint_urdf(kind, extra, tag))
    j = plant.GetJointByName("j")
    assert j.type_name() == type_name and j.num_velocities() == nv
    if kind in ("ball", "universal"):
        np.testing.assert_array_equal(j.default_damping_vector(), [0.2] * nv)
    if kind == "screw":
        assert j.screw_pitch() == 0.04 and j.damping() == 0.3
        np.testing.assert_allclose(j.screw_axis(), [0, 0, 1])
    if kind == "prismatic":
        assert (j.position_lower_limit(), j.position_upper_limit()) == (0.0, 0.5)


def test_planar_joint_aligns_mz_with_axis():
    extra = '<axis xyz="1 1 0"/><dynamics damping="0.1 0.2 0.3"/>'
    for tag in ("joint", "drake:joint"):
        plant, _, _ = load(joint_urdf("planar", extra, tag))
        j = plant.GetJointByName("j")
        assert j.type_name() == "planar" and j.frame_on_child().name() == "j_child"
        R_BM = np.asarray(j.frame_on_child().GetFixedPoseInBodyFrame().rotation().matrix())
        np.testing.assert_allclose(R_BM[:, 2], np.array([1, 1, 0]) / np.sqrt(2), atol=EXACT)
        np.testing.assert_allclose(R_BM @ R_BM.T, np.eye(3), atol=EXACT)
        R_PF = np.asarray(j.frame_on_parent().GetFixedPoseInBodyFrame().rotation().matrix())
        np.testing.assert_allclose(R_PF, rotation_from_rpy([0.3, -0.2, 0.1]) @ R_BM, atol=EXACT)
        np.testing.assert_array_equal(j.default_damping_vector(), [0.1, 0.2, 0.3])


def test_floating_joint_leaves_a_free_body():
    plant, _, warns = load(joint_urdf("floating"))
    assert any("floating" in w for w in warns)
    assert not plant.HasJointNamed("j")
    assert plant.GetBodyByName("b").is_floating() and plant.GetBodyByName("a").is_floating()
    assert plant.num_positions() == 14


def test_root_link_floats_with_a_quaternion_joint_named_after_it():
    text = robot(link("base") + link("leg") + '<joint name="hip" type="revolute"><parent '
                 'link="base"/><child link="leg"/></joint>')
    plant, _, _ = load(text)
    base = plant.GetJointByName("base")
    assert base.type_name() == "quaternion_floating" and base.position_start() == 0
    assert plant.GetJointByName("hip").position_start() == 7
    np.testing.assert_array_equal(plant.GetDefaultPositions(), [1, 0, 0, 0, 0, 0, 0, 0])


# ---- transmissions and frames ------------------------------------------------------------------
def transmission(joint, actuator="motor", kind="transmission_interface/SimpleTransmission",
                 extra=""):
    return (f'<transmission name="t_{actuator}"><type>{kind}</type><joint name="{joint}"/>'
            f'<actuator name="{actuator}">{extra}</actuator></transmission>')


def test_simple_transmission_makes_an_actuator_with_the_effort_limit():
    extra = '<drake:rotor_inertia value="0.01"/><drake:gear_ratio value="50"/>'
    text = robot(link("a") + link("b") + '<joint name="j" type="revolute"><parent link="a"/>'
                 '<child link="b"/><limit effort="12"/></joint>' + transmission("j", extra=extra))
    plant, _, _ = load(text)
    a = plant.GetJointActuatorByName("motor")
    assert a.joint().name() == "j" and a.effort_limit() == 12.0
    assert (a.default_rotor_inertia(), a.default_gear_ratio()) == (0.01, 50.0)


def test_transmissions_drake_skips_with_warnings():
    text = robot(link("a") + link("b") + link("c") + '<joint name="w" type="fixed"><parent '
                 'link="a"/><child link="b"/></joint><joint name="z" type="revolute"><parent '
                 'link="b"/><child link="c"/><limit effort="0"/></joint>'
                 + transmission("w", "m1") + transmission("z", "m2")
                 + transmission("z", "m3", kind="DifferentialTransmission"))
    plant, _, warns = load(text)
    assert plant.num_actuators() == 0
    assert sum("transmission" in w.lower() for w in warns) == 3


def test_transmission_of_a_missing_joint_is_skipped_with_a_warning():
    """Partial models keep the whole robot's transmissions (example-robot-data's
    talos_left_arm.urdf): the ones whose joint is absent are skipped with a warning naming the
    line; Drake refuses the file."""
    text = robot(link("a") + link("b") + '<joint name="j" type="revolute"><parent link="a"/>'
                 '<child link="b"/><limit effort="12"/></joint>' + transmission("j", "m1")
                 + transmission("elsewhere", "m2"))
    plant, _, warns = load(text)
    assert [plant.get_joint_actuator(i).name() for i in plant.GetJointActuatorIndices()] == ["m1"]
    assert any("skipping transmission since it specifies joint 'elsewhere' which does not exist"
               in w for w in warns), warns


def test_frame_elements_become_fixed_offset_frames():
    text = robot(link("a") + '<frame name="tool" link="a" xyz="0 0 0.1" rpy="0 0 1.5"/>')
    plant, _, _ = load(text)
    X = plant.GetFrameByName("tool").GetFixedPoseInBodyFrame()
    np.testing.assert_allclose(np.asarray(X.translation()), [0, 0, 0.1], atol=EXACT)
    np.testing.assert_allclose(np.asarray(X.rotation().matrix()), rotation_from_rpy([0, 0, 1.5]),
                               atol=EXACT)


# ---- instances, scoping, renaming, strictness --------------------------------------------------
def test_scoped_instances_and_name_clash():
    plant = jb.MultibodyPlant(0.0)
    text = robot(link("a"))
    jb.Parser(plant).AddModelsFromString(text, "urdf")
    (scoped,) = jb.Parser(plant, "left").AddModelsFromString(text, "urdf")
    assert plant.GetModelInstanceName(scoped) == "left::r"
    with pytest.raises(jb.ParseError, match="already contains a model instance named 'r'"):
        jb.Parser(plant).AddModelsFromString(text, "urdf")
    parser = jb.Parser(plant)
    parser.SetAutoRenaming(True)
    assert parser.GetAutoRenaming()
    names = [plant.GetModelInstanceName(parser.AddModelsFromString(text, "urdf")[0])
             for _ in range(2)]
    assert names == ["r_1", "r_2"]


def test_strict_parsing_turns_warnings_into_errors():
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    parser.SetStrictParsing()
    with pytest.raises(jb.ParseError, match="strict parsing"):
        parser.AddModelsFromString(joint_urdf("floating"), "urdf")
    assert plant.num_model_instances() == 2


def test_add_models_from_file_and_url(tmp_path):
    pkg = tmp_path / "my_pkg"
    (pkg / "urdf").mkdir(parents=True)
    (pkg / "package.xml").write_text("<package><name>my_pkg</name></package>")
    (pkg / "urdf" / "r.urdf").write_text(robot(link("a")))
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    parser.package_map().AddPackageXml(str(pkg / "package.xml"))
    assert parser.AddModelsFromUrl("package://my_pkg/urdf/r.urdf") == [jb.ModelInstanceIndex(2)]
    assert jb.Parser(plant, "s").AddModels(pkg / "urdf" / "r.urdf") == [jb.ModelInstanceIndex(3)]
    url = f"file://{pkg / 'urdf' / 'r.urdf'}"
    assert jb.Parser(plant, "t").AddModelsFromUrl(url) == [jb.ModelInstanceIndex(4)]
    with pytest.raises(jb.ParseError, match="version attribute"):
        jb.Parser(plant).AddModelsFromString("<sdf/>", "sdf")
