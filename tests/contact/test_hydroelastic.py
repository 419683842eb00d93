"""Hydroelastic contact on discrete plants, without Drake (tests/reference/ compares with Drake).

- closed forms: a compliant box cut flat by a rigid half space (area lx·ly, force
  (E/H)(d·lx·ly − (lx + ly)d² + 4d³/3), exact on Drake's box mesh), a tilted box (area
  lx·ly/|cos θ|), a finely meshed compliant sphere (cap area π(2Rd − d²), force ∫ E(1 − r/R) dA);
- physics: a box settled on the ground carries m·g; a rolling sphere slows down without slipping;
- identities: unit normals, per-polygon areas from the vertices, Σ A p n̂ equals F_Ac_W at rest,
  swapping the registration order flips the normals but not the forces on the bodies;
- vmap equals a loop; gradients (w.r.t. pose and modulus, through a rollout) equal finite
  differences; every hydroelastic error; point-contact fallback; float32.

Compiled code is shared through module-scoped fixtures (compiling dominates the run time): per
plant one jitted surface function of the pose and modulus; the box scene's rollout and one
`CalcContactResults` of its settled state; one jvp of the rolling sphere's rollout w.r.t. the
modulus, which gives its trajectory too.
"""

from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxbody as jb
from benchmarks.contact_scenes import FreeBody, Geom, Scene, build, initial_state
from benchmarks.hydro_scenes import E_SOFT, box_rest, sphere_roll
from jaxbody.contact.sap_problem import SapSolverParameters
from jaxbody.geometry.hydroelastic.query import effective_gradient

# Tolerances.
TOL_EXACT = 1e-10  # closed forms the mesh represents exactly (relative)
TOL_MESH = 0.05  # a sphere's polyhedral mesh against the exact sphere (relative)
TOL_REST = 1e-6  # settled contact force against m·g (relative)
TOL_FD = 1e-6  # gradients of the surface against central differences (relative)
TOL_ROLLOUT_FD = 1e-3  # a rollout's gradient against central differences (relative)
TOL_F32 = 1e-4  # float32 surface against float64 (relative)
TOL_STATIC = 1e-5  # Σ A p n̂ at the settled state against the step's normal force (relative)
TOL_DRIFT = 1e-4  # friction at rest, relative to m g (see test_settled_box_carries_its_weight)
TOL_VMAP = 1e-12

G = 9.81
LX, LY, LZ, M_BOX = 0.2, 0.15, 0.1, 1.0  # hydro_scenes.box_rest()
H = LZ / 2  # the box's smallest half size: extent = (distance to the boundary) / H
R_BALL, M_BALL = 0.05, 0.5  # a point-contact sphere beside the box
SETTLE_STEPS = 300
ROLL_TRANSIENT = 50  # steps before the rolling sphere's speed decreases monotonically
DROP = 5e-4  # the box starts this far above the ground
# A tilted box cut deeper than its bottom corners rise: the plane crosses the four edges along
# the box's z and no mesh vertex is near it.
TILT, D_TILT = (0.04, -0.03, 0.2), 1e-2
# The box scene has two trees, for which "auto" picks conjugate gradients; one dense Cholesky
# per Newton step solves the same systems and compiles ~2 s faster here.
SOLVER = SapSolverParameters(linear_solver="dense")


def _box_force(E, d):
    """Σ A p of a box (LX, LY, LZ) cut flat at depth d < min(LX, LY)/2 by a half space: the
    pressure is E·min(d, s)/H (s: distance to the nearest side), whose integral over the
    rectangle is (E/H)(d·A − ∫₀ᵈ (d − t)(2(LX + LY) − 8t) dt)."""
    return E / H * (d * LX * LY - (LX + LY) * d**2 + 4.0 / 3.0 * d**3)


