"""The mesh-robot scenes of `benchmarks/mesh_robots.py` and the GPU benchmark: example-robot-data
robots whose collision meshes are replaced by their convex hulls (OBJ files beside a rewritten
URDF, optionally simplified to a vertex budget), a ground half space, the same contact
properties for every engine; built as a jaxbody plant and as a MuJoCo model (MJX runs the
latter).

MuJoCo's model is the same URDF read by MuJoCo's own URDF importer (same links, inertias,
joints, limits and hull meshes), a free joint on the root body unless the base is welded, a
ground plane, friction μ on every geom, the same time step, MuJoCo's default (soft) contact and
solver settings. Self-collision off: robot geoms touch only the ground (contype/conaffinity);
on: MuJoCo's default filter (parent-child pairs excluded, as Drake's adjacent-link filter).
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

import numpy as np

from benchmarks.robot_files import example_robot_data_dir

ROBOTS = {  # name: (URDF under robots/, weld the base, self-collision)
    "panda": ("panda_description/urdf/panda.urdf", True, True),  # from POSTURES["panda"]
    "go2": ("go2_description/urdf/go2.urdf", False, False),
    "g1": ("g1_description/urdf/g1_29dof_rev_1_0.urdf", False, False),
    "talos": ("talos_data/robots/talos_full_v2.urdf", False, False),
}
POSTURES = {  # joint positions other than zero (the panda's zero posture folds its hand
    # 0.2 m deep into its forearm's hull: a ready pose instead)
    "panda": {"panda_joint2": -0.785, "panda_joint4": -2.356, "panda_joint6": 1.571,
              "panda_joint7": 0.785, "panda_finger_joint1": 0.02, "panda_finger_joint2": 0.02},
}
STIFFNESS, TAU, MU, DT, DROP = 2e5, 0.01, 1.0, 1e-3, 0.005
FREE_JOINT = "floating_base"  # MuJoCo's free joint on the root body
PROPS = (f"<drake:proximity_properties><drake:point_contact_stiffness value=\"{STIFFNESS:g}\"/>"
         f"<drake:relaxation_time value=\"{TAU:g}\"/><drake:mu_dynamic value=\"{MU:g}\"/>"
         f"<drake:mu_static value=\"{MU:g}\"/></drake:proximity_properties>")


def hull_urdf(robot: str, folder: str, max_vertices: int | None = None) -> str:
    """The robot's URDF with OBJ convex hulls for collision, no visuals, the shared contact
    properties; returns its path in ``folder`` (the hulls beside it, named relative to it).
    ``max_vertices``: each hull simplified to that many of its vertices first (jaxbody's
    `simplify_hull`), so that every engine reads the same simplified hulls."""
    import trimesh

    from jaxbody.geometry.collision.shape_data import simplify_hull

    erd = example_robot_data_dir()
    src = os.path.join(erd, "robots", ROBOTS[robot][0])
    text = open(src).read()
    text = re.sub(r"<visual\b.*?</visual>", "", text, flags=re.S)
    if 'xmlns:drake' not in text:
        text = re.sub(r"<robot\b", '<robot xmlns:drake="http://drake.mit.edu"', text, count=1)
    hulls = {}

    def resolve(uri):
        for prefix in ("package:///example-robot-data/", "package://example-robot-data/"):
            if uri.startswith(prefix):
                return os.path.join(erd, uri[len(prefix):])
        return os.path.normpath(os.path.join(os.path.dirname(src), uri))

    def collision(match):
        block = match.group(0)
        m = re.search(r'filename="([^"]+)"', block)
        if m:
            mesh = resolve(m.group(1))
            if mesh not in hulls:
                hulls[mesh] = f"{robot}_hull{len(hulls)}.obj"
                hull = trimesh.load(mesh, force="mesh").convex_hull
                if max_vertices is not None:
                    hull = trimesh.convex.convex_hull(simplify_hull(hull.vertices, max_vertices))
                hull.export(os.path.join(folder, hulls[mesh]))
            block = block.replace(m.group(0), f'filename="{hulls[mesh]}"')
            block = re.sub(r'\s*scale="[^"]*"', "", block)  # the hull is exported unscaled
        return block.replace("</collision>", PROPS + "</collision>")

    text = re.sub(r"<collision\b.*?</collision>", collision, text, flags=re.S)
    path = os.path.join(folder, f"{robot}_hulls.urdf")
    with open(path, "w") as f:
        f.write(text)
    return path


def initial_q(plant, posture=None):
    """Zero posture (or ``posture``: joint name -> position) clamped into the joint limits,
    the free base lifted DROP above the ground (its lowest geometry), with jaxbody's plant;
    returns q0 (nq,)."""
    import jaxbody as jb
    from jaxbody.cli.models import lowest_point

    ctx = plant.CreateDefaultContext()
    q = np.asarray(ctx.q, float).copy()
    for i in range(plant.num_joints()):
        j = plant.get_joint(jb.JointIndex(i))
        if j.num_positions() == 1:
            lo, hi = j.position_lower_limits()[0], j.position_upper_limits()[0]
            q[j.position_start()] = np.clip((posture or {}).get(j.name(), 0.0), lo, hi)
    ctx = plant.SetPositions(ctx, q)
    bases = list(plant.GetFloatingBaseBodies())
    if bases:
        world = plant.world_body().index()
        lowest = min(lowest_point(g.shape(), np.asarray(
            plant.EvalBodyPoseInWorld(ctx, g.body()).GetAsMatrix4())
            @ np.asarray(g.pose_in_body().GetAsMatrix4()))
            for g in plant.GetGeometries(jb.Role.kProximity) if g.body().index() != world)
        lift = DROP - lowest
        j = [plant.get_joint(jb.JointIndex(i)) for i in range(plant.num_joints())
             if plant.get_joint(jb.JointIndex(i)).num_positions() == 7][0]
        q = np.asarray(ctx.q, float).copy()
        q[j.position_start() + 6] += lift
    return q


def jaxbody_plant(urdf, weld, self_collision, time_step=DT):
    """The finalized jaxbody plant of a `hull_urdf` file: the base welded to the world if
    ``weld`` (the panda's ``panda_link0``), robot-robot pairs filtered unless
    ``self_collision``, a ground half space with the shared properties."""
    import jaxbody as jb

    plant = jb.MultibodyPlant(time_step)
    jb.Parser(plant).AddModels(urdf)
    robot = [g.geometry_id() for g in plant.GetGeometries(jb.Role.kProximity)]
    if weld:
        plant.WeldFrames(plant.world_frame(), plant.GetBodyByName("panda_link0").body_frame())
    if not self_collision:
        group = ("robot", jb.GeometrySet(robot))
        plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(group, group)
    props = jb.ProximityProperties()
    jb.AddContactMaterial(point_stiffness=STIFFNESS, friction=jb.CoulombFriction(MU, MU),
                          properties=props)
    props.AddProperty("material", "relaxation_time", TAU)
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                    "ground", props)
    plant.Finalize()
    return plant


class LayoutJoint(NamedTuple):
    """A moving joint in jaxbody's q/v layout, named as in MuJoCo's model."""

    kind: str  # "free" or "hinge"
    name: str
    q_start: int
    v_start: int


def joint_layout(plant):
    """[`LayoutJoint`] of the plant's moving joints."""
    import jaxbody as jb

    out = []
    for i in range(plant.num_joints()):
        j = plant.get_joint(jb.JointIndex(i))
        if j.num_positions() == 7:
            out.append(LayoutJoint("free", FREE_JOINT, j.position_start(), j.velocity_start()))
        elif j.num_positions() == 1:
            out.append(LayoutJoint("hinge", j.name(), j.position_start(), j.velocity_start()))
        elif j.num_positions():
            raise ValueError(f"joint {j.name()!r}: {j.num_positions()} positions (1 or 7 here)")
    return out



def mujoco_model(urdf, weld, self_collision, time_step=DT):
    """The `hull_urdf` file as an ``MjModel`` (see the module docstring)."""
    import mujoco

    spec = mujoco.MjSpec.from_file(urdf)
    spec.option.timestep = time_step
    if not weld:
        spec.worldbody.first_body().add_freejoint(name=FREE_JOINT)
    for g in spec.geoms:
        g.friction = [MU, 0.005, 0.0001]
        if not self_collision:
            g.contype, g.conaffinity = 1, 0
    spec.worldbody.add_geom(name="ground", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1],
                            friction=[MU, 0.005, 0.0001], contype=0 if not self_collision else 1,
                            conaffinity=1)
    return spec.compile()


