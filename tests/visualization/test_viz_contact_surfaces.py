"""Hydroelastic contact surfaces in the viewer: triangle fans of the valid polygons, the pressure
colormap, the exported page of a hydroelastic rollout (geometry, colors, flipbook visibility),
the live meshcat path, net pressure forces, and argument checks."""

import jax
import numpy as np
import pytest

import jaxbody as jb
from benchmarks.contact_scenes import build, initial_state
from benchmarks.hydro_scenes import HYDRO_SCENES
from jaxbody.geometry.hydroelastic.polygons import ContactPolygons
from jaxbody.visualization import MeshcatVisualizer, export_html, pressure_colors, surface_mesh
from jaxbody.visualization.contact_surfaces import PRESSURE_RAMP, surface_net_forces
from jaxbody.visualization.meshcat_visualizer import SURFACES
from tests.visualization.viz_fixtures import (
    RecordingWindow,
    contact_polygons,
    scene_of,
    square,
)

F32_TOL = 1e-6  # m: geometry and colors travel as float32
TOL = 1e-12
WEIGHT_RTOL = 1e-3  # the box's net pressure force at its static penetration vs m g
STEPS = 3


def _floats(ext):
    return np.frombuffer(ext.data, np.float32)


def _fans(polys_per_pair):
    """Reference: positions, triangles (v0, vi, vi+1) and vertex pressures of the valid
    polygons, pair by pair, slot by slot."""
    pos, tris, pres = [], [], []
    for p in polys_per_pair:
        for f in np.flatnonzero(p.valid):
            n, o = int(p.num_vertices[f]), len(pos)
            pos += list(p.vertices[f, :n])
            pres += [p.pressure[f]] * n
            tris += [(o, o + i, o + i + 1) for i in range(1, n - 1)]
    return np.array(pos).reshape(-1, 3), np.array(tris).reshape(-1, 3), np.array(pres)


def _mesh_data(obj):
    d = obj["geometries"][0]["data"]
    return (_floats(d["attributes"]["position"]["array"]).reshape(-1, 3),
            np.frombuffer(d["index"]["array"].data, np.uint32).reshape(-1, 3),
            _floats(d["attributes"]["color"]["array"]).reshape(-1, 3))


def _value_at(track, t):
    """A discrete (bool) track's value at time t: that of the last key at or before t."""
    times = _floats(track["times"])
    return track["values"][int(np.searchsorted(times, np.float32(t), side="right")) - 1]


@pytest.fixture(scope="module")
def hydro():
    """A compliant box resting on a rigid half space: the plant, the start context, a short
    rollout and its surfaces per sample (stacked by vmap)."""
    scene = HYDRO_SCENES["hydro_box_rest"]()
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), q0), v0)
    out = jb.discrete_rollout(plant, ctx, num_steps=STEPS)
    q = np.asarray(out.states)[:, :plant.num_positions()]
    surfaces = jax.jit(jax.vmap(lambda q: plant.CalcHydroelasticSurfaces(
        plant.SetPositions(ctx, q))))(q)
    return plant, ctx, out, surfaces


# --- Meshes and colors -----------------------------------------------------------------------------
def test_valid_polygons_become_triangle_fans():
    tri = [[0, 0, 0], [1, 0, 0], [0, 1, 0.0]]
    quad = square(0.0)
    pair1 = contact_polygons([tri, quad], [1e5, 2e5], invalid=(1,))  # NaN in the invalid slot
    pair2 = contact_polygons([square(2.0)], [3e5])
    mesh = surface_mesh([pair1, pair2])
    np.testing.assert_array_equal(mesh.faces, [[0, 1, 2], [3, 4, 5], [3, 5, 6],
                                               [7, 8, 9], [7, 9, 10]])
    np.testing.assert_array_equal(mesh.p_WV, np.concatenate([tri, quad, square(2.0)]))
    np.testing.assert_array_equal(mesh.pressure, [1e5] * 3 + [2e5] * 4 + [3e5] * 4)
    assert surface_mesh([]).faces.shape == (0, 3)


def test_pressure_ramp_runs_blue_to_red():
    p_max = 2e5
    x = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 3.0, -1.0])
    c = pressure_colors(x * p_max, p_max)
    np.testing.assert_allclose(c[:5], PRESSURE_RAMP, atol=TOL)
    np.testing.assert_allclose(c[5:], [[1, 0, 0], [0, 0, 1]], atol=TOL)  # clamped
    mid = pressure_colors([0.125 * p_max], p_max)[0]
    np.testing.assert_allclose(mid, [0, 0.5, 1], atol=TOL)  # linear between stops
    assert np.all((c >= 0) & (c <= 1))