def _sphere_cap(E, R, d):
    """(area, Σ A p) of a sphere of radius R cut at depth d: a disk of radius a, a² = 2Rd − d²,
    at height z₀ = R − d under the center, pressure E(1 − √(z₀² + ρ²)/R):
    F = E(πa² − (2π/R) ∫₀ᵃ ρ√(z₀² + ρ²) dρ) = E(πa² − 2π(R³ − z₀³)/(3R))."""
    z0, a2 = R - d, 2 * R * d - d * d
    return np.pi * a2, E * (np.pi * a2 - 2 * np.pi * (R**3 - z0**3) / (3 * R))


def _net_force(polys):
    """Σ A p n̂ over the faces of a surface: the force on M (n̂ points out of N into M)."""
    w = jnp.where(polys.valid, polys.area * polys.pressure, 0.0)
    return w @ polys.normal


def _total_area(polys):
    return jnp.sum(jnp.where(polys.valid, polys.area, 0.0))


def _quaternion(rpy):
    """Drake's RollPitchYaw(rpy).ToQuaternion() (w, x, y, z), in NumPy."""
    cr, cp, cy = np.cos(np.asarray(rpy) / 2)
    sr, sp, sy = np.sin(np.asarray(rpy) / 2)
    return np.array([cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
                     cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy])


def _pose(z, rpy=(0.0, 0.0, 0.0)):
    """[quaternion (w, x, y, z); p_WB] of a free body at height z."""
    return np.r_[_quaternion(rpy), 0.01, -0.02, z]


def _box_scene(box_first=True, point_ball=True):
    """hydro_scenes.box_rest() (a compliant box on a rigid ground half space), the box DROP
    above the ground, and a point-contact sphere (no hydroelastic properties) at rest beside it."""
    scene = box_rest()
    scene.bodies[0].p_WB = (0.0, 0.0, H + DROP)
    if not box_first:
        scene.geoms.reverse()
    if point_ball:
        # at rest under point contact: penetration m g / k, k = 1e5/2 (two 1e5 N/m in series)
        scene.bodies.append(FreeBody("pball", M_BALL, (0.4 * M_BALL * R_BALL**2,) * 3,
                                     (0.5, 0.0, R_BALL - M_BALL * G / 5e4)))
        scene.geoms.append(Geom("pball", ("sphere", R_BALL), k=1e5))
    return scene


def _surface_fns(plant, ctx, body_name):
    """Jitted functions of (q_body (7,), E) for the first hydroelastic pair: its polygons, and
    the box's (Σ A p n̂_z)/(m g) + area/(LX·LY), which the gradient tests differentiate."""
    ids = plant.GetCollisionGeometriesForBody(plant.GetBodyByName(body_name))

    def context(q_body, E):
        c = plant.SetContactParameters(ctx, ids, hydroelastic_modulus=E)
        return c.replace(q=c.q.at[:7].set(q_body))

    def polygons(q_body, E):
        return plant.CalcHydroelasticSurfaces(context(q_body, E))[0].polygons

    def scalar(q_body, E):
        polys = polygons(q_body, E)
        return _net_force(polys)[2] / (M_BOX * G) + _total_area(polys) / (LX * LY)

    return SimpleNamespace(context=context, polygons=jax.jit(polygons), scalar=jax.jit(scalar),
                           ids=ids)


# ---- fixtures -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def box():
    """The box scene: plant, initial context and jitted surface functions of the box's pose."""
    scene = _box_scene()
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    assert np.allclose(q0[4:7], scene.bodies[0].p_WB)  # the box's pose is q[:7]
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    return SimpleNamespace(plant=plant, ctx=ctx, **vars(_surface_fns(plant, ctx, "box")))


@pytest.fixture(scope="module")
def settled(box):
    """The box scene after SETTLE_STEPS steps: the trajectory, the last context and its
    contact results."""
    plant = box.plant
    nq = plant.num_positions()
    x = np.asarray(jb.discrete_rollout(plant, box.ctx, num_steps=SETTLE_STEPS,
                                       solver_parameters=SOLVER).states)
    last = box.ctx.replace(q=jnp.asarray(x[-1, :nq]), v=jnp.asarray(x[-1, nq:]))
    return SimpleNamespace(x=x, ctx=last,
                           results=plant.CalcContactResults(last, solver_parameters=SOLVER))


