"""The exported HTML in a real browser (headless Chromium, software WebGL): the model is drawn
where the camera should see it, every shape kind renders, the animation advances, and contact
surfaces show in their pressure colors over the bodies.

Each check compares against a screenshot of the same page without the model (same camera,
grid and background), so "drawn" means "pixels differ from the empty scene".
"""

import jax
import numpy as np

import jaxbody as jb
from jaxbody.visualization import MeshcatVisualizer, export_html
from tests.helpers import chromium
from tests.visualization.viz_fixtures import contact_polygons, square, write_meshes

SIZE = (800, 400)  # px
CAMERA = ([3.0, 0.0, 0.0], [0.0, 0.0, 0.0])  # looking along -x: World +y is screen right
MIN_CHANGED = 25  # pixels that must differ for "something is drawn there"
FOCAL_PX = (SIZE[1] / 2) / np.tan(np.radians(75.0 / 2))  # meshcat's 75-degree vertical fov


def _column(y, depth=3.0):
    """Screen column (px) of World point (0, y, 0) seen from `CAMERA`."""
    return SIZE[0] / 2 + FOCAL_PX * y / depth


def _empty_page(tmp_path):
    plant = jb.MultibodyPlant(0.0)
    plant.Finalize()
    viz = MeshcatVisualizer(plant)
    viz.SetCameraPose(*CAMERA)
    return viz.SaveHtml(tmp_path / "empty.html", show_controls=False)


def _pendulum():
    """One 0.8 m link swinging about x (in the camera's image plane) from (0, 0, 0.5)."""
    plant = jb.MultibodyPlant(0.0)
    link = plant.AddRigidBody("link", jb.SpatialInertia.PointMass(1.0, np.array([0, 0, -0.8])))
    plant.RegisterVisualGeometry(link, jb.RigidTransform(p=[0, 0, -0.4]), jb.Capsule(0.05, 0.8),
                                 "rod", [0.1, 0.3, 0.9, 1.0])
    plant.RegisterVisualGeometry(link, jb.RigidTransform(p=[0, 0, -0.8]), jb.Sphere(0.12),
                                 "bob", [0.9, 0.2, 0.1, 1.0])
    F = plant.AddFrame(jb.FixedOffsetFrame("pivot", plant.world_frame(),
                                           jb.RigidTransform(p=[0, 0, 0.5])))
    plant.AddJoint(jb.RevoluteJoint("pin", F, link.body_frame(), [1, 0, 0]))
    plant.Finalize()
    return plant


def test_exported_animation_is_drawn_and_advances(tmp_path):
    chromium.chromium()
    plant = _pendulum()
    times = np.linspace(0.0, 4.0, 241)
    q = 1.2 * np.sin(2 * np.pi * times / 4.0)[:, None]  # swings right, then left, in 4 s
    page = export_html(plant, q, tmp_path / "pendulum.html", times=times, camera=CAMERA,
                       show_controls=False)
    empty = chromium.screenshot(_empty_page(tmp_path), size=SIZE, virtual_time_ms=300)
    early = chromium.screenshot(page, size=SIZE, virtual_time_ms=300)
    late = chromium.screenshot(page, size=SIZE, virtual_time_ms=2000)

    drawn = chromium.changed(early, empty)
    assert drawn.sum() > 20 * MIN_CHANGED
    rows, cols = np.nonzero(drawn)
    # the pendulum (1.1 m reach about a pivot on the camera axis) stays in the central region
    reach = FOCAL_PX * 1.2 / 3.0
    assert cols.min() > SIZE[0] / 2 - reach and cols.max() < SIZE[0] / 2 + reach
    assert rows.min() > SIZE[1] / 2 - reach and rows.max() < SIZE[1] / 2 + reach
    moved = chromium.changed(early, late)
    assert moved.sum() > 10 * MIN_CHANGED


