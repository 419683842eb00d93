"""Drake's `RotationMatrix` and `RollPitchYaw` as immutable JAX pytrees.

Both classes hold one ``jax.Array`` leaf, so they pass through ``jit``, ``vmap`` and ``grad``.
The leaf may carry leading batch axes: a `RotationMatrix` wraps ``R: (..., 3, 3)`` and a
`RollPitchYaw` wraps ``rpy: (..., 3)``. Names and semantics follow pydrake
(``pydrake.math.RotationMatrix``, ``pydrake.math.RollPitchYaw``); quaternions are ``[w, x, y, z]``
arrays instead of Eigen objects.

Example:
    >>> import jax.numpy as jnp
    >>> R_AB = RotationMatrix(RollPitchYaw(0.1, 0.2, 0.3))
    >>> v_A = R_AB @ jnp.array([1.0, 0.0, 0.0])
    >>> rpy = R_AB.ToRollPitchYaw().vector()  # [0.1, 0.2, 0.3]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.math import so3

ArrayLike = Any

# Drake's RollPitchYaw::kGimbalLockToleranceCosPitchAngle: |cos(pitch)| below this is gimbal lock.
GIMBAL_LOCK_TOLERANCE_COS_PITCH = 0.008
_ARRAY_TYPES = (jax.Array, np.ndarray, list, tuple, int, float, np.number)


# ------------------------------------------------------------------ shared private helpers
def _is_concrete(*xs: Any) -> bool:
    """True when no argument is a JAX tracer (so values may be inspected and validated)."""
    return not any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(xs))


def _as_float(x: ArrayLike) -> jax.Array:
    """``jnp.asarray`` that keeps floating dtypes and maps ints/bools to the default float."""
    a = jnp.asarray(x)
    if not jnp.issubdtype(a.dtype, jnp.inexact):
        a = a.astype(jnp.result_type(float))
    return a


def _check_trailing(name: str, a: jax.Array, shape: tuple[int, ...]) -> jax.Array:
    """Raise ValueError unless ``a.shape`` ends with ``shape``."""
    n = len(shape)
    if a.ndim < n or tuple(a.shape[a.ndim - n :]) != shape:
        expect = "(..., " + ", ".join(map(str, shape)) + ")"
        raise ValueError(f"{name} must have shape {expect}; got shape {tuple(a.shape)}.")
    return a


def _apply_3x3(M: jax.Array, v: ArrayLike, name: str = "v") -> jax.Array:
    """``M @ v`` for ``v: (3,)``, pydrake's ``(3, n)`` columns (unbatched M), or ``(..., 3)``."""
    v = _as_float(v)
    if M.ndim == 2 and v.ndim == 2:
        if v.shape[0] != 3:
            raise ValueError(f"{name} must have shape (3, n); got shape {tuple(v.shape)}.")
        return M @ v
    _check_trailing(name, v, (3,))
    return jnp.einsum("...ij,...j->...i", M, v)


