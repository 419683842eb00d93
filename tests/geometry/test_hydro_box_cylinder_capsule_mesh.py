"""Compliant hydroelastic boxes, cylinders and capsules: the volume meshes match Drake's (cylinders
and capsules vertex for vertex and tetrahedron for tetrahedron, boxes as sets of vertices and of
positively oriented tetrahedra), the extent field times E matches the pressure on Drake's contact
surfaces against a rigid half-space, and closed-form properties hold (orientation, volume,
extent)."""

import math

import numpy as np
import pytest

from jaxbody.geometry.hydroelastic.box_mesh import box_extent, box_soft_mesh, box_volume_mesh
from jaxbody.geometry.hydroelastic.capsule_mesh import (
    MAX_POINTS_PER_CIRCLE,
    capsule_points_per_circle,
    capsule_soft_mesh,
    capsule_volume_mesh,
)
from jaxbody.geometry.hydroelastic.cylinder_mesh import (
    boundary_vertices,
    cylinder_soft_mesh,
    cylinder_volume_mesh,
)
from tests.helpers.hydro import (
    assert_same_volume_mesh,
    drake_compliant_mesh,
    drake_half_space_contact_surface,
    interpolate_extent,
    mesh_arrays,
    with_neighbours,
)

# Central medial-axis piece: a point (cubes; the last within Drake's 1e-14 tolerance), a segment
# (two equal short sides, the long one along each axis), a rectangle (short side along each axis,
# with two equal long sides too).
BOX_SIZES = [(1.0, 1.0, 1.0), (0.3, 0.3, 0.3), (2.0, 2.0, 2.0 + 1e-14),
             (1.0, 1.0, 3.0), (3.0, 1.0, 1.0), (1.0, 3.0, 1.0), (0.2, 0.5, 0.2),
             (1.0, 2.0, 3.0), (3.0, 2.0, 1.0), (2.0, 1.0, 3.0), (1.0, 2.0, 2.0), (2.0, 2.0, 1.0),
             (2.0, 1.0, 2.0), (0.05, 0.4, 0.11)]
# Long (L/2 > R), medium (L/2 = R) and short (L/2 < R) cylinders.
CYLINDERS = [(0.5, 3.0), (1.0, 2.0), (2.0, 1.0), (0.1, 0.05), (0.03, 0.2)]
# Hints relative to the radius: 3 (the minimum), 4 or 5, 12 or 13, and about 40 rim points.
RELATIVE_HINTS = [50.0, 1.5, 0.5, 0.15]


def _boundary_hints(radius, counts):
    """Hints at which 2πR/h crosses the integers ``counts``, and one ulp either side."""
    return with_neighbours(2.0 * math.pi * radius / k for k in counts)


# ---------------------------------------------------------------------------------------------
# Drake's meshes (pydrake).


def _assert_same_mesh_as_sets(ours, theirs, scale):
    """The same vertex set (positions within 1e-12·scale) and the same set of tetrahedra, each
    identified by the sorted tuple of its (rounded) vertex positions; ours positively oriented."""
    vertices, tets = mesh_arrays(theirs)
    assert ours.vertices.shape == vertices.shape and ours.tetrahedra.shape == tets.shape
    close = np.linalg.norm(ours.vertices[:, None] - vertices[None], axis=-1) <= 1e-12 * scale
    assert np.all(close.sum(0) == 1) and np.all(close.sum(1) == 1)  # a bijection

    def tet_set(v, t):
        keys = [tuple(k) for k in (np.round(v / scale, 9) + 0.0).tolist()]
        return {tuple(sorted(keys[i] for i in tet)) for tet in t}

    ours_set = tet_set(ours.vertices, ours.tetrahedra)
    assert len(ours_set) == len(ours.tetrahedra)
    assert ours_set == tet_set(vertices, tets)
    assert np.all(ours.volumes() > 0)


