"""The command line as a new user meets it (issue "the first hour"): every option checked
before anything is built or compiled, plain help, honest summary lines, robots started in a
state worth watching (joint positions inside their limits, the root welded for arms, standing
under a PD hold), and a model without geometry drawn as inertia boxes with a warning."""

import os

import numpy as np
import pytest

import jaxbody as jb
from jaxbody import cli
from jaxbody.cli import simulate
from jaxbody.cli.models import example_robot_data, load_model


@pytest.fixture(autouse=True)
def _no_persistent_cache(monkeypatch):
    monkeypatch.setenv("JAXBODY_CACHE_DIR", "")


@pytest.fixture
def nothing_compiles(monkeypatch):
    """Fails the test if a simulation gets as far as compiling."""
    def boom(*a, **k):
        raise AssertionError("compiled although the options were bad")

    monkeypatch.setattr(simulate._chunk, "lower", boom)


def _error(capsys, argv):
    assert cli.main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("jaxbody simulate: error: "), err
    return err


@pytest.mark.parametrize("argv, match", [
    (["--integrator", "rk4"], "--integrator applies to a continuous plant only"),
    (["--dt", "0.01"], "--dt applies to a continuous plant only"),
    (["--perturb", "-1"], "--perturb must be a finite number >= 0"),
    (["--out", "x.txt"], "--out: the file name must end in .npz"),
    (["--out", "/no/such/folder/x.npz"], "the folder /no/such/folder does not exist"),
    (["--html", "/no/such/folder/x.html"], "the folder /no/such/folder does not exist"),
    (["--time-step", "0", "--hold"], "--hold needs a discrete plant"),
    (["--fixed-base"], "apply to model files"),
    (["--actuate-all"], "--fixed-base, --hold, --actuate-all, --posture and --srdf apply to model files"),
    (["--single-point"], "--single-point applies to model files"),
    (["--multi-point"], "--multi-point applies to model files"),
    (["--max-hull-vertices", "16"], "--max-hull-vertices applies to model files"),
    (["--max-hull-pairs", "8"], "--max-hull-pairs applies to model files"),
])
def test_bad_options_are_refused_before_anything_runs(argv, match, capsys, nothing_compiles):
    assert match in _error(capsys, ["simulate", *argv])


def test_html_without_the_viz_extra_is_refused_before_the_run(capsys, monkeypatch,
                                                                 nothing_compiles, tmp_path):
    monkeypatch.setitem(__import__("sys").modules, "jaxbody.visualization", None)
    err = _error(capsys, ["simulate", "--html", str(tmp_path / "a.html")])
    assert "--html needs the viz extra (pip install 'jaxbody[viz]')" in err


