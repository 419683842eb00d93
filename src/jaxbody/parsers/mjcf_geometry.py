"""MJCF frames, geoms and inertias, as MuJoCo's compiler computes them (user_objects.cc).

Orientations (at most one per element): ``quat`` (w x y z, normalized), ``axisangle``
(x y z angle), ``euler`` (three angles about the axes of ``<compiler eulerseq>``: lowercase
letters rotate about the moving frame's axes, uppercase about the fixed ones), ``xyaxes`` (x
and y axes; y is made orthogonal to x, z = x × y) and ``zaxis`` (the smallest rotation taking z
to the given direction). Angles are in degrees unless ``<compiler angle="radian">``.

Geoms: ``sphere`` (radius), ``capsule`` and ``cylinder`` (radius, half-length), ``box`` (half
sizes), ``ellipsoid`` (radii), ``plane`` (a `HalfSpace` whose outward normal is the geom's z);
``fromto="x1 y1 z1 x2 y2 z2"`` on a capsule, cylinder, box or ellipsoid sets the geom's
position (the midpoint), its z axis (from the first point to the second) and its half-length
along z; ``size[0]`` is then the radius (or both half-sizes across z), as in MuJoCo.

Inertia: a geom of volume V has mass ``density·V`` (density 1000 kg/m³ by default) unless
``mass`` is given, and the inertia of the solid about its center (a capsule is a cylinder plus
two hemispherical caps, as in MuJoCo). A body's inertia is the sum of its geoms' (those whose
``group`` lies in ``<compiler inertiagrouprange>``), about the combined center of mass.
"""

from __future__ import annotations

import numpy as np

from jaxbody.math.inertia import point_mass_unit_inertia
from jaxbody.math.so3 import quaternion_to_rotation
from jaxbody.parsers.xml_reader import parse_numbers

DEFAULT_DENSITY = 1000.0  # kg/m³, MuJoCo's default geom density
_ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")


def numbers(el, attrs, name, size, diag, default=None):
    """Attribute ``name`` (from ``attrs``, the element's attributes merged with its defaults)
    as a float array of length ``size`` (or any length if ``size`` is None)."""
    text = attrs.get(name)
    if text is None:
        return None if default is None else np.array(default, float)
    values = parse_numbers(text, diag, el, f"attribute '{name}'")
    if size is not None and len(values) != size:
        diag.error(el, f"attribute '{name}': expected {size} values, got '{text}'")
    return np.array(values, float)


def axis_angle_rotation(axis, angle):
    """The rotation by ``angle`` (rad) about the unit ``axis`` (Rodrigues)."""
    k = np.asarray(axis, float)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def z_to_vector(v):
    """MuJoCo's ``mjuu_z2quat``: the smallest rotation taking +z to the direction ``v`` (by π
    about x when ``v`` points along -z)."""
    v = np.asarray(v, float) / np.linalg.norm(v)
    axis = np.cross([0.0, 0.0, 1.0], v)
    s = np.linalg.norm(axis)
    if s < 1e-10:
        return np.eye(3) if v[2] > 0 else axis_angle_rotation([1.0, 0.0, 0.0], np.pi)
    return axis_angle_rotation(axis / s, np.arctan2(s, v[2]))


def orientation(el, attrs, compiler, diag):
    """The rotation ``R`` given by ``el``'s orientation attribute (identity if none)."""
    given = [a for a in _ORIENTATIONS if a in attrs]
    if len(given) > 1:
        diag.error(el, f"more than one orientation specifier: {', '.join(given)}")
    if not given:
        return np.eye(3)
    kind = given[0]
    scale = np.pi / 180 if compiler.degrees else 1.0
    if kind == "quat":
        q = numbers(el, attrs, "quat", 4, diag)
        if not np.linalg.norm(q) > 1e-10:
            diag.error(el, "attribute 'quat': the quaternion is zero")
        return quaternion_to_rotation(np.asarray(q, float) / np.linalg.norm(q))
    if kind == "axisangle":
        a = numbers(el, attrs, "axisangle", 4, diag)
        return axis_angle_rotation(_unit(a[:3], el, "axisangle", diag), a[3] * scale)
    if kind == "euler":
        angles = numbers(el, attrs, "euler", 3, diag) * scale
        R = np.eye(3)
        for letter, angle in zip(compiler.eulerseq, angles):
            Ri = axis_angle_rotation(np.eye(3)["xyz".index(letter.lower())], angle)
            R = R @ Ri if letter.islower() else Ri @ R
        return R
    if kind == "xyaxes":
        v = numbers(el, attrs, "xyaxes", 6, diag)
        x = _unit(v[:3], el, "xyaxes", diag)
        y = _unit(v[3:] - (v[3:] @ x) * x, el, "xyaxes", diag)
        return np.column_stack([x, y, np.cross(x, y)])
    return z_to_vector(_unit(numbers(el, attrs, "zaxis", 3, diag), el, "zaxis", diag))


