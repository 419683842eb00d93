"""URDF ``<visual>``/``<collision>``/``<material>`` parsing, Drake's contact-property tags, and
`PackageMap` / URI resolution (including refusing ``package://`` paths that escape)."""

import os

import numpy as np
import pytest

import jaxbody as jb
from tests.parsers.urdf_text import load, robot

EXACT = 1e-14


def geometries(plant, body, kind):
    ids = getattr(plant, f"Get{kind}GeometriesForBody")(plant.GetBodyByName(body))
    return [plant.GetGeometry(g) for g in ids]


def test_every_shape_and_default_names():
    shapes = ('<box size="1 2 3"/>', '<sphere radius="0.5"/>', '<cylinder radius="1" length="2"/>',
              '<capsule radius="1" length="2"/>', '<drake:capsule radius="1" length="3"/>',
              '<drake:ellipsoid a="1" b="2" c="3"/>', '<box size="1 1 1"/>')
    body = "".join(f"<collision><geometry>{s}</geometry></collision>" for s in shapes)
    plant, _, _ = load(robot(f'<link name="a">{body}</link>'))
    got = [(g.name(), g.shape()) for g in geometries(plant, "a", "Collision")]
    assert got == [("r::Box", jb.Box(1, 2, 3)), ("r::Sphere", jb.Sphere(0.5)),
                   ("r::Cylinder", jb.Cylinder(1, 2)), ("r::Capsule", jb.Capsule(1, 2)),
                   ("r::Capsule_1", jb.Capsule(1, 3)), ("r::Ellipsoid", jb.Ellipsoid(1, 2, 3)),
                   ("r::Box_1", jb.Box(1, 1, 1))]


def test_collision_origin_and_contact_properties():
    props = ('<drake:proximity_properties><drake:mu_dynamic value="0.3"/><drake:mu_static '
             'value="0.5"/><drake:point_contact_stiffness value="1e5"/><drake:relaxation_time '
             'value="0.2"/><drake:hunt_crossley_dissipation value="3"/>'
             '</drake:proximity_properties>')
    text = robot('<link name="a"><collision name="c"><origin xyz="1 2 3" rpy="0 0 0.5"/>'
                 f'<geometry><sphere radius="1"/></geometry>{props}</collision>'
                 '<collision name="d"><geometry><sphere radius="1"/></geometry>'
                 '<drake:proximity_properties><drake:mu_dynamic value="0.4"/>'
                 '</drake:proximity_properties></collision>'
                 '<collision name="e"><geometry><sphere radius="1"/></geometry></collision></link>')
    plant, _, _ = load(text)
    c, d, e = geometries(plant, "a", "Collision")
    np.testing.assert_allclose(np.asarray(c.pose_in_body().translation()), [1, 2, 3], atol=EXACT)
    p = c.properties()
    assert p.GetProperty("material", "coulomb_friction") == jb.CoulombFriction(0.5, 0.3)
    assert p.GetProperty("material", "point_contact_stiffness") == 1e5
    assert p.GetProperty("material", "relaxation_time") == 0.2
    assert p.GetProperty("material", "hunt_crossley_dissipation") == 3.0
    assert d.properties().GetProperty("material", "coulomb_friction") == jb.CoulombFriction(0.4, 0.4)
    assert e.properties().GetProperty("material", "coulomb_friction") == jb.CoulombFriction(1, 1)
    assert not e.properties().HasProperty("material", "point_contact_stiffness")


def test_legacy_drake_compliance_friction_and_hydroelastic_tags():
    text = robot('<link name="a"><collision><geometry><sphere radius="1"/></geometry>'
                 '<drake_compliance><static_friction>0.9</static_friction><dynamic_friction>0.7'
                 '</dynamic_friction></drake_compliance></collision><collision name="h"><geometry>'
                 '<sphere radius="1"/></geometry><drake:proximity_properties>'
                 '<drake:compliant_hydroelastic/><drake:hydroelastic_modulus value="1e7"/>'
                 '<drake:mesh_resolution_hint value="0.1"/></drake:proximity_properties>'
                 '</collision></link>')
    plant, _, _ = load(text)
    legacy, hydro = geometries(plant, "a", "Collision")
    assert legacy.properties().GetProperty("material", "coulomb_friction") == jb.CoulombFriction(
        0.9, 0.7)
    assert hydro.properties().GetProperty("hydroelastic", "compliance_type") == "compliant"
    assert hydro.properties().GetProperty("hydroelastic", "hydroelastic_modulus") == 1e7


