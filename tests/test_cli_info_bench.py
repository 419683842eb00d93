"""``jaxbody info`` (bodies, joints, dofs, actuators, tree, mass, geometry counts) and
``jaxbody bench`` (the suite found or not, the speedup table read from the benchmarks' JSON)."""

import json
import os
import subprocess
import sys

import pytest

from jaxbody import cli
from jaxbody.cli import bench

MASS_TOL = 1e-9  # kg

URDF = """<robot name="twolink">
  <link name="base"><visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>
  <link name="upper"><inertial><mass value="1.5"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><capsule radius="0.03" length="0.3"/></geometry></collision></link>
  <link name="lower"><inertial><mass value="0.5"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
    <visual><geometry><sphere radius="0.05"/></geometry></visual></link>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/></joint>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="7" velocity="1"/></joint>
  <joint name="slider" type="prismatic"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 -0.3"/><axis xyz="0 0 1"/><limit lower="0" upper="0.2" effort="3" velocity="1"/></joint>
  <transmission name="t"><type>transmission_interface/SimpleTransmission</type>
    <joint name="shoulder"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="shoulder_motor"/></transmission>
</robot>
"""


@pytest.fixture(autouse=True)
def _no_persistent_cache(monkeypatch):
    monkeypatch.setenv("JAXBODY_CACHE_DIR", "")


def _run(capsys, argv, rc=0):
    assert cli.main(argv) == rc
    return capsys.readouterr()


def test_info_of_a_urdf(tmp_path, capsys):
    path = tmp_path / "twolink.urdf"
    path.write_text(URDF)
    out = _run(capsys, ["info", str(path)]).out
    lines = out.splitlines()
    assert lines[0] == "twolink.urdf"
    assert "bodies:     3 (and the world), total mass 2 kg" in out
    assert "dofs:       nq = 2, nv = 2" in out
    assert "geometry:   2 collision, 2 visual" in out
    assert any(line.split()[:5] == ["shoulder", "revolute", "base", "->", "upper"] for line in lines)
    assert any(line.split()[:5] == ["slider", "prismatic", "upper", "->", "lower"] for line in lines)
    assert "actuators:  1" in out and "shoulder_motor" in out and "effort limit 7" in out
    tree = lines[lines.index("  kinematic tree:") + 1:]
    assert tree[0] == "  world"
    assert tree[1].startswith("    base, 0 kg  <- weld 'fix'") and tree[2].startswith("      upper, 1.5 kg  <- revolute")
    assert tree[3].startswith("        lower, 0.5 kg  <- prismatic 'slider'")


def test_info_of_the_builtin_scenes(capsys):
    out = _run(capsys, ["info"]).out
    assert out.startswith("boxes (built-in contact scene)")
    assert "bodies:     7 (and the world), total mass 8.1 kg" in out
    assert "dofs:       nq = 49, nv = 42" in out and "geometry:   8 collision, 8 visual" in out
    out = _run(capsys, ["info", "--scene", "pendulum"]).out
    assert "dofs:       nq = 2, nv = 2" in out and "joint2" in out


def test_info_errors_are_one_line(tmp_path, capsys):
    err = _run(capsys, ["info", str(tmp_path / "none.sdf")], rc=1).err.strip()
    assert err == f"jaxbody info: error: model file not found: {tmp_path / 'none.sdf'}"
    bad = tmp_path / "bad.sdf"
    bad.write_text("<sdf version='1.9'><model name='m'><link name='a'><pose>1 2</pose></link></model></sdf>")
    err = _run(capsys, ["info", str(bad)], rc=1).err.strip()
    assert "\n" not in err and f"{bad}:1:" in err


