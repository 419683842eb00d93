"""Model files for the command line: parse a URDF, SDFormat or MJCF file into a plant, resolve
its ``package://`` URIs, add a ground, and start free-floating models above it.

Packages come from ``--package NAME=FOLDER``, the ``--package-path`` folders, the
``package.xml`` files above the model (as Drake's ``PackageMap::PopulateUpstreamToDrake``) and
the installed example-robot-data wheel. Parser warnings are collected, not printed as Python
warnings; parse errors keep the parser's ``file:line: <element>: error: ...`` text.
"""

from __future__ import annotations

import importlib.metadata
import os
import warnings

import numpy as np

import jaxbody as jb
from jaxbody.cli.scenes import Model, add_ground

LIFT_CLEARANCE = 0.05  # m: free-floating models start with their lowest geometry this high
GROUND_GAP = 0.01  # m: a fixed-base model reaching below z = 0 gets its ground this far under it


class CliError(Exception):
    """A user error: printed as one line on stderr, exit status 1."""


def _add_upstream_packages(package_map, model_path):
    """Adds the package of every ``package.xml`` in the model's folder and its parents."""
    folder = os.path.dirname(os.path.abspath(model_path))
    while True:
        xml = os.path.join(folder, "package.xml")
        if os.path.isfile(xml):
            try:
                package_map.AddPackageXml(xml)
            except ValueError:
                pass  # an unreadable or already-known package.xml names nothing new
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def _example_robot_data():
    """The folder of the installed example-robot-data wheel's package (its URDFs name it
    ``package://example-robot-data``, its package.xml another name), or None."""
    try:
        files = importlib.metadata.distribution("example-robot-data").files or ()
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if str(f).replace("\\", "/").endswith("share/example-robot-data/package.xml"):
            return os.path.dirname(str(f.locate()))
    return None


def parse(plant, path, package_paths=(), packages=()) -> list:
    """Adds the models of ``path`` to ``plant``; returns the parser's warnings (strings)."""
    if not os.path.isfile(path):
        raise CliError(f"model file not found: {path}")
    parser = jb.Parser(plant)
    pm = parser.package_map()
    for spec in packages:
        name, sep, folder = spec.partition("=")
        if not sep or not name or not os.path.isdir(folder):
            raise CliError(f"--package: expected NAME=FOLDER with an existing folder, got {spec!r}")
        pm.Add(name, folder)
    for folder in package_paths:
        if not os.path.isdir(folder):
            raise CliError(f"--package-path: not a folder: {folder}")
        pm.PopulateFromFolder(folder)
    _add_upstream_packages(pm, path)
    erd = _example_robot_data()
    if erd is not None and not pm.Contains("example-robot-data"):
        pm.Add("example-robot-data", erd)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", jb.ParseWarning)
        parser.AddModels(path)
    return [" ".join(str(w.message).split()) for w in caught if issubclass(w.category, jb.ParseWarning)]


def lowest_point(shape, X_WG) -> float:
    """The least world z of ``shape`` posed at ``X_WG`` (4×4), or +inf for a half-space."""
    R, p = X_WG[:3, :3], X_WG[:3, 3]
    r = R[2]  # row z of R_WG: the world z of a unit vector along each G axis
    if isinstance(shape, jb.HalfSpace):
        return np.inf
    if isinstance(shape, jb.Sphere):
        return p[2] - shape.radius()
    if isinstance(shape, jb.Box):
        return p[2] - 0.5 * float(np.abs(r) @ shape.size())
    if isinstance(shape, (jb.Capsule, jb.Cylinder)):
        side = np.sqrt(max(0.0, 1.0 - r[2] ** 2)) if isinstance(shape, jb.Cylinder) else 1.0
        return p[2] - 0.5 * shape.length() * abs(r[2]) - shape.radius() * side
    if isinstance(shape, jb.Ellipsoid):
        return p[2] - float(np.linalg.norm(r * [shape.a(), shape.b(), shape.c()]))
    V, _ = shape.GetConvexHull()  # Mesh, Convex
    return p[2] + float((V @ r).min())


