"""Kinematics kernels of Simbody's mobilizers that Drake lacks (seed 004, ``MobilizedBody``),
in the `kinds.JointKind` interface, vectorized over the joints of a kind.

=====================  ===================  ==================================================
kind                   q                    v (Simbody's u)
=====================  ===================  ==================================================
gimbal                 θ0, θ1, θ2           θ̇0, θ̇1, θ̇2 (u = q̇); R_FM = Rx(θ0)·Ry(θ1)·Rz(θ2),
                                            body-fixed 1-2-3 Euler angles, Fo = Mo
=====================  ===================  ==================================================

Gimbal. Its motion subspace is three revolute axes in series, expressed in F:
    H_FM_F = [x̂, Rx(θ0)ŷ, Rx(θ0)Ry(θ1)ẑ ; 0] = [[1, 0, s1], [0, c0, −s0c1], [0, s0, c0c1] ; 0]
so the second axis turns with θ0 and the third with θ0 and θ1 (``moves``), and
Ḣv = θ̇0θ̇1 (x̂ × h1) + θ̇2 (θ̇0 x̂ + θ̇1 h1) × h2. N = N⁺ = I. H loses rank where cos θ1 = 0
(the first and third axes align): the mass matrix is singular there (gimbal lock; see
`gimbal_lock`), unlike Drake's BallRpy, whose N(q) is singular instead.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.joints.kinds import GIMBAL_LOCK_COS_TOLERANCE, JointKind, _stack_H
from jaxbody.math.so3 import rot_x, rot_y, rot_z


class Gimbal(JointKind):
    name = "gimbal"
    suffixes = ("q0", "q1", "q2"), ("q0dot", "q1dot", "q2dot")
    nq = nv = 3
    moves = ((0, 1), (0, 2), (1, 2))

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


__all__ = ["Gimbal", "gimbal_lock", "rotation_to_body_xyz"]
