"""Poses and shapes shared by the collision tests."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.math.so3 import rpy_to_rotation

I3 = np.eye(3)


def pose(rpy=(0.0, 0.0, 0.0), p=(0.0, 0.0, 0.0)):
    """(R_WG, p_WG) as NumPy arrays from roll-pitch-yaw and a position."""
    return np.asarray(rpy_to_rotation(np.asarray(rpy, float))), np.asarray(p, float)


def rotvec_pose(x):
    """(R, p) from a 6-vector [rotation vector; position] (Rodrigues; x[:3] must be nonzero)."""
    w, p = x[:3], x[3:]
    th = jnp.sqrt(jnp.sum(w * w))
    k = w / th
    K = jnp.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    R = jnp.eye(3) + jnp.sin(th) * K + (1.0 - jnp.cos(th)) * K @ K
    return R, p


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def write_box_obj(path, size):
    """Writes a box of ``size`` (3,) centered at the origin as an OBJ mesh; returns the path."""
    h = 0.5 * np.asarray(size, float)
    V = [(sx * h[0], sy * h[1], sz * h[2]) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    F = [(1, 3, 4, 2), (5, 6, 8, 7), (1, 2, 6, 5), (3, 7, 8, 4), (1, 5, 7, 3), (2, 4, 8, 6)]
    lines = [f"v {x} {y} {z}" for x, y, z in V] + [f"f {' '.join(map(str, f))}" for f in F]
    path.write_text("\n".join(lines) + "\n")
    return str(path)
