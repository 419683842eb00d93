"""Reversed mobilizers: a joint whose child body is inboard of its parent body in the tree.

The tree is grown outward from the world. When it reaches a joint from the joint's child side
(a chain built tip first, a URDF whose root link is not the tree's base, a joint with the world
as its child), the joint's parent body becomes the outboard body. As Drake's reversed
mobilizers, the joint keeps its own coordinates (q and v mean what they mean for the joint,
X_FM(q) and V_FM = H v), while the tree moves frame F relative to frame M:

    X_MF = X_FM⁻¹ = (Rᵀ, −Rᵀ p),
    H_MF (about Fo, in M) = −[Rᵀ H_w ; Rᵀ ([p]× H_w + H_v)],

from w_MF = −Rᵀ w_FM and v_MFo = d/dt(−Rᵀ p) = Rᵀ (w_FM × p − ṗ), with (H_w; H_v) the joint's
own subspace about Mo in F. Ḣ_MF v is the forward-mode derivative of H_MF(q) v along q̇ = N v.
N and N⁺ are the joint's. The columns are not assumed rigidly carried (``moves = None``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.joints.kinds import JointKind
from jaxbody.math.so3 import skew

_REVERSED = {}


def reversed_kind(base):
    """The kind that moves F relative to M for joints of kind ``base`` (made once per kind)."""
    if base not in _REVERSED:
        _REVERSED[base] = _make(base)
    return _REVERSED[base]


def _make(base):
    class Reversed(JointKind):
        name = "reversed:" + base.name
        suffixes = base.suffixes
        nq, nv = base.nq, base.nv
        has_quaternion, is_rpy = base.has_quaternion, base.is_rpy
        rotates, translates = base.rotates, base.translates
        moves = None
        default_q = base.default_q
        forward = base

        @staticmethod
        def transform(q, c):
            R, p = base.transform(q, c)
            Rt = jnp.swapaxes(R, -1, -2)
            return Rt, -jnp.einsum("kij,kj->ki", Rt, p)

        @staticmethod
        def subspace(q, c):
            R, p = base.transform(q, c)
            H = base.subspace(q, c)
            Rt = jnp.swapaxes(R, -1, -2)
            Hw, Hv = H[:, :3], H[:, 3:]
            top = -Rt @ Hw
            bottom = -Rt @ (skew(p) @ Hw + Hv)
            return jnp.concatenate([top, bottom], -2)

        @classmethod
        def subspace_dot_v(cls, q, v, c):
            qdot = jnp.einsum("kij,kj->ki", base.N(q, c), v)
            return jax.jvp(lambda x: jnp.einsum("kij,kj->ki", cls.subspace(x, c), v),
                           (q,), (qdot,))[1]

        @staticmethod
        def N(q, c):
            return base.N(q, c)

        @staticmethod
        def Nplus(q, c):
            return base.Nplus(q, c)

    if base.nv == 0:  # a reversed weld: the inverse pose, no motion
        Reversed.subspace = staticmethod(lambda q, c: jnp.zeros((q.shape[0], 6, 0), q.dtype))
        Reversed.subspace_dot_v = staticmethod(lambda q, v, c: jnp.zeros((q.shape[0], 6),
                                                                           q.dtype))
    return Reversed


__all__ = ["reversed_kind"]