class _PytreeValue:
    """Frozen value type whose ``_fields`` are its pytree children (subclasses must register)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    __array_ufunc__ = None  # NumPy defers binary operators to us (np.float64(2) * V works).

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; methods return new objects.")

    @classmethod
    def _make(cls, *values: Any):
        """Build without conversion or validation (used by tree_unflatten and internally)."""
        obj = object.__new__(cls)
        for field, value in zip(cls._fields, values):
            object.__setattr__(obj, field, value)
        return obj

    def _init(self, *values: Any) -> None:
        for field, value in zip(self._fields, values):
            object.__setattr__(self, field, value)

    def tree_flatten(self):
        return tuple(getattr(self, f) for f in self._fields), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls._make(*children)

    def __repr__(self) -> str:
        body = ", ".join(f"{f.lstrip('_')}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({body})"


# ------------------------------------------------------------------ roll-pitch-yaw kernel
# ------------------------------------------------------------------ RotationMatrix
@jax.tree_util.register_pytree_node_class
class RotationMatrix(_PytreeValue):
    """Rotation matrix ``R_AB`` relating frames A and B (pydrake's ``RotationMatrix``).

    Args:
        R: one of: nothing (identity); a ``(..., 3, 3)`` matrix (not checked for orthonormality,
            as pydrake release builds); a ``(..., 4)`` quaternion ``[w, x, y, z]`` (need not be
            unit); a `RollPitchYaw`; or another `RotationMatrix`.

    Example:
        >>> R_AB = RotationMatrix.MakeZRotation(0.5)
        >>> R_BA = R_AB.inverse()
        >>> R_AA = R_AB @ R_BA  # identity
    """

    __slots__ = ("_R",)
    _fields = ("_R",)

    def __init__(self, R: Any = None) -> None:
        if R is None:
            R = jnp.eye(3, dtype=jnp.result_type(float))
        elif isinstance(R, RotationMatrix):
            R = R._R
        elif isinstance(R, RollPitchYaw):
            R = so3.rpy_to_rotation(R.vector())
        else:
            a = _as_float(R)
            if a.ndim >= 2 and a.shape[-2:] == (3, 3):
                R = a
            elif a.ndim >= 1 and a.shape[-1] == 4:
                R = so3.quaternion_to_rotation(a)
            else:
                raise ValueError(
                    "R must be a (..., 3, 3) matrix or a (..., 4) quaternion [w, x, y, z]; "
                    f"got shape {tuple(a.shape)}."
                )
        self._init(R)

    # -- factories
    @classmethod
    def Identity(cls, dtype: Any = None) -> RotationMatrix:
        """The identity rotation (``dtype`` defaults to the default float)."""
        return cls._make(jnp.eye(3, dtype=dtype or jnp.result_type(float)))

    @classmethod
    def MakeXRotation(cls, theta: ArrayLike) -> RotationMatrix:
        """Rotation about x by ``theta: (...)`` radians."""
        return cls._make(so3.rot_x(_as_float(theta)))

    @classmethod
    def MakeYRotation(cls, theta: ArrayLike) -> RotationMatrix:
        """Rotation about y by ``theta: (...)`` radians."""
        return cls._make(so3.rot_y(_as_float(theta)))

    @classmethod
    def MakeZRotation(cls, theta: ArrayLike) -> RotationMatrix:
        """Rotation about z by ``theta: (...)`` radians."""
        return cls._make(so3.rot_z(_as_float(theta)))

    @classmethod
    def FromQuaternion(cls, quaternion: ArrayLike) -> RotationMatrix:
        """From ``quaternion: (..., 4)`` ``[w, x, y, z]``, non-zero, not necessarily unit."""
        q = _check_trailing("quaternion", _as_float(quaternion), (4,))
        return cls._make(so3.quaternion_to_rotation(q))

    @classmethod
    def FromAngleAxis(cls, angle: ArrayLike, axis: ArrayLike) -> RotationMatrix:
        """Rotation by ``angle: (...)`` rad about ``axis: (..., 3)`` (normalized here, non-zero)."""
        axis = _check_trailing("axis", _as_float(axis), (3,))
        unit = axis / so3.safe_norm(axis, keepdims=True)
        return cls._make(so3.axis_angle_to_rotation(unit, _as_float(angle)))

    @classmethod
    def ProjectToRotationMatrix(cls, M: ArrayLike) -> RotationMatrix:
        """Closest rotation to ``M: (..., 3, 3)`` in the Frobenius norm (SVD).

        Raises:
            ValueError: if ``M`` is concrete and ``det(M) <= 0`` (pydrake raises: the closest
                orthonormal matrix would be improper). Under tracing such inputs are projected to
                the closest proper rotation instead.
        """
        M = _check_trailing("M", _as_float(M), (3, 3))
        if _is_concrete(M) and np.any(np.linalg.det(np.asarray(M)) <= 0):
            raise ValueError(
                "ProjectToRotationMatrix(): det(M) <= 0, so the closest orthonormal matrix is "
                "not a proper rotation (a basis may be left-handed)."
            )
        return cls._make(so3.project_to_rotation(M))

    # -- accessors
    def matrix(self) -> jax.Array:
        """The ``(..., 3, 3)`` matrix."""
        return self._R

    def col(self, index: int) -> jax.Array:
        """Column ``index`` in {0, 1, 2} as ``(..., 3)``."""
        if index not in (0, 1, 2):
            raise ValueError(f"index must be 0, 1 or 2; got {index}.")
        return self._R[..., :, index]

    def row(self, index: int) -> jax.Array:
        """Row ``index`` in {0, 1, 2} as ``(..., 3)``."""
        if index not in (0, 1, 2):
            raise ValueError(f"index must be 0, 1 or 2; got {index}.")
        return self._R[..., index, :]

    # -- algebra
    def inverse(self) -> RotationMatrix:
        """``R_BA = R_ABᵀ``."""
        return RotationMatrix._make(jnp.swapaxes(self._R, -1, -2))

    def transpose(self) -> RotationMatrix:
        """Same as `inverse`."""
        return self.inverse()

    def InvertAndCompose(self, other: RotationMatrix) -> RotationMatrix:
        """``R_BC = R_ABᵀ R_AC`` for ``self = R_AB``, ``other = R_AC``."""
        return RotationMatrix._make(jnp.swapaxes(self._R, -1, -2) @ other._R)

    def multiply(self, other: RotationMatrix | ArrayLike) -> RotationMatrix | jax.Array:
        """``R_AC = R_AB R_BC`` or ``v_A = R_AB v_B``.

        ``other`` is a `RotationMatrix`, a vector ``(3,)``, pydrake's ``(3, n)`` column block
        (when ``self`` is a single rotation), or ``(..., 3)`` vectors broadcast against the batch.
        """
        if isinstance(other, RotationMatrix):
            return RotationMatrix._make(self._R @ other._R)
        return _apply_3x3(self._R, other, "v_B")

    def __matmul__(self, other: Any):
        if isinstance(other, RotationMatrix) or isinstance(other, _ARRAY_TYPES):
            return self.multiply(other)
        return NotImplemented

    # -- conversions
    def ToQuaternion(self) -> jax.Array:
        """Unit quaternion ``[w, x, y, z]`` with ``w >= 0``, shape ``(..., 4)``."""
        return so3.rotation_to_quaternion(self._R)

    def ToRollPitchYaw(self) -> RollPitchYaw:
        """Roll-pitch-yaw with pitch in [-pi/2, pi/2], roll and yaw in [-pi, pi] (Drake's)."""
        return RollPitchYaw(self)


# ------------------------------------------------------------------ RollPitchYaw
@jax.tree_util.register_pytree_node_class
class RollPitchYaw(_PytreeValue):
    """Space-fixed x-y-z angles ``[r, p, y]``: ``R_AD = Rz(y) Ry(p) Rx(r)`` (pydrake's).

    Constructed as ``RollPitchYaw(rpy)`` with ``rpy: (..., 3)`` (keyword ``rpy=`` for a batch of
    exactly three), ``RollPitchYaw(roll, pitch, yaw)``, ``RollPitchYaw(R)`` from a `RotationMatrix`
    or ``(3, 3)`` matrix, or ``RollPitchYaw(quaternion)`` from ``(..., 4)`` ``[w, x, y, z]``.
    The rate maps are singular at gimbal lock, ``cos(p) = 0``.

    Example:
        >>> rpy = RollPitchYaw(0.1, 0.2, 0.3)
        >>> w_AD_A = rpy.CalcAngularVelocityInParentFromRpyDt(jnp.array([1.0, 0.0, 0.0]))
    """

    __slots__ = ("_rpy",)
    _fields = ("_rpy",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            ok = set(kwargs) == {"roll", "pitch", "yaw"} or (
                len(kwargs) == 1 and set(kwargs) <= {"rpy", "R", "quaternion", "matrix", "other"})
            if args or not ok:
                raise TypeError(f"RollPitchYaw: unsupported arguments {list(kwargs)}.")
            if set(kwargs) == {"roll", "pitch", "yaw"}:
                args = (kwargs["roll"], kwargs["pitch"], kwargs["yaw"])
            elif "rpy" in kwargs:
                a = _check_trailing("rpy", _as_float(kwargs["rpy"]), (3,))
                self._init(a)
                return
            else:
                args = tuple(kwargs.values())
        if len(args) == 3:
            r, p, y = jnp.broadcast_arrays(*(_as_float(x) for x in args))
            self._init(jnp.stack([r, p, y], -1))
            return
        if len(args) != 1:
            raise TypeError(f"RollPitchYaw takes 1 or 3 arguments; got {len(args)}.")
        (x,) = args
        if isinstance(x, RollPitchYaw):
            self._init(x._rpy)
        elif isinstance(x, RotationMatrix):
            self._init(so3.rotation_to_rpy(x.matrix()))
        else:
            a = _as_float(x)
            if a.ndim >= 2 and a.shape[-2:] == (3, 3):
                self._init(so3.rotation_to_rpy(a))
            elif a.ndim >= 1 and a.shape[-1] == 3:
                self._init(a)
            elif a.ndim >= 1 and a.shape[-1] == 4:
                self._init(so3.rotation_to_rpy(so3.quaternion_to_rotation(a)))
            else:
                raise ValueError(
                    "RollPitchYaw needs rpy (..., 3), a (3, 3) matrix or a (..., 4) quaternion; "
                    f"got shape {tuple(a.shape)}."
                )

    def vector(self) -> jax.Array:
        """``[r, p, y]`` in radians, ``(..., 3)``."""
        return self._rpy

    def roll_angle(self) -> jax.Array:
        return self._rpy[..., 0]

    def pitch_angle(self) -> jax.Array:
        return self._rpy[..., 1]

    def yaw_angle(self) -> jax.Array:
        return self._rpy[..., 2]

    def ToRotationMatrix(self) -> RotationMatrix:
        """``R_AD = Rz(y) Ry(p) Rx(r)``."""
        return RotationMatrix._make(so3.rpy_to_rotation(self._rpy))

    def ToQuaternion(self) -> jax.Array:
        """Quaternion ``[w, x, y, z]`` from half angles, not sign-canonicalized (as Drake)."""
        h = 0.5 * self._rpy
        c, s = jnp.cos(h), jnp.sin(h)
        c0, c1, c2 = c[..., 0], c[..., 1], c[..., 2]
        s0, s1, s2 = s[..., 0], s[..., 1], s[..., 2]
        w = c0 * c1 * c2 + s0 * s1 * s2
        x = s0 * c1 * c2 - c0 * s1 * s2
        y = c0 * s1 * c2 + s0 * c1 * s2
        z = c0 * c1 * s2 - s0 * s1 * c2
        return jnp.stack([w, x, y, z], -1)

    # -- angular velocity <-> rpy rates
    def _trig(self):
        rpy = self._rpy
        return jnp.cos(rpy), jnp.sin(rpy)

    def _check_gimbal(self, func: str) -> None:
        if _is_concrete(self._rpy):
            cp = np.abs(np.cos(np.asarray(self._rpy[..., 1])))
            if np.any(cp < GIMBAL_LOCK_TOLERANCE_COS_PITCH):
                raise ValueError(
                    f"RollPitchYaw::{func}(): pitch angle is within "
                    f"{np.degrees(np.arcsin(GIMBAL_LOCK_TOLERANCE_COS_PITCH)):.6g} degrees of "
                    "gimbal lock (|cos(pitch)| < 0.008), where the rate map is singular. Use a "
                    "quaternion instead of RollPitchYaw."
                )

    def CalcAngularVelocityInParentFromRpyDt(self, rpyDt: ArrayLike) -> jax.Array:
        """``w_AD_A = N(r,p,y) rpyDt`` with ``N = [Rz Ry x̂, Rz ŷ, ẑ]``. ``rpyDt: (..., 3)``."""
        cos, sin = self._trig()
        cp, cy, sp, sy = cos[..., 1], cos[..., 2], sin[..., 1], sin[..., 2]
        d = _check_trailing("rpyDt", _as_float(rpyDt), (3,))
        rd, pd, yd = d[..., 0], d[..., 1], d[..., 2]
        return jnp.stack([cy * cp * rd - sy * pd, sy * cp * rd + cy * pd, -sp * rd + yd], -1)

    def CalcRpyDtFromAngularVelocityInParent(self, w_AD_A: ArrayLike) -> jax.Array:
        """Inverse of `CalcAngularVelocityInParentFromRpyDt`. ``w_AD_A: (..., 3)`` rad/s.

        Raises:
            ValueError: if the angles are concrete and ``|cos(pitch)| < 0.008`` (as pydrake).
                Under tracing no check is made and the result grows like ``1/cos(pitch)``.
        """
        self._check_gimbal("CalcRpyDtFromAngularVelocityInParent")
        cos, sin = self._trig()
        cp, cy, sp, sy = cos[..., 1], cos[..., 2], sin[..., 1], sin[..., 2]
        w = _check_trailing("w_AD_A", _as_float(w_AD_A), (3,))
        a = (cy * w[..., 0] + sy * w[..., 1]) / cp  # rdot
        return jnp.stack([a, -sy * w[..., 0] + cy * w[..., 1], sp * a + w[..., 2]], -1)

    def CalcAngularVelocityInChildFromRpyDt(self, rpyDt: ArrayLike) -> jax.Array:
        """``w_AD_D`` (expressed in the child D) from ``rpyDt: (..., 3)``."""
        cos, sin = self._trig()
        cr, cp, sr, sp = cos[..., 0], cos[..., 1], sin[..., 0], sin[..., 1]
        d = _check_trailing("rpyDt", _as_float(rpyDt), (3,))
        rd, pd, yd = d[..., 0], d[..., 1], d[..., 2]
        return jnp.stack([rd - sp * yd, cr * pd + sr * cp * yd, -sr * pd + cr * cp * yd], -1)

    def CalcRpyDtFromAngularVelocityInChild(self, w_AD_D: ArrayLike) -> jax.Array:
        """Inverse of `CalcAngularVelocityInChildFromRpyDt`; same gimbal-lock check.

        Raises:
            ValueError: if the angles are concrete and ``|cos(pitch)| < 0.008``.
        """
        self._check_gimbal("CalcRpyDtFromAngularVelocityInChild")
        cos, sin = self._trig()
        cr, cp, sr, sp = cos[..., 0], cos[..., 1], sin[..., 0], sin[..., 1]
        w = _check_trailing("w_AD_D", _as_float(w_AD_D), (3,))
        yd = (sr * w[..., 1] + cr * w[..., 2]) / cp
        return jnp.stack([w[..., 0] + sp * yd, cr * w[..., 1] - sr * w[..., 2], yd], -1)
