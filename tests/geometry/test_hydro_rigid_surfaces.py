"""Rigid hydroelastic surface meshes (sphere, ellipsoid, box, cylinder, capsule, convex hull) and
the compliant convex mesh against the meshes pydrake's SceneGraph builds, plus closed-form checks
(closed manifold, outward winding, enclosed volume). Sphere, ellipsoid, cylinder and capsule
match Drake's vertex for vertex and triangle for triangle; the box's vertices match by position
and its triangles up to order and cyclic rotation; convex hulls match as geometry."""

import glob
import math
import os
import sysconfig

import numpy as np
import pytest

pytest.importorskip("pydrake")
pytest.importorskip("scipy")

import pydrake.geometry as dg  # noqa: E402
from pydrake.math import RollPitchYaw  # noqa: E402

import jaxbody as jb  # noqa: E402
from jaxbody.geometry.hydroelastic import capsule_mesh  # noqa: E402
from jaxbody.geometry.hydroelastic.capsule_mesh import capsule_points_per_circle  # noqa: E402
from jaxbody.geometry.hydroelastic.convex_mesh import (  # noqa: E402
    convex_hull_surface_mesh,
    convex_soft_mesh,
)
from jaxbody.geometry.hydroelastic.meshes import surface_mesh  # noqa: E402
from jaxbody.geometry.hydroelastic.rigid_surfaces import (  # noqa: E402
    box_surface_mesh,
    capsule_surface_mesh,
    cylinder_surface_mesh,
    ellipsoid_surface_mesh,
    sphere_surface_mesh,
)
from tests.helpers.hydro import (  # noqa: E402
    drake_half_space_contact_surface,
    drake_hydro_mesh,
    interpolate_extent,
    mesh_arrays,
    sphere_level_hint,
)

TOL = 1e-12


def _erd_obj(name):
    """An .obj of the installed example-robot-data package (skip when it is not installed)."""
    hits = glob.glob(os.path.join(sysconfig.get_paths()["purelib"], "cmeel.prefix", "share",
                                  "example-robot-data", "robots", "*", "meshes", name))
    if not hits:
        pytest.skip(f"example-robot-data's {name} is not installed")
    return hits[0]


def assert_same_as_drake(mine, drake_shape, resolution_hint=1.0):
    V, F = mesh_arrays(drake_hydro_mesh(drake_shape, resolution_hint))
    assert mine.vertices.shape == V.shape and mine.triangles.shape == F.shape
    np.testing.assert_array_equal(mine.triangles, F)
    np.testing.assert_allclose(mine.vertices, V, rtol=0, atol=TOL * max(1.0, np.abs(V).max()))


def enclosed_volume(mesh):
    p, q, r = (mesh.vertices[mesh.triangles[:, i]] for i in range(3))
    return np.einsum("ij,ij->i", np.cross(p, q), r).sum() / 6.0


def assert_closed_outward(mesh, volume=None, rtol=None):
    """Every edge is used once in each direction (closed, consistently wound manifold), the
    enclosed volume is positive and, when given, close to ``volume``."""
    F = mesh.triangles
    directed = np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]])
    assert len(np.unique(directed, axis=0)) == len(directed)
    assert {tuple(e) for e in directed} == {tuple(e) for e in directed[:, ::-1]}
    assert np.all(mesh.areas() > 0)
    v = enclosed_volume(mesh)
    assert v > 0
    if volume is not None:
        assert v == pytest.approx(volume, rel=rtol)


# --- Sphere and ellipsoid --------------------------------------------------------------------------

