"""``jaxbody simulate``: the built-in scenes, model files (URDF with package:// meshes, SDFormat,
MJCF) in continuous and discrete time, batches, outputs, and one-line errors with a non-zero
exit status. Discrete (SAP) runs compile for tens of seconds on two cores: they are marked slow."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import jaxbody as jb
from jaxbody import cli
from jaxbody.cli.models import GROUND_GAP, LIFT_CLEARANCE, example_robot_data, load_model, lowest_point

ENERGY_RTOL = 1e-3  # rk4 at dt = 0.01 s keeps the double pendulum's energy to this (relative)
POSE_TOL = 1e-9  # m

URDF = """<robot name="arm">
  <link name="base"/>
  <link name="link">
    <inertial><origin xyz="0 0 -0.3"/><mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0 0 -0.3"/><geometry><mesh filename="package://armpkg/meshes/cube.obj"/></geometry>
      <material name="red"><color rgba="0.9 0.1 0.1 1"/></material></visual>
    <collision><origin xyz="0 0 -0.6"/><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/></joint>
  <joint name="pin" type="revolute"><parent link="base"/><child link="link"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
"""

SDF = """<sdf version="1.9"><model name="crate">
  <link name="crate"><pose>0 0 0 0.3 0.2 0</pose>
    <inertial><mass>2</mass><inertia><ixx>0.02</ixx><iyy>0.02</iyy><izz>0.02</izz></inertia></inertial>
    <collision name="c"><geometry><box><size>0.2 0.3 0.1</size></box></geometry></collision>
    <visual name="v"><geometry><box><size>0.2 0.3 0.1</size></box></geometry></visual>
  </link></model></sdf>
"""

MJCF = """<mujoco model="balls">
  <worldbody>
    <body name="ball" pos="0 0 -1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
    <body name="stick" pos="0.5 0 1"><joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03" mass="0.5"/></body>
  </worldbody>
