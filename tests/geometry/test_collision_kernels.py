"""Narrow-phase kernels: closed-form cases and identities (A/B symmetry, single point)."""

import jax.numpy as jnp
import numpy as np
import pytest

from jaxbody.geometry import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Sphere
from jaxbody.geometry.collision import compute_pair, is_supported
from jaxbody.geometry.collision.kernels import get_kernel
from tests.helpers.collision import pose, write_box_obj

TOL = 1e-12  # m, closed forms
ITER_TOL = 1e-9  # m, iterative kernels (ellipsoid bisection, golden section)
ORIGIN = pose()


def _np(c):
    return {k: np.asarray(v) for k, v in c._asdict().items()}


def _check_point(c, i, phi, p_WCa, p_WCb, n, tol=TOL):
    np.testing.assert_allclose(c["phi"][i], phi, atol=tol)
    np.testing.assert_allclose(c["p_WCa"][i], p_WCa, atol=tol)
    np.testing.assert_allclose(c["p_WCb"][i], p_WCb, atol=tol)
    np.testing.assert_allclose(c["nhat_BA_W"][i], n, atol=tol)


# ---- Sphere pairs -----------------------------------------------------------------------------
def test_sphere_sphere():
    c = _np(compute_pair(Sphere(0.2), pose(p=(0.3, 0, 0)), Sphere(0.15), ORIGIN))
    _check_point(c, 0, 0.3 - 0.35, (0.1, 0, 0), (0.15, 0, 0), (1, 0, 0))
    c = _np(compute_pair(Sphere(0.1), pose(p=(0, 0, 1)), Sphere(0.1), ORIGIN))
    assert c["phi"][0] == pytest.approx(0.8) and c["valid"].all()


def test_sphere_on_halfspace():
    c = _np(compute_pair(Sphere(0.1), pose(p=(0.3, -0.2, 0.07)), HalfSpace(), ORIGIN))
    _check_point(c, 0, -0.03, (0.3, -0.2, -0.03), (0.3, -0.2, 0.0), (0, 0, 1))
    # A tilted half space: the plane through (0, 0, 1) with normal (0, 1, 1)/√2.
    R, _ = pose(rpy=(-np.pi / 4, 0, 0))
    c = _np(compute_pair(Sphere(0.5), pose(p=(0, 0, 1.2)), HalfSpace(), (R, np.array([0, 0, 1.0]))))
    n = np.array([0, 1, 1]) / np.sqrt(2)
    assert np.allclose(c["nhat_BA_W"][0], n) and c["phi"][0] == pytest.approx(0.2 / np.sqrt(2) - 0.5)


@pytest.mark.parametrize("center, phi, n", [
    ((0.0, 0.0, 0.35), 0.05 - 0.1, (0, 0, 1)),  # over the top face
    ((0.3, 0.0, 0.35), np.hypot(0.1, 0.05) - 0.1, np.array([0.1, 0, 0.05]) / np.hypot(0.1, 0.05)),
    ((0.0, 0.0, 0.25), -0.05 - 0.1, (0, 0, 1)),  # center inside, nearest face +z
])
def test_sphere_box(center, phi, n):
    c = _np(compute_pair(Sphere(0.1), pose(p=center), Box(0.4, 1.0, 0.6), ORIGIN))
    np.testing.assert_allclose(c["phi"], [phi], atol=TOL)
    np.testing.assert_allclose(c["nhat_BA_W"][0], n, atol=TOL)
    np.testing.assert_allclose(c["p_WCa"][0], np.asarray(center) - 0.1 * np.asarray(n), atol=TOL)


