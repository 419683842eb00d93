"""Every `ParseError` and `ParseWarning` the URDF parser issues: each names the file, the line
and the element, and a failed parse leaves the plant exactly as it was."""

import warnings

import pytest

import jaxbody as jb

INERTIAL = ('<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" '
            'iyz="0"/></inertial>')
LINKS = f'<link name="a">{INERTIAL}</link><link name="b">{INERTIAL}</link>'
SPHERE = '<geometry><sphere radius="1"/></geometry>'


def doc(*lines, name="r"):
    """A URDF whose ``lines`` start at line 3 (line 1: XML declaration, line 2: <robot>)."""
    return "\n".join(['<?xml version="1.0"?>',
                      f'<robot name="{name}" xmlns:drake="http://drake.mit.edu">', *lines,
                      "</robot>"])


def J(kind="revolute", body="", tag="joint", name="j", parent="a", child="b"):
    return (f'<{tag} name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f"{body}</{tag}>")


def T(joint="j", type_="SimpleTransmission", actuator='<actuator name="m"/>'):
    return f'<transmission name="t"><type>{type_}</type><joint name="{joint}"/>{actuator}</transmission>'


def collision(body):
    return f'<link name="c"><collision>{body}</collision></link>'


# (id, lines (or a whole document), line of the error, element, message fragment)
ERRORS = [
    ("malformed", [LINKS, "<link name='x'>"], 5, "xml", "malformed XML"),
    ("truncated-tag", ['<link name="a"'], 4, "xml", "malformed XML"),
    ("entity-bomb", '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>'
     '\n<robot name="r">&b;</robot>', 2, "xml", "refused unsafe XML"),
    ("external-entity", '<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n'
     '<robot name="r">&e;</robot>', 1, "xml", "refused unsafe XML"),
    ("no-robot-tag", '<?xml version="1.0"?>\n<model name="r"/>', 2, "model",
     "does not contain a robot tag"),
    ("no-robot-name", "<robot>\n</robot>", 1, "robot", "must have a name"),
    ("link-no-name", ["<link/>"], 3, "link", "link tag is missing name"),
    ("duplicate-link", [LINKS, '<link name="a"/>'], 4, "link", "already has a link named 'a'"),
    ("joint-no-name", [LINKS, '<joint type="fixed"/>'], 4, "joint", "missing name"),
    ("joint-no-type", [LINKS, '<joint name="j"/>'], 4, "joint", "missing type"),
    ("joint-no-parent", [LINKS, '<joint name="j" type="fixed"><child link="b"/></joint>'], 4,
     "joint", "doesn't have a parent"),
    ("child-no-link", [LINKS, '<joint name="j" type="fixed"><parent link="a"/><child/></joint>'],
     4, "child", "has no link attribute"),
    ("unknown-type", [LINKS, J("hinge")], 4, "joint", "unrecognized type: 'hinge'"),
    ("curvilinear", [LINKS, J("curvilinear", tag="drake:joint")], 4, "drake:joint", "curvilinear"),
    ("unknown-link", [LINKS, J(child="zz")], 4, "joint", "child link 'zz' is not a link"),
    ("custom-as-standard", [LINKS, J("ball")], 4, "joint", "should be a <drake:joint>"),
    ("standard-as-custom", [LINKS, J("revolute", tag="drake:joint")], 4, "drake:joint",
     "should be a <joint>"),
    ("screw-no-pitch", [LINKS, J("screw", tag="drake:joint")], 4, "drake:joint",
     "screw_thread_pitch"),
    ("zero-axis", [LINKS, J(body='\n<axis xyz="0 0 0"/>')], 5, "axis", "axis is zero"),
    ("negative-mass", ['<link name="a"><inertial>', '<mass value="-1"/></inertial></link>'], 4,
     "mass", "negative mass"),
    ("nan-mass", ['<link name="a"><inertial><mass value="nan"/></inertial></link>'], 3, "mass",
     "'nan' is not a number"),
    ("overflow-mass", ['<link name="a"><inertial><mass value="1e999"/></inertial></link>'], 3,
     "mass", "not a finite number"),
    ("junk-number", ['<link name="a"><inertial><mass value="1x"/></inertial></link>'], 3, "mass",
     "'1x' is not a number"),
    ("two-masses", ['<link name="a"><inertial><mass value="1 2"/></inertial></link>'], 3, "mass",
     "expected a single value"),
    ("negative-ixx", ['<link name="a"><inertial><mass value="1"/>', '<inertia ixx="-1"/>',
                      "</inertial></link>"], 4, "inertia", "negative moment of inertia ixx"),
    ("short-xyz", [LINKS, J(body='<origin xyz="1 2"/>')], 4, "origin", "expected 3 values"),
    ("comma-xyz", [LINKS, J(body='<origin xyz="1,2,3"/>')], 4, "origin", "'1,2,3' is not"),
    ("lower-above-upper", [LINKS, J(body='<limit lower="1" upper="0"/>')], 4, "limit",
     "exceeds upper"),
    ("negative-velocity", [LINKS, J(body='<limit velocity="-1"/>')], 4, "limit", "velocity limit"),
    ("negative-damping", [LINKS, J(body='<dynamics damping="-1"/>')], 4, "dynamics",
     "damping must be >= 0"),
    ("duplicate-joint", [LINKS, '<link name="c"/>', J(), J(child="c")], 6, "joint",
     "already has a joint named 'j'"),
    ("frame-name-clash", [LINKS, J(), '<frame name="j_parent" link="a"/>'], 5, "frame",
     "already has a frame named 'j_parent'"),
    ("two-parents", [LINKS, '<link name="c"/>', J(), J(name="k", parent="c")], 6, "joint",
     "closes a kinematic loop"),
    ("cycle", [LINKS, J(), J(name="k", parent="b", child="a")], 4, "joint", "kinematic loop"),
    ("world-child", [LINKS, J("fixed", child="world")], 4, "joint", "world as its child"),
    ("self-joint", [LINKS, J("fixed", child="a")], 4, "joint", "to itself"),
    ("transmission-no-type", [LINKS, J(), '<transmission name="t"><joint name="j"/></transmission>'],
     5, "transmission", "missing a type"),
    ("transmission-no-actuator", [LINKS, J(), T(actuator="")], 5, "transmission",
     "missing an actuator"),
    ("actuator-no-name", [LINKS, J(), T(actuator="<actuator/>")], 5, "actuator",
     "missing an actuator name"),
    ("negative-effort", [LINKS, J(body='<limit effort="-1"/>'), T()], 5, "joint",
     "negative effort limit"),
    ("actuator-on-ball", [LINKS, J("ball", tag="drake:joint"), T()], 5, "actuator",
     "exactly one"),
    ("two-actuators-one-joint", [LINKS, J(), T(), T(actuator='<actuator name="m2"/>')], 6,
     "actuator", "already has actuator 'm'"),
    ("duplicate-actuator", [LINKS, '<link name="c"/>', J(), J(name="k", parent="b", child="c"),
                            T(), T(joint="k")], 8, "actuator", "already has an actuator named"),
    ("negative-rotor", [LINKS, J(), T(actuator='<actuator name="m"><drake:rotor_inertia '
                                               'value="-1"/></actuator>')], 5,
     "drake:rotor_inertia", "rotor inertia"),
    ("mimic-missing-joint", [LINKS, '<link name="c"/>', J(), J(name="k", parent="b", child="c",
                                                               body='<mimic joint="zz"/>')], 6,
     "mimic", "'zz' which does not exist"),
    ("mimic-self", [LINKS, J(body='<mimic joint="j"/>')], 4, "mimic", "cannot mimic themselves"),
    ("mimic-dofs", [LINKS, '<link name="c"/>', J(), J("ball", name="k", parent="b", child="c",
                                                      tag="drake:joint",
                                                      body='<mimic joint="j"/>')], 6, "mimic",
     "3 DOF cannot mimic"),
    ("visual-no-geometry", ['<link name="a"><visual/></link>'], 3, "visual", "without geometry"),
    ("unknown-shape", [collision("<geometry><cone/></geometry>")], 3, "geometry",
     "recognizable shape"),
    ("box-no-size", [collision("<geometry><box/></geometry>")], 3, "box", "'size'"),
    ("negative-radius", [collision('<geometry><sphere radius="-1"/></geometry>')], 3, "sphere",
     "radius"),
    ("mesh-no-filename", [collision("<geometry><mesh/></geometry>")], 3, "mesh", "no filename"),
    ("mesh-zero-scale", [collision('<geometry><mesh filename="/etc/hostname" scale="0 0 0"/>'
                                   "</geometry>")], 3, "mesh", "scale"),
    ("bad-friction", [collision(SPHERE + '<drake:proximity_properties><drake:mu_dynamic '
                                'value="2"/><drake:mu_static value="1"/></drake:proximity_properties>')],
     3, "drake:proximity_properties", "dynamic friction"),
    ("negative-relaxation", [collision(SPHERE + '<drake:proximity_properties>'
                                       '<drake:relaxation_time value="-1"/>'
                                       "</drake:proximity_properties>")], 3, "drake:relaxation_time",
     "relaxation time"),
    ("zero-stiffness", [collision(SPHERE + '<drake:proximity_properties>'
                                  '<drake:point_contact_stiffness value="0"/>'
                                  "</drake:proximity_properties>")], 3,
     "drake:proximity_properties", "stiffness"),
    ("property-no-value", [collision(SPHERE + "<drake:proximity_properties><drake:mu_dynamic/>"
                                     "</drake:proximity_properties>")], 3, "drake:mu_dynamic",
     "'value'"),
    ("soft-hydroelastic", [collision(SPHERE + "<drake:proximity_properties>"
                                     "<drake:soft_hydroelastic/></drake:proximity_properties>")],
     3, "drake:soft_hydroelastic", "no longer supported"),
    ("duplicate-geometry", ['<link name="a">', f'<collision name="g">{SPHERE}</collision>',
                            f'<collision name="g">{SPHERE}</collision></link>'], 5, "collision",
     "already has collision geometry named 'g'"),
    ("frame-unknown-link", ['<frame name="f" link="zz"/>'], 3, "frame", "unknown link 'zz'"),
    ("material-no-name", ['<material><color rgba="1 0 0 1"/></material>'], 3, "material",
     "missing a required name"),
    ("bad-rgba", ['<material name="m"><color rgba="1 0 0"/></material>'], 3, "color",
     "expected 4 values"),
    ("loop-joint", ["<loop_joint/>"], 3, "loop_joint", "not supported"),
]


def snapshot(plant):
    return (list(plant._instance_names),
            *[[e.name() for e in seq] for seq in (plant._bodies, plant._frames, plant._joints,
                                                  plant._actuators, plant._geometries)])


@pytest.fixture(scope="module")
def base_text():
    return doc(LINKS, J(), T(), f'<link name="g"><collision>{SPHERE}</collision></link>',
               name="existing")


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_name_file_line_element_and_leave_plant_unchanged(case, base_text):
    _, lines, line, element, fragment = case
    plant = jb.MultibodyPlant(0.0)
    jb.Parser(plant).AddModelsFromString(base_text, "urdf")
    before = snapshot(plant)
    with pytest.raises(jb.ParseError) as info:
        jb.Parser(plant).AddModelsFromString(lines if isinstance(lines, str) else doc(*lines),
                                             "urdf")
    err = info.value
    assert isinstance(err, ValueError)
    assert err.filename == "<literal-string>.urdf" and fragment in str(err)
    if line:
        assert (err.line, err.element) == (line, element), str(err)
        assert f"<literal-string>.urdf:{line}: <{element}>" in str(err)
    assert snapshot(plant) == before


def test_file_errors(tmp_path):
    plant = jb.MultibodyPlant(0.0)
    with pytest.raises(jb.ParseError, match="cannot read the file"):
        jb.Parser(plant).AddModels(str(tmp_path / "missing.urdf"))
    with pytest.raises(jb.ParseError, match="extension"):
        jb.Parser(plant).AddModels(str(tmp_path / "robot.txt"))
    with pytest.raises(jb.ParseError, match="unknown package"):
        jb.Parser(plant).AddModelsFromUrl("package://nope/r.urdf")
    bad = tmp_path / "bad.urdf"
    bad.write_text(doc("<link>"))
    with pytest.raises(jb.ParseError) as info:
        jb.Parser(plant).AddModels(str(bad))
    assert info.value.filename == str(bad) and info.value.line == 4
    with pytest.raises(ValueError, match="file_type"):
        jb.Parser(plant).AddModelsFromString(doc(), "obj")
    assert plant.num_model_instances() == 2


def test_parser_arguments_and_size_limits(tmp_path, monkeypatch):
    plant = jb.MultibodyPlant(0.0)
    with pytest.raises(TypeError, match="MultibodyPlant"):
        jb.Parser("plant")
    with pytest.raises(ValueError, match="scope_name"):
        jb.Parser(plant, "")
    path = tmp_path / "big.urdf"
    path.write_text(doc(LINKS))
    monkeypatch.setattr("jaxbody.parsers.parser.MAX_XML_BYTES", 16)
    with pytest.raises(jb.ParseError, match="larger than 16 bytes"):
        jb.Parser(plant).AddModels(str(path))
    monkeypatch.setattr("jaxbody.parsers.xml_reader.MAX_XML_BYTES", 16)
    with pytest.raises(jb.ParseError, match="larger than 16 bytes"):
        jb.Parser(plant).AddModelsFromString(doc(LINKS), "urdf")
    assert plant.num_model_instances() == 2


def test_failure_while_adding_rolls_the_plant_back(base_text, monkeypatch):
    plant = jb.MultibodyPlant(0.0)
    jb.Parser(plant).AddModelsFromString(base_text, "urdf")
    before = snapshot(plant)

    def refuse(*args, **kwargs):
        raise ValueError("simulated failure in the plant")

    monkeypatch.setattr(plant, "RegisterCollisionGeometry", refuse)
    with pytest.raises(jb.ParseError, match="simulated failure") as info:
        jb.Parser(plant, "again").AddModelsFromString(base_text, "urdf")
    assert info.value.element == "collision"
    assert snapshot(plant) == before
    plant.Finalize()
    with pytest.raises(jb.ParseError, match="finalized"):
        jb.Parser(plant, "late").AddModelsFromString(base_text, "urdf")


# (id, lines, line of the warning, fragment): each model still loads.
WARNINGS = [
    ("triangle-inequality", ['<link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" '
                             'izz="3"/></inertial></link>'], 3, "triangle inequality"),
    ("massless-with-inertia", ['<link name="a"><inertial><inertia ixx="1" iyy="1" izz="1"/>'
                               "</inertial></link>"], 3, "mass is 0"),
    ("world-inertial", ['<link name="world">', INERTIAL, "</link>"], 4, "world link"),
    ("link-type", ['<link name="a" type="x"/>'], 3, "'type' attribute"),
    ("calibration", [LINKS, J(body="\n<calibration/>")], 5, "<calibration>"),
    ("safety", [LINKS, J(body="\n<safety_controller/>")], 5, "<safety_controller>"),
    ("joint-friction", [LINKS, J(body='<dynamics friction="1"/>')], 4, "friction"),
    ("coulomb-window", [LINKS, J(body='<dynamics coulomb_window="1"/>')], 4, "coulomb_window"),
    ("floating", [LINKS, J("floating")], 4, "free body"),
    ("other-transmission", [LINKS, J(), T(type_="Differential")], 5, "not SimpleTransmission"),
    ("fixed-transmission", [LINKS, J("fixed"), T()], 5, "fixed joint"),
    ("zero-effort", [LINKS, J(body='<limit effort="0"/>'), T()], 5, "zero effort"),
    ("reduction", [LINKS, J(), '<transmission name="t"><type>SimpleTransmission</type>'
                               '<joint name="j"/><actuator name="m">',
                   "<mechanicalReduction>50</mechanicalReduction></actuator></transmission>"], 6,
     "mechanicalReduction"),
    ("gains", [LINKS, J(), '<transmission name="t"><type>SimpleTransmission</type><joint '
                           'name="j"/><actuator name="m">',
               '<drake:controller_gains p="1" d="1"/></actuator></transmission>'], 6,
     "controller_gains"),
    ("mimic", [LINKS, '<link name="c"/>', J(), J(name="k", parent="b", child="c",
                                                 body='<mimic joint="j"/>')], 6,
     "only supported by a discrete"),
    ("group", ['<link name="a"><collision group="x">' + SPHERE + "</collision></link>"], 3,
     "'group'"),
    ("tendon", ["<drake:tendon_constraint/>"], 3, "not supported by jaxbody"),
    ("material-undefined", ['<link name="a"><visual>' + SPHERE, '<material name="m"/>',
                            "</visual></link>"], 4, "not previously defined"),
    ("rigid-modulus", [collision(SPHERE + "<drake:proximity_properties><drake:rigid_hydroelastic/>"
                                 '<drake:hydroelastic_modulus value="1"/>'
                                 "</drake:proximity_properties>")], 3, "hydroelastic_modulus"),
    ("legacy-compliance", [collision(SPHERE + "<drake_compliance><youngs_modulus>1</youngs_modulus>"
                                     "</drake_compliance>")], 3, "youngs_modulus"),
    ("robot-version", [], 2, "'version' attribute"),
]


@pytest.mark.parametrize("case", WARNINGS, ids=[c[0] for c in WARNINGS])
def test_warnings_name_file_and_line_and_the_model_loads(case):
    _, lines, line, fragment = case
    text = doc(*lines)
    if case[0] == "robot-version":
        text = text.replace('<robot name="r"', '<robot name="r" version="1.0"')
    plant = jb.MultibodyPlant(0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jb.Parser(plant).AddModelsFromString(text, "urdf")
    messages = [str(w.message) for w in caught if w.category is jb.ParseWarning]
    assert any(f"<literal-string>.urdf:{line}:" in m and fragment in m for m in messages), messages
    assert plant.HasModelInstanceNamed("r")
    plant.Finalize()
