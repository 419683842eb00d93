"""`benchmarks.roofline` runs, records FLOPs per sample from XLA's cost analysis and the achieved
rate against the measured peak, and its report stays out of the README's speedup table."""

import json

import pytest

pytest.importorskip("pydrake")

from benchmarks import roofline  # noqa: E402
from jaxbody.cli.bench import speedups  # noqa: E402


def test_roofline_smoke(tmp_path):
    roofline.main(["--models", "panda", "--kernels", "rnea", "crba", "--batch", "8",
                   "--repeats", "1", "--machine", "test", "--out-dir", str(tmp_path)])
    saved = json.loads((tmp_path / "roofline_test.json").read_text())
    assert saved["roofs"]["peak_gflops_float64_matmul"] > 0
    assert saved["roofs"]["bandwidth_gbs_stream_sum"] > 0
    rows = saved["results"]
    assert [r["kernel"] for r in rows] == ["rnea", "crba"]
    for r in rows:
        assert r["flops_per_sample"] > 100  # a 7-dof RNEA or CRBA is thousands of FLOPs
        assert 0 < r["fraction_of_peak"] and r["achieved_gflops"] > 0
    assert speedups(saved) == []
