"""Low-level rotation and 3-vector kernels: pure ``jnp`` functions on raw arrays.

These are the building blocks that the value types (`RotationMatrix`, `RigidTransform`, ...)
and the multibody kernels share. Every function accepts arbitrary leading batch axes unless
stated otherwise and is safe under ``jit``, ``vmap`` and ``grad``: norms and angles use
gradient-safe forms so that derivatives stay finite at the identity and at zero vectors.

Conventions (Drake's):
- Quaternions are ``[w, x, y, z]`` (scalar first).
- Roll-pitch-yaw ``[r, p, y]`` are space-fixed x-y-z angles: ``R = Rz(y) @ Ry(p) @ Rx(r)``,
  with pitch in [-pi/2, pi/2].
"""

from __future__ import annotations

import jax.numpy as jnp

# Below this squared norm a vector is treated as zero by the gradient-safe helpers.
_TINY = 1e-30


def safe_norm(x, axis=-1, keepdims=False):
    """Euclidean norm whose gradient is zero (not NaN) at ``x = 0``."""
    x = jnp.asarray(x)
    sq = jnp.sum(x * x, axis=axis, keepdims=keepdims)
    is_zero = sq <= _TINY
    safe_sq = jnp.where(is_zero, 1.0, sq)
    return jnp.where(is_zero, 0.0, jnp.sqrt(safe_sq))


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
    """Space-fixed x-y-z angles ``[r, p, y]`` -> ``Rz(y) Ry(p) Rx(r)``. ``(..., 3) -> (..., 3, 3)``."""
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
    """Inverse of `rpy_to_rotation`: pitch in [-pi/2, pi/2], roll and yaw in (-pi, pi].

    Uses ``atan2`` throughout (no ``asin``), so it is accurate near gimbal lock, as Drake's
    ``RollPitchYaw(RotationMatrix)`` is.
    """
    R = jnp.asarray(R)
    # pitch from -R20 and the norm of the remaining first column.
    cp = jnp.sqrt(jnp.maximum(R[..., 0, 0] ** 2 + R[..., 1, 0] ** 2, 0.0) + 1e-300)
    p = jnp.arctan2(-R[..., 2, 0], cp)
    y = jnp.arctan2(R[..., 1, 0], R[..., 0, 0])
    # Roll from the yaw-corrected rows, robust when cos(p) -> 0.
    cy, sy = jnp.cos(y), jnp.sin(y)
    r = jnp.arctan2(
        sy * R[..., 0, 2] - cy * R[..., 1, 2],
        -sy * R[..., 0, 1] + cy * R[..., 1, 1],
    )
    return jnp.stack([r, p, y], -1)


def quaternion_to_rotation(quat):
    """Quaternion ``[w, x, y, z]`` (need not be unit) -> rotation matrix, using ``2/|q|^2``.

    This equals the rotation of ``quat/|quat|``, as Drake's ``RotationMatrix(Quaternion)``.
    """
    quat = jnp.asarray(quat)
    w, x, y, z = quat[..., 0], quat[..., 1], quat[..., 2], quat[..., 3]
    n2 = w * w + x * x + y * y + z * z
    s = 2.0 / jnp.where(n2 > 0, n2, 1.0)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    row0 = jnp.stack([1 - yy - zz, xy - wz, xz + wy], -1)
    row1 = jnp.stack([xy + wz, 1 - xx - zz, yz - wx], -1)
    row2 = jnp.stack([xz - wy, yz + wx, 1 - xx - yy], -1)
    return jnp.stack([row0, row1, row2], -2)


def rotation_to_quaternion(R):
    """Rotation matrix -> unit quaternion ``[w, x, y, z]`` with ``w >= 0`` (Drake's canonical sign).

    Shepperd's method, branch-free: all four candidate solutions are computed and the one with
    the largest pivot is selected, so the result is accurate and differentiable everywhere.
    """
    R = jnp.asarray(R)
    r00, r11, r22 = R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]
    tr = r00 + r11 + r22
    pivots = jnp.stack([tr, r00, r11, r22], -1)
    k = jnp.argmax(pivots, axis=-1)
    # Candidate 0: w largest.
    t0 = jnp.sqrt(jnp.maximum(1.0 + tr, 1e-300))
    q0 = jnp.stack(
        [0.5 * t0, (R[..., 2, 1] - R[..., 1, 2]) / (2 * t0),
         (R[..., 0, 2] - R[..., 2, 0]) / (2 * t0), (R[..., 1, 0] - R[..., 0, 1]) / (2 * t0)], -1)
    t1 = jnp.sqrt(jnp.maximum(1.0 + r00 - r11 - r22, 1e-300))
    q1 = jnp.stack(
        [(R[..., 2, 1] - R[..., 1, 2]) / (2 * t1), 0.5 * t1,
         (R[..., 0, 1] + R[..., 1, 0]) / (2 * t1), (R[..., 0, 2] + R[..., 2, 0]) / (2 * t1)], -1)
    t2 = jnp.sqrt(jnp.maximum(1.0 - r00 + r11 - r22, 1e-300))
    q2 = jnp.stack(
        [(R[..., 0, 2] - R[..., 2, 0]) / (2 * t2), (R[..., 0, 1] + R[..., 1, 0]) / (2 * t2),
         0.5 * t2, (R[..., 1, 2] + R[..., 2, 1]) / (2 * t2)], -1)
    t3 = jnp.sqrt(jnp.maximum(1.0 - r00 - r11 + r22, 1e-300))
    q3 = jnp.stack(
        [(R[..., 1, 0] - R[..., 0, 1]) / (2 * t3), (R[..., 0, 2] + R[..., 2, 0]) / (2 * t3),
         (R[..., 1, 2] + R[..., 2, 1]) / (2 * t3), 0.5 * t3], -1)
    cands = jnp.stack([q0, q1, q2, q3], -2)
    q = jnp.take_along_axis(cands, k[..., None, None], axis=-2)[..., 0, :]
    q = q / safe_norm(q, keepdims=True)
    return jnp.where(q[..., :1] < 0, -q, q)


def quaternion_multiply(a, b):
    """Hamilton product ``a ⊗ b`` of ``[w, x, y, z]`` quaternions."""
    aw, av = a[..., :1], a[..., 1:]
    bw, bv = b[..., :1], b[..., 1:]
    w = aw * bw - jnp.sum(av * bv, -1, keepdims=True)
    v = aw * bv + bw * av + jnp.cross(av, bv)
    return jnp.concatenate([w, v], -1)


def project_to_rotation(M):
    """Closest rotation matrix (Frobenius norm) to ``M`` via SVD, with ``det = +1``."""
    M = jnp.asarray(M)
    U, _, Vt = jnp.linalg.svd(M)
    d = jnp.sign(jnp.linalg.det(U @ Vt))
    D = jnp.ones(M.shape[:-1], M.dtype).at[..., -1].set(d)
    return (U * D[..., None, :]) @ Vt