@pytest.mark.parametrize("radius", [0.05, 1.0, 2.3])
def test_sphere_matches_drake(radius):
    hints = [3.0 * radius, 2.0 * radius, 0.7 * radius, 0.2 * radius]
    for level in range(4):  # either side of each refinement boundary
        edge = sphere_level_hint(radius, level)
        hints += [edge * (1 + 1e-9), edge * (1 - 1e-9)]
    for h in hints:
        mine = sphere_surface_mesh(radius, h)
        assert_same_as_drake(mine, dg.Sphere(radius), h)
    assert sphere_surface_mesh(radius, sphere_level_hint(radius, 2) * 1.001).num_elements() == 8 * 4**2
    assert sphere_surface_mesh(radius, sphere_level_hint(radius, 2) * 0.999).num_elements() == 8 * 4**3


def test_sphere_closed_form():
    mesh = sphere_surface_mesh(0.5, 0.05)
    assert mesh.num_elements() == 8 * 4**4  # L = ⌈log2(π / asin(0.05))⌉ − 2
    np.testing.assert_allclose(np.linalg.norm(mesh.vertices, axis=1), 0.5, rtol=1e-15)
    exact = 4 / 3 * math.pi * 0.5**3
    assert_closed_outward(mesh, exact, rtol=1e-2)
    assert enclosed_volume(mesh) < exact  # inscribed


@pytest.mark.parametrize("abc", [(1.0, 2.0, 3.0), (0.3, 0.2, 0.1), (0.1, 0.1, 0.1), (0.2, 0.05, 0.2)])
def test_ellipsoid_matches_drake(abc):
    r = max(abc)
    hints = [2.5 * r, 0.9 * r, 0.3 * r]
    for level in range(3):
        edge = sphere_level_hint(r, level)
        hints += [edge * (1 + 1e-9), edge * (1 - 1e-9)]
    for h in hints:
        assert_same_as_drake(ellipsoid_surface_mesh(*abc, h), dg.Ellipsoid(*abc), h)
    mesh = ellipsoid_surface_mesh(*abc, 0.05 * r)
    assert_closed_outward(mesh, 4 / 3 * math.pi * np.prod(abc), rtol=5e-3)
    x = mesh.vertices / np.array(abc)
    np.testing.assert_allclose(np.sum(x * x, axis=1), 1.0, rtol=1e-14)


# --- Box ---------------------------------------------------------------------------------------------

BOX_SIZES = [
    (1, 1, 1), (0.3, 0.3, 0.3 * (1 + 2e-16)),                  # point medial axis
    (1, 1, 3), (3, 1, 1), (1, 3, 1), (1, 1 + 1e-15, 2),        # line along z, x, y
    (1, 2, 3), (3, 2, 1), (2, 1, 3), (2, 3, 1), (3, 1, 2),     # rectangle normal to x, z, y, ...
    (1, 3, 2), (2, 2, 1), (1, 2, 2), (2, 1, 2), (0.05, 0.4, 0.1),
]


def _canonical_triangles(F):
    """The triangles, each rotated to start at its smallest index (winding kept), sorted."""
    F = np.asarray(F)
    shift = np.argmin(F, axis=1)[:, None]
    rotated = np.take_along_axis(F, (shift + np.arange(3)) % 3, axis=1)
    return sorted(map(tuple, rotated.tolist()))


@pytest.mark.parametrize("size", BOX_SIZES)
def test_box_matches_drake(size):
    """Drake's vertices in another order, and its triangles up to order and cyclic rotation
    (which vertex starts a triangle does not change the geometry)."""
    mine = box_surface_mesh(size)
    V, F = mesh_arrays(drake_hydro_mesh(dg.Box(*size)))
    assert mine.vertices.shape == V.shape == (14, 3) and mine.triangles.shape == F.shape
    distance = np.linalg.norm(mine.vertices[:, None, :] - V[None, :, :], axis=-1)
    to_drake = np.argmin(distance, axis=1)
    assert sorted(to_drake) == list(range(len(V)))  # a one-to-one match by position
    np.testing.assert_allclose(mine.vertices, V[to_drake], rtol=0, atol=TOL * max(size))
    assert _canonical_triangles(to_drake[mine.triangles]) == _canonical_triangles(F)
    assert_closed_outward(mine, np.prod(size), rtol=1e-12)
    # Each face is a fan of four triangles starting at its center (vertices 8 to 13).
    np.testing.assert_array_equal(mine.triangles[:, 0], np.repeat(np.arange(8, 14), 4))