@pytest.mark.parametrize("size", BOX_SIZES)
def test_box_mesh_matches_drake(size):
    dg = pytest.importorskip("pydrake.geometry")
    # The hint is ignored for boxes.
    for hint in (10.0, 0.01):
        _assert_same_mesh_as_sets(box_volume_mesh(size),
                                  drake_compliant_mesh(dg.Box(*size), hint), max(size))


@pytest.mark.parametrize("radius,length", CYLINDERS)
def test_cylinder_mesh_matches_drake(radius, length):
    dg = pytest.importorskip("pydrake.geometry")
    for hint in [radius * h for h in RELATIVE_HINTS] + _boundary_hints(radius, (3, 4, 7)):
        assert_same_volume_mesh(cylinder_volume_mesh(radius, length, hint),
                                drake_compliant_mesh(dg.Cylinder(radius, length), hint),
                                max(radius, length))


@pytest.mark.parametrize("radius,length", CYLINDERS)
def test_capsule_mesh_matches_drake(radius, length):
    dg = pytest.importorskip("pydrake.geometry")
    # Across 2πR/h = 4, 5, 8, 9: n = 3|4 (one circle per hemisphere, then two), 4|5 (two either
    # way), 7|8 (three, then four), 8|9 (four either way).
    for hint in [radius * h for h in RELATIVE_HINTS] + _boundary_hints(radius, (4, 5, 8, 9)):
        assert_same_volume_mesh(capsule_volume_mesh(radius, length, hint),
                                drake_compliant_mesh(dg.Capsule(radius, length), hint),
                                max(radius, length))


# ---------------------------------------------------------------------------------------------
# The pressure field, through Drake's contact surfaces with a rigid half-space.


def _rotation(roll, pitch, yaw):
    from pydrake.math import RollPitchYaw

    return RollPitchYaw(roll, pitch, yaw).ToRotationMatrix().matrix()


@pytest.mark.parametrize("kind,dims,hint,height", [
    ("box", (0.4, 0.4, 0.4), 1.0, 0.05), ("box", (0.2, 0.2, 0.6), 1.0, 0.0),
    ("box", (0.2, 0.35, 0.5), 1.0, -0.02),
    ("cylinder", (0.1, 0.5), 0.05, 0.02), ("cylinder", (0.2, 0.4), 0.1, 0.0),
    ("cylinder", (0.3, 0.2), 0.1, 0.01),
    ("capsule", (0.1, 0.3), 0.04, 0.03), ("capsule", (0.2, 0.1), 0.3, -0.05)])
def test_pressure_matches_drake_contact_surface(kind, dims, hint, height):
    dg = pytest.importorskip("pydrake.geometry")
    modulus = 3.0e5
    R_WG = _rotation(0.3, -0.5, 0.7)
    p_WG = np.array([0.02, -0.01, height])  # the plane z = 0 cuts through the interior
    if kind == "box":
        soft, shape = box_soft_mesh(dims), dg.Box(*dims)
    elif kind == "cylinder":
        soft, shape = cylinder_soft_mesh(*dims, hint), dg.Cylinder(*dims)
    else:
        soft, shape = capsule_soft_mesh(*dims, hint), dg.Capsule(*dims)
    p_WV, pressure = drake_half_space_contact_surface(shape, hint, modulus, R_WG, p_WG)
    assert p_WV.shape[0] >= 3
    p_GV = (p_WV - p_WG) @ R_WG                                           # R_WGᵀ (p_WV − p_WG)
    expected = modulus * interpolate_extent(soft, p_GV)
    np.testing.assert_allclose(pressure, expected, rtol=0, atol=1e-9 * modulus)
    assert pressure.max() > 0.3 * modulus  # the check sees the interior, not only zeros


