"""The pruned edge-edge SAT of large hulls (Gauss-map arcs; `polytope_pairs`) against testing
every edge cross product: on random convex hulls (20-60 vertices) at random overlapping poses
both give the same depth, normal and vertex contact points (1e-12), so the memory-light path is
exact;
its memory does not grow with edge pairs × vertices (the panda's self-collision query, 28 pairs
of ~150-vertex hulls, fits where the full test asked for 28 GB)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbody.geometry.collision import polytope_pairs as pp
from jaxbody.geometry.collision.shape_data import polytope_data, stack_params
from tests.helpers.collision import random_rotation

TOL = 1e-12


def _batch(seed, count=12):
    """``count`` random hull pairs, padded to common sizes (`stack_params`), and their poses."""
    rng = np.random.default_rng(seed)
    hulls = [polytope_data(rng.normal(size=(rng.integers(20, 60), 3))
                           * rng.uniform(0.05, 0.2, 3), with_triangles=False)
             for _ in range(2 * count)]
    a, b = (jax.tree_util.tree_map(jnp.asarray, stack_params(h))
            for h in (hulls[:count], hulls[count:]))

    def poses():
        return (jnp.asarray(np.stack([random_rotation(rng) for _ in range(count)])),
                jnp.asarray(rng.normal(size=(count, 3)) * 0.05))
    return a, poses(), b, poses()


@pytest.fixture(scope="module")
def kernels():
    def run(limit):
        def f(a, XA, b, XB, single):
            old = pp._ALL_EDGE_AXES_LIMIT
            pp._ALL_EDGE_AXES_LIMIT = limit
            try:
                return pp.polytope_polytope(a, XA, b, XB, single=single)
            finally:
                pp._ALL_EDGE_AXES_LIMIT = old
        return f
    return run(10**12), run(0)  # every cross product / Gauss-map pruning


@pytest.mark.parametrize("single", [True, False])
def test_gauss_map_pruning_equals_every_edge_axis(kernels, single):
    args = _batch(int(single))
    x, y = (jax.jit(jax.vmap(lambda a, XA, b, XB, k=k: k(a, XA, b, XB, single)))(*args)
            for k in kernels)
    for field in ("phi", "nhat_BA_W", "valid"):
        np.testing.assert_allclose(np.asarray(getattr(y, field)), np.asarray(getattr(x, field)),
                                   atol=TOL, err_msg=field)
    # Vertex points are functions of (n, depth): equal. The one SAT point of an edge-edge
    # contact differs: the pruned test places it exactly (the supporting edges' closest
    # points), every-axis at the midpoint of the deepest vertices; its consistency is checked.
    for f in ("p_WCa", "p_WCb"):
        np.testing.assert_allclose(np.asarray(getattr(y, f))[:, :-1],
                                   np.asarray(getattr(x, f))[:, :-1], atol=TOL)
    np.testing.assert_allclose(np.asarray(y.p_WCa - y.p_WCb),
                               np.asarray(y.phi)[..., None] * np.asarray(y.nhat_BA_W), atol=1e-10)
    assert int((np.asarray(x.phi).min(-1) < 0).sum()) >= 6  # the poses overlap


def test_edge_edge_contact_is_found_by_the_pruned_test(kernels):
    """Two boxes crossed edge on edge (the closed form: depth 0.02 along z) as hulls."""
    _, pruned = kernels
    from itertools import product

    box = polytope_data(np.array(list(product((-0.5, 0.5), repeat=3))), with_triangles=False)
    box = {k: jnp.asarray(v) for k, v in box.items()}
    h = np.sqrt(0.5)

    def rot(axis, t):
        c, s = np.cos(t), np.sin(t)
        R = np.eye(3)
        i, j = [k for k in range(3) if k != axis]
        R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
        return jnp.asarray(R)

    XA = (rot(0, np.pi / 4), jnp.asarray([0.0, 0.0, 2 * h - 0.02]))
    XB = (rot(1, np.pi / 4), jnp.zeros(3))
    c = pruned(box, XA, box, XB, True)
    assert float(c.phi[0]) == pytest.approx(-0.02, abs=TOL)
    np.testing.assert_allclose(np.asarray(c.nhat_BA_W[0]), [0, 0, 1], atol=TOL)
    # The exact closest points of the crossing edges (A's lowest, B's highest).
    np.testing.assert_allclose(np.asarray(c.p_WCa[0]), [0, 0, h - 0.02], atol=TOL)
    np.testing.assert_allclose(np.asarray(c.p_WCb[0]), [0, 0, h], atol=TOL)


def test_memory_of_many_large_hull_pairs_is_bounded():
    """28 pairs of 150-vertex hulls vmapped (the panda's self-collision query): the pruned
    test's compiled temporaries stay under 1 GB."""
    rng = np.random.default_rng(3)
    hulls = [polytope_data(rng.normal(size=(150, 3)) * 0.1, with_triangles=False)
             for _ in range(2)]
    a, b = ({k: jnp.asarray(np.broadcast_to(v, (28,) + np.shape(v))) for k, v in h.items()}
            for h in hulls)
    X = (jnp.broadcast_to(jnp.eye(3), (28, 3, 3)), jnp.zeros((28, 3)))
    f = jax.jit(jax.vmap(lambda a, XA, b, XB: pp.polytope_polytope(a, XA, b, XB).phi))
    stats = f.lower(a, X, b, X).compile().memory_analysis()
    assert stats.temp_size_in_bytes < 1e9, stats.temp_size_in_bytes


def test_a_query_too_costly_is_refused_with_the_remedies(monkeypatch):
    """Above `query.MAX_POLYTOPE_WORK` (talos's or g1's mesh self-collisions) the query is
    refused at its first use with the largest pair named and the ways out, not run out of
    memory."""
    import jaxbody as jb
    from jaxbody.geometry.collision import query

    monkeypatch.setattr(query, "MAX_POLYTOPE_WORK", 10)
    plant = jb.MultibodyPlant(0.0)
    for name in ("a", "b"):
        body = plant.AddRigidBody(name, jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
        plant.RegisterCollisionGeometry(body, jb.RigidTransform(), jb.Box(0.1, 0.2, 0.3),
                                        f"{name}_box", jb.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    with pytest.raises(ValueError, match=r"(?s)'a_box'.*'b_box'.*set_contact_enabled\(False\)"):
        plant.CalcPointContacts(plant.CreateDefaultContext())
