"""The dynamics benchmark runs end to end on the real panda URDF (its default models are real
robots) at batch 1 and writes its JSON.

No duration is asserted here: speed is measured in `benchmarks/`, never in a test.
"""

import json

import pytest

pytest.importorskip("pinocchio")
pytest.importorskip("pydrake")

from benchmarks import dynamics  # noqa: E402


def test_dynamics_benchmark_smoke(tmp_path):
    assert {"arm7", "quadruped", "humanoid"} <= set(dynamics.models.MODELS)  # still selectable
    report = dynamics.main([
        "--models", "panda", "--batches", "1", "--jac-batches", "1", "--repeats", "1",
        "--min-time", "0", "--ref-samples", "2", "--autodiff-samples", "1",
        "--machine", "test", "--out-dir", str(tmp_path)])
    saved = json.loads((tmp_path / "dynamics_urdf_test.json").read_text())
    assert saved["models"]["panda"]["nv"] == 7
    assert saved["models"]["panda"]["jaxbody_forward_dynamics_method"] in ("aba", "crba")
    rows = saved["results"]
    assert {(r["engine"], r["kernel"]) for r in rows if r["engine"] == "jaxbody"} == {
        ("jaxbody", k) for k in dynamics.KERNELS}
    assert {r["function"] for r in rows if r["engine"] == "pinocchio"} == {
        "rnea", "crba", "aba", "computeABADerivatives"}
    assert {r["function"] for r in rows if r["engine"] == "drake"} == {
        name for _, name in dynamics.REFERENCE.values()}
    for r in rows:
        if r["engine"] == "jaxbody":
            assert {"compile_s", "compile_cpu_s", "run_median_s", "throughput_per_s",
                    "speedup_vs_pinocchio", "speedup_vs_drake"} <= set(r)
            assert r["max_discrepancy_vs_drake"] < dynamics.CHECK_TOL
    summary = saved["summary"]
    assert {"panda_fd_gradient_speedup_vs_drake_autodiff"} <= set(summary["targets"])
    assert [c["batch"] for c in summary["fd_aba_vs_crba"]] == [1]
    assert report["results"] == rows


def test_merge_replaces_only_the_rerun_rows():
    def row(kernel, engine, t, devices=None):
        r = {"model": "panda", "kernel": kernel, "engine": engine, "batch": 64,
             "per_sample_median_s": t, "throughput_per_s": 1 / t, "speedup_vs_pinocchio": 1.0,
             "speedup_vs_drake": 2.0}
        return r if devices is None else dict(r, devices=devices)

    old = {"results": [row("aba", "jaxbody", 1.0, 1), row("aba", "pinocchio", 1.0),
                       row("rnea", "jaxbody", 1.0, 1), row("aba", "jaxbody", 0.6, 2)],
           "created": "old"}
    new = {"results": [row("aba", "jaxbody", 0.5, 1), row("aba", "pinocchio", 0.9)],
           "created": "new", "settings": {"kernels": ["aba"], "devices": 1}, "versions": {},
           "machine": {}}
    merged = dynamics.merge(old, new)
    got = sorted((r["kernel"], r["engine"], r.get("devices"), r["per_sample_median_s"])
                 for r in merged["results"])
    assert got == [("aba", "jaxbody", 1, 0.5), ("aba", "jaxbody", 2, 0.6),
                   ("aba", "pinocchio", None, 0.9), ("rnea", "jaxbody", 1, 1.0)]
    assert "aba rows (devices 1) rerun on new" in merged["merged"]
    assert merged["reruns"][0]["created"] == "new"
