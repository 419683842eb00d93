"""Recorded trajectories for viewers and plots: normalizing the input, resampling, and the
per-sample quantities they draw (body poses, center of mass, energies).

A trajectory is given as a `jaxbody.RolloutResult` (``times`` and ``states`` = [q; v]), or as
an array of T samples, each q (nq,) or x = [q; v] (nq + nv,), with its (T,) times in seconds.
Per-sample evaluations are one ``jit(vmap(...))`` call of the plant's public API over the
samples, with the plant parameters of a given context.

Example:
    >>> import numpy as np
    >>> times, q = as_trajectory(None, np.zeros((3, 2)), times=[0.0, 0.1, 0.2], nq=2)
    >>> q.shape
    (3, 2)
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.math import so3
from jaxbody.plant.plant_key import PlantKey


class Trajectory(NamedTuple):
    """Samples of a trajectory: ``times`` (T,) in s, increasing, and ``q`` (T, nq)."""

    times: np.ndarray
    q: np.ndarray


def _states_of(trajectory):
    """(times or None, samples) of a RolloutResult-like object or an array."""
    if hasattr(trajectory, "states") and hasattr(trajectory, "times"):
        if trajectory.states is None:
            raise ValueError("trajectory: the rollout was run with save_trajectory=False; it "
                             "holds no samples to show")
        return np.asarray(trajectory.times), np.asarray(trajectory.states)
    return None, np.asarray(trajectory)


def as_trajectory(plant, trajectory, times=None, *, nq=None) -> Trajectory:
    """`Trajectory` (times, q) of a rollout or of an array of samples.

    Args:
        plant: the finalized plant (gives nq and nv), or None with ``nq`` given.
        trajectory: a `RolloutResult`, or (T, nq) positions, or (T, nq + nv) states.
        times: (T,) sample times (s), increasing; required for an array, optional for a
            rollout (whose own times are used by default).
        nq: the number of positions when ``plant`` is None.

    Raises:
        ValueError: naming the argument, on a wrong shape, non-finite values or times that
            do not increase.
    """
    nq = plant.num_positions() if plant is not None else int(nq)
    nx = nq + (plant.num_velocities() if plant is not None else 0)
    own_times, X = _states_of(trajectory)
    if times is None:
        times = own_times
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] not in (nq, nx):
        want = f"(T, {nq})" + (f" or (T, {nx})" if nx != nq else "")
        raise ValueError(f"trajectory: expected {want} samples (q or [q; v]), got shape {X.shape}"
                         + ("; a batched rollout must be indexed first" if X.ndim == 3 else ""))
    if times is None:
        raise ValueError("times: required with an array trajectory: (T,) sample times in s")
    t = np.asarray(times, dtype=float)
    if t.shape != (X.shape[0],):
        raise ValueError(f"times: expected shape ({X.shape[0]},) to match the trajectory, "
                         f"got {t.shape}")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(X))):
        raise ValueError("trajectory: times and samples must be finite (did the simulation "
                         "diverge? see RolloutResult.first_nonfinite_step)")
    if np.any(np.diff(t) <= 0):
        raise ValueError("times: must be strictly increasing")
    return Trajectory(t, np.asarray(X[:, :nq], dtype=float))


def resample_indices(times, fps) -> np.ndarray:
    """Indices of the samples nearest to a grid of ``fps`` per second from the first sample
    (the last sample always kept), so an animation holds about ``fps`` keyframes per second
    of trajectory time; None keeps every sample."""
    t = np.asarray(times, float)
    if fps is None or len(t) <= 2:
        return np.arange(len(t))
    if not fps > 0:
        raise ValueError(f"fps: must be > 0, got {fps}")
    grid = t[0] + np.arange(int(np.floor((t[-1] - t[0]) * fps + 1e-9)) + 1) / fps
    i = np.clip(np.searchsorted(t, grid), 1, len(t) - 1)
    nearest = np.where(grid - t[i - 1] <= t[i] - grid, i - 1, i)
    return np.unique(np.append(nearest, len(t) - 1))


CHUNK = 128  # samples per compiled call: every trajectory length (and T = 1) shares a kernel


def _chunks(q):
    """q (T, nq) padded to a multiple of `CHUNK` (repeating the last row), as (n, CHUNK, nq)."""
    n = -(-len(q) // CHUNK)
    q = np.concatenate([q, np.repeat(q[-1:], n * CHUNK - len(q), axis=0)])
    return q.reshape(n, CHUNK, q.shape[1])


@partial(jax.jit, static_argnums=(0, 3))
def _kinematics(key, context, qs, with_com):
    plant = key.plant
    def one(q):
        c = plant.SetPositions(context, q)
        R_WB, p_WB = plant.CalcBodyPosesInWorld(c)
        com = plant.CalcCenterOfMassPositionInWorld(c) if with_com else None
        return R_WB, p_WB, so3.rotation_to_quaternion(R_WB), com

    return jax.vmap(one)(qs)


def sample_kinematics(plant, context, q) -> dict:
    """Body poses and the center of mass at each sample, in compiled calls of `CHUNK` samples
    (one compilation per plant and context structure, whatever T).

    Args:
        plant: a finalized plant; context: its `Context` (parameters used for all samples).
        q: (T, nq) positions.

    Returns:
        NumPy arrays: ``R_WB`` (T, nbodies, 3, 3), ``p_WB`` (T, nbodies, 3) (m), ``quat_WB``
        (T, nbodies, 4) in three.js's order [x, y, z, w], and ``p_WScm`` (T, 3) (None for a plant
        with only the world body; NaN if its mass is 0); bodies in BodyIndex order.
    """
    q = np.asarray(q, dtype=float)
    n, with_com = len(q), plant.num_bodies() > 1
    parts = [_kinematics(PlantKey(plant), context, jnp.asarray(c, context.q.dtype), with_com)
             for c in _chunks(q)]
    R, p, wxyz = (np.concatenate([np.asarray(x[i]) for x in parts])[:n] for i in range(3))
    com = np.concatenate([np.asarray(x[3]) for x in parts])[:n] if with_com else None
    return {"R_WB": R, "p_WB": p, "quat_WB": np.concatenate([wxyz[..., 1:], wxyz[..., :1]], -1),
            "p_WScm": com}


def body_poses(plant, context, q):
    """Every body's pose in World at each sample, in BodyIndex order.

    Args:
        plant: a finalized plant; context: its `Context` (parameters used for all samples).
        q: (T, nq) positions.

    Returns:
        ``(R_WB, p_WB)``: (T, nbodies, 3, 3) and (T, nbodies, 3) NumPy arrays (m).
    """
    k = sample_kinematics(plant, context, q)
    return k["R_WB"], k["p_WB"]


def center_of_mass_positions(plant, context, q) -> np.ndarray:
    """``p_WScm`` (T, 3) (m), the whole plant's center of mass at each sample of q (T, nq)."""
    if plant.num_bodies() < 2:
        raise ValueError("center_of_mass_positions: the plant has no bodies besides the world")
    return sample_kinematics(plant, context, q)["p_WScm"]


