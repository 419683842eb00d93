"""Continuous-time contact (penalty point contact): jaxbody vs Drake on `continuous_scenes`.

    python -m benchmarks.continuous_contact [--scenes ball_bouncing box_sliding ...]
        [--batches 1 64] [--tolerances 1e-4 1e-6 1e-8] [--repeats 3] [--quick]

Question ``fixed_rk2``: the scene's duration at its fixed step with Heun's RK2 (Drake's
``RungeKutta2Integrator`` in a ``Simulator``; jaxbody's ``rollout(integrator="rk2",
project_quaternions=False)``), one env, then ``--batch`` envs with perturbed initial
velocities (jaxbody: ``jax.vmap`` of the rollout; Drake: one ``Simulator`` after another, timed
on ``--drake-max`` of them and scaled). Before timing, the final states of one env agree to
`AGREE_TOL`.

Question ``adaptive``: error-controlled integration at each of ``--tolerances``: jaxbody's
``simulate_adaptive`` (diffrax Dopri5, PID step control, rtol = atol = tol) against Drake's
default error-controlled ``RungeKutta3Integrator`` at target accuracy tol (the two tolerances
mean different norms, so compare the errors too). Both report steps taken and the final
state's error against Drake's RK3 at accuracy 1e-10.

Times: jaxbody's compile (``.lower().compile()``) apart from its run (``block_until_ready``);
the best of ``--repeats``. ``speedup_vs_drake`` = Drake's time / jaxbody's (> 1: jaxbody
faster; per env for batches).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import contact_scenes as cs  # noqa: E402
from benchmarks import continuous_scenes as ccs  # noqa: E402
from benchmarks.forward_kinematics import default_machine_name, machine_info, versions  # noqa: E402

AGREE_TOL = 1e-8  # one env's final state, jaxbody vs Drake (fixed RK2), relative to max(1, |x|)
PERTURB = 0.01  # m/s, rad/s: the batch's initial-velocity perturbation


def _best(call, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - t0)
    return min(times), out


def _drake_sim(scene, integrator, value):
    """(simulator, plant, plant context, x0) with Drake's integrator ``integrator``: the fixed
    step (RK2) or the target accuracy (RK3)."""
    from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator

    plant, diagram = cs.build(scene, "drake")
    q0, v0 = cs.initial_state(scene, plant, "drake")
    sim = Simulator(diagram)
    if integrator == "runge_kutta2":
        ResetIntegratorFromFlags(sim, integrator, value)
    else:
        ResetIntegratorFromFlags(sim, integrator, 0.01)
        sim.get_mutable_integrator().set_target_accuracy(value)
    pctx = plant.GetMyMutableContextFromRoot(sim.get_mutable_context())
    return sim, plant, pctx, np.concatenate([q0, v0])


def _drake_run(sim, plant, pctx, x0, t_final):
    nq = plant.num_positions()
    sim.get_mutable_context().SetTime(0.0)
    plant.SetPositions(pctx, x0[:nq])
    plant.SetVelocities(pctx, x0[nq:])
    sim.Initialize()
    sim.get_mutable_integrator().ResetStatistics()
    sim.AdvanceTo(t_final)
    integ = sim.get_integrator()
    return (np.concatenate([plant.GetPositions(pctx), plant.GetVelocities(pctx)]),
            integ.get_num_steps_taken(), integ.get_num_step_shrinkages_from_error_control())


def _perturbed(x0, nq, batch, rng):
    xs = np.tile(x0, (batch, 1))
    xs[1:, nq:] += PERTURB * rng.uniform(-1, 1, size=(batch - 1, len(x0) - nq))
    return xs


def fixed_rk2(name, args, rng):
    import jax
    import jax.numpy as jnp

    import jaxbody as jb

    make, t_final, h = ccs.SCENES[name]
    scene = make()
    plant, ctx = ccs.jaxbody_plant_and_context(scene)
    nq, n = plant.num_positions(), int(round(t_final / h))
    controller, params, _ = cs.jaxbody_rollout_inputs(scene, plant, n, jnp.float64)

    def run(x):
        c = ctx.replace(q=x[:nq], v=x[nq:])
        return jb.rollout(plant, c, controller, n, h, params=params, integrator="rk2",
                          project_quaternions=False, save_trajectory=False).final_state

    sim, dplant, pctx, x0 = _drake_sim(scene, "runge_kutta2", h)
    rows = []
    for batch in args.batches:
        xs = _perturbed(x0, nq, batch, rng)
        fn = jax.jit(jax.vmap(run)) if batch > 1 else jax.jit(run)
        arg = jnp.asarray(xs if batch > 1 else xs[0])
        t0 = time.perf_counter()
        compiled = fn.lower(arg).compile()
        compile_s = time.perf_counter() - t0
        jb_s, out = _best(lambda c=compiled, a=arg: c(a).block_until_ready(), args.repeats)
        k = min(batch, args.drake_max)
        d_s, d_out = _best(lambda first=xs[:k]: [_drake_run(sim, dplant, pctx, x, t_final)[0]
                                                 for x in first], args.repeats)
        d_per_env = d_s / k
        got = np.asarray(out).reshape(batch, -1)[:k]
        err = float(np.max(np.abs(got - np.asarray(d_out)) / np.maximum(1, np.abs(d_out))))
        if err > AGREE_TOL:
            raise AssertionError(f"{name}: jaxbody and Drake disagree by {err:.2e}")
        env_steps = batch * n
        rows.append({"engine": "jaxbody", "scene": name, "question": "fixed_rk2", "batch": batch,
                     "step": h, "steps": n, "compile_s": compile_s, "run_s": jb_s,
                     "env_steps_per_s": env_steps / jb_s,
                     "drake_run_s_per_env": d_per_env, "drake_envs_timed": k,
                     "drake_env_steps_per_s": n / d_per_env, "max_state_diff": err,
                     "speedup_vs_drake": d_per_env * batch / jb_s})
        print(f"{name:18s} fixed_rk2 batch {batch:4d}: jaxbody {env_steps / jb_s:10.0f} "
              f"env-steps/s (compile {compile_s:.1f} s), Drake {n / d_per_env:10.0f} "
              f"steps/s: {rows[-1]['speedup_vs_drake']:.2f}x (states agree to {err:.1e})")
    return rows


def adaptive(name, args, tol):
    import jax
    import jax.numpy as jnp

    import jaxbody as jb

    make, t_final, _ = ccs.SCENES[name]
    scene = make()
    plant, ctx = ccs.jaxbody_plant_and_context(scene)
    controller, params, _ = cs.jaxbody_rollout_inputs(scene, plant, 1, jnp.float64)

    def run(c):
        r = jb.simulate_adaptive(plant, c, t_final, controller, params=params, rtol=tol,
                                 atol=tol, max_steps=200_000)
        return r.final_state, r.num_steps, r.num_rejected_steps

    t0 = time.perf_counter()
    compiled = jax.jit(run).lower(ctx).compile()
    compile_s = time.perf_counter() - t0
    jb_s, (x_jb, steps, rejected) = _best(lambda: jax.block_until_ready(compiled(ctx)),
                                          args.repeats)
    sim, dplant, pctx, x0 = _drake_sim(scene, "runge_kutta3", tol)
    d_s, (x_d, d_steps, d_shrink) = _best(lambda: _drake_run(sim, dplant, pctx, x0, t_final),
                                          args.repeats)
    ref_sim = _drake_sim(scene, "runge_kutta3", 1e-10)
    x_ref = _drake_run(*ref_sim[:3], x0, t_final)[0]

    def err(x):
        return float(np.max(np.abs(np.asarray(x) - x_ref) / np.maximum(1, np.abs(x_ref))))

    row = {"engine": "jaxbody", "scene": name, "question": f"adaptive tol {tol:g}", "batch": 1,
           "tolerance": tol, "compile_s": compile_s, "run_s": jb_s,
           "steps": int(steps), "rejected_steps": int(rejected), "error": err(x_jb),
           "drake_integrator": "RungeKutta3 (error-controlled)", "drake_run_s": d_s,
           "drake_steps": int(d_steps), "drake_step_shrinkages": int(d_shrink),
           "drake_error": err(x_d), "speedup_vs_drake": d_s / jb_s}
    print(f"{name:18s} adaptive  tol {tol:.0e}: jaxbody Dopri5 {int(steps):6d} steps "
          f"({int(rejected)} rejected) {jb_s * 1e3:8.1f} ms, error {row['error']:.1e} "
          f"(compile {compile_s:.1f} s); Drake RK3 {int(d_steps):6d} steps {d_s * 1e3:8.1f} "
          f"ms, error {row['drake_error']:.1e}: {row['speedup_vs_drake']:.2f}x")
    return [row]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", nargs="+", default=list(ccs.SCENES), choices=list(ccs.SCENES))
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 64])
    ap.add_argument("--cpus", type=int, default=None, help="pin to this many cores (taskset-like)")
    ap.add_argument("--questions", nargs="+", default=["fixed_rk2", "adaptive"],
                    choices=["fixed_rk2", "adaptive"])
    ap.add_argument("--tolerances", nargs="+", type=float, default=[1e-4, 1e-6, 1e-8],
                    help="adaptive: jaxbody's rtol = atol and Drake's target accuracy")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--drake-max", type=int, default=8, help="envs Drake is timed on")
    ap.add_argument("--quick", action="store_true", help="the ball only, batches 1 and 4")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--machine", default=default_machine_name())
    ap.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)
    if args.cpus:
        import os

        os.sched_setaffinity(0, set(range(args.cpus)))
    if args.quick:
        args.scenes, args.batches, args.repeats = ["ball_bouncing"], [1, 4], 1
        args.tolerances = [1e-6]
    import jax

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(args.seed)
    results = []
    for name in args.scenes:
        if "fixed_rk2" in args.questions:
            results += fixed_rk2(name, args, rng)
        if "adaptive" in args.questions:
            for tol in args.tolerances:
                results += adaptive(name, args, tol)
    report = {"benchmark": "continuous_contact",
              "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
              "machine": machine_info(), "versions": versions(),
              "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
              "ratio": "speedup_vs_drake: Drake's run time / jaxbody's, per env (> 1: jaxbody "
                       "faster)", "results": results}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"continuous_contact_{args.machine}.json"
    path.write_text(json.dumps(report, indent=1, default=float) + "\n")
    print(f"\nwrote {path}")
    return report


if __name__ == "__main__":
    main()
