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
is faster; the target is >= 1 at batch 1. MuJoCo C (``mujoco.rollout``, one thread) runs the
same hulls with its own soft contact (`mesh_scenes`; ``speedup_vs_mujoco``, speed only; skip it
with ``--no-mujoco``). ``--write-hulls DIR`` only writes the hull URDFs (``benchmarks.gpu``'s
mesh scenes read them). JSON rows go to
``benchmarks/results/mesh_robots_<machine>.json`` (``speedup_vs_drake`` per robot, in the README's
table).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import tempfile
import time

import numpy as np

from benchmarks.mesh_scenes import (
    DROP,
    DT,
    MU,
    POSTURES,
    ROBOTS,
    STIFFNESS,
    TAU,
    hull_urdf,
    initial_q,
    jaxbody_plant,
    mujoco_engine,
)
from benchmarks.robot_files import example_robot_data_dir


def run_jaxbody(urdf, weld, self_collision, steps, repeats, posture=None):
    import jax
    import jax.numpy as jnp

    import jaxbody as jb

    jax.config.update("jax_enable_x64", True)  # float64, as Drake (without it: float32)
    plant = jaxbody_plant(urdf, weld, self_collision)
    q0 = initial_q(plant, posture)
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


def run_mujoco(urdf, weld, self_collision, q0, steps, repeats):
    """MuJoCo C (``mujoco.rollout``, one thread) on the same hulls, from q0 at rest: the median
    of ``repeats`` runs (after an untimed one); its own soft contact (`mesh_scenes`), so its
    final state is not compared."""
    plant = jaxbody_plant(urdf, weld, self_collision)  # for the q/v layout
    engine = mujoco_engine(urdf, plant, weld, self_collision)
    v0 = np.zeros(plant.num_velocities())
    call = engine.rollout_call(q0[None], v0[None], steps)
    times = []
    for _ in range(repeats + 1):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return dict(run_s=float(np.median(times[1:])), ngeom=int(engine.model.ngeom))


def run_batched(urdf, weld, self_collision, q0, steps, repeats, batch, seed=0):
    """jaxbody's ``jax.jit(jax.vmap(discrete_rollout))`` over ``batch`` perturbed copies
    (`mesh_scenes.perturbed_states`, env 0 unperturbed): env-steps/s and compile time."""
    from benchmarks import contact_engines as ce
    from benchmarks.mesh_scenes import perturbed_states

    plant = jaxbody_plant(urdf, weld, self_collision)
    q, v = perturbed_states(plant, q0, batch, np.random.default_rng(seed))
    engine = ce.JaxbodyContact(None, "float64", plant=plant)
    call, comp, (x, it, ok) = engine.compiled(q, v, steps)
    t = ce.timed(call, repeats)
    return dict(env_steps_per_s=batch * steps / t["run_median_s"], compile_s=comp["compile_s"],
                converged=bool(np.min(ok) > 0), all_finite=bool(np.isfinite(x).all()),
                cpu_per_wall=t["cpu_per_wall"])


