"""Plots of a simulation: joint trajectories, energy, contact forces and solver iterations.

Each function takes arrays (or a `RolloutResult`) and returns a matplotlib ``Figure`` built
without pyplot (no global state, no display needed: it renders with Agg), to be saved with
``fig.savefig(...)`` or shown in a notebook. Lines carry labels, so ``ax.legend()`` and tests
can find them.

Example:
    >>> import numpy as np
    >>> fig = plot_energy(np.linspace(0, 1, 5), np.ones(5), np.zeros(5))
    >>> [line.get_label() for line in fig.axes[0].lines]
    ['kinetic', 'potential', 'total']
"""

from __future__ import annotations

import numpy as np

FIGSIZE = (7.0, 4.0)  # inches


def _figure(rows=1, figsize=FIGSIZE):
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError("jaxbody's plots need matplotlib: pip install 'jaxbody[viz]'") from e
    fig = Figure(figsize=(figsize[0], figsize[1] * (0.75 * rows + 0.25)), layout="constrained")
    axes = fig.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]
    return fig, list(axes)


def _times(times, n, what):
    if times is None:
        return np.arange(n, dtype=float), "step"
    t = np.asarray(times, dtype=float)
    if t.shape != (n,):
        raise ValueError(f"{what}: times must have shape ({n},), got {t.shape}")
    return t, "time (s)"


def position_names(plant) -> list:
    """A label per generalized position: the joint's name, with ``[i]`` for multi-dof joints."""
    names = [f"q[{i}]" for i in range(plant.num_positions())]
    for j in range(plant.num_joints()):
        joint = plant.get_joint(j)
        n, start = joint.num_positions(), joint.position_start()
        for i in range(n):
            names[start + i] = joint.name() if n == 1 else f"{joint.name()}[{i}]"
    return names


def plot_joint_trajectories(trajectory, times=None, *, plant=None, names=None,
                            velocities=False):
    """Joint positions (and velocities) against time, one line per coordinate.

    Args:
        trajectory: a `RolloutResult`, or (T, n) samples (q, or [q; v] with ``plant``).
        times: (T,) in s; default: the rollout's times, else the step index.
        plant: gives nq (to split states into q and v) and the line labels.
        names: one label per plotted position (default: joint names or ``q[i]``).
        velocities: also plot v on a second axes (needs ``plant`` or a rollout's states).

    Returns:
        A ``Figure``: axes 0 holds the q lines (and axes 1 the v lines).
    """
    own_t = getattr(trajectory, "times", None)
    X = np.asarray(trajectory.states if hasattr(trajectory, "states") else trajectory)
    if X.ndim != 2:
        raise ValueError(f"plot_joint_trajectories: trajectory must be (T, n), got {X.shape}")
    nq = plant.num_positions() if plant is not None else X.shape[1]
    if velocities and (plant is None or X.shape[1] != nq + plant.num_velocities()):
        raise ValueError("plot_joint_trajectories: velocities=True needs the plant and "
                         "(T, nq + nv) states")
    t, xlabel = _times(own_t if times is None else times, X.shape[0], "plot_joint_trajectories")
    labels = list(names) if names is not None else (
        position_names(plant) if plant is not None else [f"q[{i}]" for i in range(nq)])
    if len(labels) != nq:
        raise ValueError(f"plot_joint_trajectories: names must have {nq} entries, got {len(labels)}")
    fig, axes = _figure(2 if velocities else 1)
    for i, label in enumerate(labels):
        axes[0].plot(t, X[:, i], label=label)
    axes[0].set_ylabel("q (rad or m)")
    if velocities:
        for i in range(plant.num_velocities()):
            axes[1].plot(t, X[:, nq + i], label=f"v[{i}]")
        axes[1].set_ylabel("v (rad/s or m/s)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        if len(ax.lines) <= 12:
            ax.legend(loc="upper right", fontsize="small")
    axes[-1].set_xlabel(xlabel)
    return fig


def plot_energy(times, kinetic, potential=None, *, total=True):
    """Kinetic, potential and total energy (J) against time.

    ``kinetic`` and ``potential`` are (T,) arrays (see `trajectory_energy`); the total line
    shows drift (a conservative system's should stay flat).
    """
    ke = np.asarray(kinetic, dtype=float)
    if ke.ndim != 1:
        raise ValueError(f"plot_energy: kinetic must be (T,), got {ke.shape}")
    t, xlabel = _times(times, len(ke), "plot_energy")
    fig, (ax,) = _figure()
    ax.plot(t, ke, label="kinetic")
    if potential is not None:
        pe = np.asarray(potential, dtype=float)
        if pe.shape != ke.shape:
            raise ValueError(f"plot_energy: potential must have shape {ke.shape}, got {pe.shape}")
        ax.plot(t, pe, label="potential")
        if total:
            ax.plot(t, ke + pe, label="total", color="k", linewidth=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("energy (J)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    return fig


def plot_contact_forces(times, forces, mask=None, *, total=True):
    """Contact-force magnitudes |f| (N) against time, one line per contact slot.

    Args:
        times: (T,) in s, or None for the step index.
        forces: (T, P, 3) forces or (T, P) magnitudes.
        mask: (T, P) bool, True where a contact exists (others are gaps in the lines).
        total: also plot the sum over slots.
    """
    f = np.asarray(forces, dtype=float)
    if f.ndim == 3 and f.shape[-1] == 3:
        f = np.linalg.norm(f, axis=-1)
    if f.ndim != 2:
        raise ValueError(f"plot_contact_forces: forces must be (T, P, 3) or (T, P), got "
                         f"{np.shape(forces)}")
    m = np.ones(f.shape, bool) if mask is None else np.asarray(mask).astype(bool)
    if m.shape != f.shape:
        raise ValueError(f"plot_contact_forces: mask must have shape {f.shape}, got {m.shape}")
    t, xlabel = _times(times, f.shape[0], "plot_contact_forces")
    fig, (ax,) = _figure()
    for p in range(f.shape[1]):
        ax.plot(t, np.where(m[:, p], f[:, p], np.nan), label=f"contact {p}", linewidth=1)
    if total:
        ax.plot(t, np.where(m, f, 0.0).sum(axis=1), label="total", color="k", linewidth=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("|f| (N)")
    ax.grid(True, alpha=0.3)
    if len(ax.lines) <= 12:
        ax.legend(loc="upper right", fontsize="small")
    return fig


def plot_solver_iterations(iterations, times=None, *, max_iterations=None):
    """Solver iterations per time step (a step plot), with the iteration cap if given."""
    it = np.asarray(iterations)
    if it.ndim != 1:
        raise ValueError(f"plot_solver_iterations: iterations must be (T,), got {it.shape}")
    t, xlabel = _times(times, len(it), "plot_solver_iterations")
    fig, (ax,) = _figure()
    ax.step(t, it, where="post", label="iterations")
    if max_iterations is not None:
        ax.axhline(max_iterations, color="r", linestyle="--", label="limit")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("iterations")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    return fig
