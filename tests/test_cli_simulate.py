"""``jaxbody simulate``: the default scene, a model file with package:// meshes, outputs, and
one-line errors with a non-zero exit status."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from jaxbody import cli

URDF = """<robot name="arm">
  <link name="base"/>
  <link name="link">
    <inertial><origin xyz="0 0 -0.3"/><mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0 0 -0.3"/><geometry><mesh filename="package://armpkg/meshes/cube.obj"/></geometry>
      <material name="red"><color rgba="0.9 0.1 0.1 1"/></material></visual>
  </link>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/></joint>
  <joint name="pin" type="revolute"><parent link="base"/><child link="link"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
"""


def _package(tmp_path):
    """A ROS-style package: package.xml above urdf/ and meshes/."""
    root = tmp_path / "armpkg"
    (root / "urdf").mkdir(parents=True)
    (root / "meshes").mkdir()
    (root / "package.xml").write_text("<package format='2'><name>armpkg</name></package>")
    (root / "meshes" / "cube.obj").write_text(
        "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    (root / "urdf" / "arm.urdf").write_text(URDF)
    return root / "urdf" / "arm.urdf"


def _error_line(capsys):
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("jaxbody simulate: error: ")
    return err


def test_default_scene_prints_one_summary_line(capsys):
    assert cli.main(["simulate", "--duration", "0.05", "--time-step", "0.01"]) == 0
    out = capsys.readouterr().out.strip()
    assert "\n" not in out
    m = re.match(r"double pendulum: 5 steps of 0\.01 s \(rk4, nq=2\) in .* s = [\d,]+ steps/s "
                 r"\(compile .* s\); energy (\S+) -> (\S+) J \(drift (\S+) J\)", out)
    assert m, out
    assert abs(float(m.group(3))) < 1e-3 * abs(float(m.group(1)))  # rk4 conserves energy


def test_model_file_with_package_meshes_writes_npz_and_html(tmp_path, capsys):
    urdf = _package(tmp_path)
    moved = tmp_path / "elsewhere.urdf"  # no package.xml above it: --package maps the name
    moved.write_text(URDF)
    npz, html = tmp_path / "traj.npz", tmp_path / "traj.html"
    assert cli.main(["simulate", str(moved), "--package", f"armpkg={urdf.parent.parent}",
                     "--duration", "0.1", "--time-step", "0.01", "--integrator",
                     "semi_implicit_euler"]) == 0
    capsys.readouterr()
    rc = cli.main(["simulate", str(urdf), "--duration", "0.1", "--time-step", "0.01",
                   "--integrator", "semi_implicit_euler", "--out", str(npz), "--html", str(html)])
    assert rc == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith("arm.urdf: 10 steps")
    data = np.load(npz)
    assert data["times"].shape == (11,) and data["q"].shape == (11, 1) and data["v"].shape == (11, 1)
    text = html.read_text(encoding="utf-8")
    assert "<title>jaxbody: arm.urdf</title>" in text and "jaxbody-scene" in text


def test_diverging_simulation_is_an_error(capsys):
    rc = cli.main(["simulate", "--duration", "2000", "--time-step", "10",
                   "--integrator", "explicit_euler"])
    assert rc == 1
    assert "non-finite at step" in _error_line(capsys)


@pytest.mark.parametrize("args, match", [
    (["missing.urdf"], "model file not found: missing.urdf"),
    (["--duration", "0"], "--duration must be a finite number > 0"),
    (["--time-step", "nan"], "--time-step must be a finite number > 0"),
])
def test_argument_errors(args, match, capsys):
    assert cli.main(["simulate", *args]) == 1
    assert match in _error_line(capsys)


def test_parse_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='r'><link name='a'>")
    assert cli.main(["simulate", str(bad)]) == 1
    assert "bad.urdf" in _error_line(capsys)
    urdf = tmp_path / "other.urdf"
    urdf.write_text(URDF)  # package://armpkg is nowhere above this file
    assert cli.main(["simulate", str(urdf)]) == 1
    assert "armpkg" in _error_line(capsys)
    assert cli.main(["simulate", str(urdf), "--package-path", str(tmp_path / "nope")]) == 1
    assert "--package-path: not a folder" in _error_line(capsys)
    assert cli.main(["simulate", str(urdf), "--package", "armpkg"]) == 1
    assert "--package: expected NAME=FOLDER" in _error_line(capsys)


def test_console_script_exit_status():
    proc = subprocess.run([sys.executable, "-m", "jaxbody.cli", "simulate", "nothing.sdf"],
                          capture_output=True, text=True, cwd=os.path.dirname(__file__),
                          timeout=300)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last == "jaxbody simulate: error: model file not found: nothing.sdf"