# --- Cylinder and capsule ----------------------------------------------------------------------------

CYLINDERS = [(1.0, 3.0), (1.0, 2.0), (1.0, 2.0 * (1 + 1e-15)), (1.0, 1.0), (0.1, 0.5), (0.5, 0.1),
             (0.04, 0.08)]


@pytest.mark.parametrize("radius, length", CYLINDERS)
def test_cylinder_matches_drake(radius, length):
    circumference = 2 * math.pi * radius
    hints = [10.0, 0.5 * radius, 0.13 * radius]
    for n in (3, 4, 17):  # either side of n = ⌈2πr/h⌉ changing
        hints += [circumference / n * (1 + 1e-9), circumference / n * (1 - 1e-9)]
    for h in hints:
        mine = cylinder_surface_mesh(radius, length, h)
        assert_same_as_drake(mine, dg.Cylinder(radius, length), h)
        n = max(3, math.ceil(circumference / h))
        assert mine.num_vertices() == 2 * n + 2 and mine.num_elements() == 4 * n
    mine = cylinder_surface_mesh(radius, length, 0.05 * radius)
    exact = math.pi * radius**2 * length
    assert_closed_outward(mine, exact, rtol=2e-3)
    assert enclosed_volume(mine) < exact  # inscribed


@pytest.mark.parametrize("radius, length", [(1.0, 3.0), (0.1, 0.5), (0.5, 0.1), (0.03, 0.2)])
def test_capsule_matches_drake(radius, length):
    circumference = 2 * math.pi * radius
    hints = [10.0, 0.5 * radius, 0.17 * radius]
    for n in (3, 4, 5, 12):  # either side of n = ⌊2πr/h⌋ changing
        hints += [circumference / n * (1 + 1e-9), circumference / n * (1 - 1e-9)]
    for h in hints:
        mine = capsule_surface_mesh(radius, length, h)
        assert_same_as_drake(mine, dg.Capsule(radius, length), h)
        n = int(min(max(circumference / h, 3), 706))
        assert mine.num_vertices() == 2 * n * (n // 2) + 2
    mine = capsule_surface_mesh(radius, length, 0.1 * radius)
    exact = math.pi * radius**2 * length + 4 / 3 * math.pi * radius**3
    assert_closed_outward(mine, exact, rtol=1e-2)
    assert enclosed_volume(mine) < exact  # inscribed


def test_capsule_rim_is_capped(monkeypatch):
    # 2πr/h ≈ 628000 longitudes requested, Drake's 706 built. The full mesh (~1M tetrahedra,
    # ~1 s) is not built: the rigid capsule gets its n from `capsule_points_per_circle`, whose
    # cap is checked here, and a lowered cap shows that the rigid surface goes through it.
    assert capsule_points_per_circle(0.01, 1e-7) == 706
    assert capsule_points_per_circle(0.01, 2 * math.pi * 0.01 / 705.5) == 705
    monkeypatch.setattr(capsule_mesh, "MAX_POINTS_PER_CIRCLE", 12)
    assert capsule_surface_mesh(0.01, 0.02, 1e-7).num_vertices() == 2 * 12 * 6 + 2


# --- Convex --------------------------------------------------------------------------------------

def _facets(V, F):
    """{outward unit normal (rounded): set of vertex positions (rounded)} of a polyhedral mesh."""
    a, b, c = (V[F[:, i]] for i in range(3))
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    out = {}
    for tri, normal in zip(F, n):
        key = tuple(np.round(normal, 6) + 0.0)
        out.setdefault(key, set()).update(tuple(np.round(V[i], 10) + 0.0) for i in tri)
    return out


def assert_same_hull_as_drake(mine, drake_V, drake_F):
    """Drake's vertex and facet order comes from qhull internals: compare the geometry."""
    assert mine.vertices.shape == drake_V.shape and mine.triangles.shape == drake_F.shape
    np.testing.assert_allclose(np.unique(mine.vertices, axis=0), np.unique(drake_V, axis=0),
                               rtol=0, atol=TOL)
    assert _facets(mine.vertices, mine.triangles) == _facets(drake_V, drake_F)
    drake_mesh = surface_mesh(drake_V, drake_F)
    assert enclosed_volume(mine) == pytest.approx(enclosed_volume(drake_mesh), rel=1e-12)
    assert mine.areas().sum() == pytest.approx(drake_mesh.areas().sum(), rel=1e-12)
    assert_closed_outward(mine, enclosed_volume(drake_mesh), rtol=1e-12)


OCTAGON_PRISM = """# an octagonal prism (coplanar caps, vertices on edges and faces), interior points
# and a vertex that no face uses (Drake's hull still includes it)
"""


def _write_obj(tmp_path):
    lines = [OCTAGON_PRISM]
    for z in (-0.05, 0.07):
        for k in range(8):
            a = 2 * math.pi * k / 8 + 0.1
            lines.append(f"v {0.1 * math.cos(a):.17g} {0.1 * math.sin(a):.17g} {z}")
        lines.append(f"v 0 0 {z}")                                                  # cap centers
    lines.append(f"v {0.05 * math.cos(0.1) + 0.05 * math.cos(0.1 + math.pi / 4):.17g} "
                 f"{0.05 * math.sin(0.1) + 0.05 * math.sin(0.1 + math.pi / 4):.17g} -0.05")  # on an edge
    lines += ["v 0.01 0.02 0.0", "v -0.02 0.01 0.03", "v 0.0 0.0 0.12"]           # last: unused
    lines += ["vt 0 0", "vn 0 0 1", "f 1 2 9", "f 2 3 9", "f 10 11 12", "f 19 20 1"]
    path = tmp_path / "prism.obj"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("which", ["cube", "thumb", "hip", "tmp", "tmp-scaled"])
def test_convex_rigid_matches_drake(which, tmp_path):
    scale = 1.0
    if which == "cube":
        path = _erd_obj("cube.obj")
    elif which == "thumb":
        path = _erd_obj("thumb-f1.obj")
    elif which == "hip":  # has an extreme vertex that no face uses
        path = _erd_obj("LeftHipRollLink.obj")
    else:
        path = _write_obj(tmp_path)
        scale = [1.5, 0.5, 2.0] if which == "tmp-scaled" else 1.0
    mine = convex_hull_surface_mesh(jb.Convex(path, scale))
    drake = drake_hydro_mesh(dg.Convex(path, np.broadcast_to(scale, 3)))
    assert_same_hull_as_drake(mine, *mesh_arrays(drake))
    if which == "cube":
        assert mine.num_vertices() == 8 and mine.num_elements() == 12
    if which.startswith("tmp"):
        assert mine.num_vertices() == 17  # 16 prism corners and the unused apex


def test_convex_planar_cloud_matches_drake(tmp_path):
    path = tmp_path / "square.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.2 0.3 0\nf 1 2 3\nf 1 3 4\n")
    mine = convex_hull_surface_mesh(jb.Convex(str(path)))
    V, F = mesh_arrays(drake_hydro_mesh(dg.Convex(str(path))))
    assert mine.vertices.shape == V.shape and mine.triangles.shape == F.shape
    np.testing.assert_allclose(np.unique(mine.vertices, axis=0), np.unique(V, axis=0), atol=TOL)
    assert abs(enclosed_volume(mine)) < 1e-15
    assert mine.areas().sum() == pytest.approx(surface_mesh(V, F).areas().sum(), rel=1e-12)


