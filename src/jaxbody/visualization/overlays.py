"""Overlays drawn over a plant: frame triads, the center of mass, contact points and
contact-force arrows.

Contacts are given as arrays, so any contact solver can feed them: points ``p_WC`` (T, P, 3)
(m), forces ``f_C_W`` (T, P, 3) (N, on the body that the arrow points into) and an optional
validity mask (T, P) for a fixed number P of contact slots per time step (jit-friendly: absent
contacts are masked, not removed). A single time step uses (P, 3), (P, 3) and (P,).

Each slot p is a node ``<root>/<p>`` with a ``point`` sphere and a ``force`` arrow: a unit
shaft along +z scaled to the force's length and a cone head moved to its tip. An arrow is
``|f| * force_scale`` long (m); by default ``force_scale`` makes the largest force
`DEFAULT_ARROW_LENGTH` long.

Example:
    >>> import numpy as np
    >>> pts, f, mask = check_contacts(np.zeros((2, 3)), np.ones((2, 3)), None)
    >>> mask.tolist()
    [True, True]
"""

from __future__ import annotations

import numpy as np

from jaxbody.math.so3 import quaternion_to_rotation
from jaxbody.visualization.threejs import (
    Y_TO_Z,
    cylinder_geometry,
    mesh_object,
    phong_material,
    sphere_geometry,
    typed_array,
)

TRIAD_RGBA = ((0.9, 0.1, 0.1, 1.0), (0.1, 0.8, 0.1, 1.0), (0.1, 0.2, 0.9, 1.0))  # x, y, z
COM_RGBA = (1.0, 0.85, 0.0, 0.9)
POINT_RGBA = (0.1, 0.1, 0.1, 1.0)
FORCE_RGBA = (0.9, 0.15, 0.1, 1.0)
DEFAULT_ARROW_LENGTH = 0.3  # m, the largest force's arrow when force_scale is None
HIDDEN_LENGTH = 1e-6  # m: shafts of zero force are scaled to this, not to 0


def translation(p) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = p
    return X


def triad_objects(length, radius, opacity=1.0) -> dict:
    """``{"x"|"y"|"z": object}``: three cylinders along the frame's axes, red-green-blue."""
    out = {}
    for i, axis in enumerate("xyz"):
        X = np.eye(4)
        # a cylinder along y (three.js) rotated onto axis i and moved to span [0, length]
        R = {0: np.array([[0.0, 1, 0], [-1, 0, 0], [0, 0, 1]]), 1: np.eye(3),
             2: Y_TO_Z[:3, :3]}[i]
        X[:3, :3] = R
        X[i, 3] = length / 2
        rgba = np.array(TRIAD_RGBA[i])
        rgba[3] = opacity
        out[axis] = mesh_object(cylinder_geometry(length, radius), phong_material(rgba), X)
    return out


def sphere_object(radius, rgba) -> dict:
    return mesh_object(sphere_geometry(radius), phong_material(rgba))


def arrow_objects(radius) -> dict:
    """``{"shaft", "head"}``: a shaft along +z from 0 to 1 (scaled to the arrow's length) and
    a cone head with its base at the node origin (moved to the tip)."""
    shaft_X = Y_TO_Z.copy()
    shaft_X[2, 3] = 0.5
    head_len = 4 * radius
    head_X = Y_TO_Z.copy()
    head_X[2, 3] = head_len / 2
    return {"shaft": mesh_object(cylinder_geometry(1.0, radius), phong_material(FORCE_RGBA),
                                 shaft_X),
            "head": mesh_object(cylinder_geometry(head_len, 2.5 * radius, 0.0),
                                phong_material(FORCE_RGBA), head_X)}


def check_contacts(points, forces, mask, num_steps=None):
    """Validates contact arrays; returns ``(points, forces, mask)`` as float, float, bool.

    Args:
        points: (T, P, 3) contact points in World (m); (P, 3) when ``num_steps`` is None.
        forces: same shape, contact forces in World (N).
        mask: (T, P) (or (P,)) bool, True where a contact exists; None means all exist.
        num_steps: T, or None for a single time step.

    Raises:
        ValueError: naming the argument, on a shape mismatch or non-finite valid entries.
    """
    p = np.asarray(points, dtype=float)
    f = np.asarray(forces, dtype=float)
    lead = () if num_steps is None else (int(num_steps),)
    if p.ndim != len(lead) + 2 or p.shape[:len(lead)] != lead or p.shape[-1] != 3:
        want = "(P, 3)" if not lead else f"({lead[0]}, P, 3)"
        raise ValueError(f"contact_points: expected shape {want}, got {p.shape}")
    if f.shape != p.shape:
        raise ValueError(f"contact_forces: expected shape {p.shape} (as contact_points), "
                         f"got {f.shape}")
    m = np.ones(p.shape[:-1], bool) if mask is None else np.asarray(mask).astype(bool)
    if m.shape != p.shape[:-1]:
        raise ValueError(f"contact_mask: expected shape {p.shape[:-1]}, got {m.shape}")
    if not (np.all(np.isfinite(p[m])) and np.all(np.isfinite(f[m]))):
        raise ValueError("contact_points/contact_forces: non-finite values where "
                         "contact_mask is True")
    return np.where(m[..., None], p, 0.0), np.where(m[..., None], f, 0.0), m