def _first(surfaces):
    """The first sample of stacked surfaces: ``plant.CalcHydroelasticSurfaces`` at the start."""
    return jax.tree.map(lambda a: a[0], surfaces)


def test_the_input_forms_give_one_mesh(hydro):
    plant, ctx, _, surfaces = hydro
    a = surface_mesh(plant.ComputeContactSurfaces(ctx))  # host ContactSurface records
    b = surface_mesh(_first(surfaces))  # HydroSurface (device arrays)
    c = surface_mesh([s.polygons for s in _first(surfaces)])  # ContactPolygons
    assert len(a.faces) > 0
    for m in (b, c):
        np.testing.assert_array_equal(m.faces, a.faces)
        np.testing.assert_allclose(m.p_WV, a.p_WV, atol=TOL)
        np.testing.assert_allclose(m.pressure, a.pressure, atol=TOL)


# --- Export and the live viewer --------------------------------------------------------------------
def test_exported_rollout_holds_each_samples_surface(hydro, tmp_path):
    plant, _, out, surfaces = hydro
    path = export_html(plant, out, tmp_path / "hydro.html", contact_surfaces=surfaces, fps=None)
    with open(path, encoding="utf-8") as f:
        commands = scene_of(f.read())["commands"]
    objects = {c["path"]: c["object"] for c in commands if c["type"] == "set_object"}
    (anim,) = [c for c in commands if c["type"] == "set_animation"]
    clips = {a["path"]: a["clip"]["tracks"] for a in anim["animations"]}
    key_t = _floats(clips["/jaxbody/DefaultModelInstance/box"][0]["times"])
    host = [jax.tree.map(np.asarray, s.polygons) for s in surfaces]
    T = len(out.times)
    assert len(key_t) == T
    p_max = max(p.pressure[p.valid].max() for p in host)
    for k in range(T):
        obj = objects[f"{SURFACES}/{k}"]
        positions, faces, colors = _mesh_data(obj)
        pos, tris, pres = _fans([ContactPolygons(*(a[k] for a in p)) for p in host])
        num_triangles = sum(int(n) - 2 for p in host for n in p.num_vertices[k][p.valid[k]])
        assert len(faces) == len(tris) == num_triangles > 0
        np.testing.assert_array_equal(faces, tris)
        np.testing.assert_allclose(positions, pos, atol=F32_TOL)
        assert np.all((colors >= 0) & (colors <= 1))
        np.testing.assert_allclose(colors, pressure_colors(pres, p_max), atol=F32_TOL)
        material = obj["materials"][0]
        assert material["vertexColors"] is True and material["depthTest"] is False
        (visible,) = clips[f"{SURFACES}/{k}"]
        assert visible["name"] == ".visible"
        assert [_value_at(visible, t) for t in key_t] == [j == k for j in range(T)]
        assert _floats(visible["times"])[-1] == key_t[-1]  # every clip spans the animation


def test_per_sample_lists_equal_stacked_arrays(hydro):
    plant, ctx, out, surfaces = hydro
    q = np.asarray(out.states)[:, :plant.num_positions()]
    lists = [plant.ComputeContactSurfaces(plant.SetPositions(ctx, qk)) for qk in q]
    views = []
    for s in (surfaces, lists):
        viz = MeshcatVisualizer(plant)
        viz.PublishTrajectory(out, fps=None, contact_surfaces=s, max_pressure=1e5)
        views.append({p: _mesh_data(o) for p, o in viz.scene().objects().items()
                      if p.startswith(SURFACES)})
    assert sorted(views[0]) == sorted(views[1]) and len(views[0]) == len(q)
    for path in views[0]:
        for x, y in zip(views[0][path], views[1][path]):
            np.testing.assert_allclose(x, y, atol=F32_TOL)


