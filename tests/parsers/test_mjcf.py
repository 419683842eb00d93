"""The MJCF reader element by element: defaults and childclass, compiler units, joint chains
through massless bodies, armature and motors, geometry registration, includes, dispatch on the
file type, and every error (naming file, line and element; the plant unchanged).
(Dynamics and kinematics are checked against MuJoCo in tests/reference/test_mjcf_mujoco.py.)"""

import warnings

import numpy as np
import pytest

import jaxbody as jb

EXACT = 1e-14


def mjcf(body, head="", name="m"):
    """An MJCF document whose worldbody content ``body`` starts at line 3."""
    return f'<mujoco model="{name}">{head}\n<worldbody>\n{body}\n</worldbody>\n</mujoco>'


def load(text, finalize=True):
    plant = jb.MultibodyPlant(0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        instances = jb.Parser(plant).AddModelsFromString(text, "xml")
    if finalize:
        plant.Finalize()
    return plant, instances, [str(w.message) for w in caught if w.category is jb.ParseWarning]


DEFAULTS = """<default><joint damping="1" range="-10 10"/><geom size="0.1"/>
  <default class="a"><joint damping="2"/><default class="b"><joint range="-20 20"/></default>
  </default></default>"""


def test_defaults_classes_inherit_and_childclass_applies_to_descendants():
    body = ('<body name="p" childclass="b"><joint name="j1"/><geom/><body name="c"><joint '
            'name="j2" class="main"/><geom/><body name="d"><joint name="j3" damping="3"/><geom/>'
            "</body></body></body>")
    plant, instances, _ = load(mjcf(body, DEFAULTS))
    j1, j2, j3 = (plant.GetJointByName(n) for n in ("j1", "j2", "j3"))
    assert (j1.damping(), j2.damping(), j3.damping()) == (2.0, 1.0, 3.0)
    assert j1.position_upper_limit() == pytest.approx(np.deg2rad(20), abs=EXACT)
    assert j2.position_upper_limit() == pytest.approx(np.deg2rad(10), abs=EXACT)
    assert plant.GetModelInstanceName(instances[0]) == "m"


def test_radian_angles_and_autolimits():
    plant, _, _ = load(mjcf('<body><joint name="j" range="-1 2"/><joint name="k" limited="false" '
                            'range="-1 2"/><geom size="1"/></body>', '<compiler angle="radian"/>'))
    assert plant.GetJointByName("j").position_lower_limit() == -1.0
    assert plant.GetJointByName("k").position_lower_limit() == -np.inf


def test_several_hinges_make_a_chain_of_massless_bodies_that_coincide_at_zero():
    plant, _, _ = load(mjcf('<body name="b" pos="1 0 0"><joint name="h1" pos="0 0 1" axis="1 0 0"/>'
                            '<joint name="h2" pos="0 1 0" axis="0 1 0"/><joint name="s" type='
                            '"slide"/><geom size="0.1"/></body>'))
    assert [plant.get_body(i).name() for i in range(1, 4)] == ["b", "b0", "b1"]
    assert [float(plant.get_body(i).default_spatial_inertia().get_mass()) for i in (2, 3)] == [0, 0]
    chain = [(j.parent_body().name(), j.child_body().name()) for j in
             (plant.GetJointByName(n) for n in ("h1", "h2", "s"))]
    assert chain == [("world", "b0"), ("b0", "b1"), ("b1", "b")]
    context = plant.CreateDefaultContext()
    for name in ("b0", "b1", "b"):
        X = plant.EvalBodyPoseInWorld(context, plant.GetBodyByName(name))
        np.testing.assert_allclose(np.asarray(X.translation()), [1, 0, 0], atol=EXACT)
    F = plant.GetJointByName("h2").frame_on_parent().GetFixedPoseInBodyFrame()
    np.testing.assert_allclose(np.asarray(F.translation()), [0, 1, 0], atol=EXACT)


def test_free_and_ball_joints_and_welds():
    plant, _, _ = load(mjcf('<body name="base" pos="1 2 3" euler="0 0 90"><freejoint name="root"/>'
                            '<geom size="0.1"/><body name="arm"><joint name="ball" type="ball"/>'
                            '<geom size="0.1"/><body name="tip" pos="0 0 1"><geom size="0.1"/>'
                            "</body></body></body>"))
    root = plant.GetJointByName("root")
    assert isinstance(root, jb.QuaternionFloatingJoint)
    np.testing.assert_allclose(root.default_positions(),
                               [np.sqrt(0.5), 0, 0, np.sqrt(0.5), 1, 2, 3], atol=EXACT)
    assert isinstance(plant.GetJointByName("ball"), jb.BallJoint)
    weld = plant.GetJointByName("arm_welds_to_tip")
    assert weld.type_name() == "weld" and plant.num_positions() == 11


def test_armature_becomes_reflected_rotor_inertia():
    head = '<default><joint armature="0.5"/></default>'
    plant, _, _ = load(mjcf('<body><joint name="j"/><joint name="k" axis="1 0 0"/><geom size="1"/>'
                            "</body>", head) .replace("</mujoco>", '<actuator><motor name="mk" '
                                                                  'joint="k" gear="10" ctrlrange='
                                                                  '"-2 2"/></actuator></mujoco>'))
    mk, j = plant.GetJointActuatorByName("mk"), plant.GetJointActuatorByName("j")
    assert (mk.default_rotor_inertia() * mk.default_gear_ratio()**2, mk.effort_limit()) == (0.5, 20)
    assert (j.joint().name(), j.default_rotor_inertia(), j.default_gear_ratio()) == ("j", 0.5, 1)


def test_geoms_register_visual_and_collision_geometry():
    plant, _, _ = load(mjcf('<geom name="floor" type="plane" size="1 1 1" friction="0.7"/><body '
                            'name="b"><joint/><geom name="cap" fromto="0 0 0 0 0 1" size="0.1" type='
                            '"capsule" rgba="1 0 0 1"/><geom type="box" size="1 2 3" contype="0" '
                            'conaffinity="0"/></body>'))
    world, b = plant.world_body(), plant.GetBodyByName("b")
    assert [plant.GetGeometry(g).shape() for g in plant.GetCollisionGeometriesForBody(world)] == [
        jb.HalfSpace()]
    cap = plant.GetGeometry(plant.GetCollisionGeometriesForBody(b)[0])
    assert cap.shape() == jb.Capsule(0.1, 1.0) and len(plant.GetVisualGeometriesForBody(b)) == 2
    np.testing.assert_allclose(np.asarray(cap.pose_in_body().translation()), [0, 0, 0.5])
    assert cap.properties().GetProperty("material", "coulomb_friction") == jb.CoulombFriction(1, 1)
    assert list(plant.GetGeometry(plant.GetVisualGeometriesForBody(b)[0]).diffuse_color()) == [
        1, 0, 0, 1]
    assert plant.GetGeometry(plant.GetVisualGeometriesForBody(b)[1]).name() == "m::geom2"


def test_include_replaces_the_element_and_errors_name_the_included_file(tmp_path):
    (tmp_path / "arm.xml").write_text('<mujoco>\n<body name="arm"><joint/><geom size="1"/></body>'
                                      "\n</mujoco>")
    (tmp_path / "main.xml").write_text(mjcf('<include file="arm.xml"/>'))
    plant = jb.MultibodyPlant(0.0)
    jb.Parser(plant).AddModels(tmp_path / "main.xml")
    assert plant.HasBodyNamed("arm")
    (tmp_path / "bad.xml").write_text('<mujoco>\n<body name="x">\n<joint type="hinge2"/>'
                                      '<geom size="1"/></body></mujoco>')
    (tmp_path / "main2.xml").write_text(mjcf('<include file="bad.xml"/>'))
    with pytest.raises(jb.ParseError) as info:
        jb.Parser(jb.MultibodyPlant(0.0)).AddModels(tmp_path / "main2.xml")
    assert (info.value.filename, info.value.line, info.value.element) == (
        str(tmp_path / "bad.xml"), 3, "joint")


def test_dispatch_on_extension_and_file_type(tmp_path):
    (tmp_path / "m.xml").write_text(mjcf('<body><joint/><geom size="1"/></body>'))
    assert jb.Parser(jb.MultibodyPlant(0.0)).AddModels(tmp_path / "m.xml") == [
        jb.ModelInstanceIndex(2)]
    (tmp_path / "robot.xml").write_text('<robot name="r"/>')
    with pytest.raises(jb.ParseError, match="<mujoco> root"):
        jb.Parser(jb.MultibodyPlant(0.0)).AddModels(tmp_path / "robot.xml")
    with pytest.raises(ValueError, match="unknown file_type"):
        jb.Parser(jb.MultibodyPlant(0.0)).AddModelsFromString("<mujoco/>", "mjcf2")


B = '<body name="b">'
# (id, worldbody lines or a whole document, line, element, message fragment)
ERRORS = [
    ("unknown-joint-type", B + '\n<joint type="gimbal"/><geom size="1"/></body>', 4, "joint",
     "unknown type 'gimbal'"),
    ("zero-axis", B + '\n<joint axis="0 0 0"/><geom size="1"/></body>', 4, "joint", "axis is zero"),
    ("range", B + '\n<joint range="2 1"/><geom size="1"/></body>', 4, "joint", "exceeds the upper"),
    ("negative-damping", B + '\n<joint damping="-1"/><geom size="1"/></body>', 4, "joint",
     "'damping' must be >= 0"),
    ("free-not-top", B + '<joint/><geom size="1"/><body>\n<freejoint/><geom size="1"/></body>'
                         "</body>", 4, "freejoint", "must be the only joint"),
    ("joint-in-world", "<joint/>", 3, "joint", "not allowed in <worldbody>"),
    ("two-orientations", '<body quat="1 0 0 0" euler="0 0 1">\n<geom size="1"/></body>', 3, "body",
     "more than one orientation"),
    ("zero-quat", '<body quat="0 0 0 0"><geom size="1"/></body>', 3, "body", "quaternion is zero"),
    ("nan-pos", '<body pos="nan 0 0"><geom size="1"/></body>', 3, "body", "'nan' is not"),
    ("short-size", B + '\n<geom type="box" size="1 2"/></body>', 4, "geom", "needs 3 size values"),
    ("negative-size", B + '\n<geom size="-1"/></body>', 4, "geom", "size must be >= 0"),
    ("mesh", B + '\n<geom type="mesh" mesh="m"/></body>', 4, "geom", "unknown mesh 'm'"),
    ("fromto-degenerate", B + '\n<geom type="capsule" fromto="0 0 0 0 0 0" size="1"/></body>', 4,
     "geom", "the two points coincide"),
    ("unknown-class", B + '\n<geom class="nope" size="1"/></body>', 4, "geom", "unknown default"),
    ("negative-mass", B + '<joint/>\n<inertial mass="-1" diaginertia="1 1 1"/></body>', 4,
     "inertial", "negative mass"),
    ("inertial-no-inertia", B + '<joint/>\n<inertial mass="1"/></body>', 4, "inertial",
     "exactly one of diaginertia"),
    ("frame", "<frame>\n</frame>", 3, "frame", "not supported"),
    ("duplicate-body", '<body name="x"><geom size="1"/></body>\n<body name="x"><geom size="1"/>'
                       "</body>", 4, "body", "already has a link named 'x'"),
    ("motor-unknown-joint", mjcf(B + '<joint/><geom size="1"/></body>').replace(
        "</mujoco>", '<actuator>\n<motor joint="nope"/></actuator></mujoco>'), 6, "motor",
     "unknown joint 'nope'"),
    ("include-missing", '<include file="nowhere.xml"/>', 3, "include", "relative path"),
    ("compiler-angle", mjcf(B + '<geom size="1"/></body>', '<compiler angle="grad"/>'), 1,
     "compiler", "'degree' or 'radian'"),
    ("malformed", "<body>", 4, "xml", "malformed XML"),
]


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_error_names_file_line_and_element_and_leaves_plant_unchanged(case):
    _, body, line, element, fragment = case
    text = body if body.startswith("<mujoco") else mjcf(body)
    plant = jb.MultibodyPlant(0.0)
    jb.Parser(plant).AddModelsFromString(mjcf('<body name="z"><joint/><geom size="1"/></body>'),
                                         "xml")
    before = (plant.num_model_instances(), plant.num_bodies(), plant.num_frames(),
              plant.num_joints(), plant.num_actuators(), len(plant.GetGeometries()))
    with pytest.raises(jb.ParseError) as info:
        jb.Parser(plant, "second").AddModelsFromString(text, "xml")
    e = info.value
    assert (e.filename, e.line, e.element) == ("<literal-string>.xml", line, element), str(e)
    assert fragment in e.reason, str(e)
    assert before == (plant.num_model_instances(), plant.num_bodies(), plant.num_frames(),
                      plant.num_joints(), plant.num_actuators(), len(plant.GetGeometries()))


def test_unsupported_sections_warn_with_file_and_line():
    text = mjcf('<body><joint type="ball" stiffness="1"/><geom size="1"/></body>').replace(
        "</mujoco>", "<tendon>\n<fixed/></tendon></mujoco>")
    _, _, warns = load(text)
    assert any("<literal-string>.xml:3:" in w and "stiffness" in w for w in warns), warns
    assert any("<literal-string>.xml:5:" in w and "<tendon>" in w for w in warns), warns