def mujoco_engine(urdf, plant, weld, self_collision):
    """`contact_engines.MujocoContact` of the `mujoco_model`, in ``plant``'s q/v layout."""
    from benchmarks.contact_engines import MujocoContact

    return MujocoContact.of_model(mujoco_model(urdf, weld, self_collision), joint_layout(plant))


def perturbed_states(plant, q0, batch, rng):
    """(q (batch, nq), v (batch, nv)): row 0 is (q0, 0); the others move the free base by
    ≤ 1 mm sideways and 0..1 mm up and every one-dof joint by ≤ 0.01 rad (within its limits),
    and start with velocities uniform in ±0.01."""
    q = np.tile(np.asarray(q0, float), (batch, 1))
    v = rng.uniform(-0.01, 0.01, (batch, plant.num_velocities()))
    lo, hi = np.asarray(plant.GetPositionLowerLimits()), np.asarray(plant.GetPositionUpperLimits())
    for joint in joint_layout(plant):
        kind, qs = joint.kind, joint.q_start
        if kind == "free":
            q[:, qs + 4:qs + 6] += rng.uniform(-1e-3, 1e-3, (batch, 2))
            q[:, qs + 6] += rng.uniform(0.0, 1e-3, batch)
        else:
            q[:, qs] = np.clip(q[:, qs] + rng.uniform(-0.01, 0.01, batch), lo[qs], hi[qs])
    q[0], v[0] = q0, 0.0
    return q, v