def test_sphere_capsule_and_cylinder():
    cap = _np(compute_pair(Sphere(0.1), pose(p=(0.25, 0, 0.3)), Capsule(0.2, 1.0), ORIGIN))
    _check_point(cap, 0, -0.05, (0.15, 0, 0.3), (0.2, 0, 0.3), (1, 0, 0))
    cap = _np(compute_pair(Sphere(0.1), pose(p=(0, 0, 0.8)), Capsule(0.2, 1.0), ORIGIN))
    assert cap["phi"][0] == pytest.approx(0.8 - 0.5 - 0.3)
    cyl = _np(compute_pair(Sphere(0.1), pose(p=(0.25, 0, 0.3)), Cylinder(0.2, 1.0), ORIGIN))
    _check_point(cyl, 0, -0.05, (0.15, 0, 0.3), (0.2, 0, 0.3), (1, 0, 0))
    cyl = _np(compute_pair(Sphere(0.1), pose(p=(0.05, 0, 0.55)), Cylinder(0.2, 1.0), ORIGIN))
    _check_point(cyl, 0, -0.05, (0.05, 0, 0.45), (0.05, 0, 0.5), (0, 0, 1))
    rim = _np(compute_pair(Sphere(0.1), pose(p=(0.3, 0, 0.6)), Cylinder(0.2, 1.0), ORIGIN))
    assert rim["phi"][0] == pytest.approx(np.sqrt(0.02) - 0.1)


def test_sphere_ellipsoid():
    e = Ellipsoid(0.2, 0.3, 0.5)
    c = _np(compute_pair(Sphere(0.1), pose(p=(0, 0, 0.55)), e, ORIGIN))
    _check_point(c, 0, -0.05, (0, 0, 0.45), (0, 0, 0.5), (0, 0, 1), ITER_TOL)
    c = _np(compute_pair(Sphere(0.1), pose(p=(0.25, 0, 0)), e, ORIGIN))
    _check_point(c, 0, -0.05, (0.15, 0, 0), (0.2, 0, 0), (1, 0, 0), ITER_TOL)
    # A generic outside point: the witness is on the surface and the normal is the gradient.
    c = _np(compute_pair(Sphere(0.05), pose(p=(0.2, 0.25, 0.3)), e, ORIGIN))
    x = c["p_WCb"][0]
    assert np.sum((x / [0.2, 0.3, 0.5]) ** 2) == pytest.approx(1.0, abs=1e-12)
    g = x / np.array([0.04, 0.09, 0.25])
    np.testing.assert_allclose(c["nhat_BA_W"][0], g / np.linalg.norm(g), atol=1e-12)
    np.testing.assert_allclose(x + (c["phi"][0] + 0.05) * c["nhat_BA_W"][0], [0.2, 0.25, 0.3],
                               atol=1e-12)


@pytest.fixture(scope="module")
def box_mesh(tmp_path_factory):
    return Convex(write_box_obj(tmp_path_factory.mktemp("mesh") / "box.obj", (0.4, 1.0, 0.6)))


@pytest.mark.parametrize("center", [(0.0, 0.0, 0.35), (0.3, 0.0, 0.35), (0.0, 0.1, 0.25),
                                    (0.3, 0.6, 0.4)])
def test_sphere_convex_equals_sphere_box(box_mesh, center):
    a = _np(compute_pair(Sphere(0.1), pose(p=center), box_mesh, ORIGIN))
    b = _np(compute_pair(Sphere(0.1), pose(p=center), Box(0.4, 1.0, 0.6), ORIGIN))
    for k in ("phi", "p_WCa", "p_WCb", "nhat_BA_W"):
        np.testing.assert_allclose(a[k], b[k], atol=TOL)


# ---- Half-space pairs -------------------------------------------------------------------------
def test_box_resting_on_halfspace_has_four_corners_at_zero():
    c = _np(compute_pair(Box(0.4, 1.0, 0.6), pose(p=(1, 2, 0.3)), HalfSpace(), ORIGIN))
    bottom = np.isclose(c["p_WCa"][:, 2], 0.0)
    assert bottom.sum() == 4 and c["valid"].all()
    np.testing.assert_allclose(c["phi"][bottom], 0.0, atol=TOL)
    np.testing.assert_allclose(c["phi"][~bottom], 0.6, atol=TOL)
    np.testing.assert_allclose(c["nhat_BA_W"], np.tile([0, 0, 1.0], (8, 1)))