def auto_force_scale(forces, mask, force_scale=None) -> float:
    """m/N: ``force_scale`` if given, else `DEFAULT_ARROW_LENGTH` / the largest valid |f|."""
    if force_scale is not None:
        s = float(force_scale)
        if not (np.isfinite(s) and s > 0):
            raise ValueError(f"force_scale: must be finite and > 0 (m/N), got {force_scale}")
        return s
    mags = np.linalg.norm(forces, axis=-1)[mask]
    top = float(mags.max()) if mags.size else 0.0
    return DEFAULT_ARROW_LENGTH / top if top > 0 else 1.0


def arrow_quaternions_xyzw(forces) -> np.ndarray:
    """(..., 4) quaternions [x, y, z, w] rotating +z onto each force's direction (identity
    for a zero force)."""
    f = np.asarray(forces, float)
    n = np.linalg.norm(f, axis=-1, keepdims=True)
    d = np.where(n > 0, f / np.where(n > 0, n, 1.0), np.array([0.0, 0.0, 1.0]))
    # q = [z x d, 1 + z.d], normalized; d = -z (a half turn) uses the x axis.
    q = np.stack([-d[..., 1], d[..., 0], np.zeros_like(d[..., 0]), 1.0 + d[..., 2]], axis=-1)
    flip = q[..., 3] < 1e-9
    q[flip] = np.array([1.0, 0.0, 0.0, 0.0])
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def rotation_xyzw(q) -> np.ndarray:
    """(3, 3) rotation matrix of the quaternion ``q`` = [x, y, z, w]."""
    x, y, z, w = q
    return quaternion_to_rotation(np.array([w, x, y, z], float))


def contact_frames(points, forces, mask, scale):
    """Per-slot node states of one or many time steps, as arrays with the inputs' leading
    shape: ``position`` (..., 3), ``quaternion`` (..., 4), ``length`` (...,) and ``visible``
    (...,) bool (a slot is hidden where masked out; its arrow also where f = 0)."""
    length = np.linalg.norm(forces, axis=-1) * scale
    return {"position": points, "quaternion": arrow_quaternions_xyzw(forces),
            "length": np.maximum(length, HIDDEN_LENGTH), "visible": mask,
            "arrow_visible": mask & (length > HIDDEN_LENGTH)}


def track(name, jstype, times, values) -> dict:
    """A three.js keyframe track (``vector3``, ``quaternion`` or ``bool``) of ``values``
    (K, n) (or (K,) for bool) at key ``times`` (K,) in s."""
    values = np.asarray(values)
    if jstype == "bool":
        vals = [bool(v) for v in values.reshape(-1)]
    else:
        vals = typed_array(values.reshape(-1))
    return {"name": "." + name, "type": jstype, "times": typed_array(times), "values": vals}


def clip(path, tracks) -> dict:
    """One animated node: a three.js AnimationClip (times in s: fps = 1) at ``path``."""
    return {"path": path, "clip": {"fps": 1.0, "name": "default", "tracks": tracks}}


def contact_clips(root, frames, key_t) -> list:
    """The animation of contact slots ``<root>/<p>`` from `contact_frames` of K samples
    (arrays (K, P, ...)) at key times ``key_t`` (K,) in s."""
    clips = []
    for p in range(frames["position"].shape[1]):
        node = f"{root}/{p}"
        L = frames["length"][:, p]
        zeros = np.zeros_like(L)
        clips += [
            clip(f"{node}/point", [track("position", "vector3", key_t, frames["position"][:, p]),
                                   track("visible", "bool", key_t, frames["visible"][:, p])]),
            clip(f"{node}/force", [
                track("position", "vector3", key_t, frames["position"][:, p]),
                track("quaternion", "quaternion", key_t, frames["quaternion"][:, p]),
                track("visible", "bool", key_t, frames["arrow_visible"][:, p])]),
            clip(f"{node}/force/shaft", [track("scale", "vector3", key_t,
                                               np.stack([zeros + 1, zeros + 1, L], -1))]),
            clip(f"{node}/force/head", [track("position", "vector3", key_t,
                                              np.stack([zeros, zeros, L], -1))]),
        ]
    return clips
