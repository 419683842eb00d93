"""The robot sweep (`benchmarks.robot_sweep`: every example-robot-data URDF with collision geometry
through ``jaxbody simulate``) finds the files, runs one as a user would and records its row;
the whole sweep (64 files, about 20 minutes here) runs outside the suite and its JSON is
committed."""

import json

import pytest

from benchmarks import robot_sweep
from benchmarks.robot_files import example_robot_data_dir

pytestmark = pytest.mark.skipif(example_robot_data_dir() is None,
                                reason="needs example-robot-data")


def test_sweep_finds_the_robots_and_runs_one(tmp_path):
    files = robot_sweep.robot_files()
    assert len(files) >= 60 and all(f.endswith(".urdf") for f in files)
    assert any(f.endswith("go2_description/urdf/go2.urdf") for f in files)
    out = tmp_path / "sweep.json"
    (row,) = robot_sweep.main(["--only", "double_pendulum_simple", "--duration", "0.01",
                               "--out", str(out)])
    assert row["ok"] and row["returncode"] == 0 and row["steps_per_s"] > 0, row["output"]
    saved = json.loads(out.read_text())
    assert saved["passed"] == saved["total"] == 1
    assert saved["results"][0]["file"] == "double_pendulum_description/urdf/double_pendulum_simple.urdf"


def test_sweep_records_a_refused_model(tmp_path):
    bad = tmp_path / "bad.urdf"
    bad.write_text('<robot name="r"><link name="a"/><joint name="j" type="revolute">'
                   '<parent link="a"/><child link="missing"/></joint></robot>')
    row = robot_sweep.run_one(str(bad), 0.01, 120)
    assert not row["ok"] and row["returncode"] != 0
    assert any("missing" in line for line in row["output"]), row["output"]