def test_visual_materials():
    text = robot('<material name="red"><color rgba="1 0 0 1"/></material>'
                 '<link name="a"><visual><geometry><sphere radius="1"/></geometry>'
                 '<material name="red"/></visual><visual><geometry><sphere radius="1"/>'
                 '</geometry><material><color rgba="0 1 0 0.5"/></material></visual>'
                 '<visual name="plain"><geometry><sphere radius="1"/></geometry></visual>'
                 '<visual><geometry><sphere radius="1"/></geometry><material name="red">'
                 '<color rgba="0 0 1 1"/></material></visual></link>')
    plant, _, warns = load(text)
    colors = [g.diffuse_color() for g in geometries(plant, "a", "Visual")]
    np.testing.assert_array_equal(colors[0], [1, 0, 0, 1])
    np.testing.assert_array_equal(colors[1], [0, 1, 0, 0.5])
    assert colors[2] is None
    np.testing.assert_array_equal(colors[3], [0, 0, 1, 1])  # redefined: its own color, a warning
    assert any("previously defined differently" in w for w in warns)


def test_world_link_geometry_is_anchored():
    plant, _, _ = load(robot('<link name="world"><collision><geometry><box size="10 10 1"/>'
                             '</geometry></collision></link>'))
    (g,) = [plant.GetGeometry(i) for i in plant.GetCollisionGeometriesForBody(plant.world_body())]
    assert g.name() == "Box" and g.body() is plant.world_body()  # world instance: unscoped


