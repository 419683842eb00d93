"""Plots return Figures whose lines carry the data and labels."""

import numpy as np
import pytest
from matplotlib.figure import Figure

import jaxbody as jb
from jaxbody.visualization import (
    plot_contact_forces,
    plot_energy,
    plot_joint_trajectories,
    plot_solver_iterations,
    position_names,
)
from tests.helpers.models import double_pendulum


def _labels(ax):
    return [line.get_label() for line in ax.lines]


def test_joint_trajectories_from_a_rollout(tmp_path):
    plant, _, _ = double_pendulum()
    t = np.linspace(0.0, 1.0, 21)
    states = np.stack([np.sin(t), np.cos(t), np.cos(t), -np.sin(t)], -1)
    out = jb.RolloutResult(t, states, states[-1], -1)  # as jb.rollout returns it
    fig = plot_joint_trajectories(out, plant=plant, velocities=True)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert _labels(fig.axes[0]) == ["j1", "j2"] and _labels(fig.axes[1]) == ["v[0]", "v[1]"]
    x, y = fig.axes[0].lines[0].get_data()
    np.testing.assert_allclose(x, np.asarray(out.times))
    np.testing.assert_allclose(y, np.asarray(out.states)[:, 0])
    fig.savefig(tmp_path / "q.png")  # renders headless (Agg)


def test_joint_trajectories_from_an_array():
    q = np.random.default_rng(0).normal(size=(10, 3))
    fig = plot_joint_trajectories(q, names=["a", "b", "c"])
    assert _labels(fig.axes[0]) == ["a", "b", "c"]
    np.testing.assert_allclose(fig.axes[0].lines[0].get_xdata(), np.arange(10))
    assert fig.axes[0].get_xlabel() == "step"
    with pytest.raises(ValueError, match="names"):
        plot_joint_trajectories(q, names=["a"])
    with pytest.raises(ValueError, match="times"):
        plot_joint_trajectories(q, times=np.arange(3))
    with pytest.raises(ValueError, match="velocities"):
        plot_joint_trajectories(q, velocities=True)
    with pytest.raises(ValueError, match="\\(T, n\\)"):
        plot_joint_trajectories(np.zeros(5))


def test_position_names_of_multi_dof_joints():
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.AddJoint(jb.BallRpyJoint("ball", plant.world_frame(), body.body_frame()))
    plant.Finalize()
    assert position_names(plant) == ["ball[0]", "ball[1]", "ball[2]"]


def test_energy_lines():
    t = np.linspace(0, 1, 5)
    fig = plot_energy(t, np.ones(5), np.full(5, 2.0))
    ax = fig.axes[0]
    assert _labels(ax) == ["kinetic", "potential", "total"]
    np.testing.assert_allclose(ax.lines[2].get_ydata(), 3.0)
    assert _labels(plot_energy(t, np.ones(5)).axes[0]) == ["kinetic"]
    with pytest.raises(ValueError, match="potential"):
        plot_energy(t, np.ones(5), np.ones(4))


def test_contact_force_lines_with_mask():
    f = np.zeros((4, 2, 3))
    f[:, 0, 2] = [1, 2, 3, 4]
    f[:, 1, 0] = 3.0
    mask = np.array([[1, 1], [1, 0], [1, 0], [1, 1]], bool)
    fig = plot_contact_forces(np.arange(4.0), f, mask)
    ax = fig.axes[0]
    assert _labels(ax) == ["contact 0", "contact 1", "total"]
    np.testing.assert_allclose(ax.lines[1].get_ydata(), [3, np.nan, np.nan, 3])
    np.testing.assert_allclose(ax.lines[2].get_ydata(), [4, 2, 3, 7])
    assert _labels(plot_contact_forces(None, np.ones((3, 2)), total=False).axes[0]) == [
        "contact 0", "contact 1"]
    with pytest.raises(ValueError, match="mask"):
        plot_contact_forces(None, f, mask[:, :1])
    with pytest.raises(ValueError, match="forces"):
        plot_contact_forces(None, np.ones(3))


def test_solver_iterations():
    fig = plot_solver_iterations([3, 5, 4], times=[0.0, 0.01, 0.02], max_iterations=10)
    ax = fig.axes[0]
    assert _labels(ax) == ["iterations", "limit"]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [3, 5, 4])
    with pytest.raises(ValueError, match="iterations"):
        plot_solver_iterations(np.ones((2, 2)))