@pytest.fixture(scope="module")
def fine_sphere():
    """A compliant sphere (R = 0.1 m, 8192 tetrahedra) over a rigid half space."""
    R, E = 0.1, E_SOFT
    scene = Scene([FreeBody("ball", 1.0, (0.004,) * 3, (0.0, 0.0, R))],
                  [Geom("ball", ("sphere", R), hydro=("compliant", 0.005, E)),
                   Geom("world", ("halfspace",), hydro=("rigid", None))])
    plant, _ = build(scene, "jaxbody")
    ctx = plant.CreateDefaultContext()
    return SimpleNamespace(R=R, E=E, **vars(_surface_fns(plant, ctx, "ball")))


@pytest.fixture(scope="module")
def rolling():
    """hydro_scenes.sphere_roll() (a compliant sphere, R = 0.1 m, rolling at 0.5 m/s) rolled
    out SETTLE_STEPS steps with the sphere's modulus as an input: the trajectory, its derivative
    w.r.t. the modulus (one jvp) and central differences of the trajectory (h = 1e-3 E)."""
    scene = sphere_roll()
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    ids = plant.GetCollisionGeometriesForBody(plant.GetBodyByName("ball"))

    def rollout(E):
        c = plant.SetContactParameters(ctx, ids, hydroelastic_modulus=E)
        r = jb.discrete_rollout(plant, c, num_steps=SETTLE_STEPS)
        return r.states, r.converged

    run = jax.jit(lambda E: jax.jvp(rollout, (E,), (jnp.ones_like(E),)))
    E, h = jnp.float64(E_SOFT), 1e-3 * E_SOFT
    (x, converged), (dx_dE, _) = run(E)
    fd = (run(E + h)[0][0] - run(E - h)[0][0]) / (2 * h)
    return SimpleNamespace(R=scene.geoms[0].shape[1], x=np.asarray(x), dx_dE=np.asarray(dx_dE),
                           fd=np.asarray(fd), converged=np.asarray(converged))


# ---- 1. closed forms ------------------------------------------------------------------------
@pytest.mark.parametrize("d", [1e-4, 2e-3, 1e-2])
def test_flat_box_area_and_force_are_exact(box, d):
    polys = box.polygons(_pose(H - d), E_SOFT)
    assert float(_total_area(polys)) == pytest.approx(LX * LY, rel=TOL_EXACT)
    f = np.asarray(_net_force(polys))
    assert f[2] == pytest.approx(_box_force(E_SOFT, d), rel=TOL_EXACT)
    np.testing.assert_allclose(f[:2], 0.0, atol=TOL_EXACT * f[2])
    # and for small d, E·d/H·area
    assert f[2] == pytest.approx(E_SOFT * d / H * LX * LY, rel=2 * (LX + LY) * d / (LX * LY))


def test_tilted_box_cross_section_area(box):
    polys = box.polygons(_pose(H - D_TILT, TILT), E_SOFT)
    cos = np.cos(TILT[0]) * np.cos(TILT[1])  # R_WB[2, 2]: the box's z against World's
    # the plane cuts the four edges along the box's z: a parallelogram of area A/|cos θ|
    assert float(_total_area(polys)) == pytest.approx(LX * LY / cos, rel=TOL_EXACT)


@pytest.mark.parametrize("d", [5e-3, 1e-2])
def test_sphere_cap_area_and_force(fine_sphere, d):
    s = fine_sphere
    polys = s.polygons(_pose(s.R - d), s.E)
    area, force = _sphere_cap(s.E, s.R, d)
    assert float(_total_area(polys)) == pytest.approx(area, rel=TOL_MESH)
    f = np.asarray(_net_force(polys))
    assert f[2] == pytest.approx(force, rel=TOL_MESH)
    np.testing.assert_allclose(f[:2], 0.0, atol=1e-9 * f[2])
    # the pressure never exceeds the field's value at the cap's center, E·d/R
    p = np.asarray(polys.pressure)[np.asarray(polys.valid)]
    assert np.all(p >= 0) and np.all(p <= s.E * d / s.R * (1 + 1e-12))