</mujoco>
"""


@pytest.fixture(autouse=True)
def _no_persistent_cache(monkeypatch):
    monkeypatch.setenv("JAXBODY_CACHE_DIR", "")  # in-process runs leave JAX's config alone


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


def _files(tmp_path):
    (tmp_path / "crate.sdf").write_text(SDF)
    (tmp_path / "balls.xml").write_text(MJCF)
    return {"urdf": _package(tmp_path), "sdf": tmp_path / "crate.sdf", "mjcf": tmp_path / "balls.xml"}


def _summary(capsys, argv):
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def _error_line(capsys, command="simulate"):
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"jaxbody {command}: error: "), err
    return err


def _lowest(model):
    plant, ctx = model.plant, model.context
    z = np.inf
    for g in plant.GetGeometries(jb.Role.kProximity):
        if g.body().index() == plant.world_body().index():
            continue
        X_WB = np.asarray(plant.EvalBodyPoseInWorld(ctx, g.body()).GetAsMatrix4())
        z = min(z, lowest_point(g.shape(), X_WB @ np.asarray(g.pose_in_body().GetAsMatrix4())))
    return z


def _ground_z(plant):
    (g,) = [g for g in plant.GetGeometries(jb.Role.kProximity) if isinstance(g.shape(), jb.HalfSpace)]
    return float(np.asarray(g.pose_in_body().translation())[2])


# ---- continuous time (fast) -------------------------------------------------------------------
def test_pendulum_scene_continuous_summary(capsys):
    out = _summary(capsys, ["simulate", "--scene", "pendulum", "--time-step", "0", "--dt", "0.01",
                            "--duration", "0.05"])
    assert out.startswith("pendulum (built-in double pendulum): 2 bodies, nq=2, nv=2")
    assert "simulated 0.05 s: 5 steps, continuous (rk4, dt 0.01 s; compliant point contact)" in out
    assert re.search(r"compile +[\d.]+ s", out) and re.search(r"run .* [\d,]+ steps/s", out)
    m = re.search(r"energy +(\S+) J -> (\S+) J", out)
    assert abs(float(m.group(2)) - float(m.group(1))) < ENERGY_RTOL * abs(float(m.group(1)))
    assert "SAP" not in out and "contacts" not in out


def test_batch_env0_is_the_unperturbed_run(tmp_path, capsys):
    one, many = tmp_path / "one.npz", tmp_path / "many.npz"
    base = ["simulate", "--scene", "pendulum", "--time-step", "0", "--dt", "0.01", "--duration",
            "0.05", "--integrator", "semi_implicit_euler"]
    _summary(capsys, [*base, "--out", str(one)])
    out = _summary(capsys, [*base, "--batch", "3", "--out", str(many)])
    assert "batch of 3" in out and re.search(r"= [\d,]+ env-steps/s", out)
    a, b = np.load(one), np.load(many)
    assert b["q"].shape == (3, 6, 2) and b["v"].shape == (3, 6, 2) and b["times"].shape == (6,)
    np.testing.assert_allclose(b["q"][0], a["q"], rtol=0, atol=POSE_TOL)
    assert np.abs(b["q"][1:, 0] - a["q"][0]).max() > 0  # the other envs start perturbed


def test_model_file_with_package_meshes_writes_npz_and_html(tmp_path, capsys):
    urdf = _package(tmp_path)
    moved = tmp_path / "elsewhere.urdf"  # no package.xml above it: --package maps the name
    moved.write_text(URDF)
    npz, html = tmp_path / "traj.npz", tmp_path / "traj.html"
    cont = ["--time-step", "0", "--duration", "0.1", "--dt", "0.01", "--integrator",
            "semi_implicit_euler"]
    _summary(capsys, ["simulate", str(moved), "--package", f"armpkg={urdf.parent.parent}", *cont])
    out = _summary(capsys, ["simulate", str(urdf), *cont, "--out", str(npz), "--html", str(html)])
    assert out.startswith("arm.urdf: 2 bodies, nq=1, nv=1, 2 collision geometries")
    assert f"wrote {npz}" in out and f"wrote {html}" in out
    data = np.load(npz)
    assert data["times"].shape == (11,) and data["q"].shape == (11, 1) and data["v"].shape == (11, 1)
    assert "contact_forces" not in data  # continuous runs record no contact forces
    text = html.read_text(encoding="utf-8")
    assert "<title>jaxbody: arm.urdf</title>" in text and "jaxbody-scene" in text


@pytest.mark.parametrize("kind", ["sdf", "mjcf"])
def test_sdf_and_mjcf_files_continuous(kind, tmp_path, capsys):
    path = _files(tmp_path)[kind]
    out = _summary(capsys, ["simulate", str(path), "--time-step", "0", "--dt", "0.01",
                            "--duration", "0.03", "--integrator", "explicit_euler"])
    assert out.startswith(f"{path.name}: ") and "3 steps, continuous" in out


# ---- model placement (no compile) -------------------------------------------------------------
def test_free_floating_models_start_above_the_ground(tmp_path):
    files = _files(tmp_path)
    for kind in ("sdf", "mjcf"):
        model = load_model(str(files[kind]), time_step=1e-3, ground=True)
        assert _ground_z(model.plant) == 0.0
        assert abs(_lowest(model) - LIFT_CLEARANCE) < POSE_TOL, kind
    bare = load_model(str(files["sdf"]), time_step=1e-3, ground=False)
    assert bare.plant.num_collision_geometries() == 1


def test_fixed_base_model_gets_its_ground_below_it(tmp_path):
    model = load_model(str(_package(tmp_path)), ground=True, time_step=1e-3)
    assert abs(_ground_z(model.plant) - (-0.65 - GROUND_GAP)) < POSE_TOL  # sphere at z = -0.6


def test_self_collision_filter(tmp_path):
    mjcf = _files(tmp_path)["mjcf"]
    filtered = load_model(str(mjcf), time_step=1e-3, ground=True)
    free = load_model(str(mjcf), time_step=1e-3, ground=True, self_collision=True)
    assert len(filtered.plant.GetCollisionCandidates()) == 2  # ball-ground, stick-ground
    assert len(free.plant.GetCollisionCandidates()) == 3  # and ball-stick


# ---- errors ---------------------------------------------------------------------------------
def test_diverging_simulation_is_an_error(capsys):
    rc = cli.main(["simulate", "--scene", "pendulum", "--duration", "2000", "--time-step", "0",
                   "--dt", "10", "--integrator", "explicit_euler"])
    assert rc == 1
    err = _error_line(capsys)
    assert "non-finite at step" in err and "try a smaller --dt" in err


def test_massless_moving_body_is_named_not_blamed_on_the_time_step(tmp_path, capsys):
    """example-robot-data's romeo.urdf has massless finger links on revolute joints: the first
    step is NaN, and the error is the plant's own (Drake's words, naming the body), not "try a
    smaller --time-step"."""
    inertia = '<inertia ixx="{0}" iyy="{0}" izz="{0}" ixy="0" ixz="0" iyz="0"/>'
    urdf = tmp_path / "r.urdf"
    urdf.write_text(
        '<robot name="r"><link name="base"><inertial><mass value="1"/>' + inertia.format(0.01)
        + '</inertial><collision><geometry><sphere radius="0.1"/></geometry></collision></link>'
        '<link name="finger"><inertial><mass value="0"/>' + inertia.format(0) + "</inertial>"
        '</link><joint name="hinge" type="revolute"><parent link="base"/><child link="finger"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        "</robot>")
    rc = cli.main(["simulate", str(urdf), "--duration", "0.002", "--no-progress"])
    assert rc == 1
    err = _error_line(capsys)
    assert "singular articulated body hinge inertia at body 'finger' (joint 'hinge')" in err
    assert "time-step" not in err


@pytest.mark.parametrize("args, match", [
    (["missing.urdf"], "model file not found: missing.urdf"),
    (["--duration", "0"], "--duration must be a finite number > 0"),
    (["--time-step", "0", "--dt", "nan"], "--dt must be a finite number > 0"),
    (["--time-step", "-1"], "--time-step must be a finite number >= 0"),
    (["--batch", "0"], "--batch and --chunk must be >= 1"),
])
def test_argument_errors(args, match, capsys):
    assert cli.main(["simulate", *args]) == 1
    assert match in _error_line(capsys)


@pytest.mark.parametrize("args, match", [
    (["simulate", "--duration", "abc"], "argument --duration: invalid float value: 'abc'"),
    (["simulate", "--integrator", "euler"], "argument --integrator: invalid choice"),
    (["simulate", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_options_exit_2_with_one_line(args, match, capsys):
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and match in err and err.startswith("jaxbody")


def test_parse_errors_are_one_line_naming_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='r'>\n<link name='a'>\n<inertial><mass value='x'/></inertial>"
                   "</link></robot>\n")
    assert cli.main(["simulate", str(bad)]) == 1
    assert f"{bad}:3: <mass>: error:" in _error_line(capsys)
    truncated = tmp_path / "truncated.urdf"
    truncated.write_text("<robot name='r'><link name='a'>")
    assert cli.main(["simulate", str(truncated)]) == 1
    assert f"{truncated}:1:" in _error_line(capsys)
    urdf = tmp_path / "other.urdf"
    urdf.write_text(URDF)  # package://armpkg is nowhere above this file
    assert cli.main(["simulate", str(urdf)]) == 1
    assert "armpkg" in _error_line(capsys)
    assert cli.main(["simulate", str(urdf), "--package-path", str(tmp_path / "nope")]) == 1
    assert "--package-path: not a folder" in _error_line(capsys)
    assert cli.main(["simulate", str(urdf), "--package", "armpkg"]) == 1
    assert "--package: expected NAME=FOLDER" in _error_line(capsys)


def test_console_script_exit_status(tmp_path):
    env = dict(os.environ, JAXBODY_CACHE_DIR="")
    proc = subprocess.run([sys.executable, "-m", "jaxbody.cli", "simulate", "nothing.sdf"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
    assert proc.returncode == 1
    assert proc.stderr.strip() == "jaxbody simulate: error: model file not found: nothing.sdf"


# ---- discrete time, SAP contact (slow: each compiles for tens of seconds) -----------------------
@pytest.mark.slow
def test_default_contact_scene_writes_npz_and_html(tmp_path, capsys, monkeypatch):
    import jaxbody.visualization as viz

    npz, html, calls = tmp_path / "traj.npz", tmp_path / "traj.html", []
    real = viz.export_html
    monkeypatch.setattr(viz, "export_html", lambda *a, **k: calls.append(k) or real(*a, **k))
    out = _summary(capsys, ["simulate", "--duration", "0.06", "--out", str(npz), "--html", str(html)])
    assert out.startswith("boxes (built-in contact scene): 7 bodies, nq=49, nv=42, 8 collision")
    assert "60 steps, discrete (SAP contact), time step 0.001 s" in out
    assert "  query     28 candidate pairs, 28 evaluated per query\n" in out
    m = re.search(r"contacts +(\S+) at the end, max (\d+) \(of (\d+) slots\)", out)
    assert m and int(m.group(2)) >= 5  # the roller, and the tower's bottom box (dropped 1 cm)
    m = re.search(r"SAP +(\S+) iterations per step \(max (\d+)\); converged in (\d+)/(\d+) steps", out)
    assert m and m.group(3) == m.group(4) == "60"
    data = np.load(npz)
    P = data["contact_points"].shape[1]
    assert data["q"].shape == (61, 49) and data["v"].shape == (61, 42)
    assert data["contact_forces"].shape == (60, P, 3) and data["contact_active"].shape == (60, P)
    assert data["sap_iterations"].shape == (60,) and data["sap_converged"].all()
    active = data["contact_active"][-1]
    assert (data["contact_forces"][-1][active][:, 2] > 0).all()  # the ground pushes the bodies up
    assert "<title>jaxbody: boxes</title>" in html.read_text(encoding="utf-8")
    (kw,) = calls  # the arrows: step k's contacts at sample k, the last sample repeating
    assert kw["contact_points"].shape == kw["contact_forces"].shape == (61, P, 3)
    np.testing.assert_array_equal(kw["contact_mask"][:60], data["contact_active"])
    np.testing.assert_array_equal(kw["contact_forces"][60], data["contact_forces"][59])


@pytest.mark.slow
def test_default_contact_scene_batch(capsys):
    out = _summary(capsys, ["simulate", "--batch", "3", "--duration", "0.01"])
    assert "batch of 3" in out and re.search(r"= [\d,]+ env-steps/s", out)
    assert "(mean over envs)" in out and "converged in 30/30 env-steps" in out


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["urdf"])  # SDF and MJCF parse in the continuous tests
def test_model_files_discrete_on_the_ground(kind, tmp_path, capsys):
    path = _files(tmp_path)[kind]
    out = _summary(capsys, ["simulate", str(path), "--duration", "0.02", "--time-step", "0.002"])
    assert "10 steps, discrete (SAP contact)" in out and "converged in 10/10 steps" in out


@pytest.mark.slow
@pytest.mark.parametrize("relpath", ["solo_description/robots/solo12.urdf"])
def test_example_robot_data_models(relpath, capsys):
    erd = example_robot_data()
    if erd is None:
        pytest.skip("example-robot-data is not installed")
    out = _summary(capsys, ["simulate", os.path.join(erd, "robots", relpath), "--duration", "0.02"])
    assert "20 steps, discrete (SAP contact)" in out and "converged in 20/20 steps" in out


def test_output_errors_are_one_line(tmp_path, capsys, monkeypatch):
    base = ["simulate", "--scene", "pendulum", "--time-step", "0", "--dt", "0.01", "--duration",
            "0.05", "--integrator", "semi_implicit_euler"]  # as test_batch_env0...: compiled once
    assert cli.main([*base, "--out", str(tmp_path / "no" / "such" / "t.npz")]) == 1
    assert "--out: cannot write" in _error_line(capsys)
    monkeypatch.setitem(sys.modules, "jaxbody.visualization", None)  # the viz extra missing
    assert cli.main([*base, "--html", str(tmp_path / "t.html")]) == 1
    assert "--html needs the viz extra (pip install 'jaxbody[viz]')" in _error_line(capsys)
