"""Every `ParseError` of the SDFormat reader names the file, the line and the element, and a
failed parse leaves the plant exactly as it was; warnings name the file and line too."""

import warnings

import pytest

import jaxbody as jb

A, B = '<link name="a"/>', '<link name="b"/>'


def doc(*lines, version="1.9"):
    """An SDFormat model whose ``lines`` start at line 4."""
    return "\n".join(['<?xml version="1.0"?>', f'<sdf version="{version}">', '<model name="m">',
                      *lines, "</model>", "</sdf>"])


def J(kind="revolute", body='<axis><xyz>0 0 1</xyz></axis>', parent="a", child="b", name="j"):
    return (f'<joint name="{name}" type="{kind}"><parent>{parent}</parent><child>{child}</child>'
            f"{body}</joint>")


def geom(body, tag="collision"):
    return f'<link name="g"><{tag} name="x"><geometry>{body}</geometry></{tag}></link>'


# (id, document, line, element, message fragment)
ERRORS = [
    ("malformed", doc(A, "<link name='x'>"), 6, "xml", "malformed XML"),
    ("not-sdf", '<?xml version="1.0"?>\n<robot name="r"/>', 2, "robot", "must start with <sdf"),
    ("no-version", "<sdf>\n<model name='m'/></sdf>", 1, "sdf", "version attribute"),
    ("two-models", '<sdf version="1.9">\n<model name="a"/><model name="b"/></sdf>', 1, "sdf",
     "exactly one <model> or exactly one <world>"),
    ("model-no-name", '<sdf version="1.9">\n<model>' + A + "</model></sdf>", 2, "model",
     "Required attribute[name]"),
    ("no-link", doc("<frame name='f'/>"), 3, "model", "at least one link"),
    ("reserved-name", doc('<link name="world"/>'), 4, "link", "reserved"),
    ("scoped-name", doc('<link name="a::b"/>'), 4, "link", "delimiter '::'"),
    ("duplicate-name", doc(A, B, '<frame name="a"/>'), 6, "frame", "Non-unique name[a]"),
    ("joint-no-type", doc(A, B, '<joint name="j"><parent>a</parent><child>b</child></joint>'), 6,
     "joint", "missing the type"),
    ("unknown-type", doc(A, B, J("hinge")), 6, "joint", "unrecognized type: 'hinge'"),
    ("gearbox", doc(A, B, J("gearbox")), 6, "joint", "Joint type (gearbox) not supported"),
    ("no-parent", doc(A, B, '<joint name="j" type="fixed"><child>b</child></joint>'), 6, "joint",
     "has no <parent>"),
    ("unknown-child", doc(A, B, J(child="zz")), 6, "child", "'zz' does not match"),
    ("world-child", doc(A, J("fixed", child="world")), 5, "child", "cannot be a joint's child"),
    ("no-axis", doc(A, B, J(body="")), 6, "joint", "An axis must be specified"),
    ("zero-axis", doc(A, B, J(body="<axis>\n<xyz>0 0 0</xyz></axis>")), 7, "xyz", "norm of the xyz"),
    ("limits", doc(A, B, J(body="<axis>\n<limit><lower>1</lower><upper>0</upper></limit></axis>")),
     7, "limit", "lower limit must be lower"),
    ("negative-damping", doc(A, B, J(body="<axis><dynamics>\n<damping>-1</damping></dynamics>"
                                          "</axis>")), 6, "dynamics", "damping is negative"),
    ("negative-spring", doc(A, B, J("prismatic", "<axis><dynamics>\n<spring_stiffness>-1"
                                                 "</spring_stiffness></dynamics></axis>")), 6,
     "dynamics", "must be non-negative"),
    ("negative-acceleration", doc(A, B, J(body="<axis><limit>\n<drake:acceleration>-1"
                                              "</drake:acceleration></limit></axis>")), 6, "limit",
     "Acceleration limit is negative"),
    ("universal-one-axis", doc(A, B, J("universal")), 6, "joint", "Both axis and axis2"),
    ("universal-parallel", doc(A, B, J("universal", "<axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 0 "
                                                    "2</xyz></axis2>")), 6, "joint", "orthogonal"),
    ("parent-model-frame-1.9", doc(A, B, J(body="<axis>\n<use_parent_model_frame>1"
                                                "</use_parent_model_frame></axis>")), 7,
     "use_parent_model_frame", "not part of SDFormat 1.7"),
    ("unsupported-drake-tag", doc(A, B, J(body="<axis/>\n<drake:bogus/>")), 7, "drake:bogus",
     "Unsupported SDFormat element in joint"),
    ("static-revolute", doc("<static>true</static>", A, B, J()), 3, "model",
     "Only fixed joints are permitted in static models"),
    ("loop", doc(A, B, J("fixed"), J("fixed", parent="b", child="a", name="k")), 6, "joint",
     "kinematic loop"),
    ("two-parents", doc(A, B, '<link name="c"/>', J("fixed"), J("fixed", parent="c", name="k")), 8,
     "joint", "closes a kinematic loop"),
    ("relative-to-unknown", doc('<link name="a"><pose relative_to="nope"/></link>'), 4, "link",
     "'nope' does not match"),
    ("relative-to-cycle", doc('<link name="a"><pose relative_to="f"/></link>', '<frame name="f">'
                              '<pose relative_to="a"/></frame>'), 4, "link", "form a cycle"),
    ("attached-to-cycle", doc(A, '<frame name="f" attached_to="g"/>', '<frame name="g" '
                              'attached_to="f"/>'), 5, "frame", "attached_to references form"),
    ("attached-to-world", doc(A, '<frame name="f" attached_to="world"/>'), 5, "frame",
     "'world' does not match"),
    ("pose-values", doc('<link name="a"><pose>1 2 3</pose></link>'), 4, "pose", "expected 6"),
    ("pose-nan", doc('<link name="a"><pose>nan 0 0 0 0 0</pose></link>'), 4, "pose",
     "'nan' is not a number"),
    ("pose-frame-attr", doc('<link name="a"><pose frame="x">0 0 0 0 0 0</pose></link>'), 4, "pose",
     "frame='...'"),
    ("inertial-relative-to", doc('<link name="a"><inertial><pose relative_to="a"/></inertial>'
                                 "</link>"), 4, "pose", "cannot have a relative_to"),
    ("negative-mass", doc('<link name="a"><inertial>\n<mass>-1</mass></inertial></link>'), 5,
     "mass", "negative mass"),
    ("two-masses", doc('<link name="a"><inertial>\n<mass>1 2</mass></inertial></link>'), 5,
     "mass", "single value"),
    ("collision-no-name", doc('<link name="a"><collision><geometry><box/></geometry></collision>'
                              "</link>"), 4, "collision", "Required attribute[name]"),
    ("duplicate-collision", doc('<link name="a"><collision name="c"><geometry><box/></geometry>'
                                '</collision>\n<collision name="c"><geometry><box/></geometry>'
                                "</collision></link>"), 5, "collision", "already has collision"),
    ("negative-box", doc(geom("<box><size>-1 1 1</size></box>")), 4, "box", "Box"),
    ("zero-plane-normal", doc(geom("<plane><normal>0 0 0</normal></plane>")), 4, "plane",
     "normal"),
    ("unknown-shape", doc(geom("<cone2/>")), 4, "cone2", "unknown geometry type"),
    ("mesh-no-uri", doc(geom("<mesh/>")), 4, "mesh", "has no <uri>"),
    ("mesh-unresolvable", doc(geom("<mesh><uri>package://nowhere/x.obj</uri></mesh>")), 4, "mesh",
     "unknown package 'nowhere'"),
    ("relative-mesh-in-string", doc(geom("<mesh><uri>x.obj</uri></mesh>")), 4, "mesh",
     "relative path"),
    ("bad-friction", doc('<link name="a"><collision name="c"><geometry><box/></geometry><surface>'
                         "<friction>\n<ode><mu>0.3</mu></ode></friction></surface></collision>"
                         "</link>"), 5, "ode", "friction"),
    ("bad-color", doc(geom("<box/>", "visual").replace("</geometry>", "</geometry><material>\n"
                                                                      "<diffuse>1 0</diffuse>"
                                                                      "</material>")), 5,
     "diffuse", "3 or 4 values"),
    ("include-no-uri", doc(A, "<include/>"), 5, "include", "has no <uri>"),
    ("include-unknown-package", doc(A, "<include><uri>package://nowhere/m.sdf</uri></include>"),
     5, "include", "unknown package"),
    ("include-merge", doc(A, '<include merge="true"><uri>x.sdf</uri></include>'), 5, "include",
     "merge-includes"),
    ("drake-joint-type", doc(A, B, '<drake:joint name="p" type="ball"><drake:parent>a'
                                   "</drake:parent><drake:child>b</drake:child></drake:joint>"), 6,
     "drake:joint", "unrecognized value for 'type'"),
    ("world-revolute", '<sdf version="1.9">\n<world name="w"><model name="m"><link name="a"/>'
                       '</model>\n<joint name="j" type="revolute"><parent>world</parent><child>'
                       "m::a</child></joint></world></sdf>", 3, "joint",
     "Only fixed joints are permitted in world joints"),
]


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_error_names_file_line_and_element_and_leaves_plant_unchanged(case):
    _, text, line, element, fragment = case
    plant = jb.MultibodyPlant(0.0)
    jb.Parser(plant).AddModelsFromString(doc(A), "sdf")  # something already in the plant
    before = (plant.num_model_instances(), plant.num_bodies(), plant.num_frames(),
              plant.num_joints(), plant.num_actuators(), plant.num_force_elements(),
              len(plant.GetGeometries()))
    with pytest.raises(jb.ParseError) as info:
        jb.Parser(plant, "second").AddModelsFromString(text, "sdf")
    e = info.value
    assert (e.filename, e.line, e.element) == ("<literal-string>.sdf", line, element), str(e)
    assert fragment in e.reason, str(e)
    assert before == (plant.num_model_instances(), plant.num_bodies(), plant.num_frames(),
                      plant.num_joints(), plant.num_actuators(), plant.num_force_elements(),
                      len(plant.GetGeometries()))
    plant.Finalize()  # the plant is still usable