# ---- meshes, packages and URIs -----------------------------------------------------------------
@pytest.fixture
def package(tmp_path):
    """A package ``pkg`` with ``meshes/m.obj`` and ``urdf/``; plus a file outside it."""
    root = tmp_path / "pkg"
    (root / "meshes").mkdir(parents=True)
    (root / "urdf").mkdir()
    (root / "package.xml").write_text('<?xml version="1.0"?><package format="3"><name>pkg</name>'
                                      "</package>")
    (root / "meshes" / "m.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    (tmp_path / "secret.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    return root


def mesh_robot(filename, extra=""):
    return robot(f'<link name="a"><visual><geometry><mesh filename="{filename}" {extra}/>'
                 "</geometry></visual></link>")


def test_mesh_uris_resolve(package):
    def setup(parser):
        parser.package_map().PopulateFromFolder(str(package.parent))

    plant, _, _ = load(mesh_robot("package://pkg/meshes/m.obj", 'scale="2 2 2"'),
                       parser_setup=setup)
    (g,) = geometries(plant, "a", "Visual")
    assert g.shape() == jb.Mesh(str(package / "meshes" / "m.obj"), 2.0)
    plant, _, _ = load(mesh_robot(f"file://{package}/meshes/m.obj"))
    assert geometries(plant, "a", "Visual")[0].shape().filename() == str(package / "meshes" / "m.obj")
    urdf = package / "urdf" / "r.urdf"  # a relative path is relative to the file's folder
    urdf.write_text(robot('<link name="a"><collision><geometry><mesh filename="../meshes/m.obj">'
                          '<drake:declare_convex/></mesh></geometry></collision></link>'))
    plant = jb.MultibodyPlant(0.0)
    jb.Parser(plant).AddModels(str(urdf))
    (g,) = geometries(plant, "a", "Collision")
    assert isinstance(g.shape(), jb.Convex) and g.shape().vertices().shape == (3, 3)


@pytest.mark.parametrize("uri, message", [
    ("package://pkg/../secret.obj", "escapes the folder"),
    ("package://pkg/meshes/../../secret.obj", "escapes the folder"),
    ("package://pkg//etc/passwd", "relative path inside package"),
    ("package:///nope/meshes/m.obj", "empty package name"),
    ("package://nope/m.obj", "unknown package 'nope'"),
    ("package://pkg/meshes/missing.obj", "does not exist"),
    ("http://example.com/m.obj", "unsupported scheme"),
    ("file://relative/m.obj", "absolute path"),
    ("meshes/m.obj", "relative path"),
])
def test_bad_mesh_uris_are_parse_errors(package, uri, message):
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    parser.package_map().Add("pkg", str(package))
    with pytest.raises(jb.ParseError, match=message) as info:
        parser.AddModelsFromString(mesh_robot(uri), "urdf")
    assert (info.value.line, info.value.element) == (3, "mesh")
    assert plant.num_bodies() == 1 and plant.num_model_instances() == 2


def test_an_empty_package_name_resolves_in_the_package_its_path_names(package):
    """talos's URDFs write package:///example-robot-data/...: read as package://example-robot-
    data/... when that package is known, with one warning per parse; ResolveUrl refuses it and
    names that reading."""
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    parser.package_map().Add("pkg", str(package))
    two = robot('<link name="a"><visual><geometry><mesh filename="package:///pkg/meshes/m.obj"/>'
                '</geometry></visual><collision><geometry><mesh filename="package:///pkg/meshes/'
                'm.obj"/></geometry></collision></link>')
    with pytest.warns(jb.ParseWarning, match="empty package name; read as "
                      "'package://pkg/meshes/m.obj'") as record:
        parser.AddModelsFromString(two, "urdf")
    assert sum("empty package name" in str(w.message) for w in record) == 1
    assert geometries(plant, "a", "Visual")[0].shape().filename() == str(package / "meshes" / "m.obj")
    with pytest.raises(ValueError, match="empty package name \\('package://pkg/meshes/m.obj' would"):
        parser.package_map().ResolveUrl("package:///pkg/meshes/m.obj")


def test_package_map(package, tmp_path):
    pm = jb.PackageMap()
    assert pm.size() == 0 and not pm.Contains("pkg")
    pm.AddPackageXml(str(package / "package.xml"))
    assert pm.Contains("pkg") and pm.GetPath("pkg") == str(package)
    pm.Add("pkg", str(package))  # same folder again: fine
    with pytest.raises(ValueError, match="differs"):
        pm.Add("pkg", str(tmp_path))
    with pytest.raises(ValueError, match="does not exist"):
        pm.Add("other", str(tmp_path / "nowhere"))
    assert pm.ResolveUrl("package://pkg/meshes/m.obj") == str(package / "meshes" / "m.obj")
    with pytest.raises(ValueError, match="escapes"):
        pm.ResolveUrl("package://pkg/../secret.obj")
    copy = jb.PackageMap()
    copy.AddMap(pm)
    assert copy.GetPackageNames() == ["pkg"]
    copy.Remove("pkg")
    with pytest.raises(ValueError, match="no package"):
        copy.GetPath("pkg")
    for bad in (lambda: pm.Add("a/b", str(package)), lambda: copy.Remove("pkg"),
                lambda: pm.PopulateFromFolder(str(tmp_path / "nowhere")),
                lambda: pm.ResolveUrl(""), lambda: pm.ResolveUrl("package://pkg/m\x00.obj")):
        with pytest.raises(ValueError):
            bad()
    (tmp_path / "nameless").mkdir()
    (tmp_path / "nameless" / "package.xml").write_text("<package/>")
    with pytest.raises(ValueError, match="no <package><name>"):
        pm.AddPackageXml(str(tmp_path / "nameless" / "package.xml"))
    with pytest.raises(ValueError, match="cannot read"):
        pm.AddPackageXml(str(tmp_path / "none" / "package.xml"))
    found = jb.PackageMap()
    found.PopulateFromFolder(str(tmp_path))
    assert found.GetPackageNames() == ["pkg"]
    os.environ["JAXBODY_TEST_PACKAGES"] = str(tmp_path)
    try:
        env = jb.PackageMap()
        env.PopulateFromEnvironment("JAXBODY_TEST_PACKAGES")
        assert env.Contains("pkg")
    finally:
        del os.environ["JAXBODY_TEST_PACKAGES"]


def test_collada_meshes_are_read(tmp_path):
    """COLLADA (.dae) meshes, common in ROS URDFs (example-robot-data's kinova arm collides with
    them), are read through trimesh with pycollada, a dependency; Drake reads none for
    collision."""
    import trimesh

    box = trimesh.creation.box((0.2, 0.4, 0.6))
    (tmp_path / "box.dae").write_bytes(trimesh.exchange.dae.export_collada(box))
    urdf = tmp_path / "r.urdf"
    urdf.write_text(robot('<link name="a"><collision><geometry><mesh filename="box.dae"/>'
                          "</geometry></collision></link>"))
    plant = jb.MultibodyPlant(0.0)
    jb.Parser(plant).AddModels(str(urdf))
    (g,) = geometries(plant, "a", "Collision")
    V = np.asarray(g.shape().vertices())
    np.testing.assert_allclose(np.sort(np.abs(V), axis=0), np.sort(np.abs(box.vertices), axis=0),
                               atol=1e-12)
    np.testing.assert_allclose(V.max(0) - V.min(0), [0.2, 0.4, 0.6], atol=1e-12)
