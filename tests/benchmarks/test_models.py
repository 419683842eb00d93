"""The benchmark models agree across jaxbody, Drake and Pinocchio; the FK benchmark runs.

No duration is asserted here: speed is measured in `benchmarks/`, never in a test.
"""

import json

import numpy as np
import pytest

pytest.importorskip("pinocchio")
pytest.importorskip("pydrake")

import pinocchio as pin  # noqa: E402

from benchmarks import check_models, forward_kinematics, models  # noqa: E402

NUM_STATES = 2
VELOCITY_TOL = 1e-10  # relative to max(1, |V|)


@pytest.fixture(scope="module", params=list(models.MODELS))
def engines(request):
    return models.build(request.param)


def test_sizes(engines):
    nrev = sum(b.joint == "revolute" for b in engines.spec.bodies)
    nfree = sum(b.joint == "free" for b in engines.spec.bodies)
    assert (engines.nq, engines.nv) == (nrev + 7 * nfree, nrev + 6 * nfree)
    for plant, _ in (engines.jaxbody, engines.drake):
        assert (plant.num_positions(), plant.num_velocities()) == (engines.nq, engines.nv)


def test_body_poses_agree(engines):
    qs = models.random_q(engines, np.random.default_rng(1), NUM_STATES)  # batch of 2: one jit
    poses = check_models.body_poses(engines, qs)
    nb = len(engines.spec.bodies)
    for name, (R, p) in poses.items():
        assert R.shape == (NUM_STATES, nb, 3, 3) and p.shape == (NUM_STATES, nb, 3), name
    for name in ("jaxbody", "drake"):
        assert check_models.discrepancy(poses[name], poses["pinocchio"]) < models.POSE_TOL
    assert check_models.check(engines, qs) < models.POSE_TOL


def test_poses_differ_between_states(engines):
    """Guards the check itself: the two random states give different poses."""
    qs = models.random_q(engines, np.random.default_rng(2), 2)
    R, p = check_models.pinocchio_poses(engines, qs)
    assert check_models.discrepancy((R[0], p[0]), (R[1], p[1])) > 1e-3


def test_check_rejects_a_wrong_model(engines):
    qs = models.random_q(engines, np.random.default_rng(3), NUM_STATES)
    wrong = models.Engines(engines.spec, engines.jaxbody, engines.drake, engines.pinocchio,
                           engines.q_perm[::-1].copy(), engines.free_v)
    with pytest.raises(check_models.PoseMismatch):
        check_models.check(wrong, qs)


def test_velocity_conversion(engines):
    """`to_pinocchio` maps v too: body spatial velocities in World agree with Drake's."""
    rng = np.random.default_rng(4)
    q, v = models.random_q(engines, rng, 1)[0], rng.normal(size=engines.nv)
    pd, bodies = engines.drake
    ctx = pd.CreateDefaultContext()
    pd.SetPositions(ctx, q)
    pd.SetVelocities(ctx, v)
    model = engines.pinocchio
    data = model.createData()
    q_pin, v_pin = models.to_pinocchio(engines, q, v)
    pin.forwardKinematics(model, data, q_pin, v_pin)
    for i, body in enumerate(bodies):
        V_d = pd.EvalBodySpatialVelocityInWorld(ctx, body)
        V_p = pin.getVelocity(model, data, i + 1, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        a = np.concatenate([V_d.rotational(), V_d.translational()])
        b = np.concatenate([V_p.angular, V_p.linear])
        assert np.abs(a - b).max() / max(1.0, np.abs(b).max()) < VELOCITY_TOL, body.name()


def test_quat_to_rotation_matches_pinocchio():
    quat = np.random.default_rng(5).normal(size=(3, 4))
    quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    R = models.quat_to_rotation(quat)
    for (w, x, y, z), Ri in zip(quat, R):
        np.testing.assert_allclose(Ri, pin.Quaternion(w, x, y, z).toRotationMatrix(),
                                   atol=1e-15)


def test_forward_kinematics_benchmark_smoke(tmp_path):
    report = forward_kinematics.main([
        "--models", "arm7", "--batches", "1", "--repeats", "1", "--min-time", "0",
        "--dtypes", "float64", "--machine", "test", "--out-dir", str(tmp_path)])
    saved = json.loads((tmp_path / "forward_kinematics_test.json").read_text())
    assert saved["models"]["arm7"]["nq"] == 7
    engines = {r["engine"] for r in saved["results"]}
    assert engines == {"jaxbody", "pinocchio", "drake"}
    (jb,) = [r for r in saved["results"] if r["engine"] == "jaxbody"]
    assert {"compile_s", "run_median_s", "run_min_s", "jaxbody/pinocchio",
            "jaxbody/drake"} <= set(jb)
    assert saved["versions"]["jax"] and saved["machine"]["cpu_count"]
    assert report["results"] == saved["results"]
