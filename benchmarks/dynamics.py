"""Dynamics: RNEA, CRBA, forward dynamics (ABA; CRBA + Cholesky) and the (q, v) Jacobian of ABA,
jaxbody vs Pinocchio vs Drake.

    python -m benchmarks.dynamics [--models panda go1 g1] [--batches 1 64 1024 4096]
        [--jac-batches 1 64] [--kernels rnea crba aba fd_crba aba_jac] [--repeats 3]
        [--min-time 0.02] [--ref-samples 32] [--autodiff-samples 4] [--devices 1] [--merge]

Models: by default the real robots of `benchmarks.urdf_models.BENCHMARK_MODELS` (panda with
welded fingers, go1, g1: example-robot-data URDFs parsed by all three engines, the Pinocchio q/v
mapping checked against Drake before any timing); the API-built ``arm7``, ``quadruped``,
``humanoid`` of `benchmarks.models` stay selectable. Output: ``dynamics_urdf_<machine>.json``
if every model is a URDF one, else ``dynamics_<machine>.json``.

jaxbody: each kernel is ``jax.jit(jax.vmap(f))`` over (q, v, x), compiled with
``.lower(...).compile()`` once per batch size (compile time reported apart) and timed with
``jax.block_until_ready`` on the result. Kernels: ``rnea`` = CalcInverseDynamics (x = v̇),
``crba`` = CalcMassMatrix, ``aba`` / ``fd_crba`` = CalcGeneralizedAccelerations with
method "aba" / "crba" (x = τ, applied as generalized forces; gravity included), ``aba_jac`` =
``jax.jacfwd`` of the ABA function w.r.t. (q, v), an (nv, nq + nv) Jacobian per sample.
Pinocchio (``rnea`` [includes gravity], ``crba``, ``aba``, ``computeABADerivatives``) and Drake
(double: CalcInverseDynamics, CalcMassMatrix, CalcTimeDerivatives; AutoDiffXd: the gradient
of CalcTimeDerivatives' v̇ w.r.t. [q; v] seeded by ``InitializeAutoDiff``) are timed per call
in a Python loop over ``--ref-samples`` states (``--autodiff-samples`` for AutoDiffXd): their
cost per sample does not depend on the batch. Every compiled jaxbody kernel is first checked
against Drake (same q/v layout) on the batch it is timed on, to `CHECK_TOL`; otherwise the
script exits without reporting. Ratios are speedups: other engine's time per sample / jaxbody's.

``--devices N`` (N > 1) forces N XLA:CPU host devices and runs each jaxbody kernel as
``jax.jit(jax.shard_map(jax.vmap(f)))`` with the batch split over them (one per core: what
`jaxbody.simulation.sharding.sharded_vmap` does), so the ratio is per machine against the other
engines' single thread; its rows carry ``devices`` and the README table lists them apart.
``--merge`` replaces, in the existing JSON, the rows of the kernels (and device count) rerun, and
keeps the others, noting what was merged.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import models, urdf_models  # noqa: E402
from benchmarks.forward_kinematics import (  # noqa: E402
    default_machine_name,
    machine_info,
    measure,
    versions,
)

KERNELS = ("rnea", "crba", "aba", "fd_crba", "aba_jac")
CHECK_TOL = 1e-9  # jaxbody vs Drake, relative to max(1, |Drake|), float64
NUM_CHECKED = 2  # samples of each timed batch checked against Drake
REFERENCE = {  # kernel -> (Pinocchio function, Drake computation) it is compared with
    "rnea": ("rnea", "CalcInverseDynamics"), "crba": ("crba", "CalcMassMatrix"),
    "aba": ("aba", "CalcTimeDerivatives"), "fd_crba": ("aba", "CalcTimeDerivatives"),
    "aba_jac": ("computeABADerivatives", "AutoDiffXd CalcTimeDerivatives gradient")}


class Mismatch(AssertionError):
    """A jaxbody kernel disagrees with Drake: its timings would be meaningless."""


# ---- jaxbody ----------------------------------------------------------------------------------
def jaxbody_kernels(plant):
    """name -> ``f(context, q, v, x)`` for one sample (x is v̇ for rnea, τ otherwise)."""
    import jax
    import jax.numpy as jnp

    import jaxbody as jb

    def state(ctx, q, v):
        return plant.SetVelocities(plant.SetPositions(ctx, q), v)

    def fd(method):
        return lambda ctx, q, v, tau: plant.CalcGeneralizedAccelerations(
            state(ctx, q, v), applied_forces=jb.MultibodyForces(plant, tau), method=method)

    def aba_jac(ctx, q, v, tau):
        dq, dv = jax.jacfwd(fd("aba"), argnums=(1, 2))(ctx, q, v, tau)
        return jnp.concatenate([dq, dv], axis=-1)

    return {"rnea": lambda ctx, q, v, vdot: plant.CalcInverseDynamics(
                state(ctx, q, v), vdot, jb.MultibodyForces(plant)),
            "crba": lambda ctx, q, v, x: plant.CalcMassMatrix(plant.SetPositions(ctx, q)),
            "aba": fd("aba"), "fd_crba": fd("crba"), "aba_jac": aba_jac}


def _compiled_batch(plant, kernel, context, args):
    """(fn, args): ``fn(context, *args)`` maps the kernel over the batch, on one device, or
    split over every device (`--devices`) when the batch divides among them."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    f = jax.vmap(jaxbody_kernels(plant)[kernel], in_axes=(None, 0, 0, 0))
    args = [jnp.asarray(a) for a in args]
    devices = jax.devices()
    if len(devices) == 1 or len(args[0]) % len(devices):
        return jax.jit(f), args, 1
    mesh = Mesh(np.asarray(devices), ("batch",))
    spec = PartitionSpec("batch")
    args = [jax.device_put(a, NamedSharding(mesh, spec)) for a in args]
    mapped = jax.shard_map(lambda q, v, x: f(context, q, v, x), mesh=mesh,
                           in_specs=(spec, spec, spec), out_specs=spec)
    return jax.jit(lambda ctx, q, v, x: mapped(q, v, x)), args, len(devices)


