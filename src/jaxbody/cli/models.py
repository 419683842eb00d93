"""Model files for the command line: parse a URDF, SDFormat or MJCF file into a plant, resolve
its ``package://`` URIs, add a ground, and start the model in a state worth watching: joint
positions inside their limits, free-floating models resting on the ground (or, with
``fixed_base``, the root welded to the world), and with ``hold`` a PD controller on every
actuated joint holding that posture.

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
from jaxbody.geometry.collision import ContactQueryOptions

LIFT_CLEARANCE = 1e-3  # m: free-floating models start with their lowest geometry this high
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


def example_robot_data():
    """The folder of the installed example-robot-data wheel's package (its URDFs name it
    ``package://example-robot-data``, its package.xml another name; the robots are in
    ``robots/``), or None. From a shell: ``python -m jaxbody.cli.robots`` (the robots folder)."""
    try:
        files = importlib.metadata.distribution("example-robot-data").files or ()
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if str(f).replace("\\", "/").endswith("share/example-robot-data/package.xml"):
            return os.path.dirname(str(f.locate()))
    return None


ERD_MISSING = ("example-robot-data is not installed (the README's robot commands use its models): "
               "pip install example-robot-data")


def _robots_hint(path):
    """A hint for a missing model path that came from an empty or failed ``$ROBOTS`` (the
    README's example-robot-data folder), when that wheel is not installed."""
    p = str(path).replace("\\", "/")
    if (p.startswith(("None/", "/robots/")) or "/None/robots/" in p) and example_robot_data() is None:
        return f"; {ERD_MISSING}"
    return ""


def parse(plant, path, package_paths=(), packages=()) -> list:
    """Adds the models of ``path`` to ``plant``; returns the parser's warnings (strings)."""
    if not os.path.isfile(path):
        raise CliError(f"model file not found: {path}{_robots_hint(path)}")
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
    erd = example_robot_data()
    if erd is not None and not pm.Contains("example-robot-data"):
        pm.Add("example-robot-data", erd)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", jb.ParseWarning)
        try:
            parser.AddModels(path)
        except jb.ParseError as e:
            text = str(e)
            if "refers to unknown package" in text:
                text = text.split(" (add it with ")[0] + (
                    ": pass --package NAME=FOLDER (the folder that holds the package) or "
                    "--package-path FOLDER (searched for package.xml files); the robots of "
                    "example-robot-data resolve once it is installed (pip install "
                    "example-robot-data)")
                raise CliError(text) from None
            raise
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


def _root_bodies(plant):
    """The bodies no joint has as its child (before Finalize: the ones it would float)."""
    children = {int(plant.get_joint(i).child_body().index()) for i in range(plant.num_joints())}
    return [plant.get_body(i) for i in range(1, plant.num_bodies()) if i not in children]


def _clamp_into_limits(plant, context):
    """(context, joints moved): every position inside its joint's limits (Drake keeps a
    default position of 0 even outside the limits; a simulation started there snaps)."""
    q = np.asarray(context.q, float)
    lo, hi = np.asarray(plant.GetPositionLowerLimits()), np.asarray(plant.GetPositionUpperLimits())
    clamped = np.clip(q, lo, hi)
    moved = []
    for i in range(plant.num_joints()):
        j = plant.get_joint(i)
        span = slice(j.position_start(), j.position_start() + j.num_positions())
        if np.any(clamped[span] != q[span]):
            moved.append(j.name())
    return (plant.SetPositions(context, clamped) if moved else context), moved


POSTURE_FOR_HOLD = "standing"  # the SRDF group state --hold starts from when it is there


def srdf_posture(model_path, srdf=None, name=None):
    """(joint name -> positions, file name, ``name``) of the SRDF group state ``name`` (MoveIt's
    ``<group_state><joint name value>``), read from ``srdf`` or else from the ``.srdf`` files
    in ``../srdf/`` beside the model (as example-robot-data lays them out); None when ``name``
    is None or (with no ``srdf`` given) nothing beside the model has it.

    Raises:
        CliError: ``srdf`` unreadable, or without the state ``name``.
    """
    import glob

    from defusedxml import ElementTree

    if name is None:
        return None
    files = [srdf] if srdf else sorted(glob.glob(os.path.join(
        os.path.dirname(os.path.abspath(model_path)), os.pardir, "srdf", "*.srdf")))
    for f in files:
        try:
            root = ElementTree.parse(f).getroot()
        except (OSError, ElementTree.ParseError) as e:
            if srdf:
                raise CliError(f"--srdf: cannot read {f}: {e}") from None
            continue
        for state in root.iter("group_state"):
            if state.get("name") == name:
                values = {j.get("name"): np.array(j.get("value", "").split(), float)
                          for j in state.iter("joint") if j.get("name")}
                return values, os.path.basename(f), name
    if srdf:
        raise CliError(f"--posture: {srdf} has no group_state named '{name}'")
    return None


def _apply_posture(plant, context, posture):
    """The context with the 1-dof joints named in ``posture`` set; (context, joints set)."""
    q = np.asarray(context.q, float).copy()
    done = []
    for i in range(plant.num_joints()):
        j = plant.get_joint(i)
        value = posture.get(j.name())
        if value is not None and j.num_positions() == 1 and value.size == 1:
            q[j.position_start()] = value[0]
            done.append(j.name())
    return plant.SetPositions(context, q), done


def hold_gains(plant):
    """PD gains of ``--hold``: Kp = 20 N·m/rad per kg of the model (a 12 kg quadruped: 240),
    Kd = Kp/20 s."""
    mass = sum(float(plant.get_body(i).default_mass()) for i in range(1, plant.num_bodies()))
    kp = 20.0 * max(mass, 0.1)
    return jb.PdControllerGains(p=kp, d=kp / 20.0)


def _actuate_all(plant):
    """Adds an actuator (unlimited effort) on every 1-dof joint that has none; returns how many."""
    actuators = [plant.get_joint_actuator(jb.JointActuatorIndex(i))
                 for i in range(plant.num_actuators())]
    actuated = {a.joint().index() for a in actuators}
    taken = {a.name() for a in actuators}
    added = 0
    for i in range(plant.num_joints()):
        joint = plant.get_joint(jb.JointIndex(i))
        if joint.num_velocities() == 1 and joint.index() not in actuated:
            name = f"{joint.name()}_actuator"
            while name in taken:  # a file's own actuator may already have that name
                name += "_"
            taken.add(name)
            plant.AddJointActuator(name, joint)
            added += 1
    return added


def load_model(path, *, time_step=0.0, package_paths=(), packages=(), ground=False,
               self_collision=False, on_warning=None, fixed_base=False, hold=False,
               posture=None, srdf=None, actuate_all=False, multi_point=False,
               max_hull_vertices=None, max_hull_pairs=None) -> Model:
    """A finalized plant of the models in ``path`` and its initial context.

    With ``ground``, a ground half-space is added (unless the file has one): at z = 0, or just
    under a fixed-base model that reaches below z = 0; free-floating models are lifted so that
    their lowest geometry is `LIFT_CLEARANCE` above it. Without ``self_collision`` the model's
    geometries collide only with the world's (the ground), not with each other. Joint
    positions start inside their limits. ``fixed_base``: the root bodies are welded to the
    world where the file puts them. ``hold``: every actuator gets `hold_gains` (the caller
    passes the initial posture as the desired state). ``posture``: the SRDF group state to
    start from (`srdf_posture`; with ``hold`` and no ``posture``, "standing" when the model's
    SRDF has it). ``actuate_all``: every 1-dof joint without an actuator gets one (unlimited
    effort), for models whose file declares none (go2's URDF has no transmissions).
    ``multi_point``: multi-point contact manifolds instead of Drake's one point per pair;
    ``max_hull_vertices``: every mesh's convex hull simplified to at most that many vertices;
    ``max_hull_pairs``: at most that many hull pairs evaluated per group and step (all three
    `ContactQueryOptions`). ``Model.notes`` says what was changed.
    """
    if posture is None and hold:
        found = srdf_posture(path, srdf, POSTURE_FOR_HOLD) if srdf is None else None
    else:
        found = srdf_posture(path, srdf, posture)
        if posture is not None and found is None:
            raise CliError(f"--posture: no SRDF beside {os.path.basename(path)} (in ../srdf/) "
                           f"has a group_state named '{posture}'; pass --srdf FILE")
    plant = jb.MultibodyPlant(time_step)
    if multi_point or max_hull_vertices is not None or max_hull_pairs is not None:
        extra = {} if max_hull_pairs is None else {"max_hull_pairs_per_group": max_hull_pairs}
        plant.set_contact_query_options(ContactQueryOptions(
            single_point=not multi_point, max_hull_vertices=max_hull_vertices, **extra))
    for w in parse(plant, path, package_paths, packages):
        if on_warning is not None:
            on_warning(w)
    notes = []
    if max_hull_pairs is not None:
        notes.append(f"at most {max_hull_pairs} mesh-hull pairs evaluated per kind of pair and "
                     "step (--max-hull-pairs)")
    if max_hull_vertices is not None:
        notes.append(f"mesh convex hulls simplified to at most {max_hull_vertices} vertices "
                     "(--max-hull-vertices)")
    if fixed_base:
        roots = _root_bodies(plant)
        if not roots:
            raise CliError(f"--fixed-base: {os.path.basename(path)} has no free root body to "
                           "weld (its root is already jointed to the world)")
        for body in roots:
            plant.WeldFrames(plant.world_frame(), body.body_frame())
        notes.append(f"welded {', '.join(repr(b.name()) for b in roots)} to the world")
    if actuate_all:
        added = _actuate_all(plant)
        notes.append(f"added actuators on {added} joint{'s' if added != 1 else ''} "
                     "(--actuate-all)")
    if hold:
        if not plant.num_actuators():
            raise CliError(f"--hold: {os.path.basename(path)} has no actuators to hold its "
                           "posture with (its file declares none); add --actuate-all to "
                           "actuate every 1-dof joint")
        gains = hold_gains(plant)
        for i in range(plant.num_actuators()):
            plant.get_joint_actuator(jb.JointActuatorIndex(i)).set_controller_gains(gains)
        notes.append(f"PD hold on {plant.num_actuators()} actuated joints (Kp {gains.p:.3g}, "
                     f"Kd {gains.d:.3g})")
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
        context, notes = _start(plant, found, notes)
        return Model(plant, context, name, notes=notes)
    # Where the ground goes depends on the finalized model: build it once to look.
    probe = jb.MultibodyPlant(0.0)
    parse(probe, path, package_paths, packages)
    if fixed_base:
        for body in _root_bodies(probe):
            probe.WeldFrames(probe.world_frame(), body.body_frame())
    probe.Finalize()
    welded = {int(b.index()) for b in probe.GetBodiesWeldedTo(probe.world_body())}
    moving = set(range(1, probe.num_bodies())) - welded
    floating = sorted(int(i) for i in probe.GetFloatingBaseBodies())
    z_ground = 0.0
    if not floating:
        probe_ctx, _ = _start(probe, found, [])
        z_ground = min(0.0, _lowest(probe, probe_ctx, moving) - GROUND_GAP)
    add_ground(plant, z_ground, visual=plant.num_visual_geometries() > 0)
    plant.Finalize()
    context, notes = _start(plant, found, notes)
    roots = _trees(plant)
    free = {b for b, root in roots.items() if root in floating}
    lift = z_ground + LIFT_CLEARANCE - _lowest(plant, context, free) if floating else 0.0
    if np.isfinite(lift) and lift > 0:
        for index in floating:
            body = plant.get_body(index)
            X = plant.GetFreeBodyPose(context, body)
            context = plant.SetFreeBodyPose(context, body, jb.RigidTransform(
                X.rotation(), np.asarray(X.translation()) + [0.0, 0.0, lift]))
    return Model(plant, context, name, notes=notes)


def _start(plant, found, notes):
    """The initial context: the SRDF posture ``found`` (or None), then every position inside
    its limits; and the notes saying so."""
    context = plant.CreateDefaultContext()
    if found is not None:
        context, done = _apply_posture(plant, context, found[0])
        notes = notes + [f"started from the '{found[2]}' group state of {found[1]} "
                         f"({len(done)} joints)"]
    context, moved = _clamp_into_limits(plant, context)
    return context, _moved_note(moved, notes)


def _moved_note(moved, notes):
    if moved:
        shown = ", ".join(moved[:4]) + (f" and {len(moved) - 4} more" if len(moved) > 4 else "")
        notes = notes + [f"{len(moved)} joint position{'s' if len(moved) > 1 else ''} moved "
                         f"into {'their' if len(moved) > 1 else 'its'} limits ({shown})"]
    return notes