# ---- 2. physics -----------------------------------------------------------------------------
def test_settled_box_carries_its_weight(settled):
    assert settled.results.num_hydroelastic_contacts() == 1
    f = np.asarray(settled.results.hydroelastic_contact_info(0).F_Ac_W().translational())
    assert f[2] == pytest.approx(M_BOX * G, rel=TOL_REST)
    # friction against the ~1e-6 m/s drift that round-off leaves (query.py: faces whose
    # pressure gradient is perpendicular to the normal count or not by round-off)
    np.testing.assert_allclose(f[:2], 0.0, atol=TOL_DRIFT * M_BOX * G)
    assert np.abs(settled.x[-1, 14:20]).max() < 1e-5  # the box's velocity
    # it fell DROP, then settled where the pressure carries m g: depth ≈ m g H/(E A)
    assert settled.x[0, 6] - settled.x[-1, 6] > DROP
    depth = H - settled.x[-1, 6]
    assert depth == pytest.approx(M_BOX * G * H / (E_SOFT * LX * LY), rel=1e-2)


def test_rolling_sphere_slows_down_without_slipping(rolling):
    assert np.all(rolling.converged == 1.0)
    x = rolling.x[ROLL_TRANSIENT:]
    z, w_y, v_x = x[:, 6], x[:, 8], x[:, 10]
    speed = np.linalg.norm(x[:, 10:13], axis=1)
    assert np.all(np.diff(speed) < 0)  # rolling resistance
    assert speed[-1] < 0.9 * speed[0]
    assert np.all(v_x > 0.3)  # still rolling
    # rolling without slip about the contact patch, at the center's height
    np.testing.assert_allclose(w_y * z, v_x, rtol=1e-2)
    np.testing.assert_allclose(w_y * rolling.R, v_x, rtol=TOL_MESH)


# ---- 3. identities --------------------------------------------------------------------------
def test_normals_are_unit_and_areas_match_the_polygons(box):
    polys = jax.tree.map(np.asarray, box.polygons(_pose(H - 4e-3, (0.1, -0.05, 0.3)), E_SOFT))
    valid = polys.valid
    assert valid.sum() > 3
    np.testing.assert_allclose(np.linalg.norm(polys.normal[valid], axis=1), 1.0, atol=1e-14)
    for i in np.flatnonzero(valid):
        v = polys.vertices[i, :polys.num_vertices[i]]
        double_area = np.cross(v[1:-1] - v[0], v[2:] - v[0]).sum(0)
        assert np.linalg.norm(double_area) / 2 == pytest.approx(polys.area[i], rel=1e-12)
        assert double_area @ polys.normal[i] > 0  # counterclockwise about the normal
    assert polys.area[valid].sum() == pytest.approx(float(_total_area(polys)), rel=1e-14)


def _host_net_force(s):
    """Σ A p n̂ of a host `ContactSurface`."""
    return sum(s.area(i) * s.pressure(i) * s.face_normal(i) for i in range(s.num_faces()))


def test_host_surface_records_match(box, settled):
    surfaces = box.plant.ComputeContactSurfaces(settled.ctx)
    assert len(surfaces) == 1
    s = surfaces[0]
    assert (s.id_M(), s.id_N()) == (box.ids[0], _ground(box.plant))  # the box registered first
    assert s.total_area() == pytest.approx(LX * LY, rel=TOL_EXACT)
    assert s.total_area() == pytest.approx(sum(s.area(i) for i in range(s.num_faces())),
                                           rel=1e-14)
    polys = box.polygons(settled.ctx.q[:7], E_SOFT)
    np.testing.assert_allclose(_host_net_force(s), _net_force(polys), rtol=1e-12,
                               atol=1e-12 * M_BOX * G)
    info = settled.results.hydroelastic_contact_info(0)
    assert info.contact_surface().total_area() == pytest.approx(s.total_area(), rel=1e-14)


