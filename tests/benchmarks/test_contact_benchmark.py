"""The contact benchmark runs end to end in --quick mode on the one-sphere scene (tiny sizes)
and writes its JSON; every scene's MJCF loads in MuJoCo with the scene's bodies and actuators.

The fast test times jaxbody, Drake and MuJoCo C in this process (one jaxbody compile, most of
its time); MJX, whose compile alone takes ~15-20 s, is in the `slow` variant, which also runs the
scene in a child process as the benchmark does by default. No duration is asserted here.
"""

import json

import pytest

pytest.importorskip("pydrake")
pytest.importorskip("mujoco")

from benchmarks import contact, contact_engines, contact_scenes  # noqa: E402


def _run(tmp_path, engines, *extra):
    report = contact.main(["--quick", "--scenes", "sphere1", "--engines", *engines,
                           "--machine", "test", "--out-dir", str(tmp_path), *extra])
    saved = json.loads((tmp_path / "contact_test.json").read_text())
    assert saved["results"] == json.loads(json.dumps(report["results"], default=float))
    assert {"machine", "versions", "settings", "scenes", "summary"} <= set(saved)
    info = saved["scenes"]["sphere1"]
    assert (info["nq"], info["nv"], info["num_candidate_pairs"]) == (7, 6, 1)
    assert info["agreement"]["v_rel_diff_vs_drake"] < contact.AGREE_TOL
    rows = {(r["engine"], r["batch"]): r for r in saved["results"]}
    jb = rows["jaxbody", 2]
    assert {"compile_s", "lower_s", "run_median_s", "run_min_s", "env_steps_per_s",
            "jaxbody/drake_serial", "jaxbody_per_core/mujoco"} <= set(jb)
    assert jb["all_finite"] and jb["sap_all_converged"]
    assert jb["env0_v_rel_diff_vs_drake"] < contact.AGREE_TOL
    return rows


def test_contact_benchmark_quick(tmp_path):
    rows = _run(tmp_path, ["drake", "mujoco"], "--in-process")
    assert set(rows) == {("drake", 1), ("mujoco", 2), ("jaxbody", 2)}


@pytest.mark.slow
def test_contact_benchmark_quick_mjx(tmp_path):
    pytest.importorskip("mujoco.mjx")
    rows = _run(tmp_path, ["drake", "mujoco", "mjx"])  # the scene in a child process
    assert set(rows) == {("drake", 1), ("mujoco", 2), ("jaxbody", 2), ("mjx", 2)}
    assert rows["mjx", 2]["all_finite"] and "jaxbody/mjx" in rows["jaxbody", 2]


@pytest.mark.parametrize("name", sorted(contact_scenes.SCENES))
def test_scene_mjcf_loads(name):
    import mujoco

    scene = contact_scenes.SCENES[name]()
    model = mujoco.MjModel.from_xml_string(contact_engines.mjcf(scene))
    nfree = len(scene.bodies) + scene.quadruped
    assert model.nbody == 1 + len(scene.bodies) + 13 * scene.quadruped
    assert model.ngeom == len(scene.geoms)
    assert model.nv == 6 * nfree + 12 * scene.quadruped
    assert model.nu == 12 * scene.quadruped
