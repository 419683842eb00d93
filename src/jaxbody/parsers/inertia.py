"""A body's spatial inertia from a model file's ``<inertial>``, exactly as Drake's parsers
compute it (``ParseSpatialInertia`` in drake/multibody/parsing/detail_common.cc).

The file gives the mass m, the pose ``X_BBi`` of the inertial frame Bi (origin at the center of
mass Bcm) and the rotational inertia ``I_BBcm_Bi`` about Bcm, expressed in Bi. Then::

    I_BBcm_B = R_BBi I_BBcm_Bi R_BBiᵀ,   p_BoBcm_B = p_BBi,
    G_BBo_B  = I_BBcm_B / m + (|p|² 1 - p pᵀ)          (unit inertia about Bo, in B)

A zero mass with a zero inertia gives a zero spatial inertia. Errors: a negative mass, or a
diagonal moment (ixx, iyy or izz) below -ε (so not round-off; ε below).

What Drake only warns about, Drake also repairs, and so do we (with a warning naming the file
and line): an inertia that fails Drake's ``CouldBePhysicallyValid`` test (a principal moment
below -ε, or principal moments that break the triangle inequality by more than ε, with
ε = 16·eps·max(1, trace/2)), or a zero mass with a nonzero inertia, is replaced by Drake's
plausible stand-in: a solid sphere of water (1000 kg/m³) with the given mass (1 kg if the mass
is not positive), centered at ``p_BoBcm_B``.
"""

from __future__ import annotations

import numpy as np

from jaxbody.math.inertia import point_mass_unit_inertia

PLAUSIBLE_DENSITY = 1000.0  # kg/m³, water (Drake's stand-in density)
_VALIDITY_PRECISION = 16 * np.finfo(float).eps  # Drake's RotationalInertia precision
# A diagonal moment below -INERTIA_SIGN_TOLERANCE·max(1, trace/2) is an error (not round-off).
INERTIA_SIGN_TOLERANCE = _VALIDITY_PRECISION


def rotation_from_rpy(rpy) -> np.ndarray:
    """``R = Rz(yaw) Ry(pitch) Rx(roll)`` (URDF's and Drake's space-fixed x-y-z angles).

    The same map as `jaxbody.math.so3.rpy_to_rotation`, kept in NumPy on purpose: model files
    are read in float64 whatever JAX's precision mode, so parsed defaults never round to float32.
    """
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def could_be_physically_valid(I) -> bool:
    """Drake's ``RotationalInertia::CouldBePhysicallyValid`` for a symmetric 3x3 ``I``."""
    if not np.all(np.isfinite(I)):
        return False
    eps = _VALIDITY_PRECISION * max(1.0, 0.5 * abs(np.trace(I)))
    p = np.linalg.eigvalsh(I)  # ascending, as Eigen's SelfAdjointEigenSolver
    near_positive = bool(np.all(p + eps >= 0))
    triangle = p[0] + p[1] + eps >= p[2] and p[1] + p[2] + eps >= p[0]
    return near_positive and bool(triangle)


def plausible_stand_in(mass, p_BoBcm_B):
    """Drake's stand-in inertia: ``(mass, com, G_BBo_B)`` of a solid water sphere at the COM."""
    m = mass if (np.isfinite(mass) and mass > 0) else 1.0
    radius = np.cbrt(3.0 / (4.0 * np.pi) * (m / PLAUSIBLE_DENSITY))
    sphere_mass = PLAUSIBLE_DENSITY * (4.0 / 3.0) * np.pi * radius**3
    p = np.asarray(p_BoBcm_B, float)
    G = 0.4 * radius**2 * np.eye(3) + point_mass_unit_inertia(p)
    return float(sphere_mass), p.copy(), G


def spatial_inertia_from_inertial(mass, R_BBi, p_BBi, moments, products):
    """``(mass, p_BoBcm_B, G_BBo_B, problem)`` from URDF/SDFormat inertial data.

    Args:
        mass: m (kg); must be finite and >= 0 (the caller reports otherwise).
        R_BBi, p_BBi: pose of the inertial frame Bi in B.
        moments: (ixx, iyy, izz) (kg·m²) about Bcm, in Bi.
        products: (ixy, ixz, iyz) (kg·m²).

    Returns:
        ``problem`` is None, or the text of the warning to issue; then the returned inertia is
        Drake's stand-in.
    """
    ixx, iyy, izz = (float(x) for x in moments)
    ixy, ixz, iyz = (float(x) for x in products)
    I_Bi = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    p = np.asarray(p_BBi, float)
    if not could_be_physically_valid(I_Bi):
        moments_p = np.linalg.eigvalsh(I_Bi)
        why = ("at least one is negative" if np.any(moments_p < 0)
               else "they do not satisfy the triangle inequality")
        return (*plausible_stand_in(mass, p),
                f"the rotational inertia [[{ixx:g}, {ixy:g}, {ixz:g}], [{ixy:g}, {iyy:g}, "
                f"{iyz:g}], [{ixz:g}, {iyz:g}, {izz:g}]] is not physically valid (principal "
                f"moments {np.array2string(moments_p, precision=6)}: {why}); as Drake does, "
                "it is replaced by a solid water sphere of the same mass at the center of mass")
    if mass == 0.0 and not np.any(I_Bi):
        return 0.0, np.zeros(3), np.zeros((3, 3)), None
    if not mass > 0.0:
        return (*plausible_stand_in(mass, p),
                f"the mass is {mass:g} but the rotational inertia is not zero; as Drake does, "
                "the body gets a solid water sphere of 1 kg at the center of mass instead")
    R = np.asarray(R_BBi, float)
    I_B = R @ I_Bi @ R.T
    I_B = 0.5 * (I_B + I_B.T)
    G = I_B / mass + point_mass_unit_inertia(p)
    return float(mass), p.copy(), G, None