@pytest.mark.parametrize("rpy", [(0.3, 0.2, 0.1), (-1.1, 0.7, 2.5), (2.9, -0.4, -1.3)])
def test_single_point_on_halfspace_is_the_deepest_of_the_full_set(box_mesh, rpy):
    """The one point per pair (found in the body's frame) is the full set's deepest vertex:
    every field, for a Box and the same box as a Convex hull."""
    X = pose(rpy=rpy, p=(0.1, -0.2, 0.2))
    for shape in (Box(0.4, 1.0, 0.6), box_mesh):
        full = _np(compute_pair(shape, X, HalfSpace(), ORIGIN))
        one = _np(compute_pair(shape, X, HalfSpace(), ORIGIN, single=True))
        i = np.argmin(np.where(full["valid"], full["phi"], np.inf))
        assert one["phi"].shape == (1,) and one["valid"].all()
        for k in ("phi", "p_WCa", "p_WCb", "nhat_BA_W"):
            np.testing.assert_allclose(one[k][0], full[k][i], atol=TOL)


def test_box_and_convex_on_halfspace_agree(box_mesh):
    X = pose(rpy=(0.3, -0.2, 0.5), p=(0.1, 0.2, 0.25))
    a = _np(compute_pair(box_mesh, X, HalfSpace(), ORIGIN))
    b = _np(compute_pair(Box(0.4, 1.0, 0.6), X, HalfSpace(), ORIGIN))
    np.testing.assert_allclose(np.sort(a["phi"]), np.sort(b["phi"]), atol=TOL)


def test_capsule_lying_on_halfspace_has_two_points():
    c = _np(compute_pair(Capsule(0.1, 1.0), pose(rpy=(0, np.pi / 2, 0), p=(0, 0, 0.08)),
                         HalfSpace(), ORIGIN))
    np.testing.assert_allclose(c["phi"], [-0.02, -0.02], atol=TOL)
    np.testing.assert_allclose(np.sort(c["p_WCa"][:, 0]), [-0.5, 0.5], atol=TOL)
    np.testing.assert_allclose(c["p_WCb"][:, 2], 0.0, atol=TOL)


def test_cylinder_on_halfspace_standing_and_lying():
    up = _np(compute_pair(Cylinder(0.2, 1.0), pose(p=(0, 0, 0.49)), HalfSpace(), ORIGIN))
    low = np.isclose(up["phi"], -0.01)
    assert low.sum() == 6
    np.testing.assert_allclose(np.linalg.norm(up["p_WCa"][low, :2], axis=1), 0.2, atol=TOL)
    side = _np(compute_pair(Cylinder(0.2, 1.0), pose(rpy=(np.pi / 2, 0, 0.3), p=(0, 0, 0.19)),
                            HalfSpace(), ORIGIN))
    assert np.sum(np.isclose(side["phi"], -0.01)) == 2  # the two exact rim points
    assert side["phi"].min() == pytest.approx(-0.01, abs=TOL)


def test_ellipsoid_on_halfspace():
    e = Ellipsoid(0.2, 0.3, 0.5)
    c = _np(compute_pair(e, pose(p=(0, 0, 0.45)), HalfSpace(), ORIGIN))
    _check_point(c, 0, -0.05, (0, 0, -0.05), (0, 0, 0), (0, 0, 1))
    R, _ = pose(rpy=(0.4, 0.3, 0))
    c = _np(compute_pair(e, (R, np.zeros(3)), HalfSpace(), ORIGIN))
    D2 = np.diag([0.04, 0.09, 0.25])
    support = -np.sqrt(R[2] @ D2 @ R[2])  # min over the ellipsoid of z
    assert c["phi"][0] == pytest.approx(support, abs=TOL)


# ---- Capsule and polytope pairs ----------------------------------------------------------------
def test_capsule_capsule_crossing():
    c = _np(compute_pair(Capsule(0.1, 1.0), pose(rpy=(0, np.pi / 2, 0), p=(0, 0, 0.15)),
                         Capsule(0.1, 1.0), pose(rpy=(np.pi / 2, 0, 0)), single=True))
    _check_point(c, 0, -0.05, (0, 0, 0.05), (0, 0, 0.1), (0, 0, 1), ITER_TOL)