def test_speedups_read_every_ratio_convention():
    fk = {"benchmark": "forward_kinematics", "results": [
        {"engine": "jaxbody", "model": "arm7", "batch": 64, "dtype": "float64",
         "jaxbody/pinocchio": 0.5, "jaxbody/drake": 0.1},
        {"engine": "pinocchio", "model": "arm7", "batch": 64}]}
    dyn = {"benchmark": "dynamics", "results": [
        {"engine": "jaxbody", "model": "arm7", "kernel": "aba", "batch": 1,
         "speedup_vs_pinocchio": 0.25, "speedup_vs_drake": 3.0},
        {"engine": "jaxbody", "model": "arm7", "kernel": "aba", "batch": 64, "devices": 2,
         "speedup_vs_pinocchio": 1.5}]}
    contact = {"benchmark": "contact", "results": [
        {"engine": "jaxbody", "scene": "sphere1", "batch": 2, "jaxbody/drake_serial": 7.0,
         "jaxbody_per_core/mujoco": 0.2, "target_drake_20x_met": False},
        {"engine": "jaxbody", "scene": "sphere1", "batch": 4, "skipped": "budget"}]}
    rows = bench.speedups(fk) + bench.speedups(dyn) + bench.speedups(contact)
    got = {(b, c, n, o): round(s, 9) for b, c, n, o, s in rows}
    assert got == {("forward_kinematics", "arm7", 64, "pinocchio"): 2.0,
                   ("forward_kinematics", "arm7", 64, "drake"): 10.0,
                   ("dynamics", "arm7 aba", 1, "pinocchio"): 0.25,
                   ("dynamics", "arm7 aba", 1, "drake"): 3.0,
                   ("dynamics", "arm7 aba 2 devices", 64, "pinocchio"): 1.5,
                   ("contact", "sphere1", 2, "drake_serial"): 7.0,
                   ("contact", "sphere1", 2, "mujoco (per core)"): 0.2}
    table = bench.table(rows)
    assert table[0].split() == ["benchmark", "case", "batch", "vs", "speedup"] and len(table) == 10


def test_bench_outside_a_checkout_is_one_line(tmp_path):
    env = dict(os.environ, JAXBODY_CACHE_DIR="")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-m", "jaxbody.cli", "bench", "--quick"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
    assert proc.returncode == 1
    err = proc.stderr.strip()
    assert "\n" not in err and err.startswith("jaxbody bench: error: the benchmarks are not "
                                              "installed with jaxbody")


@pytest.mark.slow
def test_bench_quick_prints_the_speedup_table(tmp_path, capsys):
    pytest.importorskip("pinocchio")
    pytest.importorskip("pydrake")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = _run(capsys, ["bench", "--quick", "--only", "forward_kinematics", "--root", root,
                        "--out-dir", str(tmp_path)]).out
    (path,) = tmp_path.glob("forward_kinematics_*.json")
    report = json.loads(path.read_text())
    assert report["benchmark"] == "forward_kinematics"
    table = out[out.index("benchmark "):].splitlines()
    rows = [line.split() for line in table[2:] if line.startswith("forward_kinematics")]
    assert {(r[1], r[2], r[3]) for r in rows} == {("arm7", b, e) for b in ("1", "64")
                                                  for e in ("pinocchio", "drake")}
    assert all(float(r[4].rstrip("x")) > 0 for r in rows) and f"wrote {path}" in out


def test_a_benchmark_that_refuses_to_report_is_an_error(tmp_path, capsys, monkeypatch):
    class Refusing:
        __file__ = str(tmp_path / "forward_kinematics.py")

        @staticmethod
        def main(argv):
            raise SystemExit("REFUSING TO REPORT TIMINGS: engines disagree")

    monkeypatch.setattr(bench, "_import_suite", lambda root: {"forward_kinematics": Refusing})
    err = _run(capsys, ["bench", "--only", "forward_kinematics", "--out-dir", str(tmp_path)], rc=1).err
    assert err.strip() == ("jaxbody bench: error: benchmarks.forward_kinematics stopped: REFUSING TO "
                           "REPORT TIMINGS: engines disagree")
