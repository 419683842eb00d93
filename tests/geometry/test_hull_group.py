"""GJK/EPA hull groups evaluate only the pairs whose bounding volumes touch (`hull_group`), in
chunks, all groups in one loop, and report the penetrating ones: on a heap of seven random
hulls and two boxes (21 hull-hull pairs, capped to 16, and 14 box-hull pairs: more near pairs
than one chunk) the points, normals and depths equal those of every pair evaluated (the full
kernel, `hull_pair`) to 1e-12, separated pairs are invalid slots, and the derivatives in q
(forward and reverse, under vmap) are the same; `_util.first_max` is ``argmax``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbody.geometry.collision import _util, hull_group
from jaxbody.geometry.collision import query as query_module
from tests.helpers.collision import random_rotation

NUM_HULLS, NUM_BOXES = 7, 2
NUM_BODIES = NUM_HULLS + NUM_BOXES


@pytest.fixture(scope="module")
def heap(tmp_path_factory):
    """(plant, q (3, nq)): seven free bodies with a random convex hull each (ellipsoids of 80
    vertices, large enough for GJK/EPA, also against a box) and two boxes, hull-hull pairs
    capped to 16, at three random heaps of configurations."""
    trimesh = pytest.importorskip("trimesh")
    import jaxbody as jb
    from jaxbody.geometry.collision import ContactQueryOptions

    rng = np.random.default_rng(7)
    folder = tmp_path_factory.mktemp("heap")
    plant = jb.MultibodyPlant(0.0)
    plant.set_contact_query_options(ContactQueryOptions(max_hull_pairs_per_group=16))
    for i in range(NUM_BODIES):
        body = plant.AddRigidBody(f"b{i}", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.05))
        if i < NUM_HULLS:
            points = rng.normal(size=(80, 3))
            points *= rng.uniform(0.04, 0.09, 3) / np.linalg.norm(points, axis=1)[:, None]
            path = folder / f"hull{i}.obj"
            trimesh.Trimesh(points).convex_hull.export(path)
            shape = jb.Convex(str(path))
        else:
            shape = jb.Box(*rng.uniform(0.05, 0.12, 3))
        plant.RegisterCollisionGeometry(body, jb.RigidTransform(), shape, f"g{i}",
                                        jb.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    qs = []
    for _ in range(3):
        ctx = plant.CreateDefaultContext()
        for i in range(NUM_BODIES):
            X = jb.RigidTransform(jb.RotationMatrix(random_rotation(rng)),
                                  rng.uniform(-0.13, 0.13, 3))
            ctx = plant.SetFreeBodyPose(ctx, plant.GetBodyByName(f"b{i}"), X)
        qs.append(np.asarray(ctx.q))
    return plant, jnp.asarray(np.stack(qs))


def _contacts(plant, every_pair):
    """q -> `PointContacts`, by near pairs (the default) or with every pair evaluated."""
    def f(q):
        old = query_module._near_pairs_only
        if every_pair:
            query_module._near_pairs_only = lambda group, options: False
        try:
            return plant.CalcPointContacts(plant.CreateDefaultContext().replace(q=q))
        finally:
            query_module._near_pairs_only = old
    return f


@pytest.fixture(scope="module")
def both(heap):
    plant, qs = heap
    return (jax.jit(jax.vmap(_contacts(plant, False))), jax.jit(jax.vmap(_contacts(plant, True))))


def test_near_pairs_equal_every_pair_evaluated(heap, both):
    plant, qs = heap
    near, every = both
    pc, ref = near(qs), every(qs)
    cost = plant.get_contact_query_cost()
    assert cost.gjk_epa_pairs == 16 + 14 and cost.culled
    penetrating = np.asarray(ref.valid & (ref.phi < 0))
    valid = np.asarray(pc.valid)
    assert np.array_equal(valid & np.asarray(pc.phi < 0), penetrating)
    assert np.all(np.asarray(ref.valid)[valid])  # separated hulls: no point, as Drake
    assert penetrating.sum(1).min() >= 3 and (~penetrating).sum(1).min() >= 3
    # more penetrating (so near) pairs than one chunk: the loop runs twice or more
    assert penetrating.sum(1).max() > hull_group.CHUNK
    for field in ("phi", "p_WC", "nhat_BA_W", "p_WCa", "p_WCb"):
        a, b = np.asarray(getattr(pc, field)), np.asarray(getattr(ref, field))
        np.testing.assert_allclose(a[penetrating], b[penetrating], atol=1e-12, err_msg=field)
    np.testing.assert_array_equal(np.asarray(pc.geometry_a), np.asarray(ref.geometry_a))
    assert not np.asarray(pc.overflow).any()


def test_derivatives_in_q_equal_every_pair_evaluated(heap, both):
    plant, qs = heap

    def masked(every):
        f = _contacts(plant, every)

        def g(q, mask):
            pc = f(q)
            return jnp.where(mask[:, None], jnp.concatenate(
                [pc.phi[:, None], pc.p_WC, pc.nhat_BA_W], 1), 0.0)
        return g

    mask = both[0](qs).valid  # the penetrating pairs (the test above)
    ref = np.asarray(jax.jit(jax.vmap(jax.jacfwd(masked(True))))(qs, mask))
    for transform in (jax.jacfwd, jax.jacrev):
        new = np.asarray(jax.jit(jax.vmap(transform(masked(False))))(qs, mask))
        assert np.all(np.isfinite(new))
        np.testing.assert_allclose(new, ref, atol=1e-10)


def test_first_max_is_argmax_with_ties_and_masks():
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.integers(0, 4, size=(50, 37)).astype(float))  # many ties
    x = jnp.where(jnp.asarray(rng.random((50, 37)) < 0.3), -1e30, x)
    np.testing.assert_array_equal(np.asarray(jax.vmap(_util.first_max)(x)),
                                  np.asarray(jnp.argmax(x, axis=1)))