def test_capsule_across_box_edge_gets_interior_point():
    # The box's edge x = z = 0.5 (along y); the capsule's axis (1, 0, -1)/√2 passes 0.04 m
    # from the edge, both ends clear of the box.
    R, _ = pose(rpy=(0, 3 * np.pi / 4, 0))
    center = np.array([0.5, 0.0, 0.5]) + 0.04 * np.array([1, 0, 1]) / np.sqrt(2)
    c = _np(compute_pair(Capsule(0.05, 1.0), (R, center), Box(1, 1, 1), ORIGIN))
    assert c["valid"].tolist() == [True, True, True]
    _check_point(c, 2, -0.01, center - 0.05 * np.array([1, 0, 1]) / np.sqrt(2), (0.5, 0, 0.5),
                 np.array([1, 0, 1]) / np.sqrt(2), ITER_TOL)
    assert c["phi"][:2].min() > 0.3
    flat = _np(compute_pair(Capsule(0.05, 0.4), pose(rpy=(0, np.pi / 2, 0), p=(0, 0, 0.54)),
                            Box(1, 1, 1), ORIGIN))
    assert flat["valid"].tolist() == [True, True, False]
    np.testing.assert_allclose(flat["phi"][:2], -0.01, atol=TOL)


def test_box_box_stacked_and_edge_edge():
    c = _np(compute_pair(Box(0.5, 0.5, 0.5), pose(p=(0.1, 0.05, 0.7)), Box(2, 2, 1), ORIGIN))
    v = c["valid"]
    assert v.sum() == 4  # the small box's 4 bottom corners
    np.testing.assert_allclose(c["phi"][v], -0.05, atol=TOL)
    np.testing.assert_allclose(c["nhat_BA_W"][v], np.tile([0, 0, 1.0], (4, 1)), atol=TOL)
    np.testing.assert_allclose(c["p_WCb"][v][:, 2], 0.5, atol=TOL)
    # Edge on edge: A rotated 45° about x above B rotated 45° about y.
    h = np.sqrt(0.5)
    A = pose(rpy=(np.pi / 4, 0, 0), p=(0, 0, 2 * h - 0.02))
    B = pose(rpy=(0, np.pi / 4, 0))
    e = _np(compute_pair(Box(1, 1, 1), A, Box(1, 1, 1), B))
    assert e["valid"].tolist() == [False] * 16 + [True]
    assert e["phi"][-1] == pytest.approx(-0.02, abs=TOL)
    np.testing.assert_allclose(e["nhat_BA_W"][-1], [0, 0, 1], atol=TOL)
    s = _np(compute_pair(Box(1, 1, 1), A, Box(1, 1, 1), B, single=True))
    assert s["phi"].shape == (1,) and s["phi"][0] == pytest.approx(-0.02, abs=TOL)


def test_box_cylinder_uses_the_prism():
    c = _np(compute_pair(Box(1, 1, 1), pose(p=(0, 0, 0.98)), Cylinder(0.2, 1.0), ORIGIN))
    v = c["valid"]
    assert v.sum() == 16  # the cylinder's top ring inside the box
    np.testing.assert_allclose(c["phi"][v], -0.02, atol=TOL)


# ---- Identities ---------------------------------------------------------------------------------
PAIRS = [
    (Sphere(0.2), Sphere(0.15)), (Sphere(0.2), Box(0.3, 0.4, 0.5)), (Capsule(0.1, 0.6), Sphere(0.2)),
    (Capsule(0.1, 0.6), Capsule(0.15, 0.4)), (Box(0.3, 0.4, 0.5), Box(0.6, 0.2, 0.3)),
    (Capsule(0.1, 0.6), Box(0.3, 0.4, 0.5)), (Sphere(0.2), Cylinder(0.2, 0.5)),
]


