"""Robots with mesh collision geometry, from their own URDFs: jaxbody vs Drake SAP, same run.

    python -m benchmarks.mesh_robots [--robots panda go2 g1 talos] [--steps 500] [--quick]

Each robot's URDF (example-robot-data) is rewritten once for both engines: every collision
mesh becomes its convex hull as an OBJ file (Drake 1.51 reads no STL for collision; jaxbody
reads the same OBJ), visuals are dropped, and every collision element gets the same
``<drake:proximity_properties>`` (k = 2e5 N/m, relaxation time 0.01 s, μ = 1). A ground half
space with the same properties; SAP, δt = 1 ms; no actuation (limp).

Scenes (the issue's table): the panda with its base welded, self-collision on (Drake's default
filters: adjacent links) plus the ground; g1, go2 and talos free, dropped from 5 mm above the
ground at their URDFs' zero posture (clamped into the joint limits), ground contact only
(robot-robot pairs filtered). Both engines start from the same q (checked: same coordinate
order) and the final states are compared (``max_dq``; Drake's FCL and jaxbody's GJK/EPA agree
on shallow contact, see docs/differences_from_drake.md).

Timed: jaxbody ``jax.jit(discrete_rollout)`` over ``--steps`` steps (compile apart, median of
``--repeats`` runs), Drake ``Simulator.AdvanceTo`` from a fresh context (median of ``--repeats``
runs after an untimed one). The ratio ``jaxbody/drake`` > 1 means jaxbody
is faster; the target is >= 1 at batch 1. MuJoCo is not run here yet. JSON rows go to
``benchmarks/results/mesh_robots_<machine>.json`` (``speedup_vs_drake`` per robot, in the README's
table).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import tempfile
import time

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
PROPS = (f"<drake:proximity_properties><drake:point_contact_stiffness value=\"{STIFFNESS:g}\"/>"
         f"<drake:relaxation_time value=\"{TAU:g}\"/><drake:mu_dynamic value=\"{MU:g}\"/>"
         f"<drake:mu_static value=\"{MU:g}\"/></drake:proximity_properties>")


def hull_urdf(robot: str, folder: str) -> str:
    """The robot's URDF with OBJ convex hulls for collision, no visuals, the shared contact
    properties; returns its path in ``folder``."""
    import trimesh

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
                hulls[mesh] = os.path.join(folder, f"hull{len(hulls)}.obj")
                loaded = trimesh.load(mesh, force="mesh")
                loaded.convex_hull.export(hulls[mesh])
            block = block.replace(m.group(0), f'filename="{hulls[mesh]}"')
            block = re.sub(r'\s*scale="[^"]*"', "", block)  # the hull is exported unscaled
        return block.replace("</collision>", PROPS + "</collision>")

    text = re.sub(r"<collision\b.*?</collision>", collision, text, flags=re.S)
    path = os.path.join(folder, f"{robot}_hulls.urdf")
    with open(path, "w") as f:
        f.write(text)
    return path


def _q0(plant, jb, posture=None):
    """Zero posture (or ``posture``: joint name -> position) clamped into the joint limits,
    the free base lifted DROP above the ground (its lowest geometry), with jaxbody's plant;
    returns q0 (nq,)."""
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


def run_jaxbody(urdf, weld, self_collision, steps, repeats, posture=None):
    import jax
    import jax.numpy as jnp

    import jaxbody as jb

    jax.config.update("jax_enable_x64", True)  # float64, as Drake (without it: float32)
    plant = jb.MultibodyPlant(DT)
    jb.Parser(plant).AddModels(urdf)
    robot = [g.geometry_id() for g in plant.GetGeometries(jb.Role.kProximity)]
    if weld:
        base = plant.GetBodyByName("panda_link0")
        plant.WeldFrames(plant.world_frame(), base.body_frame())
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
    q0 = _q0(plant, jb, posture)
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0))
    roll = jax.jit(lambda c: jb.discrete_rollout(plant, c, num_steps=steps,
                                                 save_trajectory=False))
    t = time.perf_counter()
    compiled = roll.lower(ctx).compile()
    compile_s = time.perf_counter() - t
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        r = jax.block_until_ready(compiled(ctx))
        times.append(time.perf_counter() - t)
    cost = plant.get_contact_query_cost()
    return q0, np.asarray(r.final_state[:plant.num_positions()]), dict(
        compile_s=compile_s, run_s=float(np.median(times)), dtype=str(r.final_state.dtype),
        converged=bool(np.all(np.asarray(r.converged) == 1.0)),
        candidate_pairs=cost.candidate_pairs, evaluated_pairs=cost.evaluated_pairs,
        gjk_epa_pairs=cost.gjk_epa_pairs)


def run_drake(urdf, weld, self_collision, q0, steps, repeats=1):
    from pydrake.geometry import (
        AddContactMaterial,
        CollisionFilterDeclaration,
        GeometrySet,
        HalfSpace,
        ProximityProperties,
        Role,
    )
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import (
        AddMultibodyPlantSceneGraph,
        CoulombFriction,
        DiscreteContactApproximation,
    )
    from pydrake.systems.analysis import Simulator
    from pydrake.systems.framework import DiagramBuilder

    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, DT)
    plant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
    Parser(plant).AddModels(urdf)
    robot = list(scene_graph.model_inspector().GetAllGeometryIds(Role.kProximity))
    if weld:
        plant.WeldFrames(plant.world_frame(), plant.GetBodyByName("panda_link0").body_frame())
    props = ProximityProperties()
    AddContactMaterial(point_stiffness=STIFFNESS, friction=CoulombFriction(MU, MU),
                       properties=props)
    props.AddProperty("material", "relaxation_time", TAU)
    plant.RegisterCollisionGeometry(plant.world_body(), HalfSpace.MakePose([0, 0, 1], [0, 0, 0]),
                                    HalfSpace(), "ground", props)
    plant.Finalize()
    if not self_collision:
        scene_graph.collision_filter_manager().Apply(
            CollisionFilterDeclaration().ExcludeWithin(GeometrySet(robot)))
    diagram = builder.Build()
    if plant.num_positions() != len(q0):
        raise RuntimeError(f"Drake has {plant.num_positions()} positions, jaxbody {len(q0)}")
    times = []
    for _ in range(repeats + 1):  # the first run warms Drake's caches up, untimed
        context = diagram.CreateDefaultContext()
        pc = plant.GetMyMutableContextFromRoot(context)
        plant.SetPositions(pc, q0)
        sim = Simulator(diagram, context)
        sim.Initialize()
        t = time.perf_counter()
        sim.AdvanceTo(steps * DT)
        times.append(time.perf_counter() - t)
    return np.asarray(plant.GetPositions(pc)), dict(run_s=float(np.median(times[1:])))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robots", nargs="+", default=list(ROBOTS), choices=list(ROBOTS))
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="go2 only, 50 steps, one repeat")
    ap.add_argument("--out", default=None, help="JSON path (default: benchmarks/results/...)")
    args = ap.parse_args(argv)
    if args.quick:
        args.robots, args.steps, args.repeats = ["go2"], 50, 1
    if args.steps < 1 or args.repeats < 1:
        ap.error(f"--steps and --repeats must be >= 1, got {args.steps} and {args.repeats}")
    if example_robot_data_dir() is None:
        raise SystemExit("example-robot-data is not installed (pip install example-robot-data)")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for robot in args.robots:
            _, weld, self_collision = ROBOTS[robot]
            urdf = hull_urdf(robot, folder)
            q0, q_jb, jb_info = run_jaxbody(urdf, weld, self_collision, args.steps, args.repeats,
                                            POSTURES.get(robot))
            q_dk, dk_info = run_drake(urdf, weld, self_collision, q0, args.steps, args.repeats)
            row = dict(engine="jaxbody", model=robot, batch=1, steps=args.steps,
                       self_collision=self_collision,
                       welded_base=weld,
                       jaxbody_steps_per_s=args.steps / jb_info["run_s"],
                       drake_steps_per_s=args.steps / dk_info["run_s"],
                       jaxbody_compile_s=jb_info["compile_s"],
                       max_dq=float(np.abs(q_jb - q_dk).max()), **{
                           k: v for k, v in jb_info.items() if k not in ("run_s", "compile_s")})
            row["speedup_vs_drake"] = row["jaxbody_steps_per_s"] / row["drake_steps_per_s"]
            rows.append(row)
            print(f"{robot:6s} jaxbody {row['jaxbody_steps_per_s']:8.0f} steps/s (compile "
                  f"{row['jaxbody_compile_s']:.1f} s)  Drake {row['drake_steps_per_s']:8.0f}  "
                  f"ratio {row['speedup_vs_drake']:.2f}  max|dq| {row['max_dq']:.1e}  pairs "
                  f"{row['evaluated_pairs']}/{row['candidate_pairs']} (GJK/EPA "
                  f"{row['gjk_epa_pairs']})", flush=True)
    out = args.out or os.path.join(os.path.dirname(__file__), "results",
                                   f"mesh_robots_{platform.system().lower()}-"
                                   f"{platform.machine()}-{os.cpu_count()}cpu.json")
    import importlib.metadata

    import jax

    from benchmarks.forward_kinematics import machine_info

    report = dict(
        benchmark="mesh_robots",
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        machine={**machine_info(), "load_average": list(os.getloadavg())},
        versions={"jax": jax.__version__, "drake": importlib.metadata.version("drake")},
        settings=dict(robots=args.robots, steps=args.steps, repeats=args.repeats, dt=DT,
                      point_contact_stiffness=STIFFNESS, relaxation_time=TAU, mu=MU, drop=DROP),
        ratio="speedup_vs_drake: jaxbody steps/s / Drake steps/s (> 1: jaxbody faster), "
              "both engines in one process, jaxbody float64",
        results=rows)
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
    print(f"wrote {out}")
    return rows


if __name__ == "__main__":
    main()
