"""Continuous-time rollouts and their mass gradients: jaxbody vs Drake vs MuJoCo / MJX.

    python -m benchmarks.rollout [--models arm7 quadruped] [--batches 1 1024] [--steps 1000]
        [--grad-steps 100] [--dt 1e-3] [--repeats 3] [--questions rollout grad_masses]

Question 1: how long do ``--steps`` RK4 steps of dt take, per batch of initial states?
- jaxbody: ``jax.jit(jax.vmap(rollout(..., save_trajectory=False)))``, compiled with
  ``.lower().compile()`` (reported apart), timed with ``block_until_ready`` on the result.
- Drake: ``Simulator`` with its fixed-step ``runge_kutta4`` integrator, one rollout at a time
  (batches > ``--drake-max`` are timed on ``--drake-max`` rollouts and scaled linearly:
  ``extrapolated`` in the JSON).
- MuJoCo: ``mujoco.rollout`` (C++ loop, one thread) with ``integrator="RK4"``, contact disabled.
Before timing, the three engines' final states after 100 steps must agree to `AGREE_TOL`.

Question 2: the gradient of ``L = |x_N|²`` after ``--grad-steps`` RK4 steps w.r.t. every
link mass (batch 1): jaxbody ``jax.grad`` (reverse mode, by `rollout`'s adjoint and, as
``jaxbody_autodiff``, by plain autodiff of the scan) vs Drake AutoDiffXd (forward mode,
one derivative per mass, RK4 written out in Python over ``CalcTimeDerivatives``) vs MJX's
``jax.grad`` of ``mjx.step`` (RK4; ``--engines`` with no name leaves MJX out). Targets: >= 20x
faster than Drake (moonshot 100x), compiling in < 10 s, faster than MJX.
Ratios are times jaxbody / other (< 1: jaxbody faster).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import models  # noqa: E402
from benchmarks.forward_kinematics import (  # noqa: E402
    default_machine_name,
    machine_info,
    measure,
    versions,
)
from benchmarks.rollout_engines import (  # noqa: E402
    DrakeEngine,
    JaxbodyEngine,
    MjxGrad,
    MujocoEngine,
)

AGREE_TOL = 1e-6  # final-state agreement after 100 RK4 steps, relative to max(1, |x|)


def _initial_states(engines, rng, batch):
    q = models.random_q(engines, rng, batch)
    q = 0.3 * q  # moderate angles
    for s in models._free_q_starts(engines):
        quat = np.array([1.0, 0, 0, 0]) + 0.2 * rng.normal(size=(batch, 4))
        q[:, s:s + 4] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
        q[:, s + 4:s + 7] = rng.uniform(-0.5, 0.5, size=(batch, 3))
    v = 0.5 * rng.normal(size=(batch, engines.nv))
    return q, v


def run_model(name, args, rng):
    engines = models.build(name)
    jb_eng, dr_eng, mj_eng = JaxbodyEngine(engines), DrakeEngine(engines), MujocoEngine(engines)
    q, v = _initial_states(engines, rng, max(args.batches))
    # ---- agreement ----------------------------------------------------------------------
    xj = jb_eng.final_states(q[:4], v[:4], 100, args.dt)
    xd = np.stack([dr_eng.final_state(q[i], v[i], 100, args.dt) for i in range(4)])
    xm = mj_eng.final_states(q[:4], v[:4], 100, args.dt)
    scale = max(1.0, np.abs(xd).max())
    err_drake, err_mujoco = np.abs(xj - xd).max() / scale, np.abs(xj - xm).max() / scale
    print(f"# {name}: final states after 100 steps, jaxbody vs Drake {err_drake:.1e}, "
          f"vs MuJoCo {err_mujoco:.1e}", flush=True)
    if not (err_drake < AGREE_TOL and err_mujoco < AGREE_TOL):
        raise SystemExit(f"REFUSING TO REPORT TIMINGS: {name} engines disagree "
                         f"({err_drake:.1e}, {err_mujoco:.1e})")
    info = {"nq": engines.nq, "nv": engines.nv, "agreement_vs_drake": err_drake,
            "agreement_vs_mujoco": err_mujoco}
    rows = []
    # ---- question 1: rollouts --------------------------------------------------------------
    for batch in args.batches if "rollout" in args.questions else ():
        base = {"model": name, "nv": engines.nv, "batch": batch, "steps": args.steps,
                "dt": args.dt, "question": "rollout"}
        qb, vb = q[:batch], v[:batch]
        call, comp = jb_eng.compiled_rollout(qb, vb, args.steps, args.dt)
        r_j = dict(base, engine="jaxbody", **comp, **measure(call, args.repeats, args.min_time))
        n_dr = min(batch, args.drake_max)
        def drake_call(qb=qb, vb=vb, n_dr=n_dr):
            return [dr_eng.final_state(qb[i], vb[i], args.steps, args.dt) for i in range(n_dr)]

        t_dr = measure(drake_call, max(1, args.repeats // 2), 0.0)
        scale_dr = batch / n_dr
        r_d = dict(base, engine="drake", extrapolated=n_dr < batch, timed_rollouts=n_dr,
                   run_median_s=t_dr["run_median_s"] * scale_dr,
                   run_min_s=t_dr["run_min_s"] * scale_dr)
        t_mj = measure(mj_eng.rollout_call(qb, vb, args.steps, args.dt), args.repeats,
                       args.min_time)
        r_m = dict(base, engine="mujoco", threads=1, **t_mj)
        r_j["jaxbody/drake"] = r_j["run_median_s"] / r_d["run_median_s"]
        r_j["jaxbody/mujoco"] = r_j["run_median_s"] / r_m["run_median_s"]
        rows += [r_j, r_d, r_m]
        _print_rows([r_j, r_d, r_m])
    # ---- question 2: mass gradients ---------------------------------------------------------
    if "grad_masses" not in args.questions:
        return info, rows
    base = {"model": name, "nv": engines.nv, "batch": 1, "steps": args.grad_steps,
            "dt": args.dt, "question": "grad_masses"}
    q1, v1 = q[0], v[0]
    call, comp, g_j = jb_eng.compiled_mass_grad(q1, v1, args.grad_steps, args.dt)
    r_j = dict(base, engine="jaxbody", gradient="adjoint", **comp,
               **measure(call, args.repeats, args.min_time))
    call_a, comp_a, g_a = jb_eng.compiled_mass_grad(q1, v1, args.grad_steps, args.dt, False)
    r_a = dict(base, engine="jaxbody_autodiff", gradient="autodiff of the scan", **comp_a,
               **measure(call_a, args.repeats, args.min_time),
               grad_rel_diff=float(np.abs(g_j - g_a).max() / max(1e-300, np.abs(g_a).max())))
    g_d, t_d = dr_eng.autodiff_mass_grad(q1, v1, args.grad_steps, args.dt)
    r_d = dict(base, engine="drake_autodiff", run_median_s=t_d, run_min_s=t_d,
               grad_rel_diff=float(np.abs(g_j - g_d).max() / max(1e-300, np.abs(g_d).max())))
    r_j["jaxbody/jaxbody_autodiff"] = r_j["run_median_s"] / r_a["run_median_s"]
    r_j["jaxbody/drake_autodiff"] = r_j["run_median_s"] / r_d["run_median_s"]
    r_j["target_drake_20x_met"] = r_j["jaxbody/drake_autodiff"] <= 0.05
    r_j["target_drake_100x_met"] = r_j["jaxbody/drake_autodiff"] <= 0.01
    r_j["target_compile_10s_met"] = r_j["compile_s"] < 10.0
    new = [r_j, r_a, r_d]
    if "mjx" in args.engines:
        mjx = MjxGrad(mj_eng)
        call_m, comp_m, g_m = mjx.compiled(q1, v1, args.grad_steps, args.dt)
        r_m = dict(base, engine="mjx", **comp_m, **measure(call_m, args.repeats, args.min_time),
                   grad_rel_diff=float(np.abs(g_j - g_m).max() / max(1e-300, np.abs(g_m).max())))
        r_j["jaxbody/mjx"] = r_j["run_median_s"] / r_m["run_median_s"]
        r_j["target_faster_than_mjx_met"] = r_j["jaxbody/mjx"] < 1.0
        new.append(r_m)
    rows += new
    _print_rows(new)
    return info, rows


def _fmt(t):
    return f"{t * 1e6:9.1f}us" if t < 1e-2 else f"{t * 1e3:9.2f}ms" if t < 10 else f"{t:9.2f}s "


def _print_rows(rows):
    for r in rows:
        comp = f"compile {r['compile_s']:6.2f}s" if "compile_s" in r else " " * 15
        ratios = " ".join(f"{k}={v:.3g}" for k, v in r.items() if "/" in k)
        extra = " (extrapolated)" if r.get("extrapolated") else ""
        print(f"{r['question']:11s} {r['model']:9s} batch {r['batch']:5d} {r['engine']:15s} "
              f"{comp} median {_fmt(r['run_median_s'])} min {_fmt(r['run_min_s'])} "
              f"{ratios}{extra}", flush=True)


def merge(old, new):
    """``old`` with the rows of ``new``'s (question, model, batch, engine) replacing its own
    (an engine not rerun keeps its rows, from its own run)."""
    def key(r):
        return r["question"], r["model"], r["batch"], r["engine"]

    rerun = {key(r) for r in new["results"]}
    rows = [r for r in old["results"] if key(r) not in rerun] + new["results"]
    note = (f"{', '.join(new['settings']['questions'])} on "
            f"{', '.join(new['settings']['models'])} rerun on {new['created']}")
    merged = dict(old, results=rows, models={**old.get("models", {}), **new["models"]})
    merged["merged"] = "; ".join(x for x in (old.get("merged"), note) if x)
    merged.setdefault("reruns", []).append({k: new[k] for k in ("created", "settings",
                                                                 "versions", "machine")})
    return merged


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["arm7", "quadruped"], choices=models.MODELS)
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 1024])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--grad-steps", type=int, default=100)
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.0)
    ap.add_argument("--drake-max", type=int, default=8, help="rollouts Drake is timed on")
    ap.add_argument("--questions", nargs="+", default=["rollout", "grad_masses"],
                    choices=["rollout", "grad_masses"], help="grad_masses compiles for minutes")
    ap.add_argument("--engines", nargs="*", default=["mjx"], choices=["mjx"],
                    help="optional engines besides Drake and MuJoCo (--engines with no name: "
                         "none; MJX's gradient compiles for minutes)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--machine", default=default_machine_name())
    ap.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results")
    ap.add_argument("--merge", action="store_true",
                    help="replace only the rerun (question, model, batch, engine) rows in the "
                         "existing JSON")
    args = ap.parse_args(argv)
    import jax

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(args.seed)
    results, model_info = [], {}
    for name in args.models:
        model_info[name], rows = run_model(name, args, rng)
        results += rows
    report = {"benchmark": "rollout",
              "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
              "machine": machine_info(), "versions": versions(),
              "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
              "ratio": "median time, jaxbody / other (< 1: jaxbody faster)",
              "models": model_info, "results": results}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"rollout_{args.machine}.json"
    if args.merge and path.exists():
        report = merge(json.loads(path.read_text()), report)
    path.write_text(json.dumps(report, indent=1, default=float) + "\n")
    print(f"\nwrote {path}")
    return report


if __name__ == "__main__":
    main()
