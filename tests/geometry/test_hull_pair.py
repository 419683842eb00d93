"""GJK/EPA on large hulls (`hull_pair`, taken by `polytope_pairs` above `_ALL_EDGE_AXES_LIMIT`)
against the separating-axis test with every edge cross product: on random convex hulls (20-60
vertices) at random overlapping poses both give the same depth, normal and vertex contact points
(1e-12) in both modes; against pydrake's ``ComputePointPairPenetration`` and signed distance
on the panda's own link hulls; gradients through the implicit solution equal finite
differences; memory stays small for many large-hull pairs."""

import itertools

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
    return run(10**12), run(0)  # every cross product / GJK-EPA


@pytest.mark.parametrize("single", [True, False])
def test_gjk_epa_equals_every_edge_axis(kernels, single):
    args = _batch(int(single))
    x, y = (jax.jit(jax.vmap(lambda a, XA, b, XB, k=k: k(a, XA, b, XB, single)))(*args)
            for k in kernels)
    for field in ("phi", "nhat_BA_W", "valid"):
        np.testing.assert_allclose(np.asarray(getattr(y, field)), np.asarray(getattr(x, field)),
                                   atol=TOL, err_msg=field)
    # Vertex points are functions of (n, depth): equal. The one point of an edge-edge contact
    # differs: EPA places it exactly (the supporting edges' closest points), the SAT at the
    # midpoint of the deepest vertices; its consistency is checked.
    for f in ("p_WCa", "p_WCb"):
        np.testing.assert_allclose(np.asarray(getattr(y, f))[:, :-1],
                                   np.asarray(getattr(x, f))[:, :-1], atol=TOL)
    np.testing.assert_allclose(np.asarray(y.p_WCa - y.p_WCb),
                               np.asarray(y.phi)[..., None] * np.asarray(y.nhat_BA_W), atol=1e-10)
    assert int((np.asarray(x.phi).min(-1) < 0).sum()) >= 6  # the poses overlap


def test_edge_edge_contact_is_found_by_gjk_epa(kernels):
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
    """28 pairs of 150-vertex hulls vmapped (the panda's self-collision query): GJK/EPA's
    compiled temporaries stay under 100 MB (every edge cross product asked for 28 GB)."""
    rng = np.random.default_rng(3)
    hulls = [polytope_data(rng.normal(size=(150, 3)) * 0.1, with_triangles=False)
             for _ in range(2)]
    a, b = ({k: jnp.asarray(np.broadcast_to(v, (28,) + np.shape(v))) for k, v in h.items()}
            for h in hulls)
    X = (jnp.broadcast_to(jnp.eye(3), (28, 3, 3)), jnp.zeros((28, 3)))
    f = jax.jit(jax.vmap(lambda a, XA, b, XB: pp.polytope_polytope(a, XA, b, XB).phi))
    stats = f.lower(a, X, b, X).compile().memory_analysis()
    assert stats.temp_size_in_bytes < 1e8, stats.temp_size_in_bytes


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


# ---- the panda's own link hulls: Drake, gradients ---------------------------------------------
PANDA_LINKS = ("link1", "link3", "hand")  # 152-, 152- and 102-vertex hulls
DRAKE_TOL = 1e-6  # m; FCL's EPA and GJK tolerances


@pytest.fixture(scope="module")
def panda_hulls(tmp_path_factory):
    """{link: (OBJ path of its collision mesh's hull, jaxbody parameters)}."""
    trimesh = pytest.importorskip("trimesh")
    import os

    import jaxbody as jb
    from jaxbody.cli.models import example_robot_data
    from jaxbody.geometry.collision.shape_data import encode_shape

    erd = example_robot_data()
    if erd is None:
        pytest.skip("example-robot-data is not installed (the reference extra)")
    out, folder = {}, tmp_path_factory.mktemp("hulls")
    for name in PANDA_LINKS:
        mesh = trimesh.load(os.path.join(erd, "robots", "panda_description", "meshes",
                                         "collision", f"{name}.stl"))
        path = folder / f"{name}.obj"
        mesh.convex_hull.export(path)
        params = {k: jnp.asarray(v) for k, v in encode_shape(jb.Convex(str(path))).items()}
        out[name] = (path, params)
    return out


