"""Kinematics kernels of Simbody's mobilizers that Drake lacks (seed 004, ``MobilizedBody``),
in the `kinds.JointKind` interface, vectorized over the joints of a kind.

=====================  ===================  ==================================================
kind                   q                    v (Simbody's u)
=====================  ===================  ==================================================
gimbal                 θ0, θ1, θ2           θ̇0, θ̇1, θ̇2 (u = q̇); R_FM = Rx(θ0)·Ry(θ1)·Rz(θ2),
                                            body-fixed 1-2-3 Euler angles, Fo = Mo
bend_stretch           θ, x                 θ̇, ẋ; R_FM = Rz(θ), p_FM = Rz(θ)·(x, 0, 0): a turn
                                            about F's z, then a slide along the turned x
line_orientation       qw, qx, qy, qz       wx, wy of w_FM expressed in *M* (wz = 0): the
                                            orientation of a line along Mz; Fo = Mo
free_line              qw, qx, qy, qz, xyz  wx, wy of w_FM_M; v_FM_F (3); p_FM = xyz
ellipsoid              qw, qx, qy, qz       w_FM_F; p_FM = diag(a, b, c)·n with n = R_FM ẑ
                                            (Mo on the ellipsoid's surface)
=====================  ===================  ==================================================

Drake has none of these kinds. Unlike Drake's quaternion joints, LineOrientation and FreeLine
measure the angular velocity in M (Simbody's choice for them); Ellipsoid measures it in F.

BendStretch (Simbody's PolarCoords). H_FM_F = [[ẑ, 0], [ẑ × p, M_x]]: the first column is the
turn about F's z axis through Fo (fixed in F), the second the slide, which the turn carries
(``moves``). Ḣv = [0; θ̇ ẑ × v_FM + ẋ w_FM × M_x].

LineOrientation and FreeLine. The angular columns are M's x and y axes in F. Ḣv = 0, since
w_FM × (H_ang u) = w_FM × w_FM. N = ½ E(q) R_FM[:, :2] and N⁺ = R_FM[:, :2]ᵀ · 2 Eᵀ / |q|²
(N⁺N = I). A body on them should be thin along Mz: its spin about Mz is not a coordinate. Their
configurations (3 rotational dimensions) outnumber their 2 rotational velocities, so a change
of q cannot be written as a velocity-coordinate perturbation, which the analytic RNEA
derivatives need (the spin about Mz changes the dynamics but maps to δ = 0): ``moves = None``,
and the plant differentiates them by forward-mode autodiff.

Ellipsoid (semi-axes a, b, c, Simbody's formula). Mo = diag(a, b, c)·n lies on the ellipsoid's
surface for every orientation; it is where the normal is n (Mz) only for a sphere. H_FM_F has
the identity as its angular block and diag(a, b, c)·[eᵢ × n] as its linear columns;
Ḣv = [0; diag(a, b, c)(w × (w × n))]. Its columns are not carried rigidly (``moves = None``),
so the plant differentiates it by forward-mode autodiff instead of the analytic RNEA
derivatives.

Gimbal. Its motion subspace is three revolute axes in series, expressed in F:
    H_FM_F = [x̂, Rx(θ0)ŷ, Rx(θ0)Ry(θ1)ẑ ; 0] = [[1, 0, s1], [0, c0, −s0c1], [0, s0, c0c1] ; 0]
so the second axis turns with θ0 and the third with θ0 and θ1 (``moves``), and
Ḣv = θ̇0θ̇1 (x̂ × h1) + θ̇2 (θ̇0 x̂ + θ̇1 h1) × h2. N = N⁺ = I. H loses rank where cos θ1 = 0
(the first and third axes align): the mass matrix is singular there (gimbal lock; see
`gimbal_lock`), unlike Drake's BallRpy, whose N(q) is singular instead.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.joints.kinds import (
    GIMBAL_LOCK_COS_TOLERANCE,
    JointKind,
    _block_diag,
    _eye,
    _quat_N,
    _quat_Nplus,
    _stack_H,
)
from jaxbody.math.so3 import quaternion_to_rotation, rot_x, rot_y, rot_z


class Ball(JointKind):
    name = "ball"
    translates = False
    suffixes = ("qw", "qx", "qy", "qz"), ("wx", "wy", "wz")
    nq, nv = 4, 3
    has_quaternion = True

    @classmethod
    def default_q(cls):
        return [1.0, 0.0, 0.0, 0.0]

    @staticmethod
    def transform(q, c):
        return quaternion_to_rotation(q), jnp.zeros((q.shape[0], 3), q.dtype)

    @staticmethod
    def subspace(q, c):
        k = q.shape[0]
        return _stack_H(_eye(k, 3, q.dtype), jnp.zeros((k, 3, 3), q.dtype))

    @staticmethod
    def N(q, c):
        return _quat_N(q)

    @staticmethod
    def Nplus(q, c):
        return _quat_Nplus(q)


class Cylindrical(JointKind):
    name = "cylindrical"
    suffixes = ("qz", "z"), ("wz", "vz")
    nq = nv = 2
    moves = ((1, 0),)

    @staticmethod
    def transform(q, c):
        z = jnp.zeros_like(q[:, :1])
        return rot_z(q[:, 0]), jnp.concatenate([z, z, q[:, 1:2]], -1)

    @staticmethod
    def subspace(q, c):
        H = jnp.zeros((6, 2), q.dtype).at[2, 0].set(1.0).at[5, 1].set(1.0)
        return jnp.broadcast_to(H, (q.shape[0], 6, 2))


class Translational(JointKind):
    name = "translational"
    rotates = False
    suffixes = ("x", "y", "z"), ("vx", "vy", "vz")
    nq = nv = 3

    @staticmethod
    def transform(q, c):
        return _eye(q.shape[0], 3, q.dtype), q

    @staticmethod
    def subspace(q, c):
        k = q.shape[0]
        return _stack_H(jnp.zeros((k, 3, 3), q.dtype), _eye(k, 3, q.dtype))


class Gimbal(JointKind):
    name = "gimbal"
    suffixes = ("q0", "q1", "q2"), ("q0dot", "q1dot", "q2dot")
    nq = nv = 3
    moves = ((0, 1), (0, 2), (1, 2))
    translates = False

    @staticmethod
    def transform(q, c):
        R = rot_x(q[:, 0]) @ rot_y(q[:, 1]) @ rot_z(q[:, 2])
        return R, jnp.zeros((q.shape[0], 3), q.dtype)

    @staticmethod
    def _axes(q):
        """(x̂, h1, h2), each (k, 3): the three rotation axes in F."""
        c0, s0, c1, s1 = jnp.cos(q[:, 0]), jnp.sin(q[:, 0]), jnp.cos(q[:, 1]), jnp.sin(q[:, 1])
        z = jnp.zeros_like(c0)
        ex = jnp.stack([jnp.ones_like(c0), z, z], -1)
        h1 = jnp.stack([z, c0, s0], -1)
        h2 = jnp.stack([s1, -s0 * c1, c0 * c1], -1)
        return ex, h1, h2

    @classmethod
    def subspace(cls, q, c):
        ang = jnp.stack(cls._axes(q), -1)
        return _stack_H(ang, jnp.zeros_like(ang))

    @classmethod
    def subspace_dot_v(cls, q, v, c):
        ex, h1, h2 = cls._axes(q)
        w01 = v[:, :1] * ex + v[:, 1:2] * h1
        ang = (v[:, :1] * v[:, 1:2]) * jnp.cross(ex, h1) + v[:, 2:3] * jnp.cross(w01, h2)
        return jnp.concatenate([ang, jnp.zeros_like(ang)], -1)


class BendStretch(JointKind):
    name = "bend_stretch"
    suffixes = ("q", "x"), ("w", "v")
    nq = nv = 2
    moves = ((0, 1),)
    translates = True

    @staticmethod
    def transform(q, c):
        R = rot_z(q[:, 0])
        return R, R[:, :, 0] * q[:, 1:2]

    @staticmethod
    def subspace(q, c):
        R = rot_z(q[:, 0])
        ez = jnp.zeros_like(R[:, :, 2]).at[:, 2].set(1.0)
        p = R[:, :, 0] * q[:, 1:2]
        turn = jnp.concatenate([ez, jnp.cross(ez, p)], -1)
        slide = jnp.concatenate([jnp.zeros_like(ez), R[:, :, 0]], -1)
        return jnp.stack([turn, slide], -1)

    @classmethod
    def subspace_dot_v(cls, q, v, c):
        H = cls.subspace(q, c)
        V = jnp.einsum("kij,kj->ki", H, v)  # V_FM = [w; v_Mo]
        ez = H[:, :3, 0]
        lin = v[:, :1] * jnp.cross(ez, V[:, 3:]) + v[:, 1:2] * jnp.cross(V[:, :3], H[:, 3:, 1])
        return jnp.concatenate([jnp.zeros_like(lin), lin], -1)


def _line_basis(quat):
    """(R_FM (k, 3, 3), R_FM[:, :, :2] (k, 3, 2)): M's x and y axes in F."""
    R = quaternion_to_rotation(quat)
    return R, R[:, :, :2]


