"""jaxbody simulate [MODEL]: runs a model file, or a scene built in code, and summarizes.

With --time-step > 0 the plant is discrete and steps with SAP contact (discrete_rollout);
with --time-step 0 it is continuous and integrates with --integrator at --dt (rollout, with
Drake's compliant point contact: penalty forces and Stribeck friction). The steps run as
pieces of one compiled loop each (--chunk steps, fewer for big batches), so a progress bar can
follow; the piece is compiled once, ahead of time, and its
compile time reported apart. --batch N runs N copies from randomly perturbed initial states
(env 0 unperturbed) at once.
"""

from __future__ import annotations

import math
import sys
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

import jaxbody as jb
from jaxbody.cli import simulate_outputs as outputs
from jaxbody.cli.models import CliError, load_model
from jaxbody.cli.scenes import SCENES, Model
from jaxbody.cli.simulate_options import DEFAULT_CHUNK, add_arguments, validate  # noqa: F401
from jaxbody.geometry.collision.query_cost import describe as describe_query_cost
from jaxbody.plant.plant_key import PlantKey
from jaxbody.simulation.integrators import quaternion_indices

CHUNK_BUDGET = 2e7  # numbers a chunk may stack (all envs, all per-step outputs): bounds memory
ESTIMATE_AFTER_S = 10.0  # announce the expected run time when it is longer than this


def load(args, warn=None) -> Model:
    if args.model is None:
        return SCENES[args.scene](args.time_step)
    return load_model(args.model, time_step=args.time_step, package_paths=args.package_path,
                      packages=args.package, ground=args.ground,
                      self_collision=args.self_collision, on_warning=warn,
                      fixed_base=args.fixed_base, hold=args.hold, posture=args.posture,
                      srdf=args.srdf, actuate_all=args.actuate_all,
                      multi_point=args.multi_point,
                      max_hull_vertices=args.max_hull_vertices,
                      max_hull_pairs=args.max_hull_pairs)


BATCH_CHUNK = 16  # on CPU, a batch runs as a loop over vmapped chunks of this many envs


# ---- the compiled pieces (module level: equal plants hit the same jit cache) -------------------
@partial(jax.jit, static_argnums=(0, 1, 2, 3, 4))
def _chunk(key, num_steps, record, integrator, batched, context, q, v, dt, xd):
    """``num_steps`` steps from each (q, v) of the plant of ``key`` (a `PlantKey`); per-step
    outputs stacked, recorded ones only when ``record``; ``xd``: the PD controllers' desired
    state (``--hold``), or None."""
    plant = key.plant
    def one(q, v):
        ctx = context.replace(q=q, v=v)
        if plant.is_discrete():
            r = jb.discrete_rollout(plant, ctx, None, num_steps, save_trajectory=record,
                                    save_contacts=True, desired_states=xd)
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
def _energy(key, context, x):
    """Kinetic + potential energy (J) of states x (..., nq + nv); ``key``: a `PlantKey`."""
    plant = key.plant
    nq = plant.num_positions()
    flat = x.reshape(-1, x.shape[-1])

    def one(s):
        c = context.replace(q=s[:nq], v=s[nq:])
        return plant.CalcKineticEnergy(c) + plant.CalcPotentialEnergy(c)

    return jax.vmap(one)(flat).reshape(x.shape[:-1])


def _initial_states(plant, context, batch, perturb, seed):
    """(q, v): (nq,), (nv,) for one env, else (batch, nq), (batch, nv) perturbed (env 0 not)."""
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


def _showing(args):
    return args.progress if args.progress is not None else sys.stderr.isatty()


def _status(args, message):
    """A line on stderr about the phase that starts (when progress is shown)."""
    if _showing(args):
        print(f"jaxbody simulate: {message}", file=sys.stderr, flush=True)


def _progress(args, total, chunks, name):
    show = _showing(args) and chunks > 1
    from tqdm import tqdm

    return tqdm(total=total, unit="step", desc=name, disable=not show, file=sys.stderr,
                leave=False, dynamic_ncols=True)


