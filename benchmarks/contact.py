"""Contact rollouts (discrete SAP, δt = 1 ms): jaxbody vs Drake SAP vs MuJoCo C vs MJX on CPU.

    python -m benchmarks.contact [--scenes sphere1 spheres8 pile12 spheres27_box pile100 ...]
        [--batches 1 64 1024 4096] [--steps 200] [--repeats 3] [--quick]

Hydroelastic scenes (`hydro_scenes.HYDRO_SCENES`: compliant boxes, spheres and a cylinder
resting, sliding and rolling on a rigid ground, a compliant box held between rigid jaws, and a
compliant sphere on a compliant box) are timed against Drake's hydroelastic SAP step only
(MuJoCo has no hydroelastic contact).

Point-contact scenes (`contact_scenes.SCENES`, one contact material everywhere): a sphere sliding on a ground
halfspace; 8 spheres on the ground colliding with each other; 12 spheres dropped into a pile;
27 spheres stacked in a box (floor + 4 box walls welded to the world) toppling; 100 spheres
dropped into a pile (MJX not run: `MJX_MAX_BODIES`); the benchmark quadruped standing on sphere
feet, joints PD-held, and the same quadruped dropped tilted from 1 cm onto its feet. Each scene
is built by the same code in jaxbody and pydrake, and written as MJCF for MuJoCo (same masses,
inertias, radii, μ; MuJoCo's own soft contact and defaults).

Question: how fast are ``--steps`` steps, serially and batched over perturbed initial states
(`contact_engines.perturbed_states`; env 0 is the scene's own state)?
- jaxbody: ``jaxbody.discrete_rollout(..., save_trajectory=False)`` under ``jax.jit`` (batch 1,
  one scene) or, batched, ``lax.map`` over ``jax.vmap``-ed chunks of ``--chunk`` envs (as
  ``sharded_vmap(..., chunk_size)``; ``--chunk 0``: one ``vmap``); compile time (``.lower().compile()``)
  reported apart, runs timed with ``block_until_ready``.
- Drake: ``Simulator.AdvanceTo`` over the steps, one env at a time (``--serial-envs`` envs).
- MuJoCo C: ``mujoco.rollout`` on one thread (``--mujoco-envs`` envs).
- MJX: ``jax.jit(jax.vmap(rollout))`` of ``mjx.step`` in a ``lax.scan`` at the same batches.
Throughput is env-steps/s = batch · steps / median run time. Ratios (> 1: jaxbody faster):
``jaxbody/drake_serial`` (target >= 10 for batched runs), ``jaxbody/mjx`` at the same batch
(target >= 10), and ``jaxbody_per_core/mujoco``: jaxbody's throughput divided by the cores it
kept busy (process CPU time / wall time, at least 1) over MuJoCo's single-thread rate.
A batched row whose runs would take more than ``--budget`` s (estimated from the previous
batch) runs fewer steps (``steps_reduced`` in the JSON), or is skipped below ``--min-steps``.
jaxbody solves with ``SapSolverParameters(cg_forcing=--cg-forcing)`` (default "adaptive": inexact
Newton on plants whose Newton systems go to conjugate gradients; the agreement with Drake is then
Drake's own solver tolerance rather than 1e-10; "exact" follows Drake's iterates).
Before timing, jaxbody's and Drake's velocities after ``--check-steps`` steps from the scene's
state must agree to `AGREE_TOL` (relative to max |v|), else the script exits. The machine's
load average is recorded at start and end (other processes distort timings).

XLA:CPU's thread pool could wedge on these batched runs (every thread parked on a futex, 0 % CPU,
forever). The cause, found with gdb: jaxlib 0.10's batched LAPACK kernels (a vmapped Cholesky)
split their batch over the intra-op thread pool and block a pool thread until the pieces finish;
with every pool thread blocked so, nothing runs the pieces. jaxbody now factors one matrix per
LAPACK call under vmap (`jaxbody.math.cholesky`), but MJX's solver may still hit it. So each
scene's process is pinned to ``--cpus`` CPUs (default 1: a pool of one thread cannot wedge; every
engine is then timed on one core, Drake and MuJoCo C being single-threaded anyway). Each scene
also runs in its own process, which appends its rows to a JSON-lines part file and exits when it
used no CPU for ``--stall`` s; the scene is then resumed in a new process from the rows it
already has (``attempts`` in the scene's info). ``--in-process`` runs everything in this process
instead (not pinned).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import contact_engines as ce  # noqa: E402
from benchmarks.contact_scenes import SCENES as POINT_SCENES  # noqa: E402
from benchmarks.contact_scenes import initial_state  # noqa: E402
from benchmarks.forward_kinematics import default_machine_name, machine_info, versions  # noqa: E402
from benchmarks.hydro_scenes import HYDRO_SCENES, is_hydroelastic  # noqa: E402

SCENES = {**POINT_SCENES, **HYDRO_SCENES}
NO_HYDRO = "MuJoCo has no hydroelastic contact (its soft point contact is another model)"
MJX_MAX_BODIES = 30  # MJX is not run on bigger scenes (see the skipped rows' reason)
WEDGED = 3  # exit status of a scene's process whose XLA:CPU thread pool hung
AGREE_TOL = 1e-5  # |v_jaxbody − v_drake|∞ / max(|v_drake|∞, 1e-3 (1 for hydroelastic scenes))
QUICK = {"steps": 5, "check_steps": 5, "batches": [2], "repeats": 1, "serial_envs": 1,
         "mujoco_envs": 2, "scenes": ["sphere1"]}
DEFAULTS = {"steps": 200, "check_steps": 50, "batches": [1, 64, 1024, 4096], "repeats": 3,
            "serial_envs": 4, "mujoco_envs": 64, "scenes": list(SCENES)}


def _rel(a, b, floor):
    return float(np.abs(np.asarray(a) - np.asarray(b)).max() / max(np.abs(b).max(), floor))


def _rate(row):
    row["env_steps_per_s"] = row["batch"] * row["steps"] / row["run_median_s"]
    row["env_step_median_s"] = 1.0 / row["env_steps_per_s"]
    return row


def run_scene(name, args, done=None, emit=None):
    """(scene info, rows). ``done``: rows of an earlier, interrupted attempt by (engine, batch),
    reused as they are; ``emit(kind, value)`` is called with "info" and with every new row."""
    done, emit = done or {}, emit or (lambda kind, value: None)
    rng = np.random.default_rng([args.seed, list(SCENES).index(name)])
    scene = SCENES[name]()
    jb = ce.JaxbodyContact(scene, args.dtype, chunk=args.chunk or None,
                           cg_forcing=args.cg_forcing)
    jb64 = jb if args.dtype == "float64" else ce.JaxbodyContact(scene, "float64", jb.plant,
                                                                cg_forcing=args.cg_forcing)
    dr = ce.DrakeContact(scene)
    nq = dr.plant.num_positions()
    qj, vj = initial_state(scene, jb.plant, "jaxbody")
    qd, vd = initial_state(scene, dr.plant, "drake")
    # Equal to round-off (an rpy pose becomes a quaternion in each engine's own arithmetic).
    if not (np.allclose(qj, qd, rtol=0, atol=1e-12) and np.allclose(vj, vd, rtol=0, atol=1e-12)):
        raise SystemExit(f"REFUSING TO REPORT TIMINGS: {name}: jaxbody and Drake order the "
                         "state differently")
    n_states = max(max(args.batches), args.serial_envs, args.mujoco_envs)
    q, v = ce.perturbed_states(scene, dr.plant, n_states, rng)
    hydro = is_hydroelastic(scene)
    mj = ce.MujocoContact(scene, dr.plant) if "mujoco" in args.engines and not hydro else None
    cache = {}

    def jb_compiled(engine, batch, steps):
        key = (id(engine), batch, steps)
        if key not in cache:
            qb, vb = (q[0], v[0]) if batch == 1 else (q[:batch], v[:batch])
            cache[key] = engine.compiled(qb, vb, steps)
        return cache[key]

    # ---- agreement --------------------------------------------------------------------------
    # env 0 of a timed batch when it runs the check's steps in float64 (one compile less)
    b = min(args.batches) if (args.check_steps == args.steps and jb64 is jb) else 1
    _, _, (xj, it, ok) = jb_compiled(jb64, b, args.check_steps)
    xj, it, ok = np.atleast_2d(xj)[0], np.max(it), np.min(ok)
    xd = dr.final_state(q[0], v[0], args.check_steps)
    # hydroelastic scenes: relative to max(|v|, 1 m/s), as tests/reference does (at rest, faces
    # whose pressure gradient is perpendicular to the normal enter by round-off: ~1e-7 m/s)
    err_v = _rel(xj[nq:], xd[nq:], 1.0 if hydro else 1e-3)
    err_q = _rel(xj[:nq], xd[:nq], 1.0)
    print(f"# {name}: after {args.check_steps} steps, jaxbody vs Drake: v {err_v:.1e} "
          f"(relative), q {err_q:.1e}; SAP iterations <= {int(it)}, converged {bool(ok)}",
          flush=True)
    if not err_v < AGREE_TOL:
        raise SystemExit(f"REFUSING TO REPORT TIMINGS: {name}: jaxbody and Drake velocities "
                         f"differ by {err_v:.1e} > {AGREE_TOL:.0e} after {args.check_steps} steps")
    info = {"nq": nq, "nv": dr.plant.num_velocities(), "num_bodies": dr.plant.num_bodies() - 1,
            "num_collision_geometries": len(scene.geoms),
            "num_candidate_pairs": len(jb.plant.GetCollisionCandidates()),
            "mujoco_ngeom": int(mj.model.ngeom) if mj else None,
            "agreement": {"steps": args.check_steps, "v_rel_diff_vs_drake": err_v,
                          "q_rel_diff_vs_drake": err_q, "tolerance": AGREE_TOL,
                          "sap_max_iterations": int(it), "sap_converged": bool(ok)}}
    emit("info", info)
    base = {"scene": name, "nv": info["nv"], "steps": args.steps, "dt": scene.dt}
    rows, serial = [], {}

    def add(row):
        rows.append(row)
        if (row["engine"], row["batch"]) not in done:
            emit("row", row)
        return row

    # ---- serial references ----------------------------------------------------------------
    if "drake" in args.engines:
        n = args.serial_envs
        serial["drake"] = add(done.get(("drake", n)) or _rate(dict(
            base, engine="drake", batch=n, dtype="float64", threads=1, **ce.timed(
                lambda: [dr.final_state(q[i], v[i], args.steps) for i in range(n)],
                args.repeats))))
    if mj is not None:
        n = args.mujoco_envs
        if ("mujoco", n) not in done:
            call = mj.rollout_call(q[:n], v[:n], args.steps)
            call()
        serial["mujoco"] = add(done.get(("mujoco", n)) or _rate(dict(
            base, engine="mujoco", batch=n, dtype="float64", threads=1,
            **ce.timed(call, args.repeats))))
    _print_rows(rows)
    x_drake = {}  # steps -> Drake's final state of env 0

    def drake_env0(steps):
        if steps not in x_drake:
            x_drake[steps] = dr.final_state(q[0], v[0], steps)
        return x_drake[steps]

    # ---- batched ----------------------------------------------------------------------------
    last = {}  # engine -> seconds per env-step of its previous batch (for --budget)
    for batch in args.batches:
        batch_rows = {}  # engine -> row, emitted together once the ratios are in
        for engine in ("jaxbody", "mjx"):
            if engine == "mjx" and "mjx" not in args.engines:
                continue
            row = batch_rows[engine] = done.get((engine, batch))
            if row is not None:
                if "skipped" not in row:
                    last[engine] = row["run_median_s"] / (batch * row["steps"])
                continue
            row = batch_rows[engine] = dict(base, engine=engine, batch=batch, dtype=args.dtype)
            if engine == "jaxbody":
                row["cg_forcing"] = args.cg_forcing
            if engine == "mjx" and hydro:
                row["skipped"] = NO_HYDRO
                print(f"{name:14s} {batch:5d} {engine:8s} skipped: {row['skipped']}", flush=True)
                continue
            if engine == "mjx" and len(scene.bodies) > MJX_MAX_BODIES:
                row["skipped"] = (f"more than {MJX_MAX_BODIES} free bodies: MJX's compile and "
                                  "first run of the 100-sphere pile took over 15 min at batch 1")
                print(f"{name:14s} {batch:5d} {engine:8s} skipped: {row['skipped']}", flush=True)
                continue
            steps = _steps_within_budget(last.get(engine, 0.0), batch, args)
            if steps < args.steps:
                est = last[engine] * batch * args.steps * (args.repeats + 1)
                why = f"estimated {est:.0f} s of runs at --steps {args.steps} > --budget"
                if steps < args.min_steps:
                    row["skipped"] = why + f" even at {args.min_steps} steps"
                    print(f"{name:14s} {batch:5d} {engine:8s} skipped: {row['skipped']}",
                          flush=True)
                    continue
                row.update(steps=steps, steps_reduced=why)
            if engine == "jaxbody":
                call, comp, (x, it, ok) = jb_compiled(jb, batch, steps)
                x = np.atleast_2d(x)
                row.update(sap_max_iterations=int(np.max(it)), sap_all_converged=bool(
                    np.min(ok) > 0), all_finite=bool(np.isfinite(x).all()),
                    env0_v_rel_diff_vs_drake=_rel(x[0, nq:], drake_env0(steps)[nq:], 1e-3))
            else:
                call, comp, (qpos, qvel) = ce.MjxContact(mj, args.dtype).compiled(
                    q[:batch], v[:batch], steps)
                row["all_finite"] = bool(np.isfinite(qpos).all() and np.isfinite(qvel).all())
            row = batch_rows[engine] = _rate(dict(row, **comp, **ce.timed(call, args.repeats)))
            last[engine] = row["run_median_s"] / (batch * steps)
        r, m = batch_rows.get("jaxbody"), batch_rows.get("mjx")
        if "skipped" not in r and ("jaxbody", batch) not in done:
            rate = r["env_steps_per_s"]
            if "drake" in serial:
                r["jaxbody/drake_serial"] = rate / serial["drake"]["env_steps_per_s"]
                r["target_drake_10x_met"] = r["jaxbody/drake_serial"] >= 10
            if m is not None and "skipped" not in m:
                r["jaxbody/mjx"] = rate / m["env_steps_per_s"]
                r["target_mjx_10x_met"] = r["jaxbody/mjx"] >= 10
            if "mujoco" in serial:
                r["jaxbody_per_core/mujoco"] = (rate / max(1.0, r["cpu_per_wall"])
                                                / serial["mujoco"]["env_steps_per_s"])
        for row in batch_rows.values():
            add(row)
        _print_rows(list(batch_rows.values()))
    return info, rows


def _steps_within_budget(sec_per_env_step, batch, args):
    """--steps, or fewer so that the timed runs (warm-up + repeats) fit in --budget."""
    est = sec_per_env_step * batch * args.steps * (args.repeats + 1)
    if est <= args.budget:
        return args.steps
    return int(args.budget / (sec_per_env_step * batch * (args.repeats + 1)))


def _fmt(t):
    return f"{t * 1e6:8.1f}us" if t < 1e-2 else f"{t * 1e3:8.2f}ms" if t < 10 else f"{t:8.2f}s "


HEADER = (f"{'scene':14s} {'batch':>5s} {'engine':8s} {'compile':>8s} {'median':>10s} "
          f"{'min':>10s} {'env-steps/s':>11s} {'cpu/wall':>8s}  ratios")


def _print_rows(rows):
    for r in rows:
        if "skipped" in r:
            continue
        comp = f"{r['compile_s']:7.2f}s" if "compile_s" in r else ""
        ratios = " ".join(f"{k}={v:.3g}" for k, v in r.items() if "/" in k)
        if r.get("steps_reduced"):
            ratios += f" ({r['steps']} steps)"
        print(f"{r['scene']:14s} {r['batch']:5d} {r['engine']:8s} {comp:>8s} "
              f"{_fmt(r['run_median_s'])} {_fmt(r['run_min_s'])} {r['env_steps_per_s']:11.4g} "
              f"{r['cpu_per_wall']:8.2f}  {ratios}", flush=True)


def summary(results):
    """Per scene: the best batched jaxbody throughput and its ratios."""
    out = {}
    for r in results:
        if r["engine"] != "jaxbody" or "skipped" in r or r["batch"] == 1:
            continue
        best = out.get(r["scene"])
        if best is None or r["env_steps_per_s"] > best["env_steps_per_s"]:
            out[r["scene"]] = {k: r[k] for k in r if k in ("batch", "env_steps_per_s") or "/" in k
                               or k.startswith("target")}
    return out


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", nargs="+", choices=list(SCENES))
    ap.add_argument("--batches", nargs="+", type=int)
    ap.add_argument("--steps", type=int)
    ap.add_argument("--check-steps", type=int, help="steps of the jaxbody/Drake agreement check")
    ap.add_argument("--repeats", type=int)
    ap.add_argument("--serial-envs", type=int, help="envs Drake is timed on (one at a time)")
    ap.add_argument("--mujoco-envs", type=int, help="envs MuJoCo C is timed on (one thread)")
    ap.add_argument("--engines", nargs="*", default=["drake", "mujoco", "mjx"],
                    choices=["drake", "mujoco", "mjx"], help="competitors to time")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"],
                    help="jaxbody and MJX timings (the agreement check is float64)")
    ap.add_argument("--budget", type=float, default=180.0,
                    help="seconds of timed runs per batched row: estimated from the previous "
                    "batch, a longer row runs fewer steps (>= --min-steps) or is skipped")
    ap.add_argument("--min-steps", type=int, default=10)
    ap.add_argument("--chunk", type=int, default=16,
                    help="jaxbody's batched runs map over vmapped chunks of this many envs "
                    "(sharded_vmap's chunk_size; 0: one vmap of the whole batch)")
    ap.add_argument("--cpus", type=int, default=1,
                    help="CPUs a scene's process may use (0: all); XLA:CPU sizes its thread "
                    "pool by them, and a pool of one cannot wedge")
    ap.add_argument("--multi-thread-eigen", action="store_true",
                    help="keep XLA:CPU's multi-threaded Eigen (default: off, it can hang)")
    ap.add_argument("--in-process", action="store_true",
                    help="run the scenes in this process (default: one child process per scene, "
                    "resumed when XLA:CPU's thread pool wedges)")
    ap.add_argument("--retries", type=int, default=3, help="resumptions of a wedged scene")
    ap.add_argument("--resume", action="store_true",
                    help="keep the rows of an interrupted run with the same --machine (its part "
                    "files, deleted once the JSON is written) instead of starting over")
    ap.add_argument("--stall", type=float, default=120.0,
                    help="seconds without CPU use after which a scene's process counts as wedged")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--part", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help=f"tiny sizes for smoke tests: {QUICK}")
    ap.add_argument("--cg-forcing", default="adaptive", choices=["exact", "adaptive"],
                    help="jaxbody's SapSolverParameters.cg_forcing (plants with several trees "
                         "solve Newton systems by conjugate gradients): 'exact' follows Drake's "
                         "iterates (1e-10 agreement), 'adaptive' inexact Newton (agreement to "
                         "Drake's own tolerance, fewer CG iterations)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--machine", default=default_machine_name(), help="tag in the file name")
    ap.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)
    for k, val in (QUICK if args.quick else DEFAULTS).items():
        if getattr(args, k) is None:  # explicit options win over --quick
            setattr(args, k, val)
    if "mjx" in args.engines and "mujoco" not in args.engines:
        args.engines.append("mujoco")  # MJX's model is MuJoCo's
    return args


def _setup_jax(args, pin):
    if pin and args.cpus and hasattr(os, "sched_setaffinity"):  # sizes XLA:CPU's thread pool
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:args.cpus])
    flags = os.environ.get("XLA_FLAGS", "")
    if not args.multi_thread_eigen and "xla_cpu_multi_thread_eigen" not in flags:
        # Effective only before the backend starts (not in a process that already used jax).
        os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_multi_thread_eigen=false").strip()
    import jax

    jax.config.update("jax_enable_x64", True)


def _child(args):
    """One scene in this process, resuming from and appending to ``args.part``."""
    _setup_jax(args, pin=True)
    ce.watchdog(args.stall, WEDGED)
    _, done = ce.read_part(args.part)

    def emit(kind, value):
        with args.part.open("a") as f:
            f.write(json.dumps([kind, value], default=float) + "\n")

    print(HEADER + "\n" + "-" * len(HEADER), flush=True)
    run_scene(args.child, args, done, emit)


def _part_path(args, name):
    return args.out_dir / f".contact_{args.machine}_{name}.jsonl"


def _isolated(name, argv, args):
    """Runs a scene in child processes, resuming after an XLA:CPU hang (`_watchdog`)."""
    part = _part_path(args, name)
    if not args.resume:
        part.unlink(missing_ok=True)
    root = Path(__file__).resolve().parents[1]
    cmd = [sys.executable, "-m", "benchmarks.contact", *argv, "--child", name, "--part", str(part)]
    for attempt in range(1, args.retries + 2):
        rc = subprocess.call(cmd, cwd=root)
        if rc != WEDGED:
            break
        print(f"# {name}: attempt {attempt} wedged, resuming", flush=True)
    info, done = ce.read_part(part)
    if rc != 0 and (rc != WEDGED or info is None):  # a refusal or an error: no report
        raise SystemExit(f"{name}: the scene's process exited with {rc}")
    info = dict(info, attempts=attempt)
    if rc == WEDGED:
        info["incomplete"] = f"still wedged after {attempt} attempts; rows so far kept"
    return info, list(done.values())


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    if args.child:
        return _child(args)
    load_start = os.getloadavg()
    results, scene_info = [], {}
    if args.in_process:
        _setup_jax(args, pin=False)
        print(HEADER + "\n" + "-" * len(HEADER), flush=True)
    for name in args.scenes:
        scene_info[name], rows = (run_scene(name, args) if args.in_process
                                  else _isolated(name, argv, args))
        results += rows
    vers = versions()
    for dist in ("mujoco",):
        try:
            vers[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            vers[dist] = None
    report = {"benchmark": "contact",
              "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
              "machine": dict(machine_info(), loadavg_start=load_start,
                              loadavg_end=os.getloadavg()), "versions": vers,
              "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
              "ratio": "env-steps/s, jaxbody / other (> 1: jaxbody faster); drake and mujoco are "
                       "serial (one env at a time, one thread); mjx at the same batch",
              "scenes": scene_info, "results": results, "summary": summary(results)}
    path = args.out_dir / f"contact_{args.machine}.json"
    path.write_text(json.dumps(report, indent=1, default=float) + "\n")
    for name in args.scenes:
        _part_path(args, name).unlink(missing_ok=True)
    print(f"\nwrote {path}")
    return report


if __name__ == "__main__":
    main()
