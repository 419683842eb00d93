"""The README's table of speedups, generated from the JSON in ``benchmarks/results/``, and its
GPU table, from ``benchmarks/results/gpu/`` (`benchmarks.gpu`).

    python -m benchmarks.readme_table            # rewrites the table in README.md
    python -m benchmarks.readme_table --print    # prints it only

One row per (benchmark, kernel or question, other engine), per scene for contact; each column a
batch size; each cell the range over the benchmark's models of jaxbody's speedup (> 1: jaxbody
faster; time per sample, or env-steps/s for contact), as `jaxbody.cli.bench.speedups` reads the
reports. The caption says which machine and load the numbers come from (every report records
both).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from jaxbody.cli.bench import speedups

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
START, END = "<!-- benchmark-table:start -->", "<!-- benchmark-table:end -->"
GPU_START, GPU_END = "<!-- gpu-table:start -->", "<!-- gpu-table:end -->"
ENGINES = {"pinocchio": "Pinocchio", "drake": "Drake", "drake_serial": "Drake (serial)",
           "drake_autodiff": "Drake AutoDiffXd", "mujoco": "MuJoCo C", "mjx": "MJX (CPU)",
           "mujoco (per core)": "MuJoCo C, per core",
           "jaxbody_autodiff": "jaxbody, autodiff of the scan"}


def _num(x):
    return f"{x:.2g}" if x < 10 else f"{x:.0f}"


def _fmt(lo, hi):
    return f"{_num(lo)}×" if _num(lo) == _num(hi) else f"{_num(lo)}–{_num(hi)}×"


def _machine(report):
    """("<processor>, <n> CPUs", 1-minute load average at the start or None); n counts the
    machine's CPUs, not those a pinned run (``taskset``) could use."""
    m = report.get("machine", {})
    if isinstance(m, str):
        return m, None
    load = m.get("load_average") or m.get("loadavg_start")
    cpus = m.get("cpu_count", m.get("cpus_usable", "?"))
    return f"{m.get('processor', '?')}, {cpus} CPUs", (load[0] if load else None)


REDUCED = "†"  # marks a cell measured over fewer steps than the benchmark's --steps


def _reduced(report):
    """{(scene, batch)} of the jaxbody rows a contact report ran over fewer steps than asked
    (``steps_reduced``: the run budget)."""
    return {(r.get("scene"), r.get("batch")) for r in report.get("results", [])
            if r.get("engine") == "jaxbody" and r.get("steps_reduced")}


def collect(results_dir=RESULTS):
    """({(benchmark, case, other): {batch: [speedups]}}, [(file, date, machine)], {(benchmark,
    case, batch)} of cells measured over fewer steps)."""
    cells, sources, reduced = defaultdict(lambda: defaultdict(list)), [], set()
    for path in sorted(results_dir.glob("*.json")):
        report = json.loads(path.read_text())
        short = _reduced(report)
        models = {str(r.get("model", r.get("scene", ""))) for r in report.get("results", [])}
        found = list(speedups(report))
        if not found:  # no ratio against another engine (e.g. robot_sweep): not a source
            continue
        for bench, case, batch, other, s in found:
            words = case.split()
            if words and words[0] in models and bench != "contact":  # aggregate over models
                words = words[1:]
            label = " ".join(words) or ("float64" if bench == "forward_kinematics" else "all")
            cells[(bench, label, other)][batch].append(s)
            if bench == "contact" and (case.split()[0], batch) in short:
                reduced.add((bench, label, batch))
        dates = [report.get("created", "?")] + [r.get("created", "?") for r in
                                                report.get("reruns", [])]
        sources.append((path.name, max(dates)[:10], _machine(report)))
    return cells, sources, reduced