def test_errors_in_an_included_file_name_that_file(tmp_path):
    (tmp_path / "bad.sdf").write_text(doc(A, B, J("hinge")))
    (tmp_path / "main.sdf").write_text(doc(A, "<include><uri>bad.sdf</uri><name>x</name>"
                                              "</include>"))
    with pytest.raises(jb.ParseError) as info:
        jb.Parser(jb.MultibodyPlant(0.0)).AddModels(tmp_path / "main.sdf")
    assert (info.value.filename, info.value.line) == (str(tmp_path / "bad.sdf"), 6)


def test_recursive_include_is_an_error(tmp_path):
    (tmp_path / "loop.sdf").write_text(doc(A, "<include><uri>loop.sdf</uri><name>again</name>"
                                              "</include>"))
    with pytest.raises(jb.ParseError, match="recurses"):
        jb.Parser(jb.MultibodyPlant(0.0)).AddModels(tmp_path / "loop.sdf")


WARNINGS = [
    ("unsupported-link-tag", doc('<link name="a">\n<self_collide>1</self_collide></link>'), 5,
     "Ignoring unsupported SDFormat element in link: self_collide"),
    ("invalid-inertia", doc('<link name="a"><inertial>\n<inertia><ixx>1</ixx><iyy>1</iyy><izz>5'
                            "</izz></inertia></inertial></link>"), 4, "triangle inequality"),
    ("heightmap", doc('<link name="a"><collision name="c"><geometry>\n<heightmap/></geometry>'
                      "</collision></link>"), 5, "heightmap"),
    ("ball-axis", doc(A, B, J("ball")), 6, "ball joint axis will be ignored"),
    ("tendon", doc(A, "<drake:tendon_constraint/>"), 5, "not supported by jaxbody yet"),
    ("thread-pitch", doc(A, B, J("screw", "<axis/>\n<thread_pitch>2</thread_pitch>")), 7,
     "thread_pitch"),
]


@pytest.mark.parametrize("case", WARNINGS, ids=[c[0] for c in WARNINGS])
def test_warning_names_file_and_line_and_strict_mode_raises(case):
    _, text, line, fragment = case
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jb.Parser(jb.MultibodyPlant(0.0)).AddModelsFromString(text, "sdf")
    messages = [str(w.message) for w in caught if w.category is jb.ParseWarning]
    assert any(f"<literal-string>.sdf:{line}:" in m and fragment in m for m in messages), messages
    parser = jb.Parser(jb.MultibodyPlant(0.0))
    parser.SetStrictParsing()
    with pytest.raises(jb.ParseError, match="strict parsing"):
        parser.AddModelsFromString(text, "sdf")
