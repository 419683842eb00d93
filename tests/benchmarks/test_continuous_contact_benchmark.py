"""The continuous-contact benchmark runs end to end in --quick mode (the bouncing ball, batches
1 and 4, one tolerance) and writes its JSON; jaxbody's and Drake's fixed-step states agree
inside the benchmark. No duration is asserted."""

import json

import pytest

pytest.importorskip("pydrake")

from benchmarks import continuous_contact  # noqa: E402


def test_continuous_contact_benchmark_quick(tmp_path):
    report = continuous_contact.main(["--quick", "--machine", "test", "--out-dir", str(tmp_path)])
    saved = json.loads((tmp_path / "continuous_contact_test.json").read_text())
    assert saved["results"] == json.loads(json.dumps(report["results"], default=float))
    rows = {(r["question"], r["batch"]): r for r in saved["results"]}
    assert set(rows) == {("fixed_rk2", 1), ("fixed_rk2", 4), ("adaptive tol 1e-06", 1)}
    for r in rows.values():
        assert r["speedup_vs_drake"] > 0 and r["compile_s"] > 0
    assert rows["fixed_rk2", 4]["max_state_diff"] < continuous_contact.AGREE_TOL
    adaptive = rows["adaptive tol 1e-06", 1]
    assert 0 < adaptive["steps"] < 10_000 and adaptive["error"] < 1e-2