def write_hulls(robots, folder, max_vertices):
    """Writes each robot's `hull_urdf` (and hulls) into ``folder``; returns the paths."""
    os.makedirs(folder, exist_ok=True)
    return [hull_urdf(r, folder, max_vertices) for r in robots]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robots", nargs="+", default=list(ROBOTS), choices=list(ROBOTS))
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="go2 only, 50 steps, one repeat")
    ap.add_argument("--out", default=None, help="JSON path (default: benchmarks/results/...)")
    ap.add_argument("--no-mujoco", action="store_true", help="Drake only beside jaxbody")
    ap.add_argument("--batches", nargs="+", type=int, default=[],
                    help="also run jaxbody batched (vmap) at these sizes: env-steps/s per core "
                         "against Drake's one thread (speedup_vs_drake of the batch's row)")
    ap.add_argument("--cpus", type=int, default=None,
                    help="pin the process to this many CPUs first (the batched rows' cores)")
    ap.add_argument("--write-hulls", metavar="DIR",
                    help="only write the robots' hull URDFs into DIR (for benchmarks.gpu)")
    ap.add_argument("--max-hull-vertices", type=int,
                    help="with --write-hulls: simplify each hull to this many vertices")
    args = ap.parse_args(argv)
    if args.quick:
        args.robots, args.steps, args.repeats = ["go2"], 50, 1
    if args.steps < 1 or args.repeats < 1:
        ap.error(f"--steps and --repeats must be >= 1, got {args.steps} and {args.repeats}")
    if example_robot_data_dir() is None:
        raise SystemExit("example-robot-data is not installed (pip install example-robot-data)")
    if args.cpus and hasattr(os, "sched_setaffinity"):  # before XLA sizes its thread pool
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:args.cpus])
    if args.write_hulls:
        for path in write_hulls(args.robots, args.write_hulls, args.max_hull_vertices):
            print(path)
        return []
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
            if not args.no_mujoco:
                mj_info = run_mujoco(urdf, weld, self_collision, q0, args.steps, args.repeats)
                row["mujoco_steps_per_s"] = args.steps / mj_info["run_s"]
                row["speedup_vs_mujoco"] = row["jaxbody_steps_per_s"] / row["mujoco_steps_per_s"]
            rows.append(row)
            cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
            for batch in args.batches:
                b = run_batched(urdf, weld, self_collision, q0, args.steps, args.repeats, batch)
                per_core = b["env_steps_per_s"] / cores
                rows.append(dict(engine="jaxbody", model=robot, batch=batch, steps=args.steps,
                                 cores=cores, jaxbody_env_steps_per_s=b["env_steps_per_s"],
                                 jaxbody_compile_s=b["compile_s"], converged=b["converged"],
                                 all_finite=b["all_finite"], cpu_per_wall=b["cpu_per_wall"],
                                 drake_steps_per_s=row["drake_steps_per_s"],
                                 speedup_vs_drake=per_core / row["drake_steps_per_s"]))
                print(f"{robot:6s} jaxbody batch {batch}: {b['env_steps_per_s']:8.0f} env-steps/s "
                      f"on {cores} core(s) (compile {b['compile_s']:.1f} s), per core "
                      f"{per_core / row['drake_steps_per_s']:.2f}x Drake's one thread", flush=True)
            print(f"{robot:6s} jaxbody {row['jaxbody_steps_per_s']:8.0f} steps/s (compile "
                  f"{row['jaxbody_compile_s']:.1f} s)  Drake {row['drake_steps_per_s']:8.0f}  "
                  f"ratio {row['speedup_vs_drake']:.2f}  max|dq| {row['max_dq']:.1e}  pairs "
                  f"{row['evaluated_pairs']}/{row['candidate_pairs']} (GJK/EPA "
                  f"{row['gjk_epa_pairs']})"
                  + (f"  MuJoCo {row['mujoco_steps_per_s']:8.0f} (ratio "
                     f"{row['speedup_vs_mujoco']:.3f})" if "mujoco_steps_per_s" in row else ""),
                  flush=True)
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
        versions={"jax": jax.__version__, "drake": importlib.metadata.version("drake"),
                  "mujoco": None if args.no_mujoco else importlib.metadata.version("mujoco")},
        settings=dict(robots=args.robots, steps=args.steps, repeats=args.repeats, dt=DT,
                      batches=args.batches, cpus=args.cpus,
                      point_contact_stiffness=STIFFNESS, relaxation_time=TAU, mu=MU, drop=DROP),
        ratio="speedup_vs_drake (speedup_vs_mujoco): jaxbody steps/s / Drake's (MuJoCo C's, "
              "one thread, its own soft contact) (> 1: jaxbody faster), "
              "both engines in one process, jaxbody float64",
        results=rows)
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
    print(f"wrote {out}")
    return rows


if __name__ == "__main__":
    main()