@partial(jax.jit, static_argnums=0)
def _energies(key, context, xs):
    plant = key.plant
    nq = plant.num_positions()

    def one(x):
        c = context.replace(q=x[:nq], v=x[nq:])
        return plant.CalcKineticEnergy(c), plant.CalcPotentialEnergy(c)

    return jax.vmap(one)(xs)


def trajectory_energy(plant, context, trajectory):
    """Kinetic and potential energy (J) at each sample of a trajectory of states.

    Args:
        plant: a finalized plant; context: its `Context` (parameters used for all samples).
        trajectory: a `RolloutResult`, or (T, nq + nv) states [q; v].

    Returns:
        ``(kinetic, potential)``, two (T,) NumPy arrays.

    Example:
        >>> import numpy as np, jaxbody as jb
        >>> plant = jb.MultibodyPlant(0.0)
        >>> b = plant.AddRigidBody("b", jb.SpatialInertia.PointMass(1.0, np.array([0., 0, -1])))
        >>> _ = plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), b.body_frame(), [0, 1, 0]))
        >>> plant.Finalize()
        >>> ke, pe = trajectory_energy(plant, plant.CreateDefaultContext(), np.zeros((4, 2)))
        >>> ke.shape, round(float(pe[0]), 4)
        ((4,), -9.81)
    """
    _, X = _states_of(trajectory)
    nx = plant.num_positions() + plant.num_velocities()
    if X.ndim != 2 or X.shape[1] != nx:
        raise ValueError(f"trajectory: expected (T, {nx}) states [q; v], got shape {X.shape}")
    ke, pe = _energies(PlantKey(plant), context, jnp.asarray(X, dtype=context.q.dtype))
    return np.asarray(ke), np.asarray(pe)