def table(results_dir=RESULTS) -> str:
    cells, sources, reduced = collect(results_dir)
    batches = sorted({b for per in cells.values() for b in per})
    head = "| benchmark | case | vs | " + " | ".join(f"batch {b}" for b in batches) + " |"
    lines = [head, "|" + "---|" * 3 + "---:|" * len(batches)]
    for (bench, case, other), per in sorted(cells.items()):
        row = [bench, case, ENGINES.get(other, other)]
        row += [_fmt(min(per[b]), max(per[b])) + (REDUCED if (bench, case, b) in reduced else "")
                if b in per else "" for b in batches]
        lines.append("| " + " | ".join(row) + " |")
    machines = sorted({m for _, _, (m, _) in sources})
    loads = [load for _, _, (_, load) in sources if load is not None]
    load = f", load average {min(loads):.1f}–{max(loads):.1f} where recorded" if loads else ""
    files = ", ".join(f"`{name}` ({date})" for name, date, _ in sources)
    caption = (f"Speedup of jaxbody over each engine (> 1: jaxbody faster), the range over the "
               f"models of each benchmark (contact: per scene; its batched jaxbody runs use one core, "
               f"`--cpus 1`; dynamics: one core, but the rows named '2 devices', whose batch is "
               f"split over both cores, one XLA:CPU device each, against the other engines' single "
               f"thread; {REDUCED}: a contact run over fewer steps than the others, to fit its "
               f"time budget). Measured on {'; '.join(machines)}, no GPU{load}; "
               f"from {files}. Generated by `python -m benchmarks.readme_table`.")
    return caption + "\n\n" + "\n".join(lines)


def _rate(x):
    return f"{x:.3g}" if x is not None else ""


def gpu_table(results_dir=RESULTS / "gpu") -> str:
    """Contact rows (jaxbody and MJX env-steps/s at the same scene and batch, their ratio,
    SAP's most iterations) and dynamics rows (samples/s) of every `benchmarks.gpu` report."""
    contact, dynamics, sources, gpu = {}, [], [], None
    for path in sorted(results_dir.glob("*.json")):
        report = json.loads(path.read_text())
        devices = report.get("machine", {}).get("devices") or [{}]
        gpu = devices[0].get("kind", "a GPU")
        sources.append(f"`{path.name}` ({report.get('created', '?')[:10]}, {report.get('dtype')})")
        for r in report.get("results", []):
            if r.get("skipped") or r.get("error"):
                continue
            if r.get("section") == "contact":
                key = (r["scene"], r["batch"], r.get("steps"))
                contact.setdefault(key, {})[r["engine"]] = r
            elif r.get("section") == "dynamics":
                dynamics.append((r["model"], r["kernel"], r["batch"],
                                 r.get("batch_minor_chunk", ""), r["samples_per_s"],
                                 r.get("compile_s")))
    lines = ["| scene | batch | steps | jaxbody env-steps/s | MJX env-steps/s | jaxbody ÷ MJX "
             "| SAP iterations (max) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for (scene, batch, steps), per in sorted(contact.items()):
        j, m = per.get("jaxbody", {}), per.get("mjx", {})
        a, b = j.get("env_steps_per_s"), m.get("env_steps_per_s")
        ratio = f"{a / b:.2f}×" if a and b else ""
        lines.append(f"| {scene} | {batch} | {steps} | {_rate(a)} | {_rate(b)} | {ratio} | "
                     f"{j.get('sap_max_iterations', '')} |")
    lines += ["", "| model | kernel | batch | batch-minor chunk | jaxbody samples/s | compile (s) |",
              "|---|---|---:|---:|---:|---:|"]
    for model, kernel, batch, chunk, rate, compile_s in sorted(dynamics, key=str):
        compiled = "" if compile_s is None else f"{compile_s:.1f}"
        lines.append(f"| {model} | {kernel} | {batch} | {chunk} | {_rate(rate)} | {compiled} |")
    caption = (f"Measured on {gpu or 'a GPU'} with `benchmarks/gpu.py` (float64, one process; "
               f"compile time apart) from {', '.join(sources)}. Generated by "
               f"`python -m benchmarks.readme_table`.")
    return caption + "\n\n" + "\n".join(lines)


def _replace(readme, start, end, text, path):
    if start not in readme or end not in readme:
        raise SystemExit(f"{path}: no {start} ... {end} markers to put the table between")
    a, b = readme.index(start) + len(start), readme.index(end)
    return readme[:a] + "\n" + text + "\n" + readme[b:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--print", action="store_true", help="print the table, leave README.md")
    ap.add_argument("--readme", type=Path, default=ROOT / "README.md")
    args = ap.parse_args(argv)
    text, gpu = table(), gpu_table()
    if args.print:
        print(text + "\n\n" + gpu)
        return text
    readme = _replace(args.readme.read_text(), START, END, text, args.readme)
    args.readme.write_text(_replace(readme, GPU_START, GPU_END, gpu, args.readme))
    print(f"wrote the tables into {args.readme}")
    return text


if __name__ == "__main__":
    main()