class LineOrientation(JointKind):
    name = "line_orientation"
    suffixes = ("qw", "qx", "qy", "qz"), ("wx", "wy")
    nq, nv = 4, 2
    moves = None  # see the module docstring
    has_quaternion = True
    translates = False

    @classmethod
    def default_q(cls):
        return [1.0, 0.0, 0.0, 0.0]

    @staticmethod
    def transform(q, c):
        return quaternion_to_rotation(q), jnp.zeros((q.shape[0], 3), q.dtype)

    @staticmethod
    def subspace(q, c):
        B = _line_basis(q)[1]
        return _stack_H(B, jnp.zeros_like(B))

    @staticmethod
    def N(q, c):
        return _quat_N(q) @ _line_basis(q)[1]

    @staticmethod
    def Nplus(q, c):
        return jnp.swapaxes(_line_basis(q)[1], -1, -2) @ _quat_Nplus(q)


class FreeLine(JointKind):
    name = "free_line"
    suffixes = ("qw", "qx", "qy", "qz", "x", "y", "z"), ("wx", "wy", "vx", "vy", "vz")
    nq, nv = 7, 5
    moves = None  # see the module docstring
    has_quaternion = True

    @classmethod
    def default_q(cls):
        return [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]

    @staticmethod
    def transform(q, c):
        return quaternion_to_rotation(q[:, :4]), q[:, 4:]

    @staticmethod
    def subspace(q, c):
        B = _line_basis(q[:, :4])[1]
        k = q.shape[0]
        z23, z32 = jnp.zeros((k, 3, 3), q.dtype), jnp.zeros((k, 3, 2), q.dtype)
        ang = jnp.concatenate([B, z23], -1)
        lin = jnp.concatenate([z32, _eye(k, 3, q.dtype)], -1)
        return _stack_H(ang, lin)

    @staticmethod
    def N(q, c):
        return _block_diag(LineOrientation.N(q[:, :4], c), _eye(q.shape[0], 3, q.dtype))

    @staticmethod
    def Nplus(q, c):
        return _block_diag(LineOrientation.Nplus(q[:, :4], c), _eye(q.shape[0], 3, q.dtype))


