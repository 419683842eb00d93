"""GPU benchmark: batched contact rollouts (jaxbody SAP vs MJX) and batched dynamics kernels.

    python -m benchmarks.gpu [--scenes sphere1 spheres8 pile12 quadruped quadruped_falling]
        [--batches 16384 4096 1024] [--steps 100] [--dtype float64] [--repeats 3]
        [--models quadruped humanoid] [--kernels rnea crba aba aba_jac]
        [--dyn-batches 4096 65536] [--chunks 0 32 1024] [--sections mesh contact dynamics]
        [--mesh-robots go2] [--mesh-batches 4096 1024] [--mesh-dir .meshes]
        [--deadline-s 440] [--out PATH]

Made for one run on a lent GPU machine with no network whose image lacks mujoco, mujoco-mjx,
trimesh and defusedxml (and has no pydrake or pinocchio). Prepare the wheels here, then run there:

    bash benchmarks/gpu_wheels.sh      # downloads them into .whl/ (CPython 3.12, manylinux)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD/src:$PWD || exit
    PYTHONUNBUFFERED=1 python3 -m benchmarks.gpu --out $OUT/gpu.json

The ``mesh`` section (not run by default) needs the robots' hull URDFs, written here (the
machine there has no example-robot-data) into a folder that travels with the tree:
``python -m benchmarks.mesh_robots --write-hulls .meshes --robots go2``.

Contact (`contact_scenes.SCENES`, point contact, δt = 1 ms), batch by batch (in the order given:
largest first by default, so that the deadline cuts the small batches), scene by scene:
``--steps`` steps from `contact_engines.perturbed_states` by jaxbody (`JaxbodyContact`:
``jax.jit(jax.vmap(...))`` of the discrete SAP rollout of `benchmarks/contact.py`) and by MJX
(`MjxContact`: ``jax.jit(jax.vmap(rollout))`` of ``mjx.step`` in a ``lax.scan``; MuJoCo's soft
contact on the same scene). Each row: compile time (``.lower().compile()``) apart from run time
(median/min of ``--repeats`` runs after a warm-up, ``block_until_ready`` on the result),
env-steps/s, ``speedup_vs_mjx`` (jaxbody/mjx env-steps/s, > 1: jaxbody faster), jaxbody's SAP
statistics (max iterations, every solve converged), whether every final state is finite, and
env 0's final state against the first batch's (the same initial state).
Mesh (`mesh_scenes.ROBOTS`, ``--mesh-robots`` at ``--mesh-batches``): the same rows for a robot
with its collision meshes' convex hulls, dropped limp onto the ground (jaxbody's plant from the
hull URDF; MJX runs MuJoCo's import of the same URDF and hulls, `mesh_scenes.mujoco_model`);
its rows are contact rows named ``<robot>_hulls``.
Dynamics (API-built `benchmarks.models`): ``jax.jit(jax.vmap(kernel))`` of
`dynamics.jaxbody_kernels` at random states: samples/s and compile time, jaxbody only; with
``--chunks``, once per batch-minor chunk size (`dispatch.CHUNKS` for the platform; 0: the whole
batch, the GPU default), each row naming the chunk it ran. Sections run in the order given.

Time limit: a row starts only if its estimate (the previous batch of the same case: compile, and
runs scaled linearly with the batch; else the largest compile so far) ends before
``--deadline-s`` from start (contact rows: ``--dynamics-reserve-s`` earlier); otherwise it runs
one repeat or is recorded as skipped. A watchdog exits at ``--hard-stop-s``. The JSON is
rewritten after every row to ``benchmarks/results/gpu/gpu_<machine>.json`` and ``--out``
(a folder of its own: `readme_table` reads the CPU results beside it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import types
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import dynamics, gpu_report, models  # noqa: E402
from benchmarks.contact_scenes import SCENES  # noqa: E402
from benchmarks.forward_kinematics import measure  # noqa: E402
from benchmarks.gpu_contact import run_contact, run_mesh  # noqa: E402
from benchmarks.gpu_report import HEADER, Planner, Report, attempt, elapsed, watchdog  # noqa: E402
from benchmarks.mesh_scenes import ROBOTS  # noqa: E402
from jaxbody.algorithms.batch_minor import dispatch  # noqa: E402

DEFAULT_SCENES = ["sphere1", "spheres8", "pile12", "quadruped", "quadruped_falling"]


# ---- dynamics -------------------------------------------------------------------------------
def run_dynamics(args, report, planner):
    import jax
    import jax.numpy as jnp

    dtype, built = getattr(jnp, args.dtype), {}
    platform, default_chunk = jax.default_backend(), dispatch.CHUNKS.get(jax.default_backend())
    for chunk in args.chunks or [default_chunk or 0]:
        dispatch.set_chunk(platform, chunk)
        for kernel in args.kernels:
            for i, name in enumerate(args.models):
                if name not in built:
                    try:
                        built[name], report.data["models"][name] = _model(name, i, args, dtype)
                    except Exception as e:  # noqa: BLE001
                        built[name] = report.data["models"][name] = f"{type(e).__name__}: {e}"
                for batch in args.dyn_batches:
                    base = {"section": "dynamics", "model": name, "engine": "jaxbody",
                            "kernel": kernel, "batch": batch, "dtype": args.dtype,
                            "batch_minor_chunk": dispatch.chunk_size() or batch}
                    if isinstance(built[name], str):
                        report.add(dict(base, error=built[name]))
                        continue
                    plant, ctx, arrays = built[name]
                    fn = jax.vmap(dynamics.jaxbody_kernels(plant)[kernel],
                                  in_axes=(None, 0, 0, 0))
                    case = ("dynamics", name, kernel, chunk)
                    repeats, why = planner.plan(case, batch, args.deadline_s)
                    if repeats is None:
                        report.add(dict(base, skipped=why))
                        continue
                    row = attempt(report, base, _kernel_row, fn, ctx,
                                  [jnp.asarray(a[:batch], dtype) for a in arrays], repeats, args)
                    if "error" not in row:
                        planner.done(case, row, batch)
    dispatch.set_chunk(platform, default_chunk)


def _model(name, i, args, dtype):
    """((plant, context, (q, v, x) random (n, ·) states), info) of a `models.MODELS` model."""
    spec = models.MODELS[name]()
    plant, bodies = models.build_jaxbody(spec)
    # random_q reads the q layout from `drake[0]`: the jaxbody plant has the same API
    layout = types.SimpleNamespace(spec=spec, nq=plant.num_positions(), drake=(plant, bodies))
    rng, n = np.random.default_rng([args.seed, i]), max(args.dyn_batches)
    q = models.random_q(layout, rng, n)
    v, x = rng.normal(size=(2, n, plant.num_velocities()))
    info = {"nq": plant.num_positions(), "nv": plant.num_velocities(),
            "num_bodies": len(spec.bodies)}
    return (plant, plant.CreateDefaultContext(dtype), (q, v, x)), info


def _kernel_row(fn, ctx, args_, repeats, args):
    import jax

    t0 = time.perf_counter()
    lowered = jax.jit(fn).lower(ctx, *args_)
    t1 = time.perf_counter()
    compiled = lowered.compile()
    t2 = time.perf_counter()
    out = np.asarray(jax.block_until_ready(compiled(ctx, *args_)))
    stats = measure(lambda: jax.block_until_ready(compiled(ctx, *args_)), repeats, args.min_time)
    batch = len(args_[0])
    return dict(stats, lower_s=t1 - t0, compile_s=t2 - t1, all_finite=bool(np.isfinite(out).all()),
                samples_per_s=batch / stats["run_median_s"],
                per_sample_median_s=stats["run_median_s"] / batch)


# ---- main -----------------------------------------------------------------------------------
def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", nargs="+", default=["contact", "dynamics"],
                    choices=["contact", "mesh", "dynamics"])
    ap.add_argument("--scenes", nargs="+", default=DEFAULT_SCENES, choices=list(SCENES))
    ap.add_argument("--batches", nargs="+", type=int, default=[16384, 4096, 1024],
                    help="contact batches, run in this order")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--mesh-robots", nargs="+", default=["go2"], choices=list(ROBOTS))
    ap.add_argument("--mesh-batches", nargs="+", type=int, default=[4096, 1024],
                    help="mesh-robot batches, run in this order")
    ap.add_argument("--mesh-dir", default=".meshes",
                    help="where `python -m benchmarks.mesh_robots --write-hulls` wrote the hulls")
    ap.add_argument("--engines", nargs="+", default=["jaxbody", "mjx"], choices=["jaxbody", "mjx"])
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"],
                    help="every engine and kernel")
    ap.add_argument("--cg-forcing", default="adaptive", choices=["exact", "adaptive"],
                    help="jaxbody's SapSolverParameters.cg_forcing (as benchmarks/contact.py)")
    ap.add_argument("--models", nargs="+", default=["quadruped", "humanoid"],
                    choices=list(models.MODELS))
    ap.add_argument("--kernels", nargs="+", default=["rnea", "crba", "aba", "aba_jac"],
                    choices=list(dynamics.KERNELS))
    ap.add_argument("--dyn-batches", nargs="+", type=int, default=[4096, 65536])
    ap.add_argument("--chunks", nargs="+", type=int,
                    help="batch-minor chunk sizes to run the dynamics at (0: the whole batch; "
                         "default: the platform's, `dispatch.CHUNKS`)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.05,
                    help="dynamics: seconds per timing (back-to-back calls)")
    ap.add_argument("--deadline-s", type=float, default=440.0,
                    help="no row starts unless estimated to end by then (s from start)")
    ap.add_argument("--dynamics-reserve-s", type=float, default=60.0,
                    help="seconds before the deadline at which contact rows stop starting")
    ap.add_argument("--hard-stop-s", type=float,
                    help="the watchdog writes the JSON and exits the process then (default: "
                         "deadline + 5; 0: no watchdog)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--machine", help="tag in the file name (default: the GPU's name)")
    ap.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results" / "gpu")
    ap.add_argument("--out", type=Path, help="also write the JSON here")
    args = ap.parse_args(argv)
    if args.hard_stop_s is None:
        args.hard_stop_s = args.deadline_s + 5.0
    return args



def main(argv=None):
    gpu_report.reset_clock()
    args = parse_args(argv)
    os.environ.setdefault("MUJOCO_GL", "disable")  # MjModel needs no OpenGL (no glfw import)
    import jax

    # float32: x64 off, as MJX and jaxbody's SAP solver (constants promote to float64) need
    jax.config.update("jax_enable_x64", args.dtype == "float64")
    args.machine = args.machine or gpu_report.default_machine()
    paths = [args.out_dir / f"gpu_{args.machine}.json"] + ([args.out] if args.out else [])
    report = Report(args, paths)
    report.write()
    if args.hard_stop_s > 0:  # 0: no watchdog (in-process use, e.g. the tests)
        watchdog(report, args.hard_stop_s)
    print(f"# {report.data['machine']['devices']}  jax {jax.__version__}  dtype {args.dtype}  "
          f"deadline {args.deadline_s:.0f} s  [{elapsed():.0f} s]\n{HEADER}\n{'-' * len(HEADER)}",
          flush=True)
    planner = Planner(args)
    for section in args.sections:
        {"contact": run_contact, "mesh": run_mesh,
         "dynamics": run_dynamics}[section](args, report, planner)
    report.write(complete=True)
    print(f"\nwrote {', '.join(map(str, paths))} [{elapsed():.0f} s]", flush=True)
    return report.data


if __name__ == "__main__":
    main()