def test_convex_soft_mesh_matches_drake_volume_mesh(tmp_path):
    path = _write_obj(tmp_path)
    soft = convex_soft_mesh(convex_hull_surface_mesh(jb.Convex(path)))
    V, T = mesh_arrays(drake_hydro_mesh(dg.Convex(path), 0.1, modulus=1e5))
    mesh = soft.mesh
    assert mesh.vertices.shape == V.shape and mesh.tetrahedra.shape == T.shape
    # The last vertex is the volume centroid, the only interior vertex, in every tetrahedron first.
    np.testing.assert_allclose(mesh.vertices[-1], V[-1], rtol=0, atol=TOL)
    np.testing.assert_allclose(np.unique(mesh.vertices, axis=0), np.unique(V, axis=0), atol=TOL)
    assert np.all(mesh.tetrahedra[:, 0] == len(V) - 1) and np.all(T[:, 0] == len(V) - 1)
    volumes = mesh.volumes()
    assert np.all(volumes > 0)
    drake_volume = sum(np.linalg.det(V[t[1:]] - V[t[0]]) / 6 for t in T)
    assert volumes.sum() == pytest.approx(drake_volume, rel=1e-12)
    np.testing.assert_array_equal(soft.extent, np.r_[np.zeros(len(V) - 1), 1.0])