def bench_jaxbody(plant, kernel, args, expected, repeats, min_time):
    import jax
    import jax.numpy as jnp

    context = plant.CreateDefaultContext(jnp.float64)
    fn, args, devices = _compiled_batch(plant, kernel, context, args)
    t0 = time.perf_counter()
    lowered = fn.lower(context, *args)
    t1, c1 = time.perf_counter(), time.process_time()
    compiled = lowered.compile()  # XLA; CPU seconds too: wall time inflates on a loaded machine
    lower_s, compile_s = t1 - t0, time.perf_counter() - t1
    compile_cpu_s = time.process_time() - c1
    out = np.asarray(jax.block_until_ready(compiled(context, *args)))[:len(expected)]
    err = np.abs(out - expected).max() / max(1.0, np.abs(expected).max())
    if not err < CHECK_TOL:
        raise Mismatch(f"{kernel}, batch {len(args[0])}: compiled jaxbody differs from Drake "
                       f"by {err:.3e} (tolerance {CHECK_TOL:.0e})")
    stats = measure(lambda: jax.block_until_ready(compiled(context, *args)), repeats, min_time)
    return dict(stats, lower_s=lower_s, compile_s=compile_s, compile_cpu_s=compile_cpu_s,
                max_discrepancy_vs_drake=err, devices=devices)