def _poses(rng, count, spread):
    return [((random_rotation(rng), rng.normal(size=3) * spread),
             (random_rotation(rng), np.zeros(3))) for _ in range(count)]


def _drake_scene(path_a, path_b):
    """A function of the poses (XA, XB) giving pydrake's (point pair or None, signed-distance
    pair) of Convex A and B (one diagram, its context reposed)."""
    dg = pytest.importorskip("pydrake.geometry")
    import pydrake.math as dm
    import pydrake.multibody.plant as dp
    import pydrake.multibody.tree as dt
    from pydrake.systems.framework import DiagramBuilder

    plant, sg = dp.AddMultibodyPlantSceneGraph(builder := DiagramBuilder(), 0.001)
    bodies, ids = [], []
    for i, path in enumerate((path_a, path_b)):
        b = plant.AddRigidBody(f"b{i}", dt.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
        ids.append(plant.RegisterCollisionGeometry(b, dm.RigidTransform(), dg.Convex(str(path)),
                                                   f"g{i}", dp.CoulombFriction(0.5, 0.5)))
        bodies.append(b)
    plant.Finalize()
    diagram = builder.Build()
    ctx = diagram.CreateDefaultContext()
    pctx, sctx = plant.GetMyContextFromRoot(ctx), sg.GetMyContextFromRoot(ctx)

    def query(XA, XB):
        for b, (R, p) in zip(bodies, (XA, XB)):
            plant.SetFreeBodyPose(pctx, b, dm.RigidTransform(dm.RotationMatrix(R), p))
        qo = sg.get_query_output_port().Eval(sctx)
        pairs = qo.ComputePointPairPenetration()
        dist = qo.ComputeSignedDistancePairwiseClosestPoints()
        flip = lambda pr: pr.id_A != ids[0]  # noqa: E731
        return ((pairs[0], flip(pairs[0])) if pairs else None), (dist[0], flip(dist[0]))

    query.keep = diagram  # the diagram outlives the closure's use
    return query


@pytest.fixture(scope="module")
def hull_fn():
    from jaxbody.geometry.collision.hull_pair import hull_pair

    return jax.jit(lambda a, XA, b, XB: hull_pair(a, XA, b, XB, with_features=True))


def test_equals_drake_on_the_pandas_link_hulls(panda_hulls, hull_fn, kernels):
    """Apart: φ and the nearest points equal the signed-distance query's. Overlapping: the
    depth is the least one (equal to the separating-axis test over every face and edge axis,
    1e-12); where FCL's depth (ComputePointPairPenetration) is that least one, φ, the normal
    and p_WCa − p_WCb equal Drake's, and our points lie on both surfaces; where it is not
    (deep overlaps: FCL stops at a larger depth, by up to 30 mm here), ours is smaller."""
    pytest.importorskip("pydrake")
    every_axis, _ = kernels
    sat = jax.jit(lambda a, XA, b, XB: every_axis(a, XA, b, XB, True))
    rng = np.random.default_rng(7)
    equal, deeper, apart = 0, 0, 0
    for (la, lb) in (("link1", "link3"), ("link3", "hand")):
        (pa_path, pa), (pb_path, pb) = panda_hulls[la], panda_hulls[lb]
        drake = _drake_scene(pa_path, pb_path)
        for XA, XB in _poses(rng, 10, 0.04):
            XAj, XBj = tuple(map(jnp.asarray, XA)), tuple(map(jnp.asarray, XB))
            got, feat = hull_fn(pa, XAj, pb, XBj)
            assert bool(feat.converged)
            pen, (sd, sd_flip) = drake(XA, XB)
            phi = float(got.phi[0])
            if pen is None:
                apart += 1
                assert phi == pytest.approx(sd.distance, abs=DRAKE_TOL)
                p_a, p_b = (sd.p_BCb, sd.p_ACa) if sd_flip else (sd.p_ACa, sd.p_BCb)
                np.testing.assert_allclose(np.asarray(got.p_WCa[0]), XA[0] @ p_a + XA[1],
                                           atol=DRAKE_TOL)
                np.testing.assert_allclose(np.asarray(got.p_WCb[0]), XB[0] @ p_b + XB[1],
                                           atol=DRAKE_TOL)
                continue
            ref = sat(pa, XAj, pb, XBj)
            assert phi == pytest.approx(float(ref.phi[0]), abs=TOL)
            np.testing.assert_allclose(np.asarray(got.nhat_BA_W), np.asarray(ref.nhat_BA_W),
                                       atol=1e-9)
            pair, flip = pen
            if abs(phi + pair.depth) > DRAKE_TOL:
                assert phi > -pair.depth, (phi, -pair.depth)
                deeper += 1
                continue
            equal += 1
            n_ba = -pair.nhat_BA_W if flip else pair.nhat_BA_W
            p_a, p_b = (pair.p_WCb, pair.p_WCa) if flip else (pair.p_WCa, pair.p_WCb)
            np.testing.assert_allclose(np.asarray(got.nhat_BA_W[0]), n_ba, atol=DRAKE_TOL)
            np.testing.assert_allclose(np.asarray(got.p_WCa[0] - got.p_WCb[0]), p_a - p_b,
                                       atol=DRAKE_TOL)
            # Ours lie on both surfaces (a vertex, or the supporting edges' closest points);
            # FCL places the same vector elsewhere along the contact (by up to centimetres).
            for params, X, point in ((pa, XA, got.p_WCa[0]), (pb, XB, got.p_WCb[0])):
                local = (np.asarray(point) - X[1]) @ X[0]
                planes = np.asarray(params["planes"])
                assert abs((planes[:, :3] @ local - planes[:, 3]).max()) < 1e-12
    assert equal >= 4 and apart >= 2, (equal, deeper, apart)


def test_gradients_follow_the_implicit_solution():
    """∂(φ, witness points)/∂(pose of A) equal central differences (forward and reverse
    mode), at an overlapping and at a separated pose; finite at a face-on-face contact."""
    from jax.test_util import check_grads

    from jaxbody.geometry.collision.hull_pair import hull_pair
    from tests.helpers.collision import rotvec_pose

    rng = np.random.default_rng(2)
    pa, pb = ({k: jnp.asarray(v) for k, v in polytope_data(rng.normal(size=(24, 3)) * 0.1).items()}
              for _ in range(2))
    XB = (jnp.asarray(random_rotation(rng)), jnp.zeros(3))

    @jax.jit
    def f(x):
        c = hull_pair(pa, rotvec_pose(x), pb, XB)
        return jnp.concatenate([c.phi, c.p_WCa[0], c.p_WCb[0], c.nhat_BA_W[0]])

    for p in ((0.01, 0.02, 0.0), (0.5, 0.0, 0.05)):  # overlapping, apart
        x = jnp.asarray([0.3, -0.2, 0.5, *p])
        phi = float(f(x)[0])
        assert (phi < 0) == (p[0] < 0.1), phi
        check_grads(f, (x,), order=1, modes=("fwd", "rev"), eps=1e-6, atol=1e-5, rtol=1e-5)
    box = {k: jnp.asarray(v) for k, v in
           polytope_data(np.array(list(itertools.product((-0.1, 0.1), repeat=3)))).items()}

    @jax.jit
    def g(z):  # box A resting face on face on box B, 1 mm deep
        c = hull_pair(box, (jnp.eye(3), jnp.asarray([0.0, 0.0, z])), box, (jnp.eye(3), jnp.zeros(3)))
        return c.phi[0] + jnp.sum(c.p_WCa)

    assert float(g(0.199)) == pytest.approx(-0.001 + float(jnp.sum(
        hull_pair(box, (jnp.eye(3), jnp.asarray([0.0, 0.0, 0.199])), box,
                  (jnp.eye(3), jnp.zeros(3))).p_WCa)), abs=1e-12)
    assert np.isfinite(np.asarray(jax.grad(g)(0.199))).all()


def test_hull_pairs_are_capped_with_the_overflow_flagged(panda_hulls):
    """Groups of large hulls evaluate at most ``max_hull_pairs_per_group`` pairs, the closest
    by bounding spheres: three overlapping link hulls (3 pairs) under a cap of 2 flag the
    overflow; apart, the cap drops nothing that touches; uncapped, all 3 pairs are found."""
    import jaxbody as jb
    from jaxbody.geometry.collision import ContactQueryOptions

    def plant_of(cap):
        plant = jb.MultibodyPlant(0.0)
        plant.set_contact_query_options(ContactQueryOptions(single_point=True,
                                                            max_hull_pairs_per_group=cap))
        for name in PANDA_LINKS:
            body = plant.AddRigidBody(name, jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
            plant.RegisterCollisionGeometry(body, jb.RigidTransform(),
                                            jb.Convex(str(panda_hulls[name][0])), name,
                                            jb.CoulombFriction(0.5, 0.5))
        plant.Finalize()
        return plant

    def spaced(plant, spacing):
        ctx = plant.CreateDefaultContext()
        for i, name in enumerate(PANDA_LINKS):
            ctx = plant.SetFreeBodyPose(ctx, plant.GetBodyByName(name),
                                        jb.RigidTransform([spacing * i, 0.0, 0.0]))
        return ctx

    plant = plant_of(2)
    cost = plant.get_contact_query_cost()  # what the simulate summary prints
    assert (cost.candidate_pairs, cost.evaluated_pairs, cost.gjk_epa_pairs) == (3, 2, 2)
    assert cost.culled and cost.max_iterations == 64 + 48 and cost.slots == 2
    from jaxbody.geometry.collision.query_cost import describe
    assert describe(cost) == ("3 candidate pairs, 2 evaluated per query (the closest, by "
                              "bounding spheres and boxes); 2 by GJK/EPA on convex hulls when "
                              "their bounding boxes touch (at "
                              "most 112 iterations each)")
    query = jax.jit(plant.CalcPointContacts)
    pc = query(spaced(plant, 0.02))
    assert pc.phi.shape == (2,) and bool(pc.overflow)
    assert not bool(query(spaced(plant, 1.0)).overflow)
    plant = plant_of(None)
    pc = jax.jit(plant.CalcPointContacts)(spaced(plant, 0.02))
    assert pc.phi.shape == (3,) and not bool(pc.overflow) and bool(np.all(pc.phi < 0))


def test_hulls_simplified_to_a_vertex_budget_keep_their_vertices_and_lie_inside(panda_hulls):
    """``ContactQueryOptions.max_hull_vertices``: a hull's kept vertices are its own, their hull
    lies inside the original, and the dropped vertices stick out of it by less as the budget
    grows (the panda's link 3, 152 vertices, 19 cm: 12.6, 5.5 and 2.8 mm at 16, 32, 64)."""
    import jaxbody as jb
    from jaxbody.geometry.collision.shape_data import encode_shape, hull_deviation

    path = str(panda_hulls["link3"][0])
    V = encode_shape(jb.Convex(path))["vertices"]
    deviations = []
    for budget in (16, 32, 64):
        W = encode_shape(jb.Convex(path), max_hull_vertices=budget)["vertices"]
        assert len(W) == budget < len(V)
        assert np.min(np.linalg.norm(W[:, None] - V[None], axis=-1), axis=1).max() < 1e-12
        assert hull_deviation(W, V) < 1e-12  # inside the original
        deviations.append(hull_deviation(V, W))
    assert 0.0 < deviations[2] < deviations[1] < deviations[0] < 0.015, deviations
    assert len(encode_shape(jb.Convex(path), max_hull_vertices=1000)["vertices"]) == len(V)


def test_point_outside_a_large_hull_by_gjk_equals_the_triangle_scan(panda_hulls, monkeypatch):
    """A sphere against a hull above `GJK_MIN_VERTICES` vertices: GJK's nearest point equals
    the scan over every hull triangle (1e-12) at random outside and inside centres, and the
    gradient w.r.t. the centre equals central differences."""
    from jax.test_util import check_grads

    from jaxbody.geometry.collision import convex_point as cp

    params = panda_hulls["link3"][1]
    rng = np.random.default_rng(4)
    centre = np.asarray(params["vertices"]).mean(0)
    points = jnp.asarray(centre + rng.normal(size=(24, 3)) * 0.06)
    by_gjk = jax.jit(jax.vmap(lambda x: cp.convex_point(params, x)))(points)
    monkeypatch.setattr(cp, "GJK_MIN_VERTICES", 10**9)
    by_scan = jax.jit(jax.vmap(lambda x: cp.convex_point(params, x)))(points)
    for a, b in zip(by_gjk, by_scan):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-12)
    assert 4 <= int((np.asarray(by_gjk[0]) > 0).sum()) <= 20  # both cases are exercised
    monkeypatch.undo()
    x = points[int(np.argmax(np.asarray(by_gjk[0])))]
    check_grads(jax.jit(lambda x: cp.convex_point(params, x)[0]), (x,), order=1,
                modes=("fwd", "rev"),
                eps=1e-6, atol=1e-6, rtol=1e-6)


def test_oriented_box_gap_bounds_the_distance_from_below():
    """The broad phase's oriented-box gap (`pair_bounds.box_gap`) never exceeds the boxes' true
    distance (GJK on their corners) and equals it for boxes apart along a face normal."""
    from jaxbody.geometry.collision import pair_bounds
    from jaxbody.geometry.collision.hull_pair import hull_pair

    rng = np.random.default_rng(5)
    n = 40
    ha, hb = rng.uniform(0.05, 0.3, (n, 3)), rng.uniform(0.05, 0.3, (n, 3))
    Ra = np.stack([random_rotation(rng) for _ in range(n)])
    Rb = np.stack([random_rotation(rng) for _ in range(n)])
    gap = rng.normal(size=(n, 3)) * 0.5
    bound = np.asarray(pair_bounds.box_gap(jnp.asarray(Ra), jnp.asarray(ha), jnp.asarray(Rb),
                                           jnp.asarray(hb), jnp.asarray(gap)))
    corners = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))

    def box(h):
        return {"vertices": jnp.asarray(corners * h), "vertex_mask": jnp.ones(8, bool)}

    dist = np.asarray(jax.jit(jax.vmap(lambda a, Ra, b, Rb, g: hull_pair(
        box(a), (Ra, g), box(b), (Rb, jnp.zeros(3))).phi[0]))(
        jnp.asarray(ha), jnp.asarray(Ra), jnp.asarray(hb), jnp.asarray(Rb), jnp.asarray(gap)))
    apart = dist > 0
    assert apart.sum() >= 10
    assert np.all(bound[apart] <= dist[apart] + 1e-12)
    assert np.all(bound[~apart] <= 1e-12)  # overlapping boxes: never a positive gap
    eye = jnp.eye(3)[None]
    same = pair_bounds.box_gap(eye, jnp.asarray([[0.1, 0.2, 0.3]]), eye, jnp.asarray([[0.1, 0.1, 0.1]]),
                          jnp.asarray([[0.5, 0.0, 0.0]]))
    assert float(same[0]) == pytest.approx(0.3, abs=1e-12)