def _plan(duration, step, chunk, budget_steps):
    """(N, chunk, K): K equal chunks of ``chunk`` steps (one compiled function). N is the
    asked number of steps round(duration/step) whenever a divisor of it of at least half the
    largest allowed chunk exists (else N = K·chunk, at most K - 1 steps more than asked)."""
    N = max(1, round(duration / step))
    largest = max(1, min(N, chunk, budget_steps))
    for c in range(largest, max(1, largest // 2) - 1, -1):
        if N % c == 0:
            return N, c, N // c
    K = math.ceil(N / largest)
    chunk = math.ceil(N / K)
    return K * chunk, chunk, K


def _explain_nonfinite(model, context, q, v, env):
    """Raises a `CliError` with the plant's own message when one step from the chunk's start
    state (env ``env`` of a batch) fails its checks, eagerly: a singular mass matrix (massless
    bodies on a moving joint) names the body, where the compiled loop only saw a NaN."""
    if env is not None:
        q, v = q[env], v[env]
    plant, ctx = model.plant, context.replace(q=q, v=v)
    try:
        plant.CalcDiscreteStep(ctx) if plant.is_discrete() else plant.CalcTimeDerivatives(ctx)
    except ValueError as e:
        raise CliError(f"the state became non-finite: {e}") from e


def _run_chunks(args, model, compiled, context, q, v, dt, chunk, K, xd):
    """Runs the K chunks; returns (per-step outputs concatenated, q_N, v_N, run time in s).
    After the first chunk the expected run time is announced when it is long."""
    nq, B, step = model.plant.num_positions(), args.batch, float(dt)
    dtype, t_start = context.v.dtype, float(context.time)
    keep = {"it": [], "ok": [], "n": [], "over": [], "states": [], "f": [], "p": [], "a": []}
    with _progress(args, K * chunk, K, model.name.split(" ")[0]) as bar:
        t1 = time.perf_counter()
        for k in range(K):
            ctx = context.replace(time=jnp.asarray(t_start + k * chunk * step, dtype))
            out = jax.device_get(compiled(ctx, q, v, dt, xd))
            if k == 0 and K > 1:
                total = (time.perf_counter() - t1) * K
                if total > ESTIMATE_AFTER_S:
                    print(f"jaxbody simulate: this run will take about {total:.0f} s "
                          f"({K} pieces of {chunk} steps; Ctrl-C stops it)", file=sys.stderr,
                          flush=True)
            bad = np.atleast_1d(out["bad"])
            if (bad >= 0).any():
                first = k * chunk + int(bad[bad >= 0].min())
                env = int(np.flatnonzero(bad == bad[bad >= 0].min())[0])
                _explain_nonfinite(model, ctx, q, v, env if B > 1 else None)
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


class _CacheHits:
    """Counts JAX's persistent-compilation-cache hits while active (to say "(cached)")."""

    def __init__(self):
        self.hits = 0

    def __call__(self, event, **kwargs):
        if "compilation_cache/cache_hits" in event:
            self.hits += 1


def _hold_target(model):
    """[q_d; v_d] of ``--hold``: the initial positions of the actuated joints, at rest."""
    plant = model.plant
    q = np.asarray(model.context.q)
    acts = [plant.get_joint_actuator(jb.JointActuatorIndex(i))
            for i in range(plant.num_actuators())]
    qd = [q[a.joint().position_start()] for a in acts]
    return np.concatenate([qd, np.zeros(len(acts))])


def _plural(n, word):
    if n == 1:
        return f"1 {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


def run(args, warn=None) -> list:
    """Simulates; returns the summary lines (and writes ``--out``, ``--html``)."""
    validate(args)
    what = args.model or f"the '{args.scene}' scene"
    _status(args, f"building {what} ...")
    t0 = time.perf_counter()
    model = load(args, warn)
    build_s = time.perf_counter() - t0
    plant, discrete, B = model.plant, model.plant.is_discrete(), args.batch
    step = plant.time_step() if discrete else args.dt
    dtype = model.context.v.dtype
    context = model.context.replace(time=jnp.asarray(float(model.context.time), dtype))
    nq, nv = plant.num_positions(), plant.num_velocities()
    q, v = (jnp.asarray(a) for a in _initial_states(plant, context, B, args.perturb, args.seed))
    xd = jnp.asarray(_hold_target(model), dtype) if args.hold else None
    record = bool(args.out or args.html or args.serve)
    slots = 0
    if discrete and plant.num_collision_geometries():  # the shape only: nothing is computed
        slots = jax.eval_shape(plant.CalcPointContacts, context).phi.shape[0]
    per_step = 2 * (nq + nv) + (7 * slots + nv + 3 if discrete else 0)
    N, chunk, K = _plan(args.duration, step, args.chunk, int(CHUNK_BUDGET // (B * per_step)))
    dt = jnp.asarray(step, dtype)

    _status(args, f"compiling {chunk} steps{f' x {B} envs' if B > 1 else ''} (once per "
                  "model; reused from the cache on later runs) ...")
    hits = _CacheHits()
    jax.monitoring.register_event_listener(hits)
    t0 = time.perf_counter()
    try:
        compiled = _chunk.lower(PlantKey(plant), chunk, record, args.integrator, B > 1, context,
                                q, v, dt, xd).compile()
    finally:
        _unregister(hits)
    compile_s = time.perf_counter() - t0
    x0 = jnp.concatenate([q, v], -1)
    cat, q, v, run_s = _run_chunks(args, model, compiled, context, q, v, dt, chunk, K, xd)
    e0, e1 = (np.asarray(_energy(PlantKey(plant), context, x)) for x in (x0, jnp.concatenate([q, v], -1)))

    lines = [f"{model.name}: {_plural(plant.num_bodies() - 1, 'body')}, nq={nq}, nv={nv}, "
             f"{_plural(plant.num_collision_geometries(), 'collision geometry')}"
             + (f", {_plural(slots, 'contact slot')}" if discrete else "")]
    lines += [f"  note      {n}" for n in model.notes]
    how = (f"discrete (SAP contact), time step {step:g} s" if discrete
           else f"continuous ({args.integrator}, dt {step:g} s; compliant point contact)")
    asked = max(1, round(args.duration / step))
    extra = f" ({asked} asked, run in whole pieces of {chunk})" if N != asked else ""
    lines.append(f"  simulated {N * step:g} s: {N} steps{extra}, {how}"
                 + (f", batch of {B} (perturbed by {args.perturb:g})" if B > 1 else ""))
    lines.append(f"  build     {build_s:.2f} s (parse, Finalize)")
    lines.append(f"  compile   {compile_s:.2f} s" + (" (from the persistent cache)" if hits.hits
                                                      else ""))
    rate = f"{N / run_s:,.0f} steps/s" + (f" = {B * N / run_s:,.0f} env-steps/s" if B > 1 else "")
    lines.append(f"  run       {run_s:.3g} s: {rate} ({N * step / run_s:.3g}x real time)")
    avg = " (mean over envs)" if B > 1 else ""
    lines.append(f"  energy    {e0.mean():.6g} J -> {e1.mean():.6g} J "
                 f"(change {e1.mean() - e0.mean():+.3g} J){avg}")
    cost = plant.get_contact_query_cost() if plant.num_collision_geometries() else None
    if cost is not None and cost.candidate_pairs:
        lines.append(f"  query     {describe_query_cost(cost)}")
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
                         "pairs whose bounding volumes touch (raise ContactQueryOptions."
                         "max_pairs_per_group, or max_hull_pairs_per_group for mesh hulls: "
                         "--max-hull-pairs)")
    if args.out:
        outputs.write_npz(args.out, plant, context, x0, cat, N, step, discrete)
        lines.append(f"  wrote {args.out}")
        X = np.concatenate([np.asarray(x0)[..., None, :], cat["states"]], -2)
        times = float(context.time) + step * np.arange(N + 1)
        energy = np.asarray(_energy(PlantKey(plant), context, jnp.asarray(X)))
        plot = outputs.write_plot(args.out, times, energy,
                                  cat, discrete, B > 1)
        lines.append(f"  wrote {plot}" if plot else "  (no plot: matplotlib is not installed)")
    if args.html:
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outputs.write_html(args.html, model, x0, cat, N, step, discrete, B)
        for w in caught:
            if warn is not None:
                warn(" ".join(str(w.message).split()))
        lines.append(f"  wrote {args.html}" + (" (env 0)" if B > 1 else ""))
    if args.serve:  # the summary first: serving lasts until Ctrl-C
        print("\n".join(lines), flush=True)
        outputs.serve(model, x0, cat, N, step, discrete, B)
        return []
    return lines


def _unregister(listener):
    """Removes a JAX monitoring listener."""
    try:
        jax.monitoring.unregister_event_listener(listener)
    except Exception:  # noqa: BLE001 (an old JAX without it: a stale counter is harmless)
        pass
