"""Cross-check against pydrake's ``QueryObject.ComputePointPairPenetration`` (single-point mode):
depth, normal and witness points of random penetrating configurations, and a plant-level scene
(GeometryId order, body offsets X_BG, A/B assignment)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("pydrake")

import pydrake.geometry as dg  # noqa: E402
import pydrake.math as dm  # noqa: E402
import pydrake.multibody.plant as dp  # noqa: E402
import pydrake.multibody.tree as dt  # noqa: E402
from pydrake.systems.framework import DiagramBuilder  # noqa: E402

import jaxbody as jb  # noqa: E402
from jaxbody.geometry.collision import ContactQueryOptions  # noqa: E402
from jaxbody.geometry.collision.kernels import get_kernel  # noqa: E402
from jaxbody.geometry.collision.shape_data import encode_shape, shape_kind  # noqa: E402
from tests.helpers.collision import random_rotation  # noqa: E402

TOL = 1e-10  # m; Drake's closed forms and FCL's box-half-space agree to rounding
NUM_CONFIGS = 12


def _drake_shape(s):
    if isinstance(s, jb.Sphere):
        return dg.Sphere(s.radius())
    if isinstance(s, jb.Box):
        return dg.Box(*s.size())
    if isinstance(s, jb.Capsule):
        return dg.Capsule(s.radius(), s.length())
    if isinstance(s, jb.Cylinder):
        return dg.Cylinder(s.radius(), s.length())
    return dg.HalfSpace()


def drake_pairs(shapes, poses):
    """Drake's point pairs for geometries on free bodies at world poses X_WG = (R, p)."""
    plant, sg = dp.AddMultibodyPlantSceneGraph(builder := DiagramBuilder(), 0.001)
    bodies = []
    for i, s in enumerate(shapes):
        b = plant.AddRigidBody(f"b{i}", dt.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
        plant.RegisterCollisionGeometry(b, dm.RigidTransform(), _drake_shape(s), f"g{i}",
                                        dp.CoulombFriction(0.5, 0.5))
        bodies.append(b)
    plant.Finalize()
    diagram = builder.Build()
    ctx = diagram.CreateDefaultContext()
    pctx = plant.GetMyContextFromRoot(ctx)
    for b, (R, p) in zip(bodies, poses):
        plant.SetFreeBodyPose(pctx, b, dm.RigidTransform(dm.RotationMatrix(R), p))
    qo = sg.get_query_output_port().Eval(sg.GetMyContextFromRoot(ctx))
    return qo.ComputePointPairPenetration()


def _kernel_fn(kind_a, kind_b):
    kernel = get_kernel(kind_a, kind_b)
    return jax.jit(lambda pa, Ra, ta, pb, Rb, tb: kernel(pa, (Ra, ta), pb, (Rb, tb), True))


def _sd_box(p, h):
    q = np.abs(p) - h
    return np.linalg.norm(np.maximum(q, 0)) + min(q.max(), 0)


def _config(kind, rng):
    """(shape A, X_WA, shape B, X_WB), penetrating."""
    R_A, R_B = random_rotation(rng), random_rotation(rng)
    p_B = rng.uniform(-1, 1, 3)
    r = rng.uniform(0.05, 0.3)
    if kind == "sphere-sphere":
        rb = rng.uniform(0.05, 0.3)
        d = rng.normal(size=3)
        p_A = p_B + d / np.linalg.norm(d) * rng.uniform(0.3, 0.95) * (r + rb)
        return jb.Sphere(r), (R_A, p_A), jb.Sphere(rb), (R_B, p_B)
    if kind == "sphere-box":
        size = rng.uniform(0.1, 1.0, 3)
        while True:
            p_G = rng.uniform(-0.5 * size - r, 0.5 * size + r)
            if _sd_box(p_G, 0.5 * size) < 0.9 * r:
                break
        return jb.Sphere(r), (R_A, R_B @ p_G + p_B), jb.Box(*size), (R_B, p_B)
    if kind in ("sphere-capsule", "sphere-cylinder"):
        rc, length = rng.uniform(0.05, 0.3), rng.uniform(0.1, 1.0)
        while True:
            ext = np.array([rc + r, rc + r, 0.5 * length + rc + r])
            p_G = rng.uniform(-ext, ext)
            if kind == "sphere-capsule":
                z = np.clip(p_G[2], -0.5 * length, 0.5 * length)
                ok = np.linalg.norm(p_G - [0, 0, z]) - rc < 0.9 * r
            else:
                rho, dz = np.linalg.norm(p_G[:2]) - rc, abs(p_G[2]) - 0.5 * length
                ok = np.linalg.norm(np.maximum([rho, dz], 0)) + min(max(rho, dz), 0) < 0.9 * r
            if ok:
                break
        shape = jb.Capsule(rc, length) if kind == "sphere-capsule" else jb.Cylinder(rc, length)
        return jb.Sphere(r), (R_A, R_B @ p_G + p_B), shape, (R_B, p_B)
    if kind == "sphere-halfspace":
        p_A = R_B @ np.r_[rng.uniform(-1, 1, 2), rng.uniform(-0.9, 0.9) * r] + p_B
        return jb.Sphere(r), (R_A, p_A), jb.HalfSpace(), (R_B, p_B)
    size = rng.uniform(0.1, 1.0, 3)  # box-halfspace: the deepest corner 0..90% of r below
    V = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * size / 2
    low = (V @ R_A.T)[:, 2].min()
    p_A = np.r_[rng.uniform(-1, 1, 2), -low - rng.uniform(0.01, 0.9) * r]
    return jb.Box(*size), (R_A, p_A), jb.HalfSpace(), (np.eye(3), np.zeros(3))


KINDS = ["sphere-sphere", "sphere-box", "sphere-capsule", "sphere-cylinder", "sphere-halfspace",
         "box-halfspace"]


@pytest.mark.parametrize("kind", KINDS)
def test_random_penetrations_match_drake(kind):
    rng = np.random.default_rng(KINDS.index(kind))
    fns = {}
    for _ in range(NUM_CONFIGS):
        a, X_A, b, X_B = _config(kind, rng)
        if kind == "box-halfspace" and rng.uniform() < 0.5:  # the half space first, too
            a, X_A, b, X_B = b, X_B, a, X_A
        kinds = (shape_kind(a), shape_kind(b))
        fn = fns.setdefault(kinds, _kernel_fn(*kinds))
        enc = lambda s: {k: jnp.asarray(v) for k, v in encode_shape(s).items()}  # noqa: E731
        c = fn(enc(a), *map(jnp.asarray, X_A), enc(b), *map(jnp.asarray, X_B))
        (pair,) = drake_pairs([a, b], [X_A, X_B])
        assert pair.id_A < pair.id_B
        np.testing.assert_allclose(-float(c.phi[0]), pair.depth, atol=TOL)
        np.testing.assert_allclose(np.asarray(c.nhat_BA_W[0]), pair.nhat_BA_W, atol=TOL)
        np.testing.assert_allclose(np.asarray(c.p_WCa[0]), pair.p_WCa, atol=TOL)
        np.testing.assert_allclose(np.asarray(c.p_WCb[0]), pair.p_WCb, atol=TOL)


def test_plant_scene_matches_drake():
    """Bodies with offset geometry (X_BG) in one plant, single-point mode: the same pairs, in
    Drake's (id_A, id_B) order, with the same depth, normal and witness points."""
    shapes = [jb.Box(0.3, 0.4, 0.2), jb.Sphere(0.1), jb.Capsule(0.05, 0.3), jb.Sphere(0.12)]
    X_BG = [jb.RigidTransform(jb.RollPitchYaw([0.1, 0.2, 0.3]), [0.05, 0.0, 0.02]),
            jb.RigidTransform([0.0, 0.03, 0.0]),
            jb.RigidTransform(jb.RollPitchYaw([1.2, 0.0, 0.4]), [0.0, 0.0, 0.1]),
            jb.RigidTransform()]
    poses = [((0.2, 0.1, 0.0), (0.0, 0.0, 0.08)), ((0.0, 0.0, 0.0), (0.24, 0.0, 0.1)),
             ((0.3, -0.2, 0.1), (1.0, 0.0, -0.06)), ((0.0, 0.0, 0.0), (1.05, 0.1, 0.07))]

    def build(engine):
        if engine == "drake":
            plant, sg = dp.AddMultibodyPlantSceneGraph(builder := DiagramBuilder(), 0.001)
            mk = lambda X: dm.RigidTransform(  # noqa: E731
                dm.RotationMatrix(np.asarray(X.rotation().matrix())), np.asarray(X.translation()))
            M, mu, shape_of = (dt.SpatialInertia.SolidSphereWithMass(1.0, 0.1),
                               dp.CoulombFriction(0.5, 0.5), _drake_shape)
        else:
            plant, sg, builder = jb.MultibodyPlant(0.001), None, None
            plant.set_contact_query_options(ContactQueryOptions(single_point=True))
            mk, M, mu, shape_of = (lambda X: X, jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1),
                                   jb.CoulombFriction(0.5, 0.5), lambda s: s)
        bodies = []
        for i, (s, X) in enumerate(zip(shapes, X_BG)):
            bodies.append(plant.AddRigidBody(f"b{i}", M))
            plant.RegisterCollisionGeometry(bodies[-1], mk(X), shape_of(s), f"g{i}", mu)
        ground = plant.RegisterCollisionGeometry(plant.world_body(), mk(jb.RigidTransform()),
                                                 shape_of(jb.HalfSpace()), "ground", mu)
        plant.Finalize()
        return plant, sg, builder, bodies, ground

    dplant, sg, builder, dbodies, _ = build("drake")
    diagram = builder.Build()
    ctx = diagram.CreateDefaultContext()
    pctx = dplant.GetMyContextFromRoot(ctx)
    for b, (rpy, p) in zip(dbodies, poses):
        dplant.SetFreeBodyPose(pctx, b, dm.RigidTransform(dm.RollPitchYaw(rpy), p))
    pairs = sg.get_query_output_port().Eval(sg.GetMyContextFromRoot(ctx)) \
        .ComputePointPairPenetration()
    jplant, _, _, jbodies, _ = build("jaxbody")
    jctx = jplant.CreateDefaultContext()
    for b, (rpy, p) in zip(jbodies, poses):
        jctx = jplant.SetFreeBodyPose(jctx, b, jb.RigidTransform(jb.RollPitchYaw(rpy), p))
    c = jax.jit(jplant.CalcPointContacts)(jctx)
    order = {int(g.get_value()): i for i, g in enumerate(
        [g for b in dbodies for g in dplant.GetCollisionGeometriesForBody(b)]
        + dplant.GetCollisionGeometriesForBody(dplant.world_body()))}
    got = {(int(a), int(b)): i for i, (a, b, v, phi) in enumerate(
        zip(c.geometry_a, c.geometry_b, c.valid, c.phi)) if v and phi <= 0}  # Drake: depth >= 0
    assert len(pairs) >= 4 and len(got) == len(pairs)
    for pair in pairs:
        i = got[(order[int(pair.id_A.get_value())], order[int(pair.id_B.get_value())])]
        np.testing.assert_allclose(-float(c.phi[i]), pair.depth, atol=TOL)
        np.testing.assert_allclose(np.asarray(c.nhat_BA_W[i]), pair.nhat_BA_W, atol=TOL)
        np.testing.assert_allclose(np.asarray(c.p_WCa[i]), pair.p_WCa, atol=TOL)
        np.testing.assert_allclose(np.asarray(c.p_WCb[i]), pair.p_WCb, atol=TOL)
