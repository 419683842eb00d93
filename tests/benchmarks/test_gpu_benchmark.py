"""The GPU benchmark runs end to end on the CPU at tiny sizes (one sphere, batch 2, two steps;
one dynamics kernel) and writes its JSON: rows for jaxbody and MJX at the same batch, their
ratio, the SAP statistics, and a dynamics row. No duration is asserted."""

import json

import pytest

pytest.importorskip("mujoco")

from benchmarks import gpu  # noqa: E402


def test_gpu_benchmark_writes_its_rows(tmp_path):
    gpu.main(["--scenes", "sphere1", "--batches", "2", "--steps", "2", "--repeats", "1",
              "--models", "quadruped", "--kernels", "crba", "--dyn-batches", "2",
              "--hard-stop-s", "0", "--machine", "test", "--out-dir", str(tmp_path)])
    saved = json.loads((tmp_path / "gpu_test.json").read_text())
    assert saved["complete"] and {"machine", "versions", "results"} <= set(saved)
    rows = {(r["section"], r["engine"], r.get("kernel")): r for r in saved["results"]}
    jb, mjx = rows["contact", "jaxbody", None], rows["contact", "mjx", None]
    assert jb["batch"] == mjx["batch"] == 2 and jb["steps"] == 2
    assert jb["sap_all_converged"] and jb["all_finite"]
    assert jb["speedup_vs_mjx"] == pytest.approx(jb["env_steps_per_s"] / mjx["env_steps_per_s"])
    assert rows["dynamics", "jaxbody", "crba"]["samples_per_s"] > 0
