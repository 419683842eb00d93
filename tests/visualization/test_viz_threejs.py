"""Shapes as three.js objects: geometry kinds, dimensions, fixed transforms, colors, mesh files."""

import numpy as np
import pytest
import umsgpack

import jaxbody as jb
from jaxbody.visualization import threejs
from tests.visualization.viz_fixtures import write_meshes

RED = (1.0, 0.0, 0.0, 1.0)


def _matrix(obj):
    return np.asarray(obj["object"]["matrix"]).reshape(4, 4).T


def test_primitives_have_drakes_dimensions():
    box = threejs.shape_object(jb.Box(0.1, 0.2, 0.3), RED)
    g = box["geometries"][0]
    assert (g["type"], g["width"], g["height"], g["depth"]) == ("BoxGeometry", 0.1, 0.2, 0.3)
    assert box["materials"][0]["color"] == 0xFF0000
    sphere = threejs.shape_object(jb.Sphere(0.25), RED)["geometries"][0]
    assert (sphere["type"], sphere["radius"]) == ("SphereGeometry", 0.25)
    ell = threejs.shape_object(jb.Ellipsoid(0.1, 0.2, 0.3), RED)
    np.testing.assert_allclose(np.diag(_matrix(ell)), [0.1, 0.2, 0.3, 1.0])


def test_cylinder_is_turned_onto_z():
    cyl = threejs.shape_object(jb.Cylinder(0.1, 0.5), RED)
    g = cyl["geometries"][0]
    assert (g["type"], g["height"], g["radiusTop"], g["radiusBottom"]) == (
        "CylinderGeometry", 0.5, 0.1, 0.1)
    np.testing.assert_allclose(_matrix(cyl)[:3, :3] @ [0, 1, 0], [0, 0, 1], atol=1e-12)


def test_capsule_mesh_spans_length_plus_caps():
    obj = threejs.shape_object(jb.Capsule(0.1, 0.5), RED)
    g = obj["geometries"][0]
    assert g["type"] == "BufferGeometry"
    V = np.frombuffer(g["data"]["attributes"]["position"]["array"].data, np.float32).reshape(-1, 3)
    np.testing.assert_allclose([V[:, 2].min(), V[:, 2].max()], [-0.35, 0.35], atol=1e-6)
    np.testing.assert_allclose(np.abs(V[:, :2]).max(), 0.1, atol=1e-6)


def test_half_space_top_is_just_below_z0():
    obj = threejs.shape_object(jb.HalfSpace(), None)
    g = obj["geometries"][0]
    top = _matrix(obj)[2, 3] + g["depth"] / 2
    assert -2 * threejs.HALF_SPACE_DROP < top < 0
    assert g["width"] == threejs.HALF_SPACE_SIZE


def test_default_color_and_transparency():
    m = threejs.shape_object(jb.Sphere(0.1), None)["materials"][0]
    assert m["color"] == threejs.phong_material(threejs.DEFAULT_RGBA)["color"]
    assert m["transparent"] is False
    m = threejs.shape_object(jb.Sphere(0.1), [0, 0, 1, 0.5])["materials"][0]
    assert (m["color"], m["opacity"], m["transparent"]) == (0x0000FF, 0.5, True)


@pytest.mark.parametrize("bad", [[1.0, 0.0], [2.0, 0, 0, 1], [np.nan, 0, 0]])
def test_bad_color_raises(bad):
    with pytest.raises(ValueError, match="color"):
        threejs.rgba_of(bad)


def test_obj_without_color_keeps_its_materials(tmp_path):
    files = write_meshes(str(tmp_path))
    obj = threejs.shape_object(jb.Mesh(files["obj"], scale=[1, 2, 3]), None)["object"]
    assert (obj["type"], obj["format"]) == ("_meshfile_object", "obj")
    assert "Kd 0.1 0.8 0.1" in obj["mtl_library"]
    assert obj["resources"] == {}
    np.testing.assert_allclose(np.diag(np.asarray(obj["matrix"]).reshape(4, 4)), [1, 2, 3, 1])


def test_dae_without_color_is_parsed_by_the_browser(tmp_path):
    files = write_meshes(str(tmp_path))
    obj = threejs.shape_object(jb.Mesh(files["dae"]), None)["object"]
    assert (obj["type"], obj["format"]) == ("_meshfile_object", "dae")
    assert "<COLLADA" in obj["data"]


def test_mesh_with_color_uses_it(tmp_path):
    files = write_meshes(str(tmp_path))
    for ext in ("obj", "dae", "stl"):
        out = threejs.shape_object(jb.Mesh(files[ext]), RED)
        g = out["geometries"][0]
        assert (g["type"], g["format"]) == ("_meshfile_geometry", ext)
        assert out["materials"][0]["color"] == 0xFF0000


def test_stl_bytes_travel_as_uint8_and_get_the_default_color(tmp_path):
    files = write_meshes(str(tmp_path))
    out = threejs.shape_object(jb.Mesh(files["stl"]), None)
    data = out["geometries"][0]["data"]
    assert isinstance(data, umsgpack.Ext) and data.type == 0x12
    with open(files["stl"], "rb") as f:
        assert data.data == f.read()


def test_other_formats_are_sent_as_triangles(tmp_path):
    files = write_meshes(str(tmp_path))
    g = threejs.shape_object(jb.Mesh(files["ply"], scale=2.0), RED)["geometries"][0]
    V = np.frombuffer(g["data"]["attributes"]["position"]["array"].data, np.float32)
    np.testing.assert_allclose(np.abs(V).max(), 0.2, atol=1e-6)  # scaled cube of half 0.1


def test_convex_is_its_flat_shaded_hull(tmp_path):
    files = write_meshes(str(tmp_path))
    out = threejs.shape_object(jb.Convex(files["stl"]), RED)
    assert out["geometries"][0]["type"] == "BufferGeometry"
    assert out["materials"][0]["flatShading"] is True


def test_missing_mesh_file_raises_naming_it(tmp_path):
    for ext in (".obj", ".ply"):
        path = str(tmp_path / f"missing{ext}")
        with pytest.raises(ValueError, match="missing"):
            threejs.shape_object(jb.Mesh(path), None)


def test_unsupported_shape_raises():
    class Blob(jb.Shape):
        pass

    with pytest.raises(ValueError, match="cannot draw a Blob"):
        threejs.shape_object(Blob(), None)


def test_bounding_radius():
    assert threejs.bounding_radius(jb.Sphere(0.3)) == 0.3
    assert threejs.bounding_radius(jb.HalfSpace()) == 0.0
    np.testing.assert_allclose(threejs.bounding_radius(jb.Box(2, 2, 2)), np.sqrt(3))
    np.testing.assert_allclose(threejs.bounding_radius(jb.Capsule(1, 2)), np.sqrt(2) + 1)