def _trees(plant) -> dict:
    """Body index -> the index of its tree's root (the body whose joint attaches to the world)."""
    parent = {}
    for i in range(plant.num_joints()):
        j = plant.get_joint(i)
        parent[int(j.child_body().index())] = int(j.parent_body().index())
    world, roots = int(plant.world_body().index()), {}
    for b in range(1, plant.num_bodies()):
        node = b
        while parent.get(node, world) != world:
            node = parent[node]
        roots[b] = node
    return roots


def _lowest(plant, context, bodies):
    """The least world z of the collision geometry (visual where there is none) of ``bodies``
    (a set of body indices)."""
    role = jb.Role.kProximity if plant.num_collision_geometries() else jb.Role.kIllustration
    z = np.inf
    for g in plant.GetGeometries(role):
        body = g.body()
        if int(body.index()) in bodies:
            X_WB = np.asarray(plant.EvalBodyPoseInWorld(context, body).GetAsMatrix4())
            z = min(z, lowest_point(g.shape(), X_WB @ np.asarray(g.pose_in_body().GetAsMatrix4())))
    return z


def load_model(path, *, time_step=0.0, package_paths=(), packages=(), ground=False,
               self_collision=False, on_warning=None) -> Model:
    """A finalized plant of the models in ``path`` and its initial context.

    With ``ground``, a ground half-space is added (unless the file has one): at z = 0, or just
    under a fixed-base model that reaches below z = 0; free-floating models are lifted so that
    their lowest geometry is `LIFT_CLEARANCE` above it. Without ``self_collision`` the model's
    geometries collide only with the world's (the ground), not with each other.
    """
    plant = jb.MultibodyPlant(time_step)
    for w in parse(plant, path, package_paths, packages):
        if on_warning is not None:
            on_warning(w)
    name = os.path.basename(path)
    world = plant.world_body().index()
    moving = [g.geometry_id() for g in plant.GetGeometries(jb.Role.kProximity)
              if g.body().index() != world]
    if not self_collision and len(moving) > 1:
        group = ("model", jb.GeometrySet(moving))
        plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(group, group)
    has_ground = any(isinstance(g.shape(), jb.HalfSpace) and g.body().index() == world
                     for g in plant.GetGeometries(jb.Role.kProximity))
    if not (ground and not has_ground):
        plant.Finalize()
        return Model(plant, plant.CreateDefaultContext(), name)
    # Where the ground goes depends on the finalized model: build it once to look.
    probe = jb.MultibodyPlant(0.0)
    parse(probe, path, package_paths, packages)
    probe.Finalize()
    welded = {int(b.index()) for b in probe.GetBodiesWeldedTo(probe.world_body())}
    moving = set(range(1, probe.num_bodies())) - welded
    floating = sorted(int(i) for i in probe.GetFloatingBaseBodies())
    z_ground = 0.0
    if not floating:
        z_ground = min(0.0, _lowest(probe, probe.CreateDefaultContext(), moving) - GROUND_GAP)
    add_ground(plant, z_ground, visual=plant.num_visual_geometries() > 0)
    plant.Finalize()
    context = plant.CreateDefaultContext()
    roots = _trees(plant)
    free = {b for b, root in roots.items() if root in floating}
    lift = z_ground + LIFT_CLEARANCE - _lowest(plant, context, free) if floating else 0.0
    if np.isfinite(lift) and lift > 0:
        for index in floating:
            body = plant.get_body(index)
            X = plant.GetFreeBodyPose(context, body)
            context = plant.SetFreeBodyPose(context, body, jb.RigidTransform(
                X.rotation(), np.asarray(X.translation()) + [0.0, 0.0, lift]))
    return Model(plant, context, name)