def test_static_net_pressure_force_equals_F_Ac_W(box, settled):
    """Σ A p n̂ over the quadrature points (the faces the step uses) equals the step's force on
    the box, but for friction against the drift."""
    polys = box.plant.CalcHydroelasticSurfaces(settled.ctx)[0].polygons
    _, usable = effective_gradient(polys, True, False)  # box M compliant, ground N rigid
    net = np.asarray(jnp.where(usable, polys.area * polys.pressure, 0.0) @ polys.normal)
    F = np.asarray(settled.results.hydroelastic_contact_info(0).F_Ac_W().translational())
    assert net[2] == pytest.approx(F[2], rel=TOL_STATIC)
    np.testing.assert_allclose(net[:2], F[:2], atol=TOL_DRIFT * M_BOX * G)


def _ground(plant):
    return plant.GetCollisionGeometriesForBody(plant.world_body())[0]


def test_swapping_registration_order_flips_the_normal_not_the_force(box):
    scene = _box_scene(box_first=False, point_ball=False)
    plant, _ = build(scene, "jaxbody")
    swapped = _surface_fns(plant, plant.CreateDefaultContext(), "box")
    q = jnp.asarray(_pose(H - D_TILT, TILT))
    a = box.plant.ComputeContactSurfaces(box.context(q, E_SOFT))[0]  # M: box, N: ground
    b = plant.ComputeContactSurfaces(swapped.context(q, E_SOFT))[0]  # M: ground, N: box
    assert (a.id_M(), a.id_N()) == (box.ids[0], _ground(box.plant))
    assert (b.id_M(), b.id_N()) == (_ground(plant), swapped.ids[0])
    assert a.num_faces() == b.num_faces()
    assert a.HasGradE_M() and not a.HasGradE_N()
    assert b.HasGradE_N() and not b.HasGradE_M()
    for i in range(a.num_faces()):
        assert b.area(i) == pytest.approx(a.area(i), rel=1e-14)
        assert b.pressure(i) == pytest.approx(a.pressure(i), rel=1e-14)
        np.testing.assert_allclose(b.centroid(i), a.centroid(i), rtol=1e-14)
        np.testing.assert_allclose(b.face_normal(i), -a.face_normal(i), rtol=1e-14)
        np.testing.assert_allclose(b.EvaluateGradE_N_W(i), a.EvaluateGradE_M_W(i), rtol=1e-14)
    # the force on the box: on M in one, on N (the opposite of the force on M) in the other
    np.testing.assert_allclose(-_host_net_force(b), _host_net_force(a), rtol=1e-13,
                               atol=1e-13 * M_BOX * G)
    assert _host_net_force(a)[2] > 0  # pushes the box up


# ---- 4. vmap --------------------------------------------------------------------------------
def test_vmap_over_poses_and_moduli_equals_loop(box):
    rng = np.random.default_rng(0)
    qs = jnp.asarray(np.stack([_pose(H - D_TILT * s, TILT) for s in rng.uniform(0.5, 1.5, 4)]))
    qs = qs.at[:, :4].set(qs[:, :4] + rng.uniform(-0.01, 0.01, (4, 4)))  # unnormalized: fine
    Es = jnp.array([3e5, 1e6, 2e6, 7e6])
    batched = jax.jit(jax.vmap(box.polygons))(qs, Es)
    for k in range(len(Es)):
        one = box.polygons(qs[k], float(Es[k]))
        for name, x in one._asdict().items():
            np.testing.assert_allclose(getattr(batched, name)[k], x, rtol=TOL_VMAP,
                                       atol=TOL_VMAP, err_msg=name)
        # the pressure scales with the modulus
        unit = box.polygons(qs[k], 1.0).pressure
        np.testing.assert_allclose(batched.pressure[k], unit * Es[k], rtol=TOL_VMAP)


