"""`MultibodyPlant.CalcPointContacts`: contact points of a plant, Drake's property combination,
parameters as differentiable Context leaves, culling, and errors."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.geometry import ProximityProperties
from jaxbody.geometry.collision import ContactQueryOptions

TOL = 1e-12
IDENTITY_Q = [1.0, 0.0, 0.0, 0.0]


def _free_body(plant, name, shape, friction=(0.5, 0.4), props=None):
    body = plant.AddRigidBody(name, jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    p = props if props is not None else jb.CoulombFriction(*friction)
    gid = plant.RegisterCollisionGeometry(body, jb.RigidTransform(), shape, name, p)
    return body, gid


def _ground_properties():
    props = jb.AddContactMaterial(dissipation=3.0, point_stiffness=2e6,
                                  friction=jb.CoulombFriction(1.0, 0.8))
    props.AddProperty("material", "relaxation_time", 0.05)
    return props


@pytest.fixture(scope="module")
def scene():
    plant = jb.MultibodyPlant(0.001)
    box, g_box = _free_body(plant, "box", jb.Box(0.4, 0.6, 0.2))
    ball, g_ball = _free_body(plant, "ball", jb.Sphere(0.1))
    g_ground = plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(),
                                               jb.HalfSpace(), "ground", _ground_properties())
    plant.set_contact_query_options(ContactQueryOptions(single_point=False))  # the manifolds
    plant.Finalize()
    f = jax.jit(plant.CalcPointContacts)
    return plant, f, (box, ball), (g_box, g_ball, g_ground)


def _context(plant, z_box=0.1, ball=(2.0, 0.0, 0.09)):
    q = np.r_[IDENTITY_Q, 0.0, 0.0, z_box, IDENTITY_Q, ball]
    return plant.SetPositions(plant.CreateDefaultContext(), q)


def test_box_resting_on_the_ground_has_four_corners_at_zero(scene):
    plant, f, _, (g_box, g_ball, g_ground) = scene
    c = f(_context(plant))
    on_ground = (np.asarray(c.geometry_a) == int(g_box)) & (np.asarray(c.geometry_b) == int(g_ground))
    phi = np.asarray(c.phi)[on_ground]
    assert on_ground.sum() == 8 and np.sum(np.abs(phi) < TOL) == 4
    np.testing.assert_allclose(np.asarray(c.nhat_BA_W)[on_ground], np.tile([0, 0, 1.0], (8, 1)))
    assert np.asarray(c.valid).all() and not bool(c.overflow)


def test_static_slot_arrays_match_the_dynamic_ones(scene):
    plant, f, (box, ball), gids = scene
    c = f(_context(plant))
    q = plant._contact_query
    assert q.num_points == c.phi.shape[0] == 8 + 1 + 1
    for name in ("body_a", "body_b", "geometry_a", "geometry_b"):
        np.testing.assert_array_equal(getattr(q, name), np.asarray(getattr(c, name)))
    assert set(np.asarray(c.body_a).tolist()) <= {int(box.index()), int(ball.index())}
    assert plant.GetCollisionCandidates() == [(gids[0], gids[1]), (gids[0], gids[2]),
                                             (gids[1], gids[2])]


def test_properties_combine_as_drake_does(scene):
    plant, f, _, (g_box, g_ball, g_ground) = scene
    c = f(_context(plant))
    i = int(np.flatnonzero(np.asarray(c.geometry_a) == int(g_ball))[0])
    kA, kB = 1e6, 2e6
    dA = 50.0  # Drake's DefaultProximityProperties.hunt_crossley_dissipation
    assert float(c.k[i]) == pytest.approx(kA * kB / (kA + kB), rel=1e-14)
    assert float(c.tau[i]) == pytest.approx(0.1 + 0.05, rel=1e-14)
    assert float(c.mu[i]) == pytest.approx(2 * 0.4 * 0.8 / 1.2, rel=1e-14)
    assert float(c.mu_static[i]) == pytest.approx(2 * 0.5 * 1.0 / 1.5, rel=1e-14)
    assert float(c.d[i]) == pytest.approx((kB * dA + kA * 3.0) / (kA + kB), rel=1e-14)
    wA = kA / (kA + kB)
    np.testing.assert_allclose(c.p_WC[i], wA * c.p_WCa[i] + (1 - wA) * c.p_WCb[i], atol=TOL)
    np.testing.assert_allclose(c.p_WC[i], [2.0, 0.0, -0.01 * wA], atol=TOL)  # nearer the stiffer
    assert float(c.phi[i]) == pytest.approx(-0.01, abs=TOL)


def test_contact_parameters_are_differentiable_context_leaves(scene):
    plant, f, _, (g_box, g_ball, g_ground) = scene
    ctx = _context(plant)
    i_ball = plant.GetCollisionGeometryIndex(g_ball)
    slot = int(np.flatnonzero(np.asarray(f(ctx).geometry_a) == int(g_ball))[0])

    def mu_k(mu_d, k):
        contact = dict(ctx.parameters.contact, dynamic_friction=mu_d, point_contact_stiffness=k)
        c = f(ctx.replace(parameters=dataclasses.replace(ctx.parameters, contact=contact)))
        return c.mu[slot] + 1e-6 * c.k[slot]

    mu0 = ctx.parameters.contact["dynamic_friction"]
    k0 = ctx.parameters.contact["point_contact_stiffness"]
    g_mu, g_k = jax.grad(mu_k, argnums=(0, 1))(mu0, k0)
    a, b = 0.4, 0.8  # dμ/dμA of 2ab/(a+b) = 2b²/(a+b)²
    assert float(g_mu[i_ball]) == pytest.approx(2 * b * b / (a + b) ** 2, rel=1e-12)
    kA, kB = 1e6, 2e6
    assert float(g_k[i_ball]) == pytest.approx(1e-6 * kB**2 / (kA + kB) ** 2, rel=1e-12)
    assert np.all(np.isfinite(np.asarray(g_k)))


def test_phi_gradient_wrt_q_and_vmap(scene):
    plant, f, _, (g_box, g_ball, g_ground) = scene
    ctx = _context(plant)
    slot = int(np.flatnonzero(np.asarray(f(ctx).geometry_a) == int(g_ball))[0])
    g = jax.grad(lambda q: f(plant.SetPositions(ctx, q)).phi[slot])(ctx.q)
    expected = np.zeros(14)
    expected[13] = 1.0  # φ of the ball on the ground is its height minus its radius
    np.testing.assert_allclose(np.asarray(g), expected, atol=TOL)
    zs = jnp.array([0.05, 0.1, 0.2])
    batch = jax.vmap(lambda z: f(plant.SetPositions(ctx, ctx.q.at[6].set(z))).phi)(zs)
    for z, row in zip(zs, batch):
        np.testing.assert_allclose(row, f(plant.SetPositions(ctx, ctx.q.at[6].set(z))).phi)


def test_single_point_is_the_default_as_in_drake():
    plant = jb.MultibodyPlant(0.001)
    _free_body(plant, "box", jb.Box(0.4, 0.6, 0.2))
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                    "ground", jb.CoulombFriction(1, 1))
    assert plant.get_contact_query_options().single_point
    plant.Finalize()
    q = np.r_[IDENTITY_Q, 0.0, 0.0, 0.09]
    c = jax.jit(plant.CalcPointContacts)(plant.SetPositions(plant.CreateDefaultContext(), q))
    assert c.phi.shape == (1,) and float(c.phi[0]) == pytest.approx(-0.01, abs=TOL)
    with pytest.raises(RuntimeError, match="finalized"):
        plant.set_contact_query_options(ContactQueryOptions())


def test_culling_keeps_the_closest_pairs_and_flags_overflow():
    plant = jb.MultibodyPlant(0.001)
    for i in range(6):
        _free_body(plant, f"ball{i}", jb.Sphere(0.1))
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                    "ground", jb.CoulombFriction(1, 1))
    plant.set_contact_query_options(ContactQueryOptions(max_pairs_per_group=2))
    plant.Finalize()
    heights = [0.09, 5.0, 0.08, 5.0, 5.0, 5.0]
    xs = [0.0, 0.0, 3.0, 0.15, 6.0, 9.0]  # balls 1 and 3 overlap (x 0 / 0.15 at z 5)
    q = np.concatenate([np.r_[IDENTITY_Q, x, 0.0, z] for x, z in zip(xs, heights)])
    f = jax.jit(plant.CalcPointContacts)
    c = f(plant.SetPositions(plant.CreateDefaultContext(), q))
    assert plant._contact_query.culled and plant._contact_query.body_a is None
    assert c.phi.shape == (2 + 2,)  # 2 sphere-halfspace + 2 sphere-sphere slots
    phi = np.asarray(c.phi)
    assert sorted(np.round(phi[phi < 0], 12).tolist()) == [-0.05, -0.02, -0.01]
    assert not bool(c.overflow)
    heights[4] = 0.05  # a third ball touches the ground: one is dropped
    q = np.concatenate([np.r_[IDENTITY_Q, x, 0.0, z] for x, z in zip(xs, heights)])
    assert bool(f(plant.SetPositions(plant.CreateDefaultContext(), q)).overflow)


def test_plant_without_geometry():
    plant = jb.MultibodyPlant(0.0)
    plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.Finalize()
    ctx = plant.CreateDefaultContext()
    assert ctx.parameters.contact == {}
    c = jax.jit(plant.CalcPointContacts)(ctx)
    assert c.phi.shape == (0,) and plant.GetCollisionCandidates() == []


def test_geometry_is_part_of_the_plant_content_key():
    def make(shape):
        plant = jb.MultibodyPlant(0.001)
        _free_body(plant, "b", shape)
        plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                        "g", jb.CoulombFriction(1, 1))
        plant.Finalize()
        return plant
    assert make(jb.Sphere(0.1)) == make(jb.Sphere(0.1))
    assert make(jb.Sphere(0.1)) != make(jb.Sphere(0.2))


# ---- Errors -------------------------------------------------------------------------------------
def test_unsupported_pair_names_the_geometries():
    plant = jb.MultibodyPlant(0.001)
    _free_body(plant, "egg", jb.Ellipsoid(0.1, 0.2, 0.3))
    _free_body(plant, "crate", jb.Box(0.1, 0.2, 0.3))
    plant.Finalize()
    with pytest.raises(ValueError, match=r"'egg' \(Ellipsoid\) on body 'egg' and 'crate' \(Box\)"):
        plant.CalcPointContacts(plant.CreateDefaultContext())


@pytest.mark.parametrize("name, value", [("point_contact_stiffness", -1.0),
                                         ("relaxation_time", -0.2),
                                         ("hunt_crossley_dissipation", float("nan"))])
def test_invalid_property_names_the_geometry(name, value):
    plant = jb.MultibodyPlant(0.001)
    props = ProximityProperties()
    props.AddProperty("material", "coulomb_friction", jb.CoulombFriction(1, 1))
    props.AddProperty("material", name, value)
    _free_body(plant, "blob", jb.Sphere(0.1), props=props)
    with pytest.raises(ValueError, match=f"'blob' on body 'blob'.*'{name}'"):
        plant.Finalize()


def test_missing_friction_names_the_geometry():
    """With Drake's default config a geometry without friction gets (0.5, 0.5); without that
    default it raises (Drake's ``GetCoulombFriction`` throws)."""
    config = jb.SceneGraphConfig()
    config.default_proximity_properties.static_friction = None
    config.default_proximity_properties.dynamic_friction = None
    plant = jb.MultibodyPlant(0.001)
    plant.set_scene_graph_config(config)
    _free_body(plant, "slick", jb.Sphere(0.1), props=ProximityProperties())
    _free_body(plant, "other", jb.Sphere(0.1))
    with pytest.raises(ValueError, match="'slick' on body 'slick' has no .*coulomb_friction"):
        plant.Finalize()


def test_context_contact_parameters_must_have_one_entry_per_geometry(scene):
    plant, _, _, _ = scene
    ctx = _context(plant)
    bad = dict(ctx.parameters.contact, relaxation_time=jnp.zeros(2))
    with pytest.raises(ValueError, match=r"contact\['relaxation_time'\] must have shape \(3,\)"):
        plant.CalcPointContacts(ctx.replace(
            parameters=dataclasses.replace(ctx.parameters, contact=bad)))


def test_options_are_validated():
    with pytest.raises(ValueError, match="max_pairs_per_group"):
        ContactQueryOptions(max_pairs_per_group=0)
    with pytest.raises(ValueError, match="max_hull_vertices must be an int >= 4"):
        ContactQueryOptions(max_hull_vertices=3)
    with pytest.raises(TypeError, match="ContactQueryOptions"):
        jb.MultibodyPlant(0.0).set_contact_query_options({"single_point": True})


def test_other_errors():
    from jaxbody.geometry.collision.shape_data import shape_kind
    with pytest.raises(ValueError, match="does not support shapes of type Shape"):
        shape_kind(jb.Shape())
    plant = jb.MultibodyPlant(0.001)
    props = ProximityProperties()
    props.AddProperty("material", "coulomb_friction", (0.5, 0.5))
    _free_body(plant, "tuple_mu", jb.Sphere(0.1), props=props)
    with pytest.raises(ValueError, match="'tuple_mu'.*must be a CoulombFriction"):
        plant.Finalize()
    plant = jb.MultibodyPlant(0.001)
    rigid = jb.AddContactMaterial(friction=jb.CoulombFriction(1, 1))
    rigid.AddProperty("material", "point_contact_stiffness", float("inf"))
    _, a = _free_body(plant, "rock", jb.Sphere(0.1), props=rigid)
    _, b = _free_body(plant, "stone", jb.Sphere(0.1), props=rigid)
    v = plant.RegisterVisualGeometry(plant.world_body(), jb.RigidTransform(), jb.Sphere(1), "v")
    with pytest.raises(ValueError, match="'rock' and 'stone' are both rigid"):
        plant.Finalize()  # a structural error: raised at Finalize
    with pytest.raises(ValueError, match="no proximity role"):
        plant.CollisionFiltered(a, v)
    assert not plant.CollisionFiltered(a, b) and plant.CollisionFiltered(a, a)
    with pytest.raises(ValueError, match="not the id of a collision geometry"):
        plant.GetCollisionGeometryIndex(v)


def test_combination_edge_cases_have_finite_gradients():
    from jaxbody.geometry.collision import combine_contact_parameters

    def combined(kA, kB):
        mk = lambda k, d, mu: {"point_contact_stiffness": k, "relaxation_time": 0.1,  # noqa: E731
                               "hunt_crossley_dissipation": d, "static_friction": mu,
                               "dynamic_friction": mu}
        return combine_contact_parameters(mk(kA, 2.0, 0.0), mk(kB, 3.0, 0.0))

    c = combined(jnp.inf, 5.0)  # A rigid: B's stiffness and dissipation, the point on A
    assert (float(c["k"]), float(c["d"]), float(c["w_a"])) == (5.0, 3.0, 1.0)
    assert float(c["mu"]) == 0.0  # both frictionless
    c = combined(0.0, 0.0)
    assert (float(c["k"]), float(c["d"]), float(c["w_a"])) == (0.0, 0.0, 0.5)
    for kA, kB in ((jnp.inf, 5.0), (0.0, 0.0), (1.0, 2.0)):
        g = jax.grad(lambda a, b: sum(jnp.sum(v) for v in combined(a, b).values()),
                     argnums=(0, 1))(jnp.asarray(kA), jnp.asarray(kB))
        assert all(np.isfinite(float(x)) for x in g)
