"""Forward kinematics (every body's pose in World): jaxbody vs Pinocchio vs Drake.

    python -m benchmarks.forward_kinematics [--models arm7 quadruped humanoid]
        [--batches 1 64 1024 4096] [--repeats 7] [--min-time 0.05] [--dtypes float64 float32]

jaxbody: ``jax.jit(jax.vmap(f))`` with ``f(context, q) -> (R_WB, p_WB)`` via
``CalcBodyPosesInWorld``, compiled with ``.lower(...).compile()`` (compile time reported
apart), timed with ``jax.block_until_ready`` on the result. Pinocchio: ``pin.forwardKinematics``
in a Python loop over the batch. Drake: ``SetPositions`` then ``EvalBodyPoseInWorld`` of every
body, in a Python loop. Every timing is the mean over ``number`` back-to-back calls (chosen so
one timing lasts at least ``--min-time``); median and min over ``--repeats`` timings are kept.
Before timing, the three engines must agree on body poses at random q to `models.POSE_TOL`,
and each compiled jaxbody function is checked on the batch it is timed on; otherwise the
script exits without reporting. Ratios are times, jaxbody / other: below 1, jaxbody is faster.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import check_models, models  # noqa: E402

DEFAULT_BATCHES = (1, 64, 1024, 4096)
FLOAT32_POSE_TOL = 1e-4  # float32 jaxbody vs float64 Pinocchio, relative to max(1, |x|)
NUM_CHECKED = 16  # samples of each timed batch whose jaxbody poses are checked


# ---- timing -------------------------------------------------------------------------------
def _timed(call, number):
    """(wall seconds, process CPU seconds) per call, over ``number`` back-to-back calls."""
    w, c = time.perf_counter(), time.process_time()
    for _ in range(number):
        call()
    return (time.perf_counter() - w) / number, (time.process_time() - c) / number


def measure(call, repeats, min_time):
    """Calls ``call`` once to warm up, picks ``number`` so a timing lasts >= ``min_time``, and
    returns wall-time statistics per call plus the CPU/wall ratio (> 1: several threads ran)."""
    call()
    number = 1
    while True:
        t, _ = _timed(call, number)
        if t * number >= min_time or number >= 1 << 20:
            break
        number *= 2 if t * number * 2 >= min_time else max(2, int(min_time / (t * number + 1e-9)))
    runs = [_timed(call, number) for _ in range(repeats)]
    walls = [w for w, _ in runs]
    return {"run_median_s": statistics.median(walls), "run_min_s": min(walls), "number": number,
            "repeats": repeats, "cpu_per_wall": sum(c for _, c in runs) / sum(walls)}


# ---- the three engines ----------------------------------------------------------------------
def bench_jaxbody(engines, qs, dtype, repeats, min_time, reference):
    import jax
    import jax.numpy as jnp

    plant, _ = engines.jaxbody
    context = plant.CreateDefaultContext(getattr(jnp, dtype))
    q_dev = jnp.asarray(qs, getattr(jnp, dtype))
    fn = jax.jit(jax.vmap(check_models.jaxbody_poses_fn(engines), in_axes=(None, 0)))
    t0 = time.perf_counter()
    lowered = fn.lower(context, q_dev)  # trace + lower to StableHLO
    t1 = time.perf_counter()
    compiled = lowered.compile()  # XLA
    lower_s, compile_s = t1 - t0, time.perf_counter() - t1
    R, p = jax.block_until_ready(compiled(context, q_dev))
    if R.dtype != q_dev.dtype or p.dtype != q_dev.dtype:
        raise check_models.PoseMismatch(f"jaxbody {dtype}: result dtype {R.dtype}/{p.dtype}")
    k = len(reference[0])
    err = check_models.discrepancy((np.asarray(R[:k]), np.asarray(p[:k])), reference)
    tol = models.POSE_TOL if dtype == "float64" else FLOAT32_POSE_TOL
    if not err < tol:
        raise check_models.PoseMismatch(
            f"{engines.spec.name} batch {len(qs)} {dtype}: compiled jaxbody poses differ from "
            f"Pinocchio by {err:.3e} (tolerance {tol:.0e})")
    stats = measure(lambda: jax.block_until_ready(compiled(context, q_dev)), repeats, min_time)
    return dict(stats, lower_s=lower_s, compile_s=compile_s, max_pose_discrepancy=err)


def bench_pinocchio(engines, qs, repeats, min_time):
    import pinocchio as pin

    model = engines.pinocchio
    data = model.createData()
    rows = [np.ascontiguousarray(q) for q in models.to_pinocchio(engines, qs)]

    def call():
        for q in rows:
            pin.forwardKinematics(model, data, q)

    return measure(call, repeats, min_time)


def bench_drake(engines, qs, repeats, min_time):
    plant, bodies = engines.drake
    context = plant.CreateDefaultContext()
    rows = [np.ascontiguousarray(q) for q in qs]

    def call():
        for q in rows:
            plant.SetPositions(context, q)  # invalidates the cached kinematics
            for body in bodies:
                plant.EvalBodyPoseInWorld(context, body)

    return measure(call, repeats, min_time)


# ---- report ---------------------------------------------------------------------------------
def machine_info():
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    import jax

    return {"platform": platform.platform(), "machine": platform.machine(),
            "processor": cpu, "cpu_count": os.cpu_count(),
            "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count(), "python": platform.python_version(),
            "jax_backend": jax.default_backend(), "XLA_FLAGS": os.environ.get("XLA_FLAGS", "")}


def versions():
    out = {}
    for dist in ("jax", "jaxlib", "drake", "pin", "numpy", "jaxbody"):
        try:
            out["pinocchio" if dist == "pin" else dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _fmt(t):
    return f"{t * 1e6:9.1f}us" if t < 1e-2 else f"{t * 1e3:9.2f}ms"


def print_table(results):
    head = (f"{'model':10s} {'nq':>3s} {'batch':>5s} {'dtype':7s} {'engine':9s} "
            f"{'compile':>8s} {'median':>11s} {'min':>11s} {'per q':>11s} {'cpu/wall':>8s} "
            f"{'jb/pin':>7s} {'jb/drake':>8s}")
    print(head + "\n" + "-" * len(head))
    for r in results:
        comp = f"{r['compile_s']:7.2f}s" if "compile_s" in r else ""
        rp = f"{r['jaxbody/pinocchio']:7.3f}" if "jaxbody/pinocchio" in r else ""
        rd = f"{r['jaxbody/drake']:8.3f}" if "jaxbody/drake" in r else ""
        print(f"{r['model']:10s} {r['nq']:3d} {r['batch']:5d} {r['dtype']:7s} "
              f"{r['engine']:9s} {comp:>8s} {_fmt(r['run_median_s'])} {_fmt(r['run_min_s'])} "
              f"{_fmt(r['per_config_median_s'])} {r['cpu_per_wall']:8.2f} {rp} {rd}")


def run(args):
    import jax

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(args.seed)
    results, model_info = [], {}
    for name in args.models:
        engines = models.build(name)
        err = check_models.check(engines, models.random_q(engines, rng, 8))  # raises if not
        model_info[name] = {"nq": engines.nq, "nv": engines.nv,
                            "num_bodies": len(engines.spec.bodies), "max_pose_discrepancy": err}
        print(f"# {name}: engines agree on body poses to {err:.1e}", flush=True)
        for batch in args.batches:
            qs = models.random_q(engines, rng, batch)
            ref = check_models.pinocchio_poses(engines, qs[:NUM_CHECKED])
            base = {"model": name, "nq": engines.nq, "nv": engines.nv, "batch": batch}
            rows = {}
            for dtype in args.dtypes:
                rows["jaxbody", dtype] = dict(base, engine="jaxbody", dtype=dtype, **bench_jaxbody(
                    engines, qs, dtype, args.repeats, args.min_time, ref))
            if "pinocchio" in args.engines:
                rows["pinocchio", "float64"] = dict(base, engine="pinocchio", dtype="float64",
                                                    **bench_pinocchio(engines, qs, args.repeats,
                                                                      args.min_time))
            if "drake" in args.engines:
                rows["drake", "float64"] = dict(base, engine="drake", dtype="float64",
                                                **bench_drake(engines, qs, args.repeats,
                                                              args.min_time))
            for (engine, _), r in rows.items():
                r["per_config_median_s"] = r["run_median_s"] / batch
                r["per_config_min_s"] = r["run_min_s"] / batch
                for other in ("pinocchio", "drake"):
                    if engine == "jaxbody" and (other, "float64") in rows:
                        r[f"jaxbody/{other}"] = (r["run_median_s"]
                                                 / rows[other, "float64"]["run_median_s"])
            results.extend(rows.values())
            print_table(list(rows.values()))
    return {"benchmark": "forward_kinematics",
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "machine": machine_info(), "versions": versions(),
            "settings": {"repeats": args.repeats, "min_time_s": args.min_time,
                         "seed": args.seed, "ratio": "median time, jaxbody / other (< 1: "
                         "jaxbody faster); jaxbody float32 is compared with float64 others"},
            "models": model_info, "results": results}


def default_machine_name():
    return f"{platform.system().lower()}-{platform.machine()}-{os.cpu_count()}cpu"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=list(models.MODELS), choices=models.MODELS)
    ap.add_argument("--batches", nargs="+", type=int, default=list(DEFAULT_BATCHES))
    ap.add_argument("--dtypes", nargs="+", default=["float64", "float32"],
                    choices=["float64", "float32"], help="jaxbody dtypes (others: float64)")
    ap.add_argument("--engines", nargs="*", default=["pinocchio", "drake"],
                    choices=["pinocchio", "drake"], help="competitors to time")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.05, help="seconds per timing (min)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--machine", default=default_machine_name(), help="tag in the file name")
    ap.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)
    try:
        report = run(args)
    except check_models.PoseMismatch as e:
        sys.exit(f"REFUSING TO REPORT TIMINGS: {e}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"forward_kinematics_{args.machine}.json"
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\nwrote {path}")
    return report


if __name__ == "__main__":
    main()
