"""Makes the README's screenshots: the Panda arm and the A1 quadruped (example-robot-data's
URDFs, with their meshes) and a contact scene (boxes and spheres resting on a ground plane,
with contact points and force arrows), each exported as a self-contained HTML page by
`jaxbody.visualization` and rendered by headless Chromium.

    python docs/make_screenshots.py            # writes docs/panda.png, docs/a1.png,
                                               # docs/contact_scene.png (and the .html pages
                                               # with --keep-html)

Needs the ``viz`` and ``reference`` extras (meshcat, example-robot-data) and ``chromium``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import jaxbody as jb  # noqa: E402
from benchmarks import robot_files  # noqa: E402
from jaxbody.visualization import MeshcatVisualizer  # noqa: E402
from jaxbody.visualization.threejs import shape_object  # noqa: E402

DOCS = os.path.dirname(os.path.abspath(__file__))
SIZE = (720, 420)  # px
GROUND_RGBA = (0.78, 0.80, 0.78, 1.0)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
                  "--disable-quic", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def robot(relpath, weld=None):
    """A finalized plant of an example-robot-data URDF (root link welded if ``weld``)."""
    erd = robot_files.example_robot_data_dir()
    if erd is None:
        sys.exit("example-robot-data is not installed (pip install example-robot-data)")
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    parser.package_map().Add("example-robot-data", erd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.ParseWarning)
        parser.AddModels(os.path.join(erd, "robots", relpath))
    if weld:
        plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(weld))
    plant.Finalize()
    return plant


def stage(viz):
    """A ground plane instead of meshcat's grid and axes."""
    viz.scene().set_object("/jaxbody/ground", shape_object(jb.HalfSpace(), GROUND_RGBA))
    viz.SetProperty("/Grid", "visible", False)
    viz.SetProperty("/Axes", "visible", False)


def panda():
    plant = robot("panda_description/urdf/panda.urdf", weld="panda_link0")
    q = np.zeros(plant.num_positions())
    q[:7] = [0.3, -0.5, -0.2, -2.2, 0.1, 1.9, 1.2]
    q[7:] = 0.03  # fingers open
    viz = MeshcatVisualizer(plant)
    stage(viz)
    viz.Publish(plant.SetPositions(plant.CreateDefaultContext(), q))
    viz.SetCameraPose([0.85, -0.562, 0.705], [0.25, 0.0, 0.42])
    return viz


def quadruped():
    plant = robot("a1_description/urdf/a1.urdf")
    q = np.zeros(plant.num_positions())
    q[0] = 1.0  # identity base orientation
    q[7:] = [0.0, 0.75, -1.5] * 4  # hip, thigh, calf of each leg: standing
    ctx = plant.SetPositions(plant.CreateDefaultContext(), q)
    feet = [plant.GetBodyByName(f"{leg}_foot") for leg in ("FR", "FL", "RR", "RL")]
    lowest = min(float(plant.EvalBodyPoseInWorld(ctx, f).translation()[2]) for f in feet)
    q[6] = 0.02 - lowest  # foot spheres (radius 0.02) touch the ground
    viz = MeshcatVisualizer(plant)
    stage(viz)
    viz.Publish(plant.SetPositions(ctx, q))
    viz.SetCameraPose([0.375, -0.375, 0.328], [0.0, 0.0, 0.17])
    return viz


