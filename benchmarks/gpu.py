"""GPU benchmark: batched contact rollouts (jaxbody SAP vs MJX) and batched dynamics kernels.

    python -m benchmarks.gpu [--scenes sphere1 spheres8 pile12 quadruped quadruped_falling]
        [--batches 16384 4096 1024] [--steps 100] [--dtype float64] [--repeats 3]
        [--models quadruped humanoid] [--kernels rnea crba aba aba_jac]
        [--dyn-batches 4096 65536] [--chunks 0 32 1024] [--sections dynamics contact]
        [--deadline-s 440] [--out PATH]

Made for one run on a lent GPU machine with no network whose image lacks mujoco, mujoco-mjx,
trimesh and defusedxml (and has no pydrake or pinocchio). Prepare the wheels here, then run there:

    bash benchmarks/gpu_wheels.sh      # downloads them into .whl/ (CPython 3.12, manylinux)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD/src:$PWD || exit
    PYTHONUNBUFFERED=1 python3 -m benchmarks.gpu --out $OUT/gpu.json

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
import datetime
import json
import os
import re
import subprocess
import sys
import threading
import time
import types
from importlib import metadata
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import contact_engines as ce  # noqa: E402
from benchmarks import dynamics, models  # noqa: E402
from benchmarks.contact_scenes import SCENES  # noqa: E402
from benchmarks.forward_kinematics import default_machine_name, machine_info, measure  # noqa: E402
from benchmarks.forward_kinematics import versions as base_versions  # noqa: E402
from jaxbody.algorithms.batch_minor import dispatch  # noqa: E402

T0 = time.perf_counter()  # the deadline counts from here (reset when main starts)
DEFAULT_SCENES = ["sphere1", "spheres8", "pile12", "quadruped", "quadruped_falling"]
DISTS = ("jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt", "mujoco", "mujoco-core",
         "mujoco-mjx", "equinox", "numpy", "scipy", "trimesh")


def elapsed():
    return time.perf_counter() - T0


# ---- report ---------------------------------------------------------------------------------
class Report:
    """The JSON report, rewritten (atomically) to every path after each row."""

    def __init__(self, args, paths):
        self.paths, self.lock, self.rows = paths, threading.Lock(), []
        self.data = {"benchmark": "gpu",
                     "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                     "machine": gpu_machine_info(), "versions": versions(), "dtype": args.dtype,
                     "settings": {k: str(v) if isinstance(v, Path) else v
                                  for k, v in vars(args).items()},
                     "notes": {"contact": "env-steps/s = batch * steps / median run time; "
                               "speedup_vs_mjx = jaxbody's / MJX's at the same scene, batch "
                               "and dtype (> 1: jaxbody faster)"
                               "; MJX: MuJoCo's soft contact, jaxbody: SAP (same scene)",
                               "dynamics": "jaxbody only: Drake and Pinocchio are CPU engines"},
                     "scenes": {}, "models": {}, "results": self.rows, "complete": False}

    def add(self, row):
        self.rows.append(row)
        print_row(row)
        self.write()
        return row

    def write(self, **extra):
        with self.lock:
            self.data.update(extra, elapsed_s=elapsed())
            text = json.dumps(self.data, indent=1, default=_jsonable) + "\n"
            for p in self.paths:
                p.parent.mkdir(parents=True, exist_ok=True)
                tmp = p.with_name(p.name + ".tmp")
                tmp.write_text(text)
                os.replace(tmp, p)


def _jsonable(x):
    return x.item() if isinstance(x, np.generic) else str(x)


def versions():
    out = base_versions()
    for dist in DISTS:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return dict(out, jaxbody_git=dynamics.git_state())


def gpu_machine_info():
    import jax

    info = dict(machine_info(), devices=[{"platform": d.platform, "kind": d.device_kind,
                                          "id": d.id} for d in jax.devices()])
    try:
        info["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        info["nvidia_smi"] = repr(e)
    return info


def default_machine():
    import jax

    d = jax.devices()[0]
    if d.platform == "cpu":
        return default_machine_name()
    return re.sub(r"[^a-z0-9]+", "-", d.device_kind.lower()).strip("-")


# ---- scheduling -----------------------------------------------------------------------------
class Planner:
    """Estimates a row's seconds from the previous row of the same case (compile + warm-up and
    repeats, run time linear in the batch) and decides whether it starts."""

    def __init__(self, args):
        self.args, self.last, self.max_compile = args, {}, 0.0

    def plan(self, case, work, deadline):
        """(repeats, None) or (None, reason to skip); ``work``: the row's batch · steps."""
        comp, per_work = self.last.get(case, (self.max_compile, 0.0))
        left = deadline - elapsed()
        for r in dict.fromkeys((self.args.repeats, 1)):
            est = comp + per_work * work * (r + 1)
            if est <= left:
                return r, None
        return None, (f"estimated {est:.0f} s (1 repeat) > {left:.0f} s left before the "
                      f"deadline at {deadline:.0f} s")

    def done(self, case, row, work):
        comp = row["lower_s"] + row["compile_s"]
        self.max_compile = max(self.max_compile, comp)
        self.last[case] = (comp, row["run_median_s"] / work)


