"""Every example-robot-data model with collision geometry through ``jaxbody simulate``.

    python -m benchmarks.robot_sweep [--duration 0.5] [--timeout 600] [--only NAME ...]
        [--rerun-failed]

Each URDF under example-robot-data's ``robots/`` that declares a ``<collision>`` runs as a new
user would run it: ``jaxbody simulate FILE --duration 0.5 --no-progress`` (a ground plane, the
model floating and resting on it; Drake's one point per pair), one process per file with
``--timeout`` seconds. Each row: the file, pass/fail, the process's wall time, and the
summary's lines (steps/s, contact pairs, warnings) or the error's last lines. The JSON goes to
``benchmarks/results/robot_sweep_<machine>.json``. Nothing is compared with another engine:
the question is whether every model simulates, and at what speed. ``--rerun-failed`` runs
again only the rows that failed in the existing JSON and replaces them there.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time

from benchmarks.robot_files import example_robot_data_dir


def robot_files():
    """The example-robot-data URDFs that declare collision geometry, sorted."""
    root = os.path.join(example_robot_data_dir(), "robots")
    out = []
    for folder, _, files in os.walk(root):
        for f in files:
            path = os.path.join(folder, f)
            if f.endswith(".urdf") and "<collision" in open(path, errors="replace").read():
                out.append(path)
    return sorted(out)


def run_one(path, duration, timeout):
    cmd = [sys.executable, "-m", "jaxbody.cli", "simulate", path, "--duration", str(duration),
           "--no-progress"]
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        rc, out = p.returncode, (p.stdout + p.stderr)
    except subprocess.TimeoutExpired as e:
        rc, out = "timeout", f"{e.stdout or ''}{e.stderr or ''}"
        out = out.decode() if isinstance(out, bytes) else out
    wall = time.perf_counter() - t
    lines = [x for x in out.splitlines() if x.strip() and "Warning" not in x]
    rate = re.search(r"([\d,.]+) steps/s", out)
    return dict(ok=rc == 0, returncode=rc, wall_s=wall,
                steps_per_s=float(rate.group(1).replace(",", "")) if rate else None,
                output=lines[-12:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=0.5)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--only", nargs="+", help="file names (without .urdf) to run")
    ap.add_argument("--out", help="JSON path (default: benchmarks/results/...)")
    ap.add_argument("--rerun-failed", action="store_true",
                    help="rerun the failed rows of the existing JSON, keep the others")
    args = ap.parse_args(argv)
    if example_robot_data_dir() is None:
        raise SystemExit("example-robot-data is not installed (pip install example-robot-data)")
    files = robot_files()
    if args.only:
        files = [f for f in files if os.path.basename(f)[:-5] in args.only]
    out = args.out or os.path.join(os.path.dirname(__file__), "results",
                                   f"robot_sweep_{platform.system().lower()}-"
                                   f"{platform.machine()}-{os.cpu_count()}cpu.json")
    root = os.path.join(example_robot_data_dir(), "robots")
    rows, kept = [], {}
    if args.rerun_failed:
        with open(out) as f:
            kept = {r["file"]: r for r in json.load(f)["results"]}
        files = [os.path.join(root, k) for k, r in kept.items() if not r["ok"]]
        rows = list(kept.values())
    for path in files:
        row = dict(file=os.path.relpath(path, root), **run_one(path, args.duration, args.timeout))
        if row["file"] in kept:
            kept[row["file"]] = row
            rows = list(kept.values())
        else:
            rows.append(row)
        print(f"{'ok  ' if row['ok'] else 'FAIL'} {row['file']:60s} {row['wall_s']:6.1f} s  "
              f"{row['steps_per_s'] or '':>8}  {'' if row['ok'] else row['output'][-1:]}",
              flush=True)
        with open(out, "w") as f:
            json.dump(dict(benchmark="robot_sweep",
                           created=datetime.datetime.now(datetime.UTC).isoformat(
                               timespec="seconds"),
                           settings=vars(args), passed=sum(r["ok"] for r in rows),
                           total=len(rows), results=rows), f, indent=1)
    print(f"{sum(r['ok'] for r in rows)}/{len(rows)} simulated; wrote {out}")
    return rows


if __name__ == "__main__":
    main()