# ---- Drake --------------------------------------------------------------------------------------
def drake_calls(engines, autodiff_plant=None):
    """kernel -> ``call(q, v, x) -> result`` in the jaxbody/Drake layout (one sample)."""
    from pydrake.autodiffutils import ExtractGradient, InitializeAutoDiff
    from pydrake.multibody.tree import MultibodyForces

    plant, _ = engines.drake
    nq = plant.num_positions()
    ctx = plant.CreateDefaultContext()
    forces, xdot = MultibodyForces(plant), plant.AllocateTimeDerivatives()
    port = plant.get_applied_generalized_force_input_port()
    _zero_actuation(plant, ctx)

    def rnea(q, v, vdot):
        plant.SetPositionsAndVelocities(ctx, np.concatenate([q, v]))
        return plant.CalcInverseDynamics(ctx, vdot, forces)

    def crba(q, v, x):
        plant.SetPositions(ctx, q)
        return plant.CalcMassMatrix(ctx)

    def fd(q, v, tau):
        plant.SetPositionsAndVelocities(ctx, np.concatenate([q, v]))
        port.FixValue(ctx, tau)
        plant.CalcTimeDerivatives(ctx, xdot)
        return xdot.CopyToVector()[nq:]

    calls = {"rnea": rnea, "crba": crba, "aba": fd, "fd_crba": fd}
    if autodiff_plant is not None:
        ad_ctx = autodiff_plant.CreateDefaultContext()
        ad_port = autodiff_plant.get_applied_generalized_force_input_port()
        ad_xdot = autodiff_plant.AllocateTimeDerivatives()
        _zero_actuation(autodiff_plant, ad_ctx)

        def aba_jac(q, v, tau):  # the full (q, v) gradient of v̇, one AutoDiffXd pass
            autodiff_plant.SetPositionsAndVelocities(ad_ctx,
                                                     InitializeAutoDiff(np.concatenate([q, v])))
            ad_port.FixValue(ad_ctx, tau)
            autodiff_plant.CalcTimeDerivatives(ad_ctx, ad_xdot)
            return ExtractGradient(ad_xdot.CopyToVector()[nq:])

        calls["aba_jac"] = aba_jac
    return calls


def _zero_actuation(plant, ctx):
    if plant.num_actuators():  # URDF transmissions: zero actuation (τ is an applied force)
        plant.get_actuation_input_port().FixValue(ctx, np.zeros(plant.num_actuators()))


def _loop(call, rows):
    def run():
        for r in rows:
            call(*r)
    return run


# ---- Pinocchio ----------------------------------------------------------------------------------
def pinocchio_calls(engines, q, v, x):
    """Pinocchio function name -> call() looping over the states (given in jaxbody's layout)."""
    import pinocchio as pin

    model = engines.pinocchio
    data = model.createData()
    conv = models.PinocchioCoordinates(engines, q)
    qp, vp = conv.q, conv.v(v)
    ap, taup = conv.vdot(x, v), conv.tau(x)  # x read as v̇ (rnea) or as τ (the others)
    rows = [tuple(np.ascontiguousarray(a[k]) for a in (qp, vp, ap, taup)) for k in range(len(q))]
    fns = {"rnea": lambda q_, v_, a_, t_: pin.rnea(model, data, q_, v_, a_),
           "crba": lambda q_, v_, a_, t_: pin.crba(model, data, q_),
           "aba": lambda q_, v_, a_, t_: pin.aba(model, data, q_, v_, t_),
           "computeABADerivatives": lambda q_, v_, a_, t_: pin.computeABADerivatives(
               model, data, q_, v_, t_)}
    return {k: _loop(f, rows) for k, f in fns.items()}


# ---- one model --------------------------------------------------------------------------------
def bench_model(name, args, rng):
    engines = urdf_models.build_engines(name)
    pj, _ = engines.jaxbody
    nmax = max(max(args.batches), max(args.jac_batches), args.ref_samples)
    q = models.random_q(engines, rng, nmax)
    v, x = rng.normal(size=(2, nmax, engines.nv))
    want_jac = "aba_jac" in args.kernels
    ad_plant = engines.drake[0].ToAutoDiffXd() if want_jac else None
    dcalls = drake_calls(engines, ad_plant)
    expected = {k: np.array([dcalls[k](q[i], v[i], x[i]) for i in range(NUM_CHECKED)])
                for k in args.kernels}
    base = {"model": name, "nq": engines.nq, "nv": engines.nv}
    refs, rows = {}, []
    nref, nad = args.ref_samples, args.autodiff_samples
    pcalls = pinocchio_calls(engines, q[:nref], v[:nref], x[:nref])
    for kernel in args.kernels:
        pname, dname = REFERENCE[kernel]
        n_d = nad if kernel == "aba_jac" else nref
        for engine, call, n, fn_name in (
                ("pinocchio", pcalls[pname], nref, pname),
                ("drake", _loop(dcalls[kernel], list(zip(q[:n_d], v[:n_d], x[:n_d]))), n_d,
                 dname)):
            key = (engine, fn_name)
            if key not in refs:
                st = measure(call, args.repeats, 0.0 if engine == "drake" and kernel ==
                             "aba_jac" else args.min_time)
                refs[key] = dict(base, kernel=kernel, engine=engine, function=fn_name,
                                 samples=n, per_sample_median_s=st["run_median_s"] / n,
                                 per_sample_min_s=st["run_min_s"] / n, **st)
                rows.append(refs[key])
        for batch in (args.jac_batches if kernel == "aba_jac" else args.batches):
            r = dict(base, kernel=kernel, engine="jaxbody", batch=batch, **bench_jaxbody(
                pj, kernel, (q[:batch], v[:batch], x[:batch]), expected[kernel][:batch],
                args.repeats, args.min_time))
            r["per_sample_median_s"] = r["run_median_s"] / batch
            r["per_sample_min_s"] = r["run_min_s"] / batch
            r["throughput_per_s"] = batch / r["run_median_s"]
            for engine, fn_name in (("pinocchio", pname), ("drake", dname)):
                r[f"speedup_vs_{engine}"] = (refs[engine, fn_name]["per_sample_median_s"]
                                             / r["per_sample_median_s"])
            rows.append(r)
            sp, sd = r["speedup_vs_pinocchio"], r["speedup_vs_drake"]
            print(f"{name:9s} {kernel:8s} batch {batch:5d}: compile {r['compile_s']:6.2f}s  "
                  f"{r['per_sample_median_s'] * 1e6:10.2f} us/sample  x{sp:8.3f} vs Pinocchio"
                  f"  x{sd:8.3f} vs Drake", flush=True)
    return engines, rows


