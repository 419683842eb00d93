"""Compliant hydroelastic spheres and ellipsoids: the volume meshes match Drake's vertex for vertex
and tetrahedron for tetrahedron, the extent field times E matches the pressure on Drake's contact
surfaces against a rigid half-space, and closed-form properties (orientation, volume, extent)."""

import numpy as np
import pytest

from jaxbody.geometry.hydroelastic.ellipsoid_mesh import (
    ellipsoid_extent,
    ellipsoid_refinement_level,
    ellipsoid_soft_mesh,
    ellipsoid_volume_mesh,
)
from jaxbody.geometry.hydroelastic.sphere_mesh import (
    MAX_REFINEMENT_LEVEL,
    sphere_refinement_level,
    sphere_soft_mesh,
    sphere_volume_mesh,
    unit_sphere_mesh,
)
from tests.helpers.hydro import (
    assert_same_volume_mesh,
    drake_compliant_mesh,
    drake_half_space_contact_surface,
    interpolate_extent,
    sphere_level_hint,
    with_neighbours,
)

# (radius, resolution hint, the refinement level it gives)
SPHERE_CASES = [(1.0, 5.0, 0), (1.0, 2.0, 0), (0.7, 1.0, 0), (1.0, 1.0, 1), (1.0, 0.5, 2),
                (0.05, 0.02, 2), (2.0, 0.4, 3), (0.3, 0.05, 4)]
ELLIPSOID_CASES = [((1.0, 2.0, 3.0), 10.0, 0), ((1.0, 2.0, 3.0), 2.5, 1), ((1.0, 2.0, 3.0), 1.0, 3),
                   ((0.1, 0.05, 0.2), 0.03, 4), ((0.3, 0.3, 0.1), 0.2, 2), ((0.02, 0.5, 0.2), 0.1, 3)]


def _boundary_hints(radius, levels=(0, 1, 2)):
    return with_neighbours(sphere_level_hint(radius, k) for k in levels)


# ---------------------------------------------------------------------------------------------
# Drake's meshes (pydrake).


@pytest.mark.parametrize("radius,hint,level", SPHERE_CASES)
def test_sphere_mesh_matches_drake(radius, hint, level):
    dg = pytest.importorskip("pydrake.geometry")
    assert sphere_refinement_level(radius, hint) == level
    assert_same_volume_mesh(sphere_volume_mesh(radius, hint),
                            drake_compliant_mesh(dg.Sphere(radius), hint), radius)


@pytest.mark.parametrize("axes,hint,level", ELLIPSOID_CASES)
def test_ellipsoid_mesh_matches_drake(axes, hint, level):
    dg = pytest.importorskip("pydrake.geometry")
    assert ellipsoid_refinement_level(*axes, hint) == level
    assert_same_volume_mesh(ellipsoid_volume_mesh(*axes, hint),
                            drake_compliant_mesh(dg.Ellipsoid(*axes), hint), max(axes))


def test_refinement_level_at_boundaries_matches_drake():
    """Hints at the level switches 2r·sin(π/2^(L+2)) and one ulp either side."""
    dg = pytest.importorskip("pydrake.geometry")
    for radius in (0.7, 0.013):
        for hint in _boundary_hints(radius):
            ours = sphere_volume_mesh(radius, hint)
            theirs = drake_compliant_mesh(dg.Sphere(radius), hint)
            assert ours.num_elements() == theirs.num_elements(), (radius, hint)
            assert ours.num_vertices() == theirs.num_vertices(), (radius, hint)
    axes = (0.2, 0.9, 0.4)
    for hint in _boundary_hints(max(axes)):
        ours = ellipsoid_volume_mesh(*axes, hint)
        theirs = drake_compliant_mesh(dg.Ellipsoid(*axes), hint)
        assert ours.num_elements() == theirs.num_elements(), hint
    # A boundary case compared in full.
    hint = sphere_level_hint(0.7, 1)
    assert_same_volume_mesh(sphere_volume_mesh(0.7, hint), drake_compliant_mesh(dg.Sphere(0.7), hint),
                            0.7)


# ---------------------------------------------------------------------------------------------
# The pressure field, through Drake's contact surfaces with a rigid half-space.


def _rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


@pytest.mark.parametrize("kind,dims,hint,depth", [
    ("sphere", (0.4,), 0.3, 0.5), ("sphere", (0.1,), 0.03, 0.3),
    ("ellipsoid", (0.3, 0.15, 0.2), 0.1, 0.4), ("ellipsoid", (0.05, 0.12, 0.08), 0.5, 0.55)])