def test_every_shape_kind_is_drawn(tmp_path):
    chromium.chromium()
    files = write_meshes(str(tmp_path))
    shapes = [jb.Box(0.2, 0.2, 0.2), jb.Sphere(0.12), jb.Cylinder(0.1, 0.25),
              jb.Capsule(0.08, 0.15), jb.Ellipsoid(0.08, 0.12, 0.15), jb.Mesh(files["obj"]),
              jb.Mesh(files["stl"]), jb.Mesh(files["ply"]), jb.Mesh(files["dae"]),
              jb.Convex(files["stl"])]
    ys = np.linspace(-1.8, 1.8, len(shapes))
    plant = jb.MultibodyPlant(0.0)
    for i, (shape, y) in enumerate(zip(shapes, ys)):
        color = None if i in (5, 8) else [0.9, 0.5, 0.1, 1.0]  # obj/dae: their own materials
        plant.RegisterVisualGeometry(plant.world_body(), jb.RigidTransform(p=[0, y, 0]), shape,
                                     f"shape{i}", color)
    plant.Finalize()
    viz = MeshcatVisualizer(plant)
    viz.SetCameraPose(*CAMERA)
    page = viz.SaveHtml(tmp_path / "shapes.html", show_controls=False)
    empty = chromium.screenshot(_empty_page(tmp_path), size=SIZE, virtual_time_ms=300)
    shot = chromium.screenshot(page, size=SIZE, virtual_time_ms=300)
    drawn = chromium.changed(shot, empty)
    for shape, y in zip(shapes, ys):
        c = int(round(_column(y)))
        band = drawn[:, c - 6:c + 7]
        assert band.sum() > MIN_CHANGED, f"{shape!r} at y={y:.2f} (column {c}) is not drawn"


def test_collision_geometry_is_drawn_when_there_is_no_visual(tmp_path):
    chromium.chromium()
    plant = jb.MultibodyPlant(0.0)
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.Box(0.5, 0.5, 0.5),
                                    "box", jb.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    viz = MeshcatVisualizer(plant)
    assert viz.role() is jb.Role.kProximity
    viz.SetCameraPose(*CAMERA)
    page = viz.SaveHtml(tmp_path / "collision.html", show_controls=False)
    empty = chromium.screenshot(_empty_page(tmp_path), size=(400, 200), virtual_time_ms=200)
    shot = chromium.screenshot(page, size=(400, 200), virtual_time_ms=200)
    assert chromium.changed(shot, empty)[80:120, 180:220].sum() > MIN_CHANGED


def _rgb_at(shot, y, z=0.0, half=3):
    """Mean RGB (0-255) of the pixels around World point (0, y, z) seen from `CAMERA`."""
    r, c = int(round(SIZE[1] / 2 - FOCAL_PX * z / 3.0)), int(round(_column(y)))
    return shot[r - half:r + half + 1, c - half:c + half + 1].reshape(-1, 3).mean(0)


def _is(rgb, channel):
    """The pixel is mostly ``channel`` (0 red, 2 blue)."""
    return rgb[channel] > 150 and rgb[2 - channel] < 80 and rgb[1] < 80


def test_contact_surfaces_show_over_bodies_in_pressure_colors(tmp_path):
    chromium.chromium()
    plant = jb.MultibodyPlant(0.0)  # an opaque wall between the camera and the surfaces
    plant.RegisterVisualGeometry(plant.world_body(), jb.RigidTransform(p=[0.5, 0, 0]),
                                 jb.Box(0.1, 2.0, 1.0), "wall", [0.5, 0.5, 0.5, 1.0])
    plant.Finalize()
    left, right = square(-0.6), square(0.2)  # centered at y = -0.4 and y = 0.4
    samples = [contact_polygons([left, right], p) for p in ([0.0, 1e5], [1e5, 0.0], [1e5, 0.0])]
    stacked = jax.tree.map(lambda *a: np.stack(a), *samples)  # (T = 3, F, ...)
    page = export_html(plant, np.zeros((3, 0)), tmp_path / "surfaces.html",
                       times=np.array([0.0, 2.0, 4.0]), contact_surfaces=[stacked],
                       camera=CAMERA, show_controls=False)
    first = chromium.screenshot(page, size=SIZE, virtual_time_ms=300)
    second = chromium.screenshot(page, size=SIZE, virtual_time_ms=2800)
    assert _is(_rgb_at(first, -0.4), 2) and _is(_rgb_at(first, 0.4), 0)  # 0 Pa blue, max red
    assert _is(_rgb_at(second, -0.4), 0) and _is(_rgb_at(second, 0.4), 2)  # the next sample
    wall = _rgb_at(first, 0.0)
    assert np.ptp(wall) < 20  # between the squares: the gray wall
