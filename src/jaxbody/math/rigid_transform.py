"""Drake's `RigidTransform` ``X_AB = [R_AB, p_AoBo_A]`` as an immutable JAX pytree.

The leaves are ``R: (..., 3, 3)`` and ``p: (..., 3)`` with the same leading batch axes, so a
batch of poses is one `RigidTransform` and ``jax.vmap`` maps over it. Names follow pydrake's
``pydrake.math.RigidTransform``; because values are immutable, ``set_rotation`` and
``set_translation`` return a new transform (aliases ``with_rotation``, ``with_translation``).

Example:
    >>> import jax.numpy as jnp
    >>> X_AB = RigidTransform(R=RotationMatrix.MakeZRotation(0.5), p=jnp.array([1.0, 2.0, 3.0]))
    >>> p_AQ = X_AB @ jnp.array([0.1, 0.0, 0.0])   # a point Q given in B, measured in A
    >>> X_BA = X_AB.inverse()
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxbody.math import so3
from jaxbody.math.rotation import (
    _ARRAY_TYPES,
    ArrayLike,
    RollPitchYaw,
    RotationMatrix,
    _apply_3x3,
    _as_float,
    _check_trailing,
    _PytreeValue,
)


def _rotation_array(R: Any, name: str = "R") -> jax.Array:
    """``(..., 3, 3)`` from a RotationMatrix, RollPitchYaw, matrix or ``(..., 4)`` quaternion."""
    if isinstance(R, RotationMatrix):
        return R.matrix()
    if isinstance(R, RollPitchYaw):
        return so3.rpy_to_rotation(R.vector())
    a = _as_float(R)
    if a.ndim >= 2 and a.shape[-2:] == (3, 3):
        return a
    if a.ndim >= 1 and a.shape[-1] == 4:
        return so3.quaternion_to_rotation(a)
    raise ValueError(
        f"{name} must be a RotationMatrix, RollPitchYaw, (..., 3, 3) matrix or (..., 4) "
        f"quaternion; got shape {tuple(a.shape)}."
    )


def _pose_from_matrix(pose: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Split a ``(..., 4, 4)`` or ``(..., 3, 4)`` pose (the 4x4 bottom row is not checked)."""
    return pose[..., :3, :3], pose[..., :3, 3]