def test_no_command_prints_the_help(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert "{simulate,info,bench,demo}" in out and "simulate runs a URDF" in out
    assert "``" not in out
    with pytest.raises(SystemExit):
        cli.main(["simulate", "--help"])
    assert "``" not in capsys.readouterr().out


def test_unknown_package_tells_a_command_line_user_what_to_pass(tmp_path, capsys,
                                                                  nothing_compiles):
    urdf = tmp_path / "r.urdf"
    urdf.write_text("""<robot name="r"><link name="a"><visual><geometry>
        <mesh filename="package://nowhere/m.obj"/></geometry></visual></link></robot>""")
    err = _error(capsys, ["simulate", str(urdf)])
    assert "unknown package 'nowhere'" in err and "--package NAME=FOLDER" in err
    assert "package_map" not in err


def test_summary_is_honest(capsys):
    """The asked duration is simulated exactly, counts are singular when one, and the time
    spent building is reported apart from compiling."""
    assert cli.main(["simulate", "--scene", "pendulum", "--time-step", "0", "--dt", "0.01",
                     "--duration", "0.5", "--chunk", "7", "--integrator",
                     "semi_implicit_euler"]) == 0
    out = capsys.readouterr().out
    assert "simulated 0.5 s: 50 steps, continuous" in out  # 50 = 10 pieces of 5 (≤ 7 steps)
    assert "2 bodies" in out and "  build " in out and "  compile " in out
    assert simulate._plural(1, "body") == "1 body"
    assert simulate._plural(0, "geometry") == "0 geometries"
    assert simulate._plan(0.504, 1e-3, 250, 10**9) == (504, 168, 3)
    assert simulate._plan(0.5, 1e-3, 250, 10**9) == (500, 250, 2)


ERD = example_robot_data()


@pytest.mark.skipif(ERD is None, reason="example-robot-data is not installed")
def test_robots_start_in_a_state_worth_watching():
    """go1's calves start at 0 in its URDF, outside their limits: moved inside, and said so;
    with hold the SRDF's 'standing' posture is the start and every joint gets gains; the
    panda welded at its root with --fixed-base."""
    go1 = os.path.join(ERD, "robots", "go1_description", "urdf", "go1.urdf")
    m = load_model(go1, time_step=1e-3, ground=True)
    q = np.asarray(m.context.q)
    lo, hi = (np.asarray(f()) for f in (m.plant.GetPositionLowerLimits,
                                        m.plant.GetPositionUpperLimits))
    assert np.all((q >= lo) & (q <= hi))
    assert any("4 joint positions moved into their limits" in n for n in m.notes)
    held = load_model(go1, time_step=1e-3, ground=True, hold=True)
    assert any("'standing' group state of go1.srdf (12 joints)" in n for n in held.notes)
    assert all(held.plant.get_joint_actuator(jb.JointActuatorIndex(i)).has_controller()
               for i in range(held.plant.num_actuators()))
    knee = held.plant.GetJointByName("FL_calf_joint")
    assert float(held.context.q[knee.position_start()]) == pytest.approx(-1.853)
    panda = os.path.join(ERD, "robots", "panda_description", "urdf", "panda.urdf")
    fixed = load_model(panda, time_step=1e-3, fixed_base=True)
    assert not fixed.plant.GetFloatingBaseBodies()
    assert any("welded 'panda_link0' to the world" in n for n in fixed.notes)
    assert fixed.plant.get_contact_query_options().single_point  # Drake's, by default
    many = load_model(panda, time_step=1e-3, fixed_base=True, multi_point=True)
    assert not many.plant.get_contact_query_options().single_point


@pytest.mark.slow
@pytest.mark.skipif(ERD is None, reason="example-robot-data is not installed")
def test_go1_stands_under_the_hold(capsys, tmp_path):
    go1 = os.path.join(ERD, "robots", "go1_description", "urdf", "go1.urdf")
    npz = tmp_path / "go1.npz"
    assert cli.main(["simulate", go1, "--hold", "--duration", "1", "--out", str(npz)]) == 0
    out = capsys.readouterr().out
    assert "contacts  4 at the end" in out and f"wrote {tmp_path / 'go1.png'}" in out
    q = np.load(npz)["q"]
    assert abs(q[-1, 6] - q[0, 6]) < 0.02  # the trunk stays at its height
    assert q[-1, 0] > 0.999  # and level


def test_a_model_without_geometry_is_drawn_as_inertia_boxes(tmp_path):
    """The README's pendulum has no geometry: its HTML shows the link as an inertia box (a
    headless browser sees it), with a warning naming it."""
    from jaxbody.visualization import export_html
    from tests.helpers import chromium
    from tests.visualization.test_viz_browser import CAMERA, MIN_CHANGED, SIZE, _empty_page

    chromium.chromium()
    plant = jb.MultibodyPlant(time_step=0.0)
    link = plant.AddRigidBody("link", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 1.0))
    plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), link.body_frame(), [1, 0, 0]))
    plant.Finalize()
    with pytest.warns(UserWarning, match="1 body has no geometry to draw.*'link'"):
        page = export_html(plant, np.zeros((2, 1)), tmp_path / "p.html", times=[0.0, 1.0],
                           camera=CAMERA, show_controls=False)
    drawn = chromium.changed(chromium.screenshot(page, size=SIZE, virtual_time_ms=300),
                             chromium.screenshot(_empty_page(tmp_path), size=SIZE,
                                                 virtual_time_ms=300))
    assert drawn.sum() > MIN_CHANGED


def test_serve_keeps_a_live_viewer_until_ctrl_c():
    """--serve prints the summary, then the live viewer's address, and serves until Ctrl-C,
    which ends the command cleanly (status 0)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    pytest.importorskip("meshcat")
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "jaxbody.cli", "simulate", "--scene", "pendulum",
         "--time-step", "0", "--dt", "0.01", "--duration", "0.05", "--integrator",
         "explicit_euler", "--serve", "--no-cache"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ, PYTHONFAULTHANDLER="1"),  # SIGABRT prints every thread's stack
        # Ctrl-C as from a terminal: pytest-xdist's workers ignore SIGINT, a child inherits
        # that, and a Python started with SIGINT ignored never raises KeyboardInterrupt (the
        # stack printed at the suite's timeouts: still in serve's sleep loop after 90 s)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines, deadline = [], time.time() + 240
    try:
        while time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "the viewer is at http" in line:
                break
        assert any("the viewer is at http" in x for x in lines), "".join(lines)
        assert any("simulated 0.05 s" in x for x in lines)
        time.sleep(1.0)
        assert proc.poll() is None  # still serving
        proc.send_signal(signal.SIGINT)
        try:  # about 1 s
            status = proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # where it hangs, for the failure message
            stacks = proc.communicate(timeout=30)[0]
            pytest.fail(f"no exit within 90 s of Ctrl-C; its threads:\n{stacks[-8000:]}")
        assert status == 0
    finally:
        if proc.poll() is None:
            proc.kill()
