"""SDFormat through `Parser`: file and URL entry points, nested model instances with scoping and
auto-renaming, and closed-form checks of poses, axes and inertias (pydrake parity is checked
element by element in tests/reference/test_sdf_drake.py)."""

import numpy as np
import pytest

import jaxbody as jb
from jaxbody.parsers.inertia import rotation_from_rpy
from jaxbody.parsers.sdf_geometry import half_space_pose

EXACT = 1e-14
NESTED = """<?xml version="1.0"?>
<sdf version="1.9"><model name="outer"><link name="a"/>
  <model name="inner"><pose>0 0 1 0 0 0</pose><link name="b"/></model>
  <joint name="j" type="revolute"><parent>a</parent><child>inner::b</child>
    <axis><xyz>0 1 0</xyz></axis></joint></model></sdf>"""


def test_nested_models_are_scoped_instances_outer_first():
    plant = jb.MultibodyPlant(0.0)
    instances = jb.Parser(plant, "s").AddModelsFromString(NESTED, "SDF")
    assert [plant.GetModelInstanceName(i) for i in instances] == ["s::outer", "s::outer::inner"]
    b = plant.GetBodyByName("b")
    assert b.model_instance() == instances[1] and b.index() == 1  # nested bodies come first
    joint = plant.GetJointByName("j", instances[1])  # a joint lives in its child's instance
    assert joint.parent_body().name() == "a"


def test_auto_renaming_renames_the_top_model_and_keeps_nesting():
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    parser.SetAutoRenaming(True)
    parser.AddModelsFromString(NESTED, "sdf")
    names = [plant.GetModelInstanceName(i) for i in parser.AddModelsFromString(NESTED, "sdf")]
    assert names == ["outer_1", "outer_1::inner"]
    with pytest.raises(jb.ParseError, match="already contains a model instance named 'outer'"):
        jb.Parser(plant).AddModelsFromString(NESTED, "sdf")


def test_add_models_from_file_and_url(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "package.xml").write_text("<package><name>pkg</name></package>")
    (pkg / "m.sdf").write_text(NESTED)
    plant = jb.MultibodyPlant(0.0)
    assert jb.Parser(plant).AddModels(pkg / "m.sdf") == [jb.ModelInstanceIndex(2),
                                                         jb.ModelInstanceIndex(3)]
    parser = jb.Parser(plant, "url")
    parser.package_map().PopulateFromFolder(tmp_path)
    assert len(parser.AddModelsFromUrl("package://pkg/m.sdf")) == 2
    plant.Finalize()
    assert plant.num_positions() == 2 * (7 + 1)


def test_poses_axes_and_inertia_in_closed_form():
    text = """<sdf version="1.9"><model name="m">
      <link name="a"><pose>1 0 0 0 0 0.5</pose><inertial><pose>0 0 0.1 0.2 0 0</pose>
        <mass>2</mass><inertia><ixx>1</ixx><iyy>2</iyy><izz>2.5</izz></inertia></inertial></link>
      <link name="b"><pose relative_to="a">0 0 1 0 0 0</pose></link>
      <joint name="j" type="prismatic"><pose>0 0.5 0 0 0 0</pose><parent>a</parent>
        <child>b</child><axis><xyz expressed_in="__model__">1 0 0</xyz></axis></joint>
      </model></sdf>"""
    plant = jb.MultibodyPlant(0.0)
    jb.Parser(plant).AddModelsFromString(text, "sdf")
    j = plant.GetJointByName("j")
    X_PJ = j.frame_on_parent().GetFixedPoseInBodyFrame()  # J is at (0, 0.5, 1) in A
    np.testing.assert_allclose(np.asarray(X_PJ.translation()), [0, 0.5, 1], atol=EXACT)
    np.testing.assert_allclose(j.translation_axis(), rotation_from_rpy([0, 0, 0.5]).T @ [1, 0, 0],
                               atol=EXACT)  # the model's x axis, in J (= A) coordinates
    M = plant.GetBodyByName("a").default_spatial_inertia()
    R, p = rotation_from_rpy([0.2, 0, 0]), np.array([0, 0, 0.1])
    G = R @ np.diag([1, 2, 2.5]) @ R.T / 2 + (p @ p * np.eye(3) - np.outer(p, p))
    np.testing.assert_allclose(np.asarray(M.get_unit_inertia().CopyToFullMatrix3()), G, atol=EXACT)


def test_half_space_pose_matches_drake():
    pytest.importorskip("pydrake")
    from pydrake.geometry import HalfSpace

    for n in ([0, 0, 1], [0.3, -0.2, 0.9], [-1, 0, 0], [0, 2, 1e-3], [1, 1, 1]):
        R, p = half_space_pose(n)
        np.testing.assert_allclose(R, HalfSpace.MakePose(n, [0, 0, 0]).rotation().matrix(),
                                   atol=EXACT)
        assert not np.any(p)
