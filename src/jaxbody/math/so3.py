"""Low-level rotation and 3-vector kernels: pure ``jnp`` functions on raw arrays.

These are the building blocks that the value types (`RotationMatrix`, `RigidTransform`, ...)
and the multibody kernels share. Every function accepts arbitrary leading batch axes unless
stated otherwise and is safe under ``jit``, ``vmap`` and ``grad``: norms and angles use
gradient-safe forms so that derivatives stay finite at the identity and at zero vectors.

Conventions (Drake's):
- Quaternions are ``[w, x, y, z]`` (scalar first).
- Roll-pitch-yaw ``[r, p, y]`` are space-fixed x-y-z angles: ``R = Rz(y) @ Ry(p) @ Rx(r)``,
  with pitch in [-pi/2, pi/2].

`safe_norm`, `quaternion_to_rotation` and `rotation_to_quaternion` also take NumPy arrays and
then compute in NumPy (float64 whatever JAX's precision setting): the parsers and builders use
them on host data, so that each conversion has one home.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np


def _xp(*xs):
    """NumPy for host data (NumPy arrays, lists, Python numbers), jax.numpy otherwise."""
    host = all(isinstance(x, (np.ndarray, np.generic, list, tuple, float, int)) for x in xs)
    return np if host else jnp

# Below this squared norm a vector is treated as zero by the gradient-safe helpers.
_TINY = 1e-30


def safe_norm(x, axis=-1, keepdims=False):
    """Euclidean norm whose gradient is zero (not NaN) at ``x = 0``."""
    xp = _xp(x)
    x = xp.asarray(x)
    sq = xp.sum(x * x, axis=axis, keepdims=keepdims)
    is_zero = sq <= _TINY
    safe_sq = xp.where(is_zero, 1.0, sq)
    return xp.where(is_zero, 0.0, xp.sqrt(safe_sq))


def skew(w):
    """Cross-product matrix ``[w]x`` with ``skew(w) @ u == cross(w, u)``. ``w: (..., 3)``."""
    w = jnp.asarray(w)
    z = jnp.zeros_like(w[..., 0])
    wx, wy, wz = w[..., 0], w[..., 1], w[..., 2]
    return jnp.stack(
        [
            jnp.stack([z, -wz, wy], axis=-1),
            jnp.stack([wz, z, -wx], axis=-1),
            jnp.stack([-wy, wx, z], axis=-1),
        ],
        axis=-2,
    )


def unskew(S):
    """Inverse of `skew` on the skew-symmetric part of ``S: (..., 3, 3)``."""
    S = jnp.asarray(S)
    return 0.5 * jnp.stack(
        [S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0], S[..., 1, 0] - S[..., 0, 1]],
        axis=-1,
    )


def rot_x(theta):
    """Rotation about x by ``theta`` (rad). ``theta: (...)`` -> ``(..., 3, 3)``."""
    c, s = jnp.cos(theta), jnp.sin(theta)
    o, z = jnp.ones_like(c), jnp.zeros_like(c)
    return jnp.stack(
        [jnp.stack([o, z, z], -1), jnp.stack([z, c, -s], -1), jnp.stack([z, s, c], -1)], -2
    )


def rot_y(theta):
    """Rotation about y by ``theta`` (rad). ``theta: (...)`` -> ``(..., 3, 3)``."""
    c, s = jnp.cos(theta), jnp.sin(theta)
    o, z = jnp.ones_like(c), jnp.zeros_like(c)
    return jnp.stack(
        [jnp.stack([c, z, s], -1), jnp.stack([z, o, z], -1), jnp.stack([-s, z, c], -1)], -2
    )


def rot_z(theta):
    """Rotation about z by ``theta`` (rad). ``theta: (...)`` -> ``(..., 3, 3)``."""
    c, s = jnp.cos(theta), jnp.sin(theta)
    o, z = jnp.ones_like(c), jnp.zeros_like(c)
    return jnp.stack(
        [jnp.stack([c, -s, z], -1), jnp.stack([s, c, z], -1), jnp.stack([z, z, o], -1)], -2
    )


def axis_angle_to_rotation(axis, angle):
    """Rodrigues' formula. ``axis: (..., 3)`` unit vector, ``angle: (...)`` -> ``(..., 3, 3)``."""
    axis = jnp.asarray(axis)
    angle = jnp.asarray(angle)
    K = skew(axis)
    s = jnp.sin(angle)[..., None, None]
    c = jnp.cos(angle)[..., None, None]
    eye = jnp.broadcast_to(jnp.eye(3, dtype=K.dtype), K.shape)
    return eye + s * K + (1.0 - c) * (K @ K)