# ---- summary ------------------------------------------------------------------------------------
def summarize(rows):
    """Best-batch throughput per kernel, the targets, and ABA vs CRBA forward dynamics."""
    jb = [r for r in rows if r["engine"] == "jaxbody"]
    ref = {(r["model"], r["engine"], r["kernel"]): r for r in rows if r["engine"] != "jaxbody"}
    best, out = {}, {"best_batch": [], "targets": {}, "fd_aba_vs_crba": []}
    for r in jb:
        k = (r["model"], r["kernel"])
        if k not in best or r["throughput_per_s"] > best[k]["throughput_per_s"]:
            best[k] = r
    for (model, kernel), r in best.items():
        out["best_batch"].append({"model": model, "kernel": kernel, "batch": r["batch"],
                                  "throughput_per_s": r["throughput_per_s"],
                                  "speedup_vs_pinocchio": r["speedup_vs_pinocchio"],
                                  "speedup_vs_drake": r["speedup_vs_drake"]})
    t = out["targets"]
    for h in ("humanoid", "g1"):  # the humanoids: API-built and real
        if (h, "aba") not in best:
            continue
        b, p = best[h, "aba"], ref[h, "pinocchio", "aba"]
        t[f"{h}_aba_throughput_vs_pinocchio"] = {
            "value": b["throughput_per_s"] * p["per_sample_median_s"], "target": ">= 2",
            "jaxbody_per_s": b["throughput_per_s"], "batch": b["batch"],
            "pinocchio_per_s": 1 / p["per_sample_median_s"]}
        comp, cpu = zip(*[(r["compile_s"], r["compile_cpu_s"]) for r in jb
                          if (r["model"], r["kernel"]) == (h, "aba")])
        t[f"{h}_aba_compile_s"] = {"value": max(comp), "min": min(comp), "target": "< 5",
                                   "cpu_s_max": max(cpu), "cpu_s_min": min(cpu)}
    for (model, kernel), b in best.items():
        if kernel == "aba_jac":
            t[f"{model}_fd_gradient_speedup_vs_drake_autodiff"] = {
                "value": b["speedup_vs_drake"], "target": ">= 100", "batch": b["batch"]}
            t[f"{model}_fd_gradient_speedup_vs_pinocchio_derivatives"] = {
                "value": b["speedup_vs_pinocchio"], "batch": b["batch"]}
    by = {(r["model"], r["kernel"], r["batch"]): r for r in jb}
    for (model, kernel, batch), r in by.items():
        if kernel == "aba" and (model, "fd_crba", batch) in by:
            c = by[model, "fd_crba", batch]
            out["fd_aba_vs_crba"].append({
                "model": model, "nv": r["nv"], "batch": batch,
                "crba_time_over_aba_time": c["run_median_s"] / r["run_median_s"],
                "faster": "aba" if r["run_median_s"] < c["run_median_s"] else "crba"})
    return out