def _drake_signed_distances(shape, points):
    """Drake's signed distances from points to ``shape`` anchored at the world origin (the same
    point-to-shape functor its box and cylinder pressure fields call)."""
    dg = pytest.importorskip("pydrake.geometry")
    from pydrake.math import RigidTransform
    from pydrake.systems.framework import DiagramBuilder

    builder = DiagramBuilder()
    sg = builder.AddSystem(dg.SceneGraph())
    instance = dg.GeometryInstance(RigidTransform(), shape, "g")
    instance.set_proximity_properties(dg.ProximityProperties())
    sg.RegisterAnchoredGeometry(sg.RegisterSource("test"), instance)
    diagram = builder.Build()
    query = sg.get_query_output_port().Eval(sg.GetMyContextFromRoot(diagram.CreateDefaultContext()))
    return np.array([query.ComputeSignedDistanceToPoint(p)[0].distance for p in points])


@pytest.mark.parametrize("size", BOX_SIZES[::2])
def test_box_extent_is_drakes_distance_bit_for_bit(size):
    dg = pytest.importorskip("pydrake.geometry")
    soft = box_soft_mesh(size)
    d = _drake_signed_distances(dg.Box(*size), soft.mesh.vertices)
    np.testing.assert_array_equal(soft.extent, -d / (np.min(size) / 2.0) + 0.0)


@pytest.mark.parametrize("radius,length,hint", [(0.5, 3.0, 0.1), (1.0, 2.0, 0.2), (2.0, 1.0, 0.3),
                                                (0.1, 0.05, 0.005)])
def test_cylinder_extent_is_drakes_distance_bit_for_bit(radius, length, hint):
    """Interior vertices: min(−d/H, 1) with Drake's d (boundary ones are set to 0 exactly)."""
    dg = pytest.importorskip("pydrake.geometry")
    soft = cylinder_soft_mesh(radius, length, hint)
    inner = np.setdiff1d(np.arange(soft.mesh.num_vertices()),
                         boundary_vertices(soft.mesh.tetrahedra))
    d = _drake_signed_distances(dg.Cylinder(radius, length), soft.mesh.vertices[inner])
    np.testing.assert_array_equal(soft.extent[inner],
                                  np.minimum(-d / min(radius, length / 2.0), 1.0))


# ---------------------------------------------------------------------------------------------
# Closed-form properties.


def _check_extent(soft, atol=0.0):
    """Positive volumes; extent in [0, 1], 0 on the boundary (exactly unless ``atol``), positive
    inside."""
    assert np.all(soft.mesh.volumes() > 0)
    e = soft.extent
    assert np.all((e >= 0.0) & (e <= 1.0))
    boundary = np.zeros(len(e), bool)
    boundary[boundary_vertices(soft.mesh.tetrahedra)] = True
    assert np.all(np.abs(e[boundary]) <= atol) and np.all(e[~boundary] > 0.0)


