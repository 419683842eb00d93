"""``jaxbody bench [--quick]``: runs the benchmark suite of the repository's ``benchmarks/``
folder (forward kinematics, dynamics, rollouts, contact), each script comparing jaxbody with
Pinocchio, Drake, MuJoCo or MJX, and prints one table of speedups from the JSON they write.

``benchmarks/`` is in the repository, not in the installed package: it is found on the import
path or in ``--root`` (default: the current folder). ``--quick`` runs small batches and few steps, leaves
out the rollout gradients (their MJX compile alone takes minutes), and writes its JSON to a
temporary folder (the full run writes ``benchmarks/results/``).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from jaxbody.cli.models import CliError

SUITE = ("forward_kinematics", "dynamics", "rollout", "contact", "continuous_contact")
QUICK = {
    "forward_kinematics": ["--models", "arm7", "--batches", "1", "64", "--dtypes", "float64",
                           "--repeats", "3", "--min-time", "0.01"],
    "dynamics": ["--models", "arm7", "--kernels", "rnea", "crba", "aba", "--batches", "1", "64",
                 "--repeats", "3", "--min-time", "0.01", "--ref-samples", "8"],
    "rollout": ["--models", "arm7", "--batches", "16", "--steps", "100", "--questions", "rollout",
                "--repeats", "2", "--drake-max", "2"],  # gradients compile for minutes: not quick
    "contact": ["--quick"],
    "continuous_contact": ["--quick"],
}


def add_arguments(p):
    p.add_argument("--quick", action="store_true", help="small batches and few steps (minutes)")
    p.add_argument("--only", nargs="+", choices=SUITE, default=list(SUITE), metavar="NAME",
                   help=f"run only these benchmarks ({', '.join(SUITE)})")
    p.add_argument("--root", default=".", help="the folder holding benchmarks/ (default: .)")
    p.add_argument("--out-dir", help="where the JSON goes (default: benchmarks/results, or a "
                                     "temporary folder with --quick)")


def _import_suite(root):
    """The benchmark modules, importing ``benchmarks`` from ``root`` if it is not importable."""
    folder = os.path.abspath(root)
    if not os.path.isfile(os.path.join(folder, "benchmarks", "forward_kinematics.py")):
        try:
            importlib.import_module("benchmarks.forward_kinematics")
        except ImportError:
            raise CliError(f"the benchmarks are not installed with jaxbody: run this in a checkout "
                           f"of the repository (no benchmarks/ in {folder}; see --root)") from None
    elif folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        return {name: importlib.import_module(f"benchmarks.{name}") for name in SUITE}
    except ImportError as e:
        raise CliError(f"the benchmarks need the reference engines (pip install -e "
                       f"'.[test,reference]'): {e}") from None


def speedups(report) -> list:
    """(benchmark, case, batch, other engine, speedup) rows of a benchmark's JSON report; the
    speedup is > 1 where jaxbody is faster, whatever the script's own ratio convention."""
    bench, rows = report.get("benchmark", "?"), []
    for r in report.get("results", []):
        if r.get("engine") != "jaxbody" or "skipped" in r:
            continue
        case = " ".join(str(r[k]) for k in ("model", "scene", "kernel", "question") if k in r)
        if r.get("dtype", "float64") != "float64":
            case += f" {r['dtype']}"
        if r.get("devices", 1) > 1:  # the batch split over one device per core
            case += f" {r['devices']} devices"
        for key, value in r.items():
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                continue
            if key.startswith("speedup_vs_"):  # dynamics: other's time / jaxbody's
                rows.append((bench, case, r.get("batch", 1), key[len("speedup_vs_"):], value))
            elif key.startswith("jaxbody") and "/" in key:
                other = key.split("/", 1)[1] + (" (per core)" if "per_core" in key else "")
                # contact: ratios of env-steps/s; the others: jaxbody's time / other's time
                ratio = value if bench == "contact" else (1.0 / value if value else float("inf"))
                rows.append((bench, case, r.get("batch", 1), other, ratio))
    return rows


def table(rows) -> list:
    head = f"{'benchmark':18s} {'case':28s} {'batch':>6s}  {'vs':22s} {'speedup':>9s}"
    out = [head, "-" * len(head)]
    for bench, case, batch, other, s in rows:
        out.append(f"{bench:18s} {case[:28]:28s} {batch:6d}  {other[:22]:22s} {s:8.3g}x")
    return out + ["speedup > 1: jaxbody faster (time per sample, or env-steps/s for contact)"]


def run(args) -> list:
    suite = _import_suite(args.root)
    out_dir = args.out_dir or (tempfile.mkdtemp(prefix="jaxbody-bench-") if args.quick else None)
    rows, written = [], []
    for name in args.only:
        argv = list(QUICK[name]) if args.quick else []
        if out_dir is not None:
            argv += ["--out-dir", str(out_dir)]
        start = time.time()
        print(f"== benchmarks.{name} {' '.join(argv)}", flush=True)
        try:
            suite[name].main(argv)
        except SystemExit as e:
            if e.code not in (None, 0):
                raise CliError(f"benchmarks.{name} stopped: {e.code}") from None
        except ImportError as e:
            raise CliError(f"benchmarks.{name} needs the reference engines (pip install -e "
                           f"'.[test,reference]'): {e}") from None
        folder = Path(out_dir) if out_dir else Path(suite[name].__file__).resolve().parent / "results"
        for path in sorted(folder.glob(f"{name}*.json")):
            if path.stat().st_mtime >= start - 1:
                written.append(path)
                rows += speedups(json.loads(path.read_text()))
    return ["", *table(rows), "", *(f"wrote {p}" for p in written)]