# ---- 5. gradients ---------------------------------------------------------------------------
def test_gradients_match_closed_form_and_differences(box):
    """∂/∂q and ∂/∂E of (Σ A p n̂_z)/(m g) + area/A (area does not depend on z and E)."""
    grad = jax.grad(box.scalar, argnums=(0, 1))
    # flat, depth d: ∂F/∂z = −(E/H)(A − 2(LX + LY)d + 4d²), ∂F/∂E = F/E
    d = 2e-3
    dq, dE = grad(jnp.asarray(_pose(H - d)), jnp.float64(E_SOFT))
    dF_dz = -E_SOFT / H * (LX * LY - 2 * (LX + LY) * d + 4 * d * d)
    assert float(dq[6]) == pytest.approx(dF_dz / (M_BOX * G), rel=TOL_EXACT)
    assert float(dE) == pytest.approx(_box_force(E_SOFT, d) / E_SOFT / (M_BOX * G),
                                      rel=TOL_EXACT)
    # tilted: central differences in z and E
    q, E = jnp.asarray(_pose(H - D_TILT, TILT)), jnp.float64(E_SOFT)
    dq, dE = grad(q, E)
    hz, hE = 1e-7, 1e2
    fd_z = (box.scalar(q.at[6].add(hz), E) - box.scalar(q.at[6].add(-hz), E)) / (2 * hz)
    fd_E = (box.scalar(q, E + hE) - box.scalar(q, E - hE)) / (2 * hE)
    assert float(dq[6]) == pytest.approx(float(fd_z), rel=TOL_FD)
    assert float(dE) == pytest.approx(float(fd_E), rel=TOL_FD)


def test_check_grads_wrt_pose(box):
    """In every direction of (q, E); at E ~ 1e6 Pa and eps = 1e-6 the pose dominates (the
    modulus is checked by test_gradients_match_closed_form_and_differences)."""
    q, E = jnp.asarray(_pose(H - D_TILT, TILT)), jnp.float64(E_SOFT)
    # the same function and arguments as that test's jax.grad: its compiled vjp is reused
    check_grads(box.scalar, (q, E), order=1, modes=("fwd", "rev"), eps=1e-6, atol=TOL_FD,
                rtol=TOL_FD)


def test_rollout_gradient_wrt_modulus(rolling):
    assert np.all(np.isfinite(rolling.dx_dE))
    for k in (20, 100, SETTLE_STEPS):  # the height, and the rolling speed
        for i in (6, 10):
            assert abs(rolling.dx_dE[k, i]) > 0
            assert rolling.dx_dE[k, i] == pytest.approx(rolling.fd[k, i], rel=TOL_ROLLOUT_FD)


# ---- 6. errors ------------------------------------------------------------------------------
def _material(props=None):
    return jb.AddContactMaterial(friction=jb.CoulombFriction(0.5, 0.5),
                                 properties=jb.ProximityProperties() if props is None else props)


def _plant_with(shape, props, time_step=1e-3, ground=True, model=None):
    """A free body carrying geometry 'probe' (``shape``, ``props``) over a rigid ground
    'ground', finalized."""
    plant = jb.MultibodyPlant(time_step)
    body = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.RegisterCollisionGeometry(body, jb.RigidTransform(), shape, "probe", props)
    if ground:
        plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                        "ground", jb.AddRigidHydroelasticProperties(_material()))
    if model is not None:
        plant.set_contact_model(model)
    plant.Finalize()
    return plant


def test_compliant_sphere_without_resolution_hint_raises():
    props = _material()
    props.AddProperty("hydroelastic", "compliance_type", "compliant")
    props.AddProperty("hydroelastic", "hydroelastic_modulus", 1e6)
    with pytest.raises(ValueError, match="'probe'.*resolution_hint"):
        _plant_with(jb.Sphere(0.1), props)


def test_margin_raises():
    props = jb.AddCompliantHydroelasticProperties(0.05, 1e6, _material())
    props.AddProperty("hydroelastic", "margin", 1e-3)
    with pytest.raises(ValueError, match="'probe'.*margin"):
        _plant_with(jb.Sphere(0.1), props)