class Ellipsoid(JointKind):
    name = "ellipsoid"
    suffixes = ("qw", "qx", "qy", "qz"), ("wx", "wy", "wz")
    nq, nv = 4, 3
    moves = None  # not carried rigidly: forward-mode autodiff instead of the analytic path
    has_quaternion = True

    @classmethod
    def default_q(cls):
        return [1.0, 0.0, 0.0, 0.0]

    @staticmethod
    def transform(q, c):
        R = quaternion_to_rotation(q)
        return R, jnp.asarray(c["semi_axes"], q.dtype) * R[:, :, 2]

    @staticmethod
    def subspace(q, c):
        n = quaternion_to_rotation(q)[:, :, 2]
        semi = jnp.asarray(c["semi_axes"], q.dtype)
        k = q.shape[0]
        eye = _eye(k, 3, q.dtype)
        lin = semi[:, :, None] * jnp.cross(eye, n[:, None, :]).swapaxes(-1, -2)
        return _stack_H(eye, lin)

    @staticmethod
    def subspace_dot_v(q, v, c):
        n = quaternion_to_rotation(q)[:, :, 2]
        semi = jnp.asarray(c["semi_axes"], q.dtype)
        lin = semi * jnp.cross(v, jnp.cross(v, n))
        return jnp.concatenate([jnp.zeros_like(lin), lin], -1)

    @staticmethod
    def N(q, c):
        return _quat_N(q)

    @staticmethod
    def Nplus(q, c):
        return _quat_Nplus(q)


def gimbal_lock(q):
    """Whether a gimbal's middle angle is within Drake's BallRpy tolerance of ±90°, (k,)."""
    return jnp.abs(jnp.cos(q[..., 1])) < GIMBAL_LOCK_COS_TOLERANCE


def rotation_to_body_xyz(R):
    """Body-fixed X-Y-Z angles (θ0, θ1, θ2) with R = Rx(θ0)·Ry(θ1)·Rz(θ2), θ1 ∈ [−π/2, π/2];
    at θ1 = ±90° (one free combination) θ2 = 0."""
    R = jnp.asarray(R)
    s1 = jnp.clip(R[..., 0, 2], -1.0, 1.0)
    t1 = jnp.arcsin(s1)
    lock = jnp.abs(s1) > 1.0 - 1e-12
    t0 = jnp.where(lock, jnp.arctan2(R[..., 2, 1], R[..., 1, 1]),
                   jnp.arctan2(-R[..., 1, 2], R[..., 2, 2]))
    t2 = jnp.where(lock, 0.0, jnp.arctan2(-R[..., 0, 1], R[..., 0, 0]))
    return jnp.stack([t0, t1, t2], -1)


__all__ = ["Ball", "BendStretch", "Cylindrical", "Ellipsoid", "FreeLine", "Gimbal",
           "LineOrientation", "Translational", "gimbal_lock", "rotation_to_body_xyz"]