def attempt(report, base, fn, *fn_args):
    """Runs ``fn(*fn_args) -> dict`` into a row of ``base``; an exception becomes its ``error``."""
    report.data["in_flight"] = base
    try:
        row = dict(base, **fn(*fn_args))
    except Exception as e:  # noqa: BLE001 (one shot on a lent machine: keep the other rows)
        row = dict(base, error=f"{type(e).__name__}: {e}"[:2000])
    report.data.pop("in_flight", None)
    return report.add(row)


# ---- contact --------------------------------------------------------------------------------
class SceneEngines:
    """A scene's jaxbody and MJX engines and its perturbed initial states (built once)."""

    def __init__(self, name, args):
        self.scene = SCENES[name]()
        self.jb = ce.JaxbodyContact(self.scene, args.dtype, cg_forcing=args.cg_forcing)
        rng = np.random.default_rng([args.seed, list(SCENES).index(name)])
        self.q, self.v = ce.perturbed_states(self.scene, self.jb.plant, max(args.batches), rng)
        plant = self.jb.plant
        self.info = {"nq": plant.num_positions(), "nv": plant.num_velocities(),
                     "num_collision_geometries": len(self.scene.geoms),
                     "num_candidate_pairs": len(plant.GetCollisionCandidates())}
        self.mjx, self.mjx_error = None, None
        if "mjx" in args.engines:
            try:
                from mujoco import mjx  # noqa: F401 (fails here if MJX is missing)

                mj = ce.MujocoContact(self.scene, plant)
                self.mjx = ce.MjxContact(mj, args.dtype)
                self.info["mujoco_ngeom"] = int(mj.model.ngeom)
            except Exception as e:  # noqa: BLE001 (ImportError, or jax/MJX versions at odds)
                self.mjx_error = f"MJX unavailable: {type(e).__name__}: {e}"[:2000]
        self.env0 = {}  # engine -> env 0's final state at the first batch run

    def run(self, engine, batch, steps, repeats):
        q, v = self.q[:batch], self.v[:batch]
        if engine == "jaxbody":
            call, comp, (x, it, ok) = self.jb.compiled(q, v, steps)
            out = {"sap_max_iterations": int(np.max(it)),
                   "sap_mean_env_max_iterations": float(np.mean(it)),
                   "sap_all_converged": bool(np.min(ok) > 0)}
        else:
            call, comp, (qpos, qvel) = self.mjx.compiled(q, v, steps)
            x, out = np.concatenate([np.asarray(qpos), np.asarray(qvel)], axis=1), {}
        x = np.asarray(x)
        out["all_finite"] = bool(np.isfinite(x).all())
        first, x0 = self.env0.setdefault(engine, (batch, x[0]))
        out["env0_rel_diff_vs_first_batch"] = float(np.abs(x[0] - x0).max()
                                                    / max(np.abs(x0).max(), 1e-3))
        out["first_batch"] = first
        t = ce.timed(call, repeats)
        return dict(out, **comp, **t, env_steps_per_s=batch * steps / t["run_median_s"])


