"""``jaxbody simulate [MODEL]``: runs a model file, or a scene built in code, and summarizes.

With ``--time-step > 0`` the plant is discrete and steps with SAP contact
(`jaxbody.discrete_rollout`); with ``--time-step 0`` it is continuous and integrates with
``--integrator`` at ``--dt`` (`jaxbody.rollout`, no contact). The steps run as chunks of one
compiled ``lax.scan`` each (``--chunk`` steps, fewer for big batches), so a progress bar can
follow; the chunk is compiled once, ahead of time, and its compile time reported apart.
``--batch N`` runs N copies from randomly perturbed initial states (env 0 unperturbed) under
``jax.vmap``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

import jaxbody as jb
from jaxbody.cli.models import CliError, load_model
from jaxbody.cli.scenes import SCENES, Model

DEFAULT_CHUNK = 250  # steps per compiled chunk (one progress-bar update)
CHUNK_BUDGET = 2e7  # numbers a chunk may stack (all envs, all per-step outputs): bounds memory


def add_arguments(p):
    p.add_argument("model", nargs="?", default=None,
                   help="URDF, SDFormat (.sdf) or MJCF (.xml) file; none: the --scene built in code")
    p.add_argument("--scene", default="boxes", choices=sorted(SCENES),
                   help="the built-in scene without MODEL (default: boxes, a contact scene)")
    p.add_argument("--duration", type=float, metavar="S", default=2.0, help="simulated time (s), default 2")
    p.add_argument("--time-step", type=float, metavar="S", default=1e-3,
                   help="discrete plant step (s), SAP contact; 0: continuous (default 1e-3)")
    p.add_argument("--integrator", default="rk4",
                   choices=["rk4", "semi_implicit_euler", "explicit_euler"],
                   help="continuous time (--time-step 0) only")
    p.add_argument("--dt", type=float, metavar="S", default=1e-3,
                   help="integrator step (s), continuous time only")
    p.add_argument("--ground", action=argparse.BooleanOptionalAction, default=True,
                   help="model files: add a ground half-space at z = 0 (default: yes)")
    p.add_argument("--self-collision", action="store_true",
                   help="model files: let the model's own geometries collide with each other")
    p.add_argument("--batch", type=int, metavar="N", default=1, help="run N perturbed copies, vmapped")
    p.add_argument("--perturb", type=float, metavar="STD", default=0.01,
                   help="batch: initial q noise (std, rad or m); v gets 10x (default 0.01)")
    p.add_argument("--seed", type=int, metavar="SEED", default=0, help="batch perturbation seed")
    p.add_argument("--chunk", type=int, metavar="STEPS", default=DEFAULT_CHUNK,
                   help="steps per compiled chunk")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: when stderr is a terminal)")
    p.add_argument("--out", metavar="FILE.npz",
                   help="save times, q, v (and contacts when discrete) to this .npz")
    p.add_argument("--html", metavar="FILE.html",
                   help="write a self-contained HTML page that plays the motion")
    p.add_argument("--package-path", action="append", default=[], metavar="FOLDER",
                   help="a folder searched for package.xml files (repeatable)")
    p.add_argument("--package", action="append", default=[], metavar="NAME=FOLDER",
                   help="resolve package://NAME/ to FOLDER (repeatable)")
    p.add_argument("--no-cache", action="store_true",
                   help="do not use the persistent compilation cache (see `jaxbody --help`)")


def _positive(what, value):
    if not (math.isfinite(value) and value > 0):
        raise CliError(f"{what} must be a finite number > 0, got {value}")
    return value


def load(args, warn=None) -> Model:
    if args.time_step < 0 or not math.isfinite(args.time_step):
        raise CliError(f"--time-step must be a finite number >= 0, got {args.time_step}")
    if args.model is None:
        return SCENES[args.scene](args.time_step)
    return load_model(args.model, time_step=args.time_step, package_paths=args.package_path,
                      packages=args.package, ground=args.ground,
                      self_collision=args.self_collision, on_warning=warn)


BATCH_CHUNK = 16  # on CPU, a batch runs as a loop over vmapped chunks of this many envs


# ---- the compiled pieces (module level: equal plants hit the same jit cache) -------------------
@partial(jax.jit, static_argnums=(0, 1, 2, 3, 4))
def _chunk(plant, num_steps, record, integrator, batched, context, q, v, dt):
    """``num_steps`` steps from each (q, v); per-step outputs stacked, recorded ones only when
    ``record``."""
    def one(q, v):
        ctx = context.replace(q=q, v=v)
        if plant.is_discrete():
            r = jb.discrete_rollout(plant, ctx, None, num_steps, save_trajectory=record,
                                    save_contacts=True)
            out = {"x": r.final_state, "bad": r.first_nonfinite_step, "it": r.iterations,
                   "ok": r.converged, "n": r.contact_active.sum(-1), "over": r.contact_overflow}
            if record:
                out.update(states=r.states[1:], f=r.contact_forces, p=r.contact_points,
                           a=r.contact_active > 0)
        else:
            r = jb.rollout(plant, ctx, None, num_steps, dt, integrator=integrator,
                           save_trajectory=record)
            out = {"x": r.final_state, "bad": r.first_nonfinite_step}
            if record:
                out["states"] = r.states[1:]
        return out

    if not batched:
        return one(q, v)
    if jax.default_backend() == "cpu":  # vmapped chunks of 16 envs: fewer idle SAP iterations
        return jax.lax.map(lambda a: one(*a), (q, v), batch_size=BATCH_CHUNK)
    return jax.vmap(one)(q, v)


@partial(jax.jit, static_argnums=0)
def _energy(plant, context, x):
    """Kinetic + potential energy (J) of states x (..., nq + nv)."""
    nq = plant.num_positions()
    flat = x.reshape(-1, x.shape[-1])

    def one(s):
        c = context.replace(q=s[:nq], v=s[nq:])
        return plant.CalcKineticEnergy(c) + plant.CalcPotentialEnergy(c)

    return jax.vmap(one)(flat).reshape(x.shape[:-1])


def _initial_states(plant, context, batch, perturb, seed):
    """(q, v): (nq,), (nv,) for one env, else (batch, nq), (batch, nv) perturbed (env 0 not)."""
    from jaxbody.simulation.integrators import quaternion_indices

    q0, v0 = np.asarray(context.q), np.asarray(context.v)
    if batch == 1:
        return q0, v0
    rng = np.random.default_rng(seed)
    q = q0 + perturb * rng.standard_normal((batch, q0.size))
    v = v0 + 10 * perturb * rng.standard_normal((batch, v0.size))
    q[0], v[0] = q0, v0
    idx = quaternion_indices(plant)
    if idx.size:
        quat = q[:, idx]
        q[:, idx] = quat / np.linalg.norm(quat, axis=-1, keepdims=True)
    return q, v


def _progress(args, total, chunks, name):
    show = args.progress if args.progress is not None else (sys.stderr.isatty() and chunks > 1)
    from tqdm import tqdm

    return tqdm(total=total, unit="step", desc=name, disable=not show, file=sys.stderr,
                leave=False, dynamic_ncols=True)


def _plan(duration, step, chunk, budget_steps):
    """(N, chunk, K): K equal chunks of ``chunk`` steps, N = K·chunk >= duration/step (one
    compiled function; at most K - 1 steps more than asked)."""
    N = max(1, round(duration / step))
    chunk = max(1, min(N, chunk, budget_steps))
    K = math.ceil(N / chunk)
    chunk = math.ceil(N / K)
    return K * chunk, chunk, K


def _run_chunks(args, model, compiled, context, q, v, dt, chunk, K):
    """Runs the K chunks; returns (per-step outputs concatenated, q_N, v_N, run time in s)."""
    nq, B, step = model.plant.num_positions(), args.batch, float(dt)
    dtype, t_start = context.v.dtype, float(context.time)
    keep = {"it": [], "ok": [], "n": [], "over": [], "states": [], "f": [], "p": [], "a": []}
    with _progress(args, K * chunk, K, model.name.split(" ")[0]) as bar:
        t1 = time.perf_counter()
        for k in range(K):
            ctx = context.replace(time=jnp.asarray(t_start + k * chunk * step, dtype))
            out = jax.device_get(compiled(ctx, q, v, dt))
            bad = np.atleast_1d(out["bad"])
            if (bad >= 0).any():
                first = k * chunk + int(bad[bad >= 0].min())
                raise CliError(f"the state became non-finite at step {first} (t = {first * step:g} "
                               f"s); try a smaller {'--dt' if args.time_step == 0 else '--time-step'}")
            for name, value in out.items():
                if name in keep:
                    keep[name].append(value)
            q, v = jnp.asarray(out["x"][..., :nq]), jnp.asarray(out["x"][..., nq:])
            bar.update(chunk)
        run_s = max(time.perf_counter() - t1, 1e-9)
    cat = {k: np.concatenate(a, -1 if k in ("it", "ok", "n", "over") else (1 if B > 1 else 0))
           for k, a in keep.items() if a}
    return cat, q, v, run_s


def run(args, warn=None) -> list:
    """Simulates; returns the summary lines (and writes ``--out``, ``--html``)."""
    _positive("--duration", args.duration)
    if args.batch < 1 or args.chunk < 1:
        raise CliError(f"--batch and --chunk must be >= 1, got {args.batch} and {args.chunk}")
    model = load(args, warn)
    plant, discrete, B = model.plant, model.plant.is_discrete(), args.batch
    step = plant.time_step() if discrete else _positive("--dt", args.dt)
    dtype = model.context.v.dtype
    context = model.context.replace(time=jnp.asarray(float(model.context.time), dtype))
    nq, nv = plant.num_positions(), plant.num_velocities()
    q, v = (jnp.asarray(a) for a in _initial_states(plant, context, B, args.perturb, args.seed))
    record = bool(args.out or args.html)
    slots = 0
    if discrete and plant.num_collision_geometries():  # the shape only: nothing is computed
        slots = jax.eval_shape(plant.CalcPointContacts, context).phi.shape[0]
    per_step = 2 * (nq + nv) + (7 * slots + nv + 3 if discrete else 0)
    N, chunk, K = _plan(args.duration, step, args.chunk, int(CHUNK_BUDGET // (B * per_step)))
    dt = jnp.asarray(step, dtype)

    t0 = time.perf_counter()
    compiled = _chunk.lower(plant, chunk, record, args.integrator, B > 1, context, q, v, dt).compile()
    compile_s = time.perf_counter() - t0
    x0 = jnp.concatenate([q, v], -1)
    cat, q, v, run_s = _run_chunks(args, model, compiled, context, q, v, dt, chunk, K)
    e0, e1 = (np.asarray(_energy(plant, context, x)) for x in (x0, jnp.concatenate([q, v], -1)))

    lines = [f"{model.name}: {plant.num_bodies() - 1} bodies, nq={nq}, nv={nv}, "
             f"{plant.num_collision_geometries()} collision geometries"
             + (f", {slots} contact slots" if discrete else "")]
    how = (f"discrete (SAP contact), time step {step:g} s" if discrete
           else f"continuous ({args.integrator}, dt {step:g} s; no contact)")
    lines.append(f"  simulated {N * step:g} s: {N} steps, {how}"
                 + (f", batch of {B} (perturbed by {args.perturb:g})" if B > 1 else ""))
    lines.append(f"  compile   {compile_s:.2f} s (once)")
    rate = f"{N / run_s:,.0f} steps/s" + (f" = {B * N / run_s:,.0f} env-steps/s" if B > 1 else "")
    lines.append(f"  run       {run_s:.3g} s: {rate} ({N * step / run_s:.3g}x real time)")
    avg = " (mean over envs)" if B > 1 else ""
    lines.append(f"  energy    {e0.mean():.6g} J -> {e1.mean():.6g} J "
                 f"(change {e1.mean() - e0.mean():+.3g} J){avg}")
    if discrete:
        n, it, ok = cat["n"], cat["it"], cat["ok"]
        lines.append(f"  contacts  {n[..., -1].mean():.3g} at the end{avg}, max {int(n.max())} "
                     f"(of {slots} slots)")
        lines.append(f"  SAP       {it.mean():.2f} iterations per step (max {int(it.max())}); "
                     f"converged in {int(ok.sum())}/{ok.size} {'env-' if B > 1 else ''}steps")
        over = cat["over"]
        if over.any():
            lines.append(f"  WARNING   a contact may be missing in {int(over.sum())}/{over.size} "
                         f"{'env-' if B > 1 else ''}steps: the collision query dropped candidate "
                         "pairs whose bounding spheres touch (raise max_pairs_per_group)")
    if args.out:
        _write_npz(args.out, plant, context, x0, cat, N, step, discrete)
        lines.append(f"  wrote {args.out}")
    if args.html:
        _write_html(args.html, model, x0, cat, N, step, discrete, B)
        lines.append(f"  wrote {args.html}" + (" (env 0)" if B > 1 else ""))
    return lines


def _write_npz(path, plant, context, x0, cat, N, step, discrete):
    nq = plant.num_positions()
    t0 = float(context.time)
    X = np.concatenate([np.asarray(x0)[..., None, :], cat["states"]], -2)
    data = {"times": t0 + step * np.arange(N + 1), "q": X[..., :nq], "v": X[..., nq:]}
    if discrete:  # per step k (t_k -> t_k+1), at the configuration q_k; forces on body A (the
        # geometry registered first: the model's, not the ground's)
        data.update(step_times=data["times"][:-1], contact_points=cat["p"], contact_forces=cat["f"],
                    contact_active=cat["a"], sap_iterations=cat["it"].astype(np.int32),
                    sap_converged=cat["ok"] > 0)
    try:
        np.savez(path, **data)
    except OSError as e:
        raise CliError(f"--out: cannot write {path}: {e.strerror or e}") from None


def _write_html(path, model, x0, cat, N, step, discrete, B):
    try:
        from jaxbody.visualization import export_html
    except ImportError as e:
        raise CliError(f"--html needs the viz extra (pip install 'jaxbody[viz]'): {e}") from None

    X = np.concatenate([np.asarray(x0)[..., None, :], cat["states"]], -2)
    if B > 1:
        X = X[0]
    times = float(model.context.time) + step * np.arange(N + 1)
    contacts = {}
    if discrete and cat["p"].shape[-2]:
        # step k's contacts drawn at sample k (their configuration); the last sample repeats
        pad = {k: (cat[k][0] if B > 1 else cat[k]) for k in ("p", "f", "a")}
        pad = {k: np.concatenate([a, a[-1:]]) for k, a in pad.items()}
        contacts = dict(contact_points=pad["p"], contact_forces=pad["f"], contact_mask=pad["a"])
    try:
        export_html(model.plant, X, path, times=times, context=model.context,
                    title=f"jaxbody: {model.name.split(' ')[0]}", camera=model.camera, **contacts)
    except OSError as e:
        raise CliError(f"--html: cannot write {path}: {e.strerror or e}") from None