def _unit(v, el, what, diag):
    n = np.linalg.norm(v)
    if not n > 1e-10:
        diag.error(el, f"attribute '{what}': the direction {v.tolist()} is zero")
    return v / n


def frame(el, attrs, compiler, diag):
    """``(R, p)``: the pose ``pos`` + orientation of ``el`` in its parent's frame."""
    return orientation(el, attrs, compiler, diag), numbers(el, attrs, "pos", 3, diag,
                                                            default=(0, 0, 0))


# ---- geoms ----------------------------------------------------------------------------------
def geom_shape(el, attrs, compiler, diag):
    """``(type, dims, (R, p))``: the geom's type, its dimensions (sphere: r; capsule, cylinder:
    r, half-length; box: half sizes; ellipsoid: radii; plane: ()) and its pose in the body."""
    kind = attrs.get("type", "sphere")
    size = numbers(el, attrs, "size", None, diag, default=())
    fromto = numbers(el, attrs, "fromto", 6, diag)
    need = {"sphere": 1, "capsule": 2, "cylinder": 2, "box": 3, "ellipsoid": 3, "plane": 0}
    if fromto is not None and kind != "sphere":
        need[kind] = 1 if kind != "plane" else 0
    if kind not in need:
        diag.error(el, f"geom type '{kind}' is not supported (supported: {', '.join(need)})")
    if len(size) < need[kind]:
        diag.error(el, f"a {kind} geom needs {need[kind]} size values, got {size.tolist()}")
    if np.any(size[:need[kind]] < 0):
        diag.error(el, f"geom size must be >= 0, got {size.tolist()}")
    if fromto is not None and kind in ("capsule", "cylinder", "box", "ellipsoid"):
        a, b = fromto[:3], fromto[3:]
        half = np.linalg.norm(b - a) / 2
        if not half > 1e-10:
            diag.error(el, "attribute 'fromto': the two points coincide")
        pose = (z_to_vector(b - a), (a + b) / 2)
        dims = (size[0], half) if kind in ("capsule", "cylinder") else (size[0], size[0], half)
    else:
        pose = frame(el, attrs, compiler, diag)
        dims = size[:need[kind] if kind != "sphere" else 1]
    return kind, tuple(float(x) for x in dims), pose


def solid_inertia(kind, dims, mass=None, density=DEFAULT_DENSITY):
    """``(m, I)``: the mass and the central inertia (3x3, in the geom frame) of a solid geom."""
    if kind == "sphere":
        (r,) = dims
        volume = 4 / 3 * np.pi * r**3
    elif kind in ("capsule", "cylinder"):
        r, half = dims
        h = 2 * half
        volume = np.pi * r * r * h + (4 / 3 * np.pi * r**3 if kind == "capsule" else 0.0)
    elif kind == "box":
        volume = 8 * np.prod(dims)
    elif kind == "ellipsoid":
        volume = 4 / 3 * np.pi * np.prod(dims)
    else:
        return 0.0, np.zeros((3, 3))
    m = density * volume if mass is None else mass
    if kind == "sphere":
        moments = [0.4 * m * r * r] * 3
    elif kind == "cylinder":
        moments = [m * (3 * r * r + h * h) / 12] * 2 + [m * r * r / 2]
    elif kind == "capsule":
        m_caps = m * 4 * r / (4 * r + 3 * h)  # both caps: the sphere's share of the volume
        m_cyl = m - m_caps
        Ixy = m_cyl * (3 * r * r + h * h) / 12 + 0.4 * m_caps * r * r + m_caps * h * (
            3 * r + 2 * h) / 8
        moments = [Ixy, Ixy, m_cyl * r * r / 2 + 0.4 * m_caps * r * r]
    elif kind == "box":
        a, b, c = (2 * x for x in dims)
        moments = [m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12]
    else:
        a, b, c = dims
        moments = [m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5]
    return float(m), np.diag(moments)


def combine_inertias(parts):
    """``(mass, p_BoBcm_B, I_BBcm_B)`` of parts ``(m, (R_BG, p_BG), I_GGcm_G)`` whose centers
    of mass are at the part frames' origins."""
    mass = sum(m for m, _, _ in parts)
    if not mass > 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    com = sum(m * X[1] for m, X, _ in parts) / mass
    I = np.zeros((3, 3))
    for m, (R, p), I_G in parts:
        d = p - com
        I += R @ I_G @ R.T + m * point_mass_unit_inertia(d)
    return float(mass), com, 0.5 * (I + I.T)