@pytest.mark.parametrize("size", BOX_SIZES)
def test_box_volume_and_extent_closed_form(size):
    soft = box_soft_mesh(size)
    near_cube = size == (2.0, 2.0, 2.0 + 1e-14)  # meshed as the 2-cube, within Drake's tolerance
    _check_extent(soft, atol=1e-14 if near_cube else 0.0)
    counts = {15: 24, 17: 40, 18: 44}
    assert counts[soft.mesh.num_vertices()] == soft.mesh.num_elements()
    if not near_cube:
        np.testing.assert_allclose(soft.mesh.volumes().sum(), np.prod(size), rtol=1e-14)
    # The mesh follows the medial axis, so the linear interpolant is the exact scaled distance
    # to the boundary everywhere inside: e(p) = min_i(h_i − |p_i|) / min_i h_i.
    h = np.asarray(size) / 2.0
    p = np.random.default_rng(7).uniform(-h, h, size=(200, 3))
    np.testing.assert_allclose(interpolate_extent(soft, p), (h - np.abs(p)).min(1) / h.min(),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(box_extent(size, p), (h - np.abs(p)).min(1) / h.min(),
                               rtol=0, atol=1e-14)


@pytest.mark.parametrize("radius,length", CYLINDERS)
def test_cylinder_volume_and_extent_closed_form(radius, length):
    for hint in (100.0 * radius, 1.5 * radius, 0.3 * radius, 0.05 * radius):
        n = max(3, math.ceil(2 * math.pi * radius / hint))
        soft = cylinder_soft_mesh(radius, length, hint)
        _check_extent(soft)
        kind = ("long" if length / 2 > radius else "short" if length / 2 < radius
                else "medium")
        counts = {"long": (2 * n + 4, 5 * n), "medium": (2 * n + 3, 4 * n),
                  "short": (3 * n + 3, 9 * n)}[kind]
        assert (soft.mesh.num_vertices(), soft.mesh.num_elements()) == counts
        # The mesh fills the prism on the inscribed regular n-gon.
        prism = 0.5 * n * radius ** 2 * math.sin(2 * math.pi / n) * length
        np.testing.assert_allclose(soft.mesh.volumes().sum(), prism, rtol=1e-13)
        # Interior vertices lie on the medial axis: extent 1 (up to rounding on the medial circle
        # of a short cylinder).
        np.testing.assert_allclose(soft.extent[2 + 2 * n:], 1.0, rtol=0, atol=1e-13)
    assert abs(prism - math.pi * radius ** 2 * length) < 1e-3 * prism


def test_capsule_volume_counts_and_extent():
    radius, length = 0.2, 0.3
    exact = math.pi * radius ** 2 * (length + 4.0 / 3.0 * radius)
    previous = np.inf
    for hint in (10.0, 0.2, 0.1, 0.05, 0.02):
        n = capsule_points_per_circle(radius, hint)
        c = n // 2
        soft = capsule_soft_mesh(radius, length, hint)
        _check_extent(soft)
        assert soft.mesh.num_vertices() == 2 * n * c + 4
        assert soft.mesh.num_elements() == 4 * n * (c - 1) + 5 * n
        assert np.all(soft.extent[:2] == 1.0) and np.all(soft.extent[2:] == 0.0)
        np.testing.assert_array_equal(soft.mesh.vertices[:2], [[0, 0, length / 2], [0, 0, -length / 2]])
        # Surface vertices on the capsule.
        p = soft.mesh.vertices[2:]
        axis = np.clip(p[:, 2], -length / 2, length / 2)
        np.testing.assert_allclose(np.hypot(np.hypot(p[:, 0], p[:, 1]), p[:, 2] - axis), radius,
                                   rtol=1e-14)
        error = (exact - soft.mesh.volumes().sum()) / exact
        assert 0.0 < error < previous
        previous = error
    assert previous < 0.01
    assert capsule_points_per_circle(radius, 1e-9) == MAX_POINTS_PER_CIRCLE
    assert capsule_points_per_circle(radius, math.inf) == 3
    assert capsule_points_per_circle(1.0, 2 * math.pi / 8.5) == 8  # truncation, not rounding


@pytest.mark.parametrize("call,name", [
    (lambda: box_volume_mesh((1.0, 0.0, 1.0)), "size"),
    (lambda: box_soft_mesh((1.0, 2.0)), "size"),
    (lambda: box_soft_mesh((1.0, math.nan, 2.0)), "size"),
    (lambda: box_soft_mesh(("a", 1.0, 2.0)), "size"),
    (lambda: cylinder_volume_mesh(0.0, 1.0, 0.1), "radius"),
    (lambda: cylinder_soft_mesh(1.0, -1.0, 0.1), "length"),
    (lambda: cylinder_volume_mesh(1.0, 1.0, 0.0), "resolution_hint"),
    (lambda: capsule_volume_mesh(math.inf, 1.0, 0.1), "radius"),
    (lambda: capsule_soft_mesh(1.0, "2", 0.1), "length"),
    (lambda: capsule_volume_mesh(1.0, 1.0, math.nan), "resolution_hint")])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