def contact_scene():
    """Boxes and spheres at rest on the ground; contact points and forces (m g shared by each
    body's contact points) drawn as arrows. The bodies are translucent: the forces on them
    point into them."""
    g = 9.81
    plant = jb.MultibodyPlant(0.0)
    ground = jb.HalfSpace()
    plant.RegisterVisualGeometry(plant.world_body(), jb.RigidTransform(), ground, "ground",
                                 GROUND_RGBA)
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), ground, "ground",
                                    jb.CoulombFriction(0.8, 0.6))
    items = [  # (name, shape, mass, position of the center, color)
        ("box1", jb.Box(0.3, 0.3, 0.2), 2.0, [0.0, 0.0, 0.1], [0.85, 0.35, 0.15, 0.6]),
        ("box2", jb.Box(0.2, 0.2, 0.15), 1.0, [0.02, 0.03, 0.275], [0.95, 0.7, 0.2, 0.6]),
        ("box3", jb.Box(0.25, 0.15, 0.1), 1.5, [-0.05, -0.45, 0.05], [0.3, 0.55, 0.85, 0.6]),
        ("ball1", jb.Sphere(0.1), 1.0, [0.45, 0.1, 0.1], [0.2, 0.7, 0.35, 0.6]),
        ("ball2", jb.Sphere(0.07), 0.5, [0.3, -0.3, 0.07], [0.6, 0.3, 0.75, 0.6]),
        ("ball3", jb.Sphere(0.12), 1.2, [-0.4, 0.35, 0.12], [0.85, 0.2, 0.3, 0.6]),
    ]
    bodies = []
    for name, shape, m, _, rgba in items:
        inertia = (jb.SpatialInertia.SolidBoxWithMass(m, *shape.size()) if isinstance(shape, jb.Box)
                   else jb.SpatialInertia.SolidSphereWithMass(m, shape.radius()))
        body = plant.AddRigidBody(name, inertia)
        plant.RegisterVisualGeometry(body, jb.RigidTransform(), shape, name, rgba)
        plant.RegisterCollisionGeometry(body, jb.RigidTransform(), shape, name,
                                        jb.CoulombFriction(0.8, 0.6))
        bodies.append(body)
    plant.Finalize()
    ctx = plant.CreateDefaultContext()
    points, forces = [], []
    for body, (_, shape, m, p, _) in zip(bodies, items):
        ctx = plant.SetFreeBodyPose(ctx, body, jb.RigidTransform(p=p))
        if isinstance(shape, jb.Sphere):
            points.append([p[0], p[1], 0.0])
            forces.append([0.0, 0.0, m * g])
    # box1 carries box2: its four bottom corners share both weights; box2's and box3's corners
    for (_, shape, _, p, _), load in zip(items[:3], (3.0, 1.0, 1.5)):
        w, d, h = shape.size() / 2
        for sx, sy in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
            points.append([p[0] + sx * w * 0.95, p[1] + sy * d * 0.95, p[2] - h])
            forces.append([0.0, 0.0, load * g / 4])
    viz = MeshcatVisualizer(plant)
    viz.SetProperty("/Grid", "visible", False)
    viz.SetProperty("/Axes", "visible", False)
    viz.Publish(ctx, contact_points=np.array(points), contact_forces=np.array(forces),
                force_scale=0.012)
    viz.SetCameraPose([0.638, -0.538, 0.47], [0.0, -0.05, 0.08])
    return viz


def screenshot(html, png, chromium, virtual_time_ms=3000):
    from PIL import Image

    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "shot.png")
        subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp}/profile",
                        f"--screenshot={raw}", f"--window-size={SIZE[0]},{SIZE[1]}",
                        f"--virtual-time-budget={virtual_time_ms}", "file://" + html],
                       check=True, capture_output=True, timeout=300)
        image = Image.open(raw).convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
        image.save(png, optimize=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep-html", action="store_true", help="keep the HTML pages in docs/")
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("chromium is not installed (apt-get install chromium)")
    out = tempfile.mkdtemp()
    for name, make in (("panda", panda), ("a1", quadruped), ("contact_scene", contact_scene)):
        viz = make()
        html = os.path.join(DOCS if args.keep_html else out, f"{name}.html")
        viz.SaveHtml(html, title=f"jaxbody: {name}", show_controls=False)
        png = os.path.join(DOCS, f"{name}.png")
        screenshot(html, png, chromium)
        print(f"{png}: {os.path.getsize(png) / 1024:.0f} KiB")
    shutil.rmtree(out)


if __name__ == "__main__":
    main()