def rotation_vector_to_rotation(rvec):
    """Exponential map ``exp([rvec]x)`` with a gradient-safe small-angle branch."""
    rvec = jnp.asarray(rvec)
    th2 = jnp.sum(rvec * rvec, axis=-1)
    small = th2 < 1e-12
    th2s = jnp.where(small, 1.0, th2)
    th = jnp.sqrt(th2s)
    a = jnp.where(small, 1.0 - th2 / 6.0, jnp.sin(th) / th)
    b = jnp.where(small, 0.5 - th2 / 24.0, (1.0 - jnp.cos(th)) / th2s)
    K = skew(rvec)
    eye = jnp.broadcast_to(jnp.eye(3, dtype=K.dtype), K.shape)
    return eye + a[..., None, None] * K + b[..., None, None] * (K @ K)


def rpy_to_rotation(rpy):
    """Space-fixed x-y-z angles ``[r, p, y]`` -> ``Rz(y) Ry(p) Rx(r)``.

    ``rpy: (..., 3)`` -> ``(..., 3, 3)``.
    """
    rpy = jnp.asarray(rpy)
    r, p, y = rpy[..., 0], rpy[..., 1], rpy[..., 2]
    cr, sr = jnp.cos(r), jnp.sin(r)
    cp, sp = jnp.cos(p), jnp.sin(p)
    cy, sy = jnp.cos(y), jnp.sin(y)
    row0 = jnp.stack([cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr], -1)
    row1 = jnp.stack([sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr], -1)
    row2 = jnp.stack([-sp, cp * sr, cp * cr], -1)
    return jnp.stack([row0, row1, row2], -2)


def rotation_to_rpy(R):
    """Inverse of `rpy_to_rotation`, pitch in [-pi/2, pi/2], gradient-safe.

    Drake's ``CalcRollPitchYawFromQuaternionAndRotationMatrix`` [Mitiguy 2019].

    Pitch comes from ``atan2(-R20, sqrt((R22² + R21² + R10² + R00²) / 2))``; roll and yaw from the
    half-angle sums ``zA = atan2(x + z, w - y)``, ``zB = atan2(z - x, w + y)`` of the quaternion,
    as ``r = zA - zB``, ``y = zA + zB`` wrapped to [-pi, pi]. At exact gimbal lock Drake's split
    of the remaining angle between roll and yaw is reproduced.
    """
    R = jnp.asarray(R)
    sum_sq = 0.5 * (R[..., 2, 2] ** 2 + R[..., 2, 1] ** 2 + R[..., 1, 0] ** 2 + R[..., 0, 0] ** 2)
    pos = sum_sq > 0
    r_sum = jnp.where(pos, jnp.sqrt(jnp.where(pos, sum_sq, 1.0)), 0.0)
    pitch = jnp.arctan2(-R[..., 2, 0], r_sum)
    q = rotation_to_quaternion(R)
    e0, e1, e2, e3 = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    eps = jnp.finfo(R.dtype).eps

    def safe_atan2(y, x):
        singular = (jnp.abs(y) <= eps) & (jnp.abs(x) <= eps)
        return jnp.where(singular, 0.0, jnp.arctan2(y, jnp.where(singular, 1.0, x)))

    zA = safe_atan2(e1 + e3, e0 - e2)
    zB = safe_atan2(e3 - e1, e0 + e2)

    def wrap(a):
        a = jnp.where(a > jnp.pi, a - 2 * jnp.pi, a)
        return jnp.where(a < -jnp.pi, a + 2 * jnp.pi, a)

    return jnp.stack([wrap(zA - zB), pitch, wrap(zA + zB)], -1)


def quaternion_to_rotation(quat):
    """Quaternion ``[w, x, y, z]`` (need not be unit) -> rotation matrix, using ``2/|q|^2``.

    This equals the rotation of ``quat/|quat|``, as Drake's ``RotationMatrix(Quaternion)``.
    """
    xp = _xp(quat)
    quat = xp.asarray(quat)
    w, x, y, z = quat[..., 0], quat[..., 1], quat[..., 2], quat[..., 3]
    n2 = w * w + x * x + y * y + z * z
    s = 2.0 / xp.where(n2 > 0, n2, 1.0)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    row0 = xp.stack([1 - yy - zz, xy - wz, xz + wy], -1)
    row1 = xp.stack([xy + wz, 1 - xx - zz, yz - wx], -1)
    row2 = xp.stack([xz - wy, yz + wx, 1 - xx - yy], -1)
    return xp.stack([row0, row1, row2], -2)