def test_pressure_matches_drake_contact_surface(kind, dims, hint, depth):
    dg = pytest.importorskip("pydrake.geometry")
    modulus = 2.5e5
    rng = np.random.default_rng(len(dims) * 100 + int(1000 * hint))
    R_WG = _rotation(rng)
    # Put the center below its topmost point by a fraction `depth` of the shape's height.
    height = max(dims)
    p_WG = np.array([0.01, -0.02, height * (1.0 - 2.0 * depth)])
    if kind == "sphere":
        soft, shape = sphere_soft_mesh(dims[0], hint), dg.Sphere(dims[0])
    else:
        soft, shape = ellipsoid_soft_mesh(*dims, hint), dg.Ellipsoid(*dims)
    p_WV, pressure = drake_half_space_contact_surface(shape, hint, modulus, R_WG, p_WG)
    assert p_WV.shape[0] >= 3
    p_GV = (p_WV - p_WG) @ R_WG                                           # R_WGᵀ (p_WV − p_WG)
    expected = modulus * interpolate_extent(soft, p_GV)
    np.testing.assert_allclose(pressure, expected, rtol=0, atol=1e-9 * modulus)
    assert pressure.max() > 0.05 * modulus  # the check sees the interior, not only zeros


# ---------------------------------------------------------------------------------------------
# Closed-form properties.


@pytest.mark.parametrize("level", range(5))
def test_unit_mesh_counts_and_topology(level):
    vertices, tets = unit_sphere_mesh(level)
    assert tets.shape == (8 * 4 ** level, 4) and vertices.shape == (4 ** (level + 1) + 3, 3)
    assert np.all(tets[:, 3] == 0) and np.all(vertices[0] == 0)
    np.testing.assert_allclose(np.linalg.norm(vertices[1:], axis=1), 1.0, rtol=0, atol=1e-15)
    # The surface triangles (first three indices) form a closed 2-manifold: every directed edge
    # appears once and its reverse once.
    tri = tets[:, :3]
    directed = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
    keys = set(map(tuple, directed))
    assert len(keys) == len(directed) and all((b, a) in keys for a, b in keys)


def test_volumes_and_extent_closed_form():
    radius = 0.37
    errors = []
    for level in range(5):
        hint = 1.001 * sphere_level_hint(radius, level)
        assert sphere_refinement_level(radius, hint) == level
        soft = sphere_soft_mesh(radius, hint)
        vol = soft.mesh.volumes()
        assert np.all(vol > 0)
        errors.append(4.0 / 3.0 * np.pi * radius ** 3 - vol.sum())
        e = soft.extent
        assert e[0] == 1.0 and np.all(e[1:] == 0.0)
        assert np.all((e >= 0) & (e <= 1))
    errors = np.array(errors) / (4.0 / 3.0 * np.pi * radius ** 3)
    assert np.all(errors > 0) and np.all(np.diff(errors) < 0) and errors[-1] < 0.01
    # Each level shrinks the (inscribed-polyhedron) volume deficit about fourfold.
    assert np.all(errors[2:] / errors[1:-1] < 0.3)

    a, b, c = 0.2, 0.5, 0.1
    exact = 4.0 / 3.0 * np.pi * a * b * c
    previous = np.inf
    for hint in (2.0, 0.5, 0.2, 0.1, 0.05):
        soft = ellipsoid_soft_mesh(a, b, c, hint)
        vol = soft.mesh.volumes()
        assert np.all(vol > 0)
        err = (exact - vol.sum()) / exact
        assert 0 < err < previous
        previous = err
        assert soft.extent[0] == 1.0 and np.all(soft.extent[1:] == 0.0)
    assert previous < 0.01
    # Interior points: e = 1 − |(x/a, y/b, z/c)|.
    np.testing.assert_allclose(ellipsoid_extent(a, b, c, [[0.1, 0, 0], [0, 0, 0.05]]), [0.5, 0.5])


def test_level_cap_and_coarsest():
    assert sphere_refinement_level(1.0, 1e-6) == MAX_REFINEMENT_LEVEL
    assert sphere_refinement_level(1.0, 1e-300) == MAX_REFINEMENT_LEVEL
    assert sphere_refinement_level(1.0, 2.0) == 0 and sphere_refinement_level(1.0, np.inf) == 0
    mesh = ellipsoid_volume_mesh(1.0, 2.0, 3.0, 6.0)
    assert mesh.num_elements() == 8
    np.testing.assert_array_equal(mesh.vertices[1:4], [[1, 0, 0], [0, 2, 0], [-1, 0, 0]])


@pytest.mark.parametrize("call,name", [
    (lambda: sphere_volume_mesh(0.0, 0.1), "radius"),
    (lambda: sphere_soft_mesh(-1.0, 0.1), "radius"),
    (lambda: sphere_volume_mesh(1.0, 0.0), "resolution_hint"),
    (lambda: sphere_soft_mesh(1.0, float("nan")), "resolution_hint"),
    (lambda: ellipsoid_volume_mesh(1.0, -2.0, 1.0, 0.1), "b"),
    (lambda: ellipsoid_soft_mesh(1.0, 1.0, 0.0, 0.1), "c"),
    (lambda: ellipsoid_soft_mesh(float("inf"), 1.0, 1.0, 0.1), "a"),
    (lambda: ellipsoid_volume_mesh(1.0, 1.0, 1.0, -0.1), "resolution_hint"),
])
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