@pytest.mark.parametrize("E", [0.0, -1e6, np.inf, np.nan])
def test_non_positive_modulus_raises(E):
    with pytest.raises(ValueError, match="hydroelastic_modulus"):
        jb.AddCompliantHydroelasticProperties(0.05, E)


@pytest.mark.parametrize("hint", [0.0, -0.1])
def test_non_positive_resolution_hint_raises(hint):
    with pytest.raises(ValueError, match="resolution_hint"):
        jb.AddCompliantHydroelasticProperties(hint, 1e6)
    with pytest.raises(ValueError, match="resolution_hint"):
        jb.AddRigidHydroelasticProperties(hint)


def test_non_positive_slab_thickness_raises():
    with pytest.raises(ValueError, match="slab_thickness"):
        jb.AddCompliantHydroelasticPropertiesForHalfSpace(0.0, 1e6)


def test_hydroelastic_only_names_the_pair_without_a_surface():
    with pytest.raises(ValueError, match="kHydroelastic.*'probe'.*'ground'"):
        _plant_with(jb.Sphere(0.1), _material(), model=jb.ContactModel.kHydroelastic)
    # with a surface it finalizes
    plant = _plant_with(jb.Sphere(0.1), jb.AddCompliantHydroelasticProperties(
        0.05, 1e6, _material()), model=jb.ContactModel.kHydroelastic)
    assert len(jax.eval_shape(plant.CalcHydroelasticSurfaces, plant.CreateDefaultContext())) == 1


def test_continuous_plant_warns_and_uses_point_contact():
    props = jb.AddCompliantHydroelasticProperties(0.05, 1e6, _material())
    with pytest.warns(UserWarning, match="continuous.*'probe'"):
        plant = _plant_with(jb.Sphere(0.1), props, time_step=0.0)
    assert plant.CalcHydroelasticSurfaces(plant.CreateDefaultContext()) == []


# ---- 7. fallback ----------------------------------------------------------------------------
def test_point_contact_fallback_beside_a_surface(box, settled):
    r = settled.results
    assert r.num_hydroelastic_contacts() == 1
    assert r.num_point_pair_contacts() == 1
    info = r.point_pair_contact_info(0)
    ball = box.plant.GetBodyByName("pball").index()
    assert ball in (info.bodyA_index(), info.bodyB_index())
    # the ball rests on the ground under point contact: |f| = m g
    assert np.linalg.norm(info.contact_force()) == pytest.approx(M_BALL * G, rel=TOL_REST)
    np.testing.assert_allclose(settled.x[-1, 7:14], box.ctx.q[7:14], atol=1e-8)


# ---- 8. float32 -----------------------------------------------------------------------------
def test_float32_surface_agrees_with_float64(box):
    q = _pose(H - D_TILT, TILT)
    ctx32 = box.plant.CreateDefaultContext(jnp.float32)
    c32 = ctx32.replace(q=ctx32.q.at[:7].set(jnp.asarray(q, jnp.float32)))
    p32 = jax.jit(box.plant.CalcHydroelasticSurfaces)(c32)[0].polygons
    assert p32.area.dtype == jnp.float32 and p32.pressure.dtype == jnp.float32
    f64 = np.asarray(_net_force(box.polygons(q, E_SOFT)))
    f32 = np.asarray(_net_force(p32), np.float64)
    np.testing.assert_allclose(f32, f64, rtol=TOL_F32, atol=TOL_F32 * np.abs(f64).max())
    assert float(_total_area(p32)) == pytest.approx(float(_total_area(box.polygons(q, E_SOFT))),
                                                    rel=TOL_F32)


def test_compute_contact_surfaces_checks_its_context():
    plant = jb.MultibodyPlant(1e-3)
    with pytest.raises(RuntimeError, match="ComputeContactSurfaces"):
        plant.ComputeContactSurfaces(None)
    plant.Finalize()
    with pytest.raises(TypeError, match="ComputeContactSurfaces: expected a Context"):
        plant.ComputeContactSurfaces("not a context")
