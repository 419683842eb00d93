"""Trajectory inputs, resampling and per-sample kinematics and energy against the plant."""

import numpy as np
import pytest

import jaxbody as jb
from jaxbody.visualization import (
    as_trajectory,
    body_poses,
    center_of_mass_positions,
    sample_kinematics,
    trajectory_energy,
)
from jaxbody.visualization.trajectory import CHUNK, resample_indices
from tests.helpers.models import double_pendulum

TOL = 1e-12


def test_as_trajectory_accepts_rollouts_q_and_states():
    plant, _, _ = double_pendulum()
    out = jb.RolloutResult(0.1 * np.arange(4), np.zeros((4, 4)), np.zeros(4), -1)
    t, q = as_trajectory(plant, out)
    np.testing.assert_allclose(t, [0, 0.1, 0.2, 0.3], atol=TOL)
    assert q.shape == (4, 2)
    t, q = as_trajectory(plant, np.ones((2, 4)), times=[0.0, 1.0])
    assert q.shape == (2, 2) and np.all(q == 1)
    t, _ = as_trajectory(plant, out, times=np.arange(4.0))  # explicit times win
    np.testing.assert_allclose(t, np.arange(4.0))


def test_resample_indices():
    t = np.linspace(0, 1, 101)
    keep = resample_indices(t, 10)
    np.testing.assert_allclose(t[keep], np.linspace(0, 1, 11), atol=1e-9)
    assert list(resample_indices(t, None)) == list(range(101))
    assert list(resample_indices([0.0, 0.5], 1000)) == [0, 1]
    with pytest.raises(ValueError, match="fps"):
        resample_indices(t, 0.0)


@pytest.mark.parametrize("T", [1, CHUNK + 3])
def test_sample_kinematics_matches_the_plant(T):
    plant, a, b = double_pendulum()
    ctx = plant.CreateDefaultContext()
    q = np.random.default_rng(T).uniform(-2, 2, (T, 2))
    k = sample_kinematics(plant, ctx, q)
    assert k["R_WB"].shape == (T, 3, 3, 3) and k["quat_WB"].shape == (T, 3, 4)
    for i in (0, T - 1):
        c = plant.SetPositions(ctx, q[i])
        X = plant.EvalBodyPoseInWorld(c, b)
        np.testing.assert_allclose(k["p_WB"][i, int(b.index())], X.translation(), atol=TOL)
        np.testing.assert_allclose(k["R_WB"][i, int(b.index())], X.rotation().matrix(), atol=TOL)
        wxyz = np.asarray(X.rotation().ToQuaternion())
        np.testing.assert_allclose(k["quat_WB"][i, int(b.index())], np.r_[wxyz[1:], wxyz[0]], atol=TOL)
        np.testing.assert_allclose(k["p_WScm"][i], plant.CalcCenterOfMassPositionInWorld(c), atol=TOL)
    R, p = body_poses(plant, ctx, q)
    np.testing.assert_array_equal(p, k["p_WB"])
    np.testing.assert_array_equal(center_of_mass_positions(plant, ctx, q), k["p_WScm"])


def test_center_of_mass_of_a_world_only_plant_raises():
    plant = jb.MultibodyPlant(0.0)
    plant.Finalize()
    assert sample_kinematics(plant, plant.CreateDefaultContext(), np.zeros((2, 0)))["p_WScm"] is None
    with pytest.raises(ValueError, match="no bodies"):
        center_of_mass_positions(plant, plant.CreateDefaultContext(), np.zeros((2, 0)))


def test_trajectory_energy_matches_the_plant():
    plant, _, _ = double_pendulum()
    ctx = plant.CreateDefaultContext()
    X = np.random.default_rng(0).uniform(-1, 1, (5, 4))
    ke, pe = trajectory_energy(plant, ctx, X)
    c = ctx.replace(q=X[3, :2], v=X[3, 2:])
    np.testing.assert_allclose([ke[3], pe[3]], [plant.CalcKineticEnergy(c),
                                                plant.CalcPotentialEnergy(c)], atol=TOL)
    with pytest.raises(ValueError, match="\\(T, 4\\)"):
        trajectory_energy(plant, ctx, X[:, :2])
