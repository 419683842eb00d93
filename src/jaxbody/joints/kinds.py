"""Joint kinematics kernels, one class per joint kind, vectorized over all joints of that kind.

Each kind maps its generalized positions ``q: (k, nq)`` and velocities ``v: (k, nv)`` for the
``k`` joints of that kind to:

- ``transform(q, c) -> (R_FM (k,3,3), p_FM (k,3))``: pose of the child frame M in the parent
  frame F;
- ``subspace(q, c) -> H_FM_F (k, 6, nv)``: the across-joint motion subspace, so that the spatial
  velocity of M (about Mo) measured and expressed in F is ``V_FM_F = H_FM_F v``;
  rows are [angular; linear];
- ``subspace_dot_v(q, v, c) -> (k, 6)``: ``Hdot_FM_F v``, the velocity-product part of the
  across-joint acceleration ``A_FM_F = H v̇ + Hdot v``;
- ``N(q, c) -> (k, nq, nv)`` and ``Nplus(q, c) -> (k, nv, nq)`` with ``q̇ = N v``, ``v = N⁺ q̇``.

``c`` holds per-joint constants as NumPy arrays with a leading ``k`` axis (axes, pitch, weld
pose). The conventions are Drake's (checked against pydrake 1.51 in tests/reference):

=====================  ===================  ==================================================
kind                   q                    v
=====================  ===================  ==================================================
revolute               θ                    θ̇ (rotation about unit axis â, the same in F and M)
prismatic              x                    ẋ (translation along â)
screw                  θ                    θ̇; translation along â is pitch·θ/(2π)
universal              θ1, θ2               θ̇1, θ̇2; R_FM = Rx(θ1)·Ry(θ2)
planar                 x, y, θ              ẋ, ẏ, θ̇; p_FM = (x, y, 0), R_FM = Rz(θ)
ball_rpy               r, p, y              w_FM_F; R_FM = Rz(y)·Ry(p)·Rx(r)
rpy_floating           r, p, y, x, y, z     w_FM_F, v_FM_F
quaternion_floating    qw, qx, qy, qz, xyz  w_FM_F, v_FM_F
ball (Simbody)         qw, qx, qy, qz       w_FM_F
cylindrical (Simbody)  θ, z                 θ̇, ż (rotation about and translation along z)
translational (Simb.)  x, y, z              v_FM_F
weld                   —                    —
=====================  ===================  ==================================================

Roll-pitch-yaw kinds: ``N(q)`` is singular at pitch = ±π/2 (gimbal lock); see `gimbal_lock`.
Quaternion kinds: ``N(q) = ½ E(q)``, ``N⁺(q) = 2 E(q)ᵀ / |q|²`` with ``E = [−q_vᵀ; q_s I − [q_v]×]``,
so ``N⁺ N = I`` for any nonzero q, as in Drake.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.math.so3 import (
    axis_angle_to_rotation,
    quaternion_to_rotation,
    rot_x,
    rot_y,
    rot_z,
    rpy_to_rotation,
    skew,
)

# Drake throws in MapVelocityToQDot when |cos(pitch)| is below this.
GIMBAL_LOCK_COS_TOLERANCE = 1e-3


def _eye(k, n, dtype):
    return jnp.broadcast_to(jnp.eye(n, dtype=dtype), (k, n, n))


def _zeros_transform(q, k):
    dtype = q.dtype
    return _eye(k, 3, dtype), jnp.zeros((k, 3), dtype)


def _stack_H(ang, lin):
    """(k, 3, nv) angular and linear blocks -> (k, 6, nv)."""
    return jnp.concatenate([ang, lin], axis=-2)


class JointKind:
    """Base kind: identity kinematic maps; subclasses override what differs."""

    name = "base"
    # Drake's name suffixes of each q and v entry (``GetPositionNames``): (q suffixes, v suffixes)
    suffixes = ((), ())
    nq = 0
    nv = 0
    has_quaternion = False
    is_rpy = False
    rotates = True  # Drake's Joint::can_rotate / can_translate
    translates = True
    # (j, k) pairs: dof j of the joint moves column k of its own subspace rigidly, i.e.
    # ∂(column k)/∂(dof j) = column j × column k in Plücker coordinates (columns not listed are
    # fixed in F). Must be transitive. The analytic RNEA derivatives
    # (`algorithms/rnea_derivatives.py`) rely on it; a test checks it against subspace_dot_v.
    # None: the columns are not carried rigidly; the plant then differentiates the dynamics by
    # forward-mode autodiff instead (`jaxbody.engine.dynamics.analytic_state_derivatives`).
    moves = ()

    @classmethod
    def default_q(cls):
        return [0.0] * cls.nq

    @classmethod
    def subspace_dot_v(cls, q, v, c):
        return jnp.zeros((q.shape[0], 6), q.dtype)

    @classmethod
    def N(cls, q, c):
        return _eye(q.shape[0], cls.nv, q.dtype)

    @classmethod
    def Nplus(cls, q, c):
        return _eye(q.shape[0], cls.nv, q.dtype)


class Weld(JointKind):
    name = "weld"
    rotates = translates = False

    @staticmethod
    def transform(q, c):
        return jnp.asarray(c["R_FM"], q.dtype), jnp.asarray(c["p_FM"], q.dtype)

    @staticmethod
    def subspace(q, c):
        return jnp.zeros((q.shape[0], 6, 0), q.dtype)


class Revolute(JointKind):
    name = "revolute"
    translates = False
    suffixes = ("q",), ("w",)
    nq = nv = 1

    @staticmethod
    def transform(q, c):
        axis = jnp.asarray(c["axis"], q.dtype)
        return axis_angle_to_rotation(axis, q[:, 0]), jnp.zeros_like(axis)

    @staticmethod
    def subspace(q, c):
        axis = jnp.asarray(c["axis"], q.dtype)
        return jnp.concatenate([axis, jnp.zeros_like(axis)], -1)[:, :, None]


class Prismatic(JointKind):
    name = "prismatic"
    rotates = False
    suffixes = ("x",), ("v",)
    nq = nv = 1

    @staticmethod
    def transform(q, c):
        axis = jnp.asarray(c["axis"], q.dtype)
        return _eye(q.shape[0], 3, q.dtype), axis * q[:, :1]

    @staticmethod
    def subspace(q, c):
        axis = jnp.asarray(c["axis"], q.dtype)
        return jnp.concatenate([jnp.zeros_like(axis), axis], -1)[:, :, None]


class Screw(JointKind):
    name = "screw"
    suffixes = ("q",), ("w",)
    nq = nv = 1

    @staticmethod
    def _lead(c, dtype):
        return jnp.asarray(c["pitch"], dtype)[:, None] / (2.0 * jnp.pi)

    @classmethod
    def transform(cls, q, c):
        axis = jnp.asarray(c["axis"], q.dtype)
        return axis_angle_to_rotation(axis, q[:, 0]), axis * cls._lead(c, q.dtype) * q[:, :1]

    @classmethod
    def subspace(cls, q, c):
        axis = jnp.asarray(c["axis"], q.dtype)
        return jnp.concatenate([axis, axis * cls._lead(c, q.dtype)], -1)[:, :, None]


class Universal(JointKind):
    name = "universal"
    translates = False
    suffixes = ("qx", "qy"), ("wx", "wy")
    nq = nv = 2
    moves = ((0, 1),)  # the second axis turns with the first

    @staticmethod
    def transform(q, c):
        return rot_x(q[:, 0]) @ rot_y(q[:, 1]), jnp.zeros((q.shape[0], 3), q.dtype)

    @staticmethod
    def _y_in_F(q):
        # Rx(θ1) ŷ: the second axis expressed in F.
        return jnp.stack([jnp.zeros_like(q[:, 0]), jnp.cos(q[:, 0]), jnp.sin(q[:, 0])], -1)

    @classmethod
    def subspace(cls, q, c):
        k = q.shape[0]
        ex = jnp.broadcast_to(jnp.array([1.0, 0.0, 0.0], q.dtype), (k, 3))
        ang = jnp.stack([ex, cls._y_in_F(q)], -1)
        return _stack_H(ang, jnp.zeros_like(ang))

    @classmethod
    def subspace_dot_v(cls, q, v, c):
        # d/dt (Rx(θ1) ŷ) θ̇2 = θ̇1 x̂ × (Rx(θ1) ŷ) θ̇2
        y = cls._y_in_F(q)
        ex = jnp.broadcast_to(jnp.array([1.0, 0.0, 0.0], q.dtype), y.shape)
        ang = (v[:, :1] * v[:, 1:2]) * jnp.cross(ex, y)
        return jnp.concatenate([ang, jnp.zeros_like(ang)], -1)


class Planar(JointKind):
    name = "planar"
    suffixes = ("x", "y", "qz"), ("vx", "vy", "wz")
    nq = nv = 3
    moves = ((0, 2), (1, 2))  # translations carry the rotation axis through Mo

    @staticmethod
    def transform(q, c):
        p = jnp.concatenate([q[:, :2], jnp.zeros_like(q[:, :1])], -1)
        return rot_z(q[:, 2]), p

    @staticmethod
    def subspace(q, c):
        H = jnp.zeros((6, 3), q.dtype).at[3, 0].set(1.0).at[4, 1].set(1.0).at[2, 2].set(1.0)
        return jnp.broadcast_to(H, (q.shape[0], 6, 3))


def rpy_rate_matrix(rpy):
    """``N_rpy(q)``: ``rpy_dot = N_rpy w_FM_F``. ``rpy: (k, 3)`` -> ``(k, 3, 3)``.

    Singular where cos(pitch) = 0; see `gimbal_lock`.
    """
    p, y = rpy[:, 1], rpy[:, 2]
    cp, sp, cy, sy = jnp.cos(p), jnp.sin(p), jnp.cos(y), jnp.sin(y)
    z, o = jnp.zeros_like(p), jnp.ones_like(p)
    return jnp.stack(
        [
            jnp.stack([cy / cp, sy / cp, z], -1),
            jnp.stack([-sy, cy, z], -1),
            jnp.stack([cy * sp / cp, sy * sp / cp, o], -1),
        ],
        -2,
    )


def rpy_rate_inverse_matrix(rpy):
    """``E(q)`` with ``w_FM_F = E rpy_dot``; the exact inverse of `rpy_rate_matrix`."""
    p, y = rpy[:, 1], rpy[:, 2]
    cp, sp, cy, sy = jnp.cos(p), jnp.sin(p), jnp.cos(y), jnp.sin(y)
    z, o = jnp.zeros_like(p), jnp.ones_like(p)
    return jnp.stack(
        [
            jnp.stack([cy * cp, -sy, z], -1),
            jnp.stack([sy * cp, cy, z], -1),
            jnp.stack([-sp, z, o], -1),
        ],
        -2,
    )


def gimbal_lock(rpy):
    """True where ``|cos(pitch)| < 1e-3``, the threshold at which Drake throws."""
    return jnp.abs(jnp.cos(rpy[..., 1])) < GIMBAL_LOCK_COS_TOLERANCE


def quaternion_rate_matrix(quat):
    """``E(q) = [−q_vᵀ; q_s I − [q_v]×]`` (k, 4, 3) so that ``q̇ = ½ E w_FM_F``."""
    qs, qv = quat[:, 0], quat[:, 1:]
    eye = _eye(quat.shape[0], 3, quat.dtype)
    return jnp.concatenate([-qv[:, None, :], qs[:, None, None] * eye - skew(qv)], axis=-2)


def _quat_N(quat):
    return 0.5 * quaternion_rate_matrix(quat)


def _quat_Nplus(quat):
    n2 = jnp.sum(quat * quat, -1)
    return 2.0 * jnp.swapaxes(quaternion_rate_matrix(quat), -1, -2) / n2[:, None, None]


def _block_diag(A, B):
    """Per-joint block diagonal of (k,a,b) and (k,c,d) -> (k, a+c, b+d)."""
    k = A.shape[0]
    top = jnp.concatenate([A, jnp.zeros((k, A.shape[1], B.shape[2]), A.dtype)], -1)
    bot = jnp.concatenate([jnp.zeros((k, B.shape[1], A.shape[2]), A.dtype), B], -1)
    return jnp.concatenate([top, bot], -2)


class BallRpy(JointKind):
    name = "ball_rpy"
    translates = False
    suffixes = ("qx", "qy", "qz"), ("wx", "wy", "wz")
    nq = nv = 3
    is_rpy = True

    @staticmethod
    def transform(q, c):
        return rpy_to_rotation(q), jnp.zeros_like(q)

    @staticmethod
    def subspace(q, c):
        k = q.shape[0]
        return _stack_H(_eye(k, 3, q.dtype), jnp.zeros((k, 3, 3), q.dtype))

    @staticmethod
    def N(q, c):
        return rpy_rate_matrix(q)

    @staticmethod
    def Nplus(q, c):
        return rpy_rate_inverse_matrix(q)


class RpyFloating(JointKind):
    name = "rpy_floating"
    suffixes = ("qx", "qy", "qz", "x", "y", "z"), ("wx", "wy", "wz", "vx", "vy", "vz")
    nq = nv = 6
    moves = tuple((t, r) for t in (3, 4, 5) for r in (0, 1, 2))
    is_rpy = True

    @staticmethod
    def transform(q, c):
        return rpy_to_rotation(q[:, :3]), q[:, 3:]

    @staticmethod
    def subspace(q, c):
        return _eye(q.shape[0], 6, q.dtype)

    @staticmethod
    def N(q, c):
        return _block_diag(rpy_rate_matrix(q[:, :3]), _eye(q.shape[0], 3, q.dtype))

    @staticmethod
    def Nplus(q, c):
        return _block_diag(rpy_rate_inverse_matrix(q[:, :3]), _eye(q.shape[0], 3, q.dtype))


class QuaternionFloating(JointKind):
    name = "quaternion_floating"
    suffixes = ("qw", "qx", "qy", "qz", "x", "y", "z"), ("wx", "wy", "wz", "vx", "vy", "vz")
    nq, nv = 7, 6
    moves = tuple((t, r) for t in (3, 4, 5) for r in (0, 1, 2))
    has_quaternion = True

    @classmethod
    def default_q(cls):
        return [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]

    @staticmethod
    def transform(q, c):
        return quaternion_to_rotation(q[:, :4]), q[:, 4:]

    @staticmethod
    def subspace(q, c):
        return _eye(q.shape[0], 6, q.dtype)

    @staticmethod
    def N(q, c):
        return _block_diag(_quat_N(q[:, :4]), _eye(q.shape[0], 3, q.dtype))

    @staticmethod
    def Nplus(q, c):
        return _block_diag(_quat_Nplus(q[:, :4]), _eye(q.shape[0], 3, q.dtype))
