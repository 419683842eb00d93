"""The README's benchmark table is the one `benchmarks.readme_table` makes from the results."""

import json

from benchmarks import readme_table


def test_readme_holds_the_table_generated_from_benchmarks_results():
    readme = (readme_table.ROOT / "README.md").read_text()
    assert readme_table.table() in readme, "run: python -m benchmarks.readme_table"
    assert readme_table.gpu_table() in readme, "run: python -m benchmarks.readme_table"


def test_the_table_ranges_over_models_and_names_the_machine(tmp_path):
    report = {"benchmark": "dynamics", "created": "2026-01-02T00:00:00",
              "machine": {"processor": "CPU X", "cpus_usable": 4, "load_average": [0.5, 0, 0]},
              "results": [
                  {"engine": "jaxbody", "model": m, "kernel": "rnea", "batch": 64,
                   "speedup_vs_pinocchio": s} for m, s in (("arm", 0.5), ("dog", 2.0))]}
    (tmp_path / "dynamics_x.json").write_text(json.dumps(report))
    text = readme_table.table(tmp_path)
    assert "| dynamics | rnea | Pinocchio | 0.5–2× |" in text
    assert "CPU X, 4 CPUs" in text and "load average 0.5" in text and "dynamics_x.json" in text