def run_contact(args, report, planner):
    later = args.sections[args.sections.index("contact") + 1:]
    deadline = args.deadline_s - (args.dynamics_reserve_s if "dynamics" in later else 0)
    engines = {}
    for batch in args.batches:
        for name in args.scenes:
            if name not in engines:
                try:
                    engines[name] = SceneEngines(name, args)
                except Exception as e:  # noqa: BLE001
                    engines[name] = f"{type(e).__name__}: {e}"
                report.data["scenes"][name] = getattr(engines[name], "info", engines[name])
            se, rows = engines[name], {}
            for engine in ("jaxbody", "mjx"):
                if engine not in args.engines:
                    continue
                base = {"section": "contact", "scene": name, "engine": engine, "batch": batch,
                        "steps": args.steps, "dtype": args.dtype}
                if isinstance(se, str):
                    rows[engine] = report.add(dict(base, error=se))
                    continue
                if engine == "mjx" and se.mjx is None:
                    rows[engine] = report.add(dict(base, skipped=se.mjx_error))
                    continue
                case, work = ("contact", name, engine), batch * args.steps
                repeats, why = planner.plan(case, work, deadline)
                if repeats is None:
                    rows[engine] = report.add(dict(base, skipped=why))
                    continue
                rows[engine] = row = attempt(report, base, se.run, engine, batch, args.steps,
                                             repeats)
                if "error" not in row:
                    planner.done(case, row, work)
            j, m = rows.get("jaxbody", {}), rows.get("mjx", {})
            if "env_steps_per_s" in j and "env_steps_per_s" in m:  # > 1: jaxbody faster
                j["speedup_vs_mjx"] = j["env_steps_per_s"] / m["env_steps_per_s"]
                print(f"{'':>32s} speedup vs MJX (env-steps/s, jaxbody/mjx) = "
                      f"{j['speedup_vs_mjx']:.3g}", flush=True)
                report.write()


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


# ---- table ----------------------------------------------------------------------------------
HEADER = (f"{'section':8s} {'scene/model':17s} {'engine':7s} {'kernel':6s} {'batch':>6s} {'compile':>8s} "
          f"{'median':>10s} {'min':>10s} {'per s':>10s}  notes")


def _fmt(t):
    return f"{t * 1e6:8.1f}us" if t < 1e-2 else f"{t * 1e3:8.2f}ms" if t < 10 else f"{t:8.2f}s "


def print_row(r):
    head = (f"{r['section']:8s} {r.get('scene', r.get('model')):17s} {r['engine']:7s} "
            f"{r.get('kernel', ''):6s} {r['batch']:6d}")
    if "skipped" in r or "error" in r:
        print(f"{head} {'skipped: ' + r['skipped'] if 'skipped' in r else 'ERROR: ' + r['error']}"
              f"  [{elapsed():.0f} s]", flush=True)
        return
    rate = r.get("env_steps_per_s", r.get("samples_per_s"))
    notes = [f"{r['steps']} steps"] if "steps" in r else []
    if "sap_max_iterations" in r:
        notes.append(f"SAP it<={r['sap_max_iterations']} "
                     f"{'converged' if r['sap_all_converged'] else 'NOT CONVERGED'}")
    if "batch_minor_chunk" in r:
        notes.append(f"chunk {r['batch_minor_chunk']}")
    if not r["all_finite"]:
        notes.append("NON-FINITE")
    print(f"{head} {r['compile_s']:7.2f}s {_fmt(r['run_median_s'])} {_fmt(r['run_min_s'])} "
          f"{rate:10.4g}  {' '.join(notes)}  [{elapsed():.0f} s]", flush=True)


# ---- main -----------------------------------------------------------------------------------
def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", nargs="+", default=["contact", "dynamics"],
                    choices=["contact", "dynamics"])
    ap.add_argument("--scenes", nargs="+", default=DEFAULT_SCENES, choices=list(SCENES))
    ap.add_argument("--batches", nargs="+", type=int, default=[16384, 4096, 1024],
                    help="contact batches, run in this order")
    ap.add_argument("--steps", type=int, default=100)
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


def watchdog(report, at):
    def stop():
        time.sleep(max(0.0, at - elapsed()))
        row = report.data.get("in_flight")
        report.write(stopped=f"hard stop at {at:.0f} s; row in flight: {row}")
        print(f"# HARD STOP at {elapsed():.0f} s (--hard-stop-s); in flight: {row}", flush=True)
        os._exit(0)

    threading.Thread(target=stop, daemon=True).start()


def main(argv=None):
    global T0
    T0 = time.perf_counter()
    args = parse_args(argv)
    os.environ.setdefault("MUJOCO_GL", "disable")  # MjModel needs no OpenGL (no glfw import)
    import jax

    # float32: x64 off, as MJX and jaxbody's SAP solver (constants promote to float64) need
    jax.config.update("jax_enable_x64", args.dtype == "float64")
    args.machine = args.machine or default_machine()
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
        {"contact": run_contact, "dynamics": run_dynamics}[section](args, report, planner)
    report.write(complete=True)
    print(f"\nwrote {', '.join(map(str, paths))} [{elapsed():.0f} s]", flush=True)
    return report.data


if __name__ == "__main__":
    main()
