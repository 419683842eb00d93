"""GJK/EPA hull groups evaluate only the pairs whose bounding volumes touch (`hull_group`), in
chunks, and report the penetrating ones: on a heap of seven random hulls (21 pairs, more near
pairs than one chunk) the points, normals and depths equal those of every pair evaluated (the
full kernel, `hull_pair`) to 1e-12, separated pairs are invalid slots, and the derivatives in q
(forward and reverse, under vmap) are the same; `_util.first_max` is ``argmax``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbody.geometry.collision import _util, hull_group
from jaxbody.geometry.collision import query as query_module
from tests.helpers.collision import random_rotation

NUM_BODIES = 7


@pytest.fixture(scope="module")
def heap(tmp_path_factory):
    """(plant, q (3, nq)): seven free bodies with a random convex hull each (30-60 vertices,
    large enough for GJK/EPA), at three random heaps of configurations."""
    trimesh = pytest.importorskip("trimesh")
    import jaxbody as jb

    rng = np.random.default_rng(7)
    folder = tmp_path_factory.mktemp("heap")
    plant = jb.MultibodyPlant(0.0)
    for i in range(NUM_BODIES):
        points = rng.normal(size=(int(rng.integers(60, 120)), 3)) * rng.uniform(0.04, 0.09, 3)
        path = folder / f"hull{i}.obj"
        trimesh.Trimesh(points).convex_hull.export(path)
        body = plant.AddRigidBody(f"b{i}", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.05))
        plant.RegisterCollisionGeometry(body, jb.RigidTransform(), jb.Convex(str(path)),
                                        f"g{i}", jb.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    qs = []
    for _ in range(3):
        ctx = plant.CreateDefaultContext()
        for i in range(NUM_BODIES):
            X = jb.RigidTransform(jb.RotationMatrix(random_rotation(rng)),
                                  rng.uniform(-0.2, 0.2, 3))
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
    assert plant.get_contact_query_cost().gjk_epa_pairs == 21
    penetrating = np.asarray(ref.valid & (ref.phi < 0))
    assert np.array_equal(np.asarray(pc.valid), penetrating)  # separated: no point, as Drake
    assert penetrating.sum(1).min() >= 3 and (~penetrating).sum(1).min() >= 3
    # more near pairs than one chunk: the loop runs twice or more
    assert np.asarray(ref.phi < 0.1).sum(1).max() > hull_group.CHUNK
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