def git_state():
    try:
        def git(*a):
            return subprocess.run(["git", *a], capture_output=True, text=True, timeout=10,
                                  cwd=Path(__file__).resolve().parents[1]).stdout.strip()
        return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain"))}
    except (OSError, subprocess.SubprocessError):
        return {}


def run(args):
    import jax

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(args.seed)
    rows, model_info, t0 = [], {}, time.perf_counter()
    for name in args.models:
        engines, r = bench_model(name, args, rng)
        model_info[name] = {"nq": engines.nq, "nv": engines.nv,
                            "num_bodies": engines.drake[0].num_bodies() - 1,  # no world
                            "jaxbody_forward_dynamics_method":
                                engines.jaxbody[0].forward_dynamics_method()}
        rows.extend(r)
    summary = summarize(rows)
    print(json.dumps(summary, indent=1))
    return {"benchmark": "dynamics",
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "machine": dict(machine_info(), load_average=os.getloadavg()),
            "versions": dict(versions(), jaxbody_git=git_state()),
            "settings": {k: v for k, v in vars(args).items() if k not in ("out_dir",)},
            "wall_s": time.perf_counter() - t0, "dtype": "float64",
            "notes": "speedup = other engine's median time per sample / jaxbody's (> 1: jaxbody "
                     "faster); Pinocchio and Drake are single-threaded Python loops, per call; "
                     "pin.rnea includes gravity, jaxbody and Drake CalcInverseDynamics do not",
            "reference_functions": REFERENCE, "models": model_info, "summary": summary,
            "results": rows}


def _row_key(r):
    return r["kernel"], r["engine"], r.get("devices", 1) if r["engine"] == "jaxbody" else 1


def merge(old, new):
    """``old`` with the rows of ``new``'s (kernel, engine, devices) replacing its own."""
    rerun = {_row_key(r) for r in new["results"]}
    rows = [r for r in old["results"] if _row_key(r) not in rerun] + new["results"]
    note = (f"{', '.join(new['settings']['kernels'])} rows (devices "
            f"{new['settings']['devices']}) rerun on {new['created']}")
    merged = dict(old, results=rows, summary=summarize(rows))
    merged["merged"] = "; ".join(x for x in (old.get("merged"), note) if x)
    merged.setdefault("reruns", []).append({k: new[k] for k in ("created", "settings",
                                                                 "versions", "machine")})
    return merged


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=list(urdf_models.BENCHMARK_MODELS),
                    choices=[*urdf_models.BENCHMARK_MODELS, *models.MODELS])
    ap.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=KERNELS)
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 64, 1024, 4096])
    ap.add_argument("--jac-batches", nargs="+", type=int, default=[1, 64],
                    help="batches for aba_jac (its compile and run dominate the run time)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.02, help="seconds per timing (min)")
    ap.add_argument("--ref-samples", type=int, default=32, help="states per Pinocchio/Drake loop")
    ap.add_argument("--autodiff-samples", type=int, default=4, help="Drake AutoDiffXd states")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--machine", default=default_machine_name(), help="tag in the file name")
    ap.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results")
    ap.add_argument("--devices", type=int, default=1,
                    help="XLA:CPU host devices the jaxbody batch is split over (one per core)")
    ap.add_argument("--merge", action="store_true",
                    help="replace only the rerun kernels' rows in the existing JSON")
    args = ap.parse_args(argv)
    if args.devices > 1:  # before JAX starts
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_"
                                   f"platform_device_count={args.devices}").strip()
    try:
        report = run(args)
    except AssertionError as e:  # Mismatch, or engines whose q/v layouts disagree
        sys.exit(f"REFUSING TO REPORT TIMINGS: {e}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    urdf = all(m in urdf_models.BENCHMARK_MODELS for m in args.models)
    path = args.out_dir / f"dynamics_{'urdf_' if urdf else ''}{args.machine}.json"
    if args.merge and path.exists():
        report = merge(json.loads(path.read_text()), report)
    path.write_text(json.dumps(report, indent=1, default=str) + "\n")
    print(f"\nwrote {path}")
    return report


if __name__ == "__main__":
    main()