@pytest.mark.parametrize("a, b", PAIRS, ids=lambda s: type(s).__name__)
def test_swapping_a_and_b_flips_the_normal(a, b):
    X_A = pose(rpy=(0.3, -0.5, 0.2), p=(0.05, 0.1, 0.2))
    X_B = pose(rpy=(-0.1, 0.4, 0.7), p=(-0.05, 0.0, -0.1))
    ab = _np(compute_pair(a, X_A, b, X_B, single=True))
    ba = _np(compute_pair(b, X_B, a, X_A, single=True))
    assert ab["phi"][0] < 0
    np.testing.assert_allclose(ab["phi"], ba["phi"], atol=ITER_TOL)
    np.testing.assert_allclose(ab["nhat_BA_W"], -ba["nhat_BA_W"], atol=1e-7)
    if not isinstance(a, Box):  # a box-box SAT point may pick either end of an edge
        np.testing.assert_allclose(ab["p_WCa"], ba["p_WCb"], atol=1e-7)
        np.testing.assert_allclose(ab["p_WCb"], ba["p_WCa"], atol=1e-7)


@pytest.mark.parametrize("a, b", PAIRS + [(Box(0.3, 0.4, 0.5), HalfSpace()),
                                          (Cylinder(0.2, 0.5), HalfSpace())],
                         ids=lambda s: type(s).__name__)
def test_witness_points_are_consistent_with_phi_and_normal(a, b):
    c = _np(compute_pair(a, pose(rpy=(0.3, -0.5, 0.2), p=(0.05, 0.1, 0.2)),
                         b, pose(rpy=(-0.1, 0.4, 0.7), p=(-0.05, 0.0, -0.1))))
    v = c["valid"]
    gap = np.einsum("ki,ki->k", c["p_WCa"] - c["p_WCb"], c["nhat_BA_W"])
    np.testing.assert_allclose(gap[v], c["phi"][v], atol=1e-7)
    np.testing.assert_allclose(np.linalg.norm(c["nhat_BA_W"], axis=1), 1.0, atol=1e-12)


def test_unsupported_pairs_raise():
    assert not is_supported("HalfSpace", "HalfSpace") and not is_supported("Box", "Ellipsoid")
    with pytest.raises(ValueError, match="Ellipsoid and a Box"):
        get_kernel("Ellipsoid", "Box")
    with pytest.raises(ValueError, match="not supported"):
        compute_pair(HalfSpace(), ORIGIN, HalfSpace(), ORIGIN)
    assert jnp.asarray(0.0).dtype == jnp.float64


def test_capsule_ellipsoid_and_convex_box():
    c = _np(compute_pair(Capsule(0.1, 0.4), pose(rpy=(0, np.pi / 2, 0), p=(0, 0, 0.55)),
                         Ellipsoid(0.2, 0.3, 0.5), ORIGIN, single=True))
    _check_point(c, 0, -0.05, (0, 0, 0.45), (0, 0, 0.5), (0, 0, 1), ITER_TOL)


def test_convex_box_equals_box_box(box_mesh):
    X = pose(rpy=(0.1, 0.2, 0.3), p=(0.1, 0.05, 0.75))
    a = _np(compute_pair(box_mesh, X, Box(0.4, 1.0, 0.6), ORIGIN, single=True))
    b = _np(compute_pair(Box(0.4, 1.0, 0.6), X, Box(0.4, 1.0, 0.6), ORIGIN, single=True))
    np.testing.assert_allclose(a["phi"], b["phi"], atol=TOL)
    np.testing.assert_allclose(a["nhat_BA_W"], b["nhat_BA_W"], atol=TOL)


def test_deepest_k_keeps_the_deepest_valid_points():
    from jaxbody.geometry.collision._util import deepest_k
    c = compute_pair(Box(0.5, 0.5, 0.5), pose(p=(0.1, 0.05, 0.7)), Box(2, 2, 1), ORIGIN)
    k = _np(deepest_k(c, 5))
    assert k["valid"].tolist() == [True] * 4 + [False]
    np.testing.assert_allclose(k["phi"][:4], -0.05, atol=TOL)
