"""The GPU benchmark's report and schedule (`benchmarks.gpu`): the JSON rewritten after every
row, the clock its deadline counts from, the planner that decides whether a row starts, the
printed table and the watchdog."""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import threading
import time
from importlib import metadata
from pathlib import Path

import numpy as np

from benchmarks import dynamics
from benchmarks.forward_kinematics import default_machine_name, machine_info
from benchmarks.forward_kinematics import versions as base_versions

T0 = time.perf_counter()  # the deadline counts from here (`reset_clock` when a run starts)
DISTS = ("jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt", "mujoco", "mujoco-core",
         "mujoco-mjx", "equinox", "numpy", "scipy", "trimesh")



def reset_clock():
    global T0
    T0 = time.perf_counter()


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


def watchdog(report, at):
    def stop():
        time.sleep(max(0.0, at - elapsed()))
        row = report.data.get("in_flight")
        report.write(stopped=f"hard stop at {at:.0f} s; row in flight: {row}")
        print(f"# HARD STOP at {elapsed():.0f} s (--hard-stop-s); in flight: {row}", flush=True)
        os._exit(0)

    threading.Thread(target=stop, daemon=True).start()