def rotation_to_quaternion(R):
    """Rotation matrix -> unit quaternion ``[w, x, y, z]`` with ``w >= 0`` (Drake's canonical sign).

    Shepperd's method, branch-free: all four candidate solutions are computed and the one with
    the largest pivot is selected, so the result is accurate and differentiable everywhere. The
    selected candidate's radicand is 4·max(q_i²) >= 1; the others are clamped at 0.25 so that
    their (discarded) values and gradients stay finite in float32 too.
    """
    xp = _xp(R)
    R = xp.asarray(R)
    r00, r11, r22 = R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]
    tr = r00 + r11 + r22
    pivots = xp.stack([tr, r00, r11, r22], -1)
    k = xp.argmax(pivots, axis=-1)
    # Candidate 0: w largest.
    t0 = xp.sqrt(xp.maximum(1.0 + tr, 0.25))
    q0 = xp.stack(
        [0.5 * t0, (R[..., 2, 1] - R[..., 1, 2]) / (2 * t0),
         (R[..., 0, 2] - R[..., 2, 0]) / (2 * t0), (R[..., 1, 0] - R[..., 0, 1]) / (2 * t0)], -1)
    t1 = xp.sqrt(xp.maximum(1.0 + r00 - r11 - r22, 0.25))
    q1 = xp.stack(
        [(R[..., 2, 1] - R[..., 1, 2]) / (2 * t1), 0.5 * t1,
         (R[..., 0, 1] + R[..., 1, 0]) / (2 * t1), (R[..., 0, 2] + R[..., 2, 0]) / (2 * t1)], -1)
    t2 = xp.sqrt(xp.maximum(1.0 - r00 + r11 - r22, 0.25))
    q2 = xp.stack(
        [(R[..., 0, 2] - R[..., 2, 0]) / (2 * t2), (R[..., 0, 1] + R[..., 1, 0]) / (2 * t2),
         0.5 * t2, (R[..., 1, 2] + R[..., 2, 1]) / (2 * t2)], -1)
    t3 = xp.sqrt(xp.maximum(1.0 - r00 - r11 + r22, 0.25))
    q3 = xp.stack(
        [(R[..., 1, 0] - R[..., 0, 1]) / (2 * t3), (R[..., 0, 2] + R[..., 2, 0]) / (2 * t3),
         (R[..., 1, 2] + R[..., 2, 1]) / (2 * t3), 0.5 * t3], -1)
    cands = xp.stack([q0, q1, q2, q3], -2)
    q = xp.take_along_axis(cands, k[..., None, None], axis=-2)[..., 0, :]
    q = q / safe_norm(q, keepdims=True)
    return xp.where(q[..., :1] < 0, -q, q)


def rotation_to_rotation_vector(R):
    """Rotation matrix -> rotation vector θ·k (axis k, angle θ ∈ [0, π]; Drake's
    ``ToAngleAxis`` as angle·axis). Through the canonical quaternion (w ≥ 0):
    θk = 2·atan2(‖u‖, w)·u/‖u‖ with u the vector part, whose small-angle limit 2u/w is used
    when ‖u‖ is tiny, so the value and gradient are finite at the identity."""
    q = rotation_to_quaternion(R)
    w, u = q[..., 0], q[..., 1:]
    s = safe_norm(u)
    small = s < 1e-6
    s_safe = jnp.where(small, 1.0, s)
    w_safe = jnp.where(w > 0.5, w, 1.0)  # only read when the angle is small (w ≈ 1)
    factor = jnp.where(small, 2.0 / w_safe * (1.0 - s * s / (3.0 * w_safe * w_safe)),
                       2.0 * jnp.arctan2(s_safe, w) / s_safe)
    return factor[..., None] * u


def quaternion_multiply(a, b):
    """Hamilton product ``a ⊗ b`` of ``[w, x, y, z]`` quaternions."""
    aw, av = a[..., :1], a[..., 1:]
    bw, bv = b[..., :1], b[..., 1:]
    w = aw * bw - jnp.sum(av * bv, -1, keepdims=True)
    v = aw * bv + bw * av + jnp.cross(av, bv)
    return jnp.concatenate([w, v], -1)


def project_to_rotation(M, iterations: int = 20):
    """Closest rotation matrix (Frobenius norm) to a nonsingular ``M`` with ``det(M) > 0``.

    Newton's iteration for the orthogonal polar factor, ``R <- (R + R⁻ᵀ)/2`` [Higham 1986],
    scaled by ``(|det R|)^(-1/3)`` for fast early convergence; a fixed iteration count keeps it
    jit-friendly and, unlike an SVD, differentiable where singular values repeat (the identity).
    """
    R = jnp.asarray(M)
    for _ in range(iterations):
        Rinv_T = jnp.swapaxes(jnp.linalg.inv(R), -1, -2)
        g = jnp.abs(jnp.linalg.det(R)) ** (-1.0 / 3.0)
        R = 0.5 * (g[..., None, None] * R + Rinv_T / g[..., None, None])
    return R