@jax.tree_util.register_pytree_node_class
class RigidTransform(_PytreeValue):
    """Pose ``X_AB`` of frame B in frame A: rotation ``R_AB`` and position ``p_AoBo_A`` (m).

    Constructors (as pydrake's): ``RigidTransform()`` (identity); ``RigidTransform(R, p)`` with
    ``R`` a `RotationMatrix`, `RollPitchYaw`, ``(..., 3, 3)`` matrix or ``(..., 4)`` quaternion;
    ``RigidTransform(R)`` (zero translation); ``RigidTransform(p)`` or ``RigidTransform(p=p)``
    (identity rotation); ``RigidTransform(pose)`` with ``pose: (..., 4, 4)`` or ``(..., 3, 4)``;
    keywords ``R=``, ``rpy=``, ``quaternion=``, ``p=``, ``pose=``. A lone positional ``(3, 3)``
    array is ambiguous (rotation, or three positions) and raises; pass ``R=`` or ``p=``.
    Batch axes of ``R`` and ``p`` broadcast against each other.
    """

    __slots__ = ("_R", "_p")
    _fields = ("_R", "_p")

    def __init__(self, *args: Any, R: Any = None, p: ArrayLike | None = None,
                 rpy: RollPitchYaw | None = None, quaternion: ArrayLike | None = None,
                 pose: ArrayLike | None = None) -> None:
        rot = [x for x in (R, rpy, quaternion) if x is not None]
        if len(args) > 2 or len(rot) > 1 or (pose is not None and (rot or p is not None)):
            raise TypeError("RigidTransform: incompatible arguments; see the class docstring.")
        R = rot[0] if rot else None
        if len(args) == 2:
            if R is not None or p is not None or pose is not None:
                raise TypeError("RigidTransform: R and p given both by position and by keyword.")
            R, p = args
        elif len(args) == 1:
            (x,) = args
            if isinstance(x, RigidTransform):
                R, p = x._R, x._p
            elif isinstance(x, (RotationMatrix, RollPitchYaw)):
                R = x
            else:
                a = _as_float(x)
                if a.ndim >= 2 and a.shape[-2:] in ((4, 4), (3, 4)):
                    pose = a
                elif a.ndim == 2 and a.shape == (3, 3):
                    raise ValueError(
                        "RigidTransform(array of shape (3, 3)) is ambiguous; use R= for a "
                        "rotation matrix or p= for three positions."
                    )
                elif a.ndim >= 1 and a.shape[-1] == 3:
                    p = a
                else:
                    raise ValueError(
                        "RigidTransform(x) needs p (..., 3) or a pose (..., 4, 4) or (..., 3, 4); "
                        f"got shape {tuple(a.shape)}."
                    )
        if pose is not None:
            pose = _as_float(pose)
            if pose.ndim < 2 or pose.shape[-2:] not in ((4, 4), (3, 4)):
                raise ValueError(
                    f"pose must have shape (..., 4, 4) or (..., 3, 4); got {tuple(pose.shape)}."
                )
            R, p = _pose_from_matrix(pose)
        R_arr = None if R is None else _rotation_array(R)
        p_arr = None if p is None else _check_trailing("p", _as_float(p), (3,))
        if R_arr is None:
            dtype = jnp.result_type(float) if p_arr is None else p_arr.dtype
            R_arr = jnp.eye(3, dtype=dtype)
        if p_arr is None:
            p_arr = jnp.zeros(3, dtype=R_arr.dtype)
        batch = jnp.broadcast_shapes(R_arr.shape[:-2], p_arr.shape[:-1])
        self._init(jnp.broadcast_to(R_arr, batch + (3, 3)), jnp.broadcast_to(p_arr, batch + (3,)))

    @classmethod
    def Identity(cls, dtype: Any = None) -> RigidTransform:
        """Identity rotation and zero translation."""
        dtype = dtype or jnp.result_type(float)
        return cls._make(jnp.eye(3, dtype=dtype), jnp.zeros(3, dtype=dtype))

    # -- accessors
    def rotation(self) -> RotationMatrix:
        """``R_AB`` as a `RotationMatrix`."""
        return RotationMatrix._make(self._R)

    def translation(self) -> jax.Array:
        """``p_AoBo_A: (..., 3)`` in meters."""
        return self._p

    def GetAsMatrix4(self) -> jax.Array:
        """Homogeneous ``(..., 4, 4)`` matrix ``[[R, p], [0, 0, 0, 1]]``."""
        top = self.GetAsMatrix34()
        bottom = jnp.broadcast_to(
            jnp.array([0.0, 0.0, 0.0, 1.0], dtype=top.dtype), top.shape[:-2] + (1, 4)
        )
        return jnp.concatenate([top, bottom], -2)

    def GetAsMatrix34(self) -> jax.Array:
        """``(..., 3, 4)`` matrix ``[R, p]``."""
        return jnp.concatenate([self._R, self._p[..., None]], -1)

    # -- immutable setters
    def with_rotation(self, R: Any) -> RigidTransform:
        """A copy with rotation ``R`` (RotationMatrix, RollPitchYaw, matrix or quaternion)."""
        return RigidTransform(R=RotationMatrix._make(_rotation_array(R)), p=self._p)

    def with_translation(self, p: ArrayLike) -> RigidTransform:
        """A copy with translation ``p: (..., 3)``."""
        return RigidTransform(R=RotationMatrix._make(self._R), p=p)

    def set_rotation(self, R: Any) -> RigidTransform:
        """Returns a NEW transform (pydrake mutates in place); same as `with_rotation`."""
        return self.with_rotation(R)

    def set_translation(self, p: ArrayLike) -> RigidTransform:
        """Returns a NEW transform (pydrake mutates in place); same as `with_translation`."""
        return self.with_translation(p)

    # -- algebra
    def inverse(self) -> RigidTransform:
        """``X_BA = [R_ABᵀ, -R_ABᵀ p_AoBo_A]``."""
        Rt = jnp.swapaxes(self._R, -1, -2)
        return RigidTransform._make(Rt, -jnp.einsum("...ij,...j->...i", Rt, self._p))

    def InvertAndCompose(self, other: RigidTransform) -> RigidTransform:
        """``X_BC = X_AB⁻¹ X_AC`` for ``self = X_AB``, ``other = X_AC``."""
        return self.inverse().multiply(other)

    def multiply(self, other: RigidTransform | ArrayLike) -> RigidTransform | jax.Array:
        """``X_AC = X_AB X_BC``, or a point ``p_AoQ_A = p_AoBo_A + R_AB p_BoQ_B``.

        Points are ``(3,)``, pydrake's ``(3, n)`` columns (for a single transform), or
        ``(..., 3)`` broadcast against the batch axes.
        """
        if isinstance(other, RigidTransform):
            R = self._R @ other._R
            p = self._p + jnp.einsum("...ij,...j->...i", self._R, other._p)
            batch = jnp.broadcast_shapes(R.shape[:-2], p.shape[:-1])
            return RigidTransform._make(
                jnp.broadcast_to(R, batch + (3, 3)), jnp.broadcast_to(p, batch + (3,))
            )
        q = _as_float(other)
        Rq = _apply_3x3(self._R, q, "p_BoQ_B")
        if self._R.ndim == 2 and q.ndim == 2:
            return Rq + self._p[:, None]
        return Rq + self._p

    def __matmul__(self, other: Any):
        if isinstance(other, RigidTransform) or isinstance(other, _ARRAY_TYPES):
            return self.multiply(other)
        return NotImplemented