@pytest.mark.parametrize("which", ["tmp", "thumb"])
def test_convex_pressure_on_contact_surface(which, tmp_path):
    path = _write_obj(tmp_path) if which == "tmp" else _erd_obj("thumb-f1.obj")
    modulus = 2.5e5
    soft = convex_soft_mesh(convex_hull_surface_mesh(jb.Convex(path)))
    R_WG = RollPitchYaw(0.3, -0.5, 0.8).ToRotationMatrix().matrix()
    z = (soft.mesh.vertices @ R_WG.T)[:, 2]
    p_WG = np.array([0.01, -0.02, -(0.6 * z.min() + 0.4 * z.max())])  # cuts the hull 40 % deep
    p_WV, pressure = drake_half_space_contact_surface(dg.Convex(path), 0.1, modulus, R_WG, p_WG)
    assert len(p_WV) > 10
    expected = modulus * interpolate_extent(soft, (p_WV - p_WG) @ R_WG)  # at R_WGᵀ (p_WV − p_WG)
    assert pressure == pytest.approx(expected, rel=1e-9, abs=1e-9 * modulus)


# --- Input checks ------------------------------------------------------------------------------------

def test_bad_inputs_name_the_argument(tmp_path):
    with pytest.raises(ValueError, match="radius"):
        sphere_surface_mesh(0.0, 0.1)
    with pytest.raises(ValueError, match="resolution_hint"):
        sphere_surface_mesh(1.0, -1.0)
    with pytest.raises(ValueError, match="resolution_hint"):
        cylinder_surface_mesh(1.0, 1.0, float("nan"))
    with pytest.raises(ValueError, match="length"):
        capsule_surface_mesh(1.0, "x", 0.1)
    with pytest.raises(ValueError, match="b must"):
        ellipsoid_surface_mesh(1.0, -2.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="size"):
        box_surface_mesh((1.0, 0.0, 1.0))
    with pytest.raises(ValueError, match="size"):
        box_surface_mesh((1.0, 1.0))
    with pytest.raises(ValueError, match="shape"):
        convex_hull_surface_mesh(jb.Box(1, 1, 1))
    line = tmp_path / "line.obj"
    line.write_text("v 0 0 0\nv 1 1 1\nv 2 2 2\n")
    with pytest.raises(ValueError, match="line"):
        convex_hull_surface_mesh(jb.Convex(str(line)))
    with pytest.raises(ValueError, match="surface"):
        convex_soft_mesh(jb.Box(1, 1, 1))
    flipped = box_surface_mesh((1, 1, 1))
    with pytest.raises(ValueError, match="surface"):
        convex_soft_mesh(surface_mesh(flipped.vertices, flipped.triangles[:, ::-1]))
