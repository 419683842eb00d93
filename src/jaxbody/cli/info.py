"""``jaxbody info [MODEL]``: what a model file (or a built-in scene) holds: bodies, joints
(kind, parent -> child), dofs, actuators, the kinematic tree, total mass and geometry counts.
Nothing is compiled: the plant is parsed and finalized, no more."""

from __future__ import annotations

from jaxbody.cli.models import load_model
from jaxbody.cli.scenes import SCENES


def add_arguments(p):
    p.add_argument("model", nargs="?", default=None,
                   help="URDF, SDFormat (.sdf) or MJCF (.xml) file; none: the --scene built in code")
    p.add_argument("--scene", default="boxes", choices=sorted(SCENES))
    p.add_argument("--package-path", action="append", default=[],
                   help="a folder searched for package.xml files (repeatable)")
    p.add_argument("--package", action="append", default=[], metavar="NAME=FOLDER",
                   help="resolve package://NAME/ to FOLDER (repeatable)")


def _tree(plant) -> list:
    """The kinematic tree, one line per body, indented by depth below the world (a reversed
    joint, whose child is inboard of its parent, is marked so)."""
    children = {}
    for b, (j, rev) in sorted(plant._inboard.items()):
        parent = j.child_body() if rev else j.parent_body()
        children.setdefault(int(parent.index()), []).append((int(j.index()), b, j, rev))
    lines = []

    def visit(body, depth, joint, rev):
        how = "" if joint is None else \
            f"  <- {joint.type_name()} '{joint.name()}'{' (reversed)' if rev else ''}"
        mass = "" if joint is None else f", {body.default_mass():.4g} kg"
        lines.append(f"  {'  ' * depth}{body.name()}{mass}{how}")
        for _, b, j, r in sorted(children.get(int(body.index()), []), key=lambda e: e[0]):
            visit(plant._bodies[b], depth + 1, j, r)

    visit(plant.world_body(), 0, None, False)
    return lines


def run(args, warn=None) -> list:
    """The report's lines."""
    if args.model is None:
        model = SCENES[args.scene](0.0)
    else:
        model = load_model(args.model, package_paths=args.package_path, packages=args.package,
                           on_warning=warn)
    plant = model.plant
    bodies = [plant.get_body(i) for i in range(1, plant.num_bodies())]
    lines = [f"{model.name}",
             f"  bodies:     {len(bodies)} (and the world), total mass "
             f"{sum(b.default_mass() for b in bodies):.6g} kg",
             f"  dofs:       nq = {plant.num_positions()}, nv = {plant.num_velocities()}",
             f"  geometry:   {plant.num_collision_geometries()} collision, "
             f"{plant.num_visual_geometries()} visual",
             f"  joints:     {plant.num_joints()}"]
    for i in range(plant.num_joints()):
        j = plant.get_joint(i)
        lines.append(f"    {j.name():24s} {j.type_name():20s} {j.parent_body().name()} -> "
                     f"{j.child_body().name()}  (q {j.num_positions()}, v {j.num_velocities()})")
    lines.append(f"  actuators:  {plant.num_actuators()}")
    for i in range(plant.num_actuators()):
        a = plant.get_joint_actuator(i)
        lines.append(f"    {a.name():24s} on '{a.joint().name()}', effort limit {a.effort_limit():g}")
    lines.append("  kinematic tree:")
    return lines + _tree(plant)