def test_publish_draws_and_replaces_surfaces_live(hydro):
    plant, ctx, out, surfaces = hydro
    w = RecordingWindow()
    viz = MeshcatVisualizer(plant, meshcat=w)
    viz.Publish(ctx, contact_surfaces=plant.ComputeContactSurfaces(ctx), max_pressure=4e4)
    delete, draw = w.sent[-2:]
    assert (delete["type"], delete["path"]) == ("delete", SURFACES)
    assert (draw["type"], draw["path"]) == ("set_object", f"{SURFACES}/surface")
    positions, faces, colors = _mesh_data(draw["object"])
    mesh = surface_mesh(_first(surfaces))
    np.testing.assert_allclose(positions, mesh.p_WV, atol=F32_TOL)
    np.testing.assert_array_equal(faces, mesh.faces)
    np.testing.assert_allclose(colors, pressure_colors(mesh.pressure, 4e4), atol=F32_TOL)
    n = len(w.sent)
    viz.Publish(ctx)  # no contact_surfaces: the surface stays
    assert f"{SURFACES}/surface" in viz.scene().objects()
    assert all(c["type"] != "delete" for c in w.sent[n:])
    viz.Publish(ctx, contact_surfaces=[])  # no pair: nothing drawn
    assert not any(p.startswith(SURFACES) for p in viz.scene().objects())
    viz.PublishTrajectory(out, contact_surfaces=surfaces, fps=None)
    assert f"{SURFACES}/0" in viz.scene().objects()
    viz.PublishTrajectory(out, fps=None)  # a trajectory without surfaces removes them
    assert not any(p.startswith(SURFACES) for p in viz.scene().objects())
    assert w.sent[-2]["type"] == "delete" and w.sent[-1]["type"] == "set_animation"


def test_real_meshcat_server_receives_surfaces(hydro):
    meshcat = pytest.importorskip("meshcat")
    plant, ctx, _, surfaces = hydro
    vis = meshcat.Visualizer()
    try:
        viz = MeshcatVisualizer(plant, meshcat=vis)
        viz.Publish(ctx, contact_surfaces=_first(surfaces))
        html = vis.static_html()
        assert html.count("viewer.handle_command_bytearray") >= len(viz.scene().commands()) - 1
    finally:
        proc = vis.window.server_proc
        if proc is not None:
            proc.kill()
            proc.wait()


def test_net_pressure_force_holds_the_resting_box(hydro, tmp_path):
    plant, ctx, out, surfaces = hydro
    pts, f, mask = surface_net_forces(plant.ComputeContactSurfaces(ctx))
    assert pts.shape == f.shape == (1, 3) and mask.tolist() == [True]
    m = plant.CalcTotalMass(ctx)
    np.testing.assert_allclose(f[0], [0, 0, m * 9.81], rtol=WEIGHT_RTOL, atol=WEIGHT_RTOL)
    np.testing.assert_allclose(pts[0][:2], 0.0, atol=1e-9)  # centered under the box
    P, Fs, M = surface_net_forces(surfaces, num_steps=len(out.times))
    assert P.shape == Fs.shape == (len(out.times), 1, 3)
    np.testing.assert_allclose(Fs[0], f, atol=1e-9)
    export_html(plant, out, tmp_path / "arrows.html", contact_surfaces=surfaces,
                contact_points=P, contact_forces=Fs, contact_mask=M)
    empty = contact_polygons([], [], slots=2, invalid=(0, 1))
    pts, f, mask = surface_net_forces([empty])
    assert mask.tolist() == [False] and not f.any()


# --- Argument checks ---------------------------------------------------------------------------------
def _bad(**fields):
    return contact_polygons([square(0.0)], [1e5])._replace(**fields)


@pytest.mark.parametrize("surfaces, num_steps, error, match", [
    ([object()], None, TypeError, r"contact_surfaces\[0\]: expected a HydroSurface"),
    ([_bad(pressure=np.ones(2))], None, ValueError, r"contact_surfaces\[0\].pressure"),
    ([_bad(vertices=np.zeros((1, 5, 2)))], None, ValueError, r"\.vertices: expected shape"),
    ([_bad(pressure=np.array([np.nan]))], None, ValueError, "non-finite"),
    ([_bad(num_vertices=np.array([6]))], None, ValueError, "more than V = 5 vertices"),
    ([_bad()], 3, ValueError, r"contact_surfaces\[0\].valid: expected shape \(3, F\)"),
    ([[_bad()], [_bad()]], 3, ValueError, "list of 3 per-sample lists"),
])
def test_bad_surfaces_raise(surfaces, num_steps, error, match):
    from jaxbody.visualization.contact_surfaces import surface_samples

    with pytest.raises(error, match=match):
        surface_samples(surfaces, num_steps)


def test_bad_calls_raise(hydro):
    plant, ctx, out, surfaces = hydro
    viz = MeshcatVisualizer(plant)
    with pytest.raises(ValueError, match="max_pressure"):
        viz.Publish(ctx, contact_surfaces=[_bad()], max_pressure=-1.0)
    with pytest.raises(ValueError, match="ContactSurface is one configuration"):
        viz.PublishTrajectory(out, contact_surfaces=plant.ComputeContactSurfaces(ctx))
    with pytest.raises(ValueError, match=r"expected shape \(F\)"):  # stacked, to Publish
        viz.Publish(ctx, contact_surfaces=surfaces)
