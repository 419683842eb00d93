"""Drake's spatial vectors as immutable JAX pytrees: [rotational; translational] 3-vector pairs.

`SpatialVelocity` ``V_MB_E = [w_MB_E; v_MBo_E]``, `SpatialAcceleration` ``A_MB_E = [alpha; a]``,
`SpatialForce` ``F_Bo_E = [tau; f]`` and `SpatialMomentum` ``L_MBo_E = [h; l]`` (SI units: rad/s,
m/s, rad/s², m/s², N·m, N, kg·m²/s, kg·m/s). Each holds two leaves ``(..., 3)`` with the same
leading batch axes. Names and formulas follow pydrake (``pydrake.multibody.math``); the
coefficient order is Drake's [angular; linear] (Pinocchio uses the opposite).

Example:
    >>> import jax.numpy as jnp
    >>> V_WB = SpatialVelocity(w=jnp.array([0.0, 0.0, 1.0]), v=jnp.array([1.0, 0.0, 0.0]))
    >>> V_WBq = V_WB.Shift(jnp.array([0.0, 1.0, 0.0]))   # v += w x p = [0, 0, 0]
    >>> power = V_WB.dot(SpatialForce(jnp.zeros(3), jnp.array([2.0, 0.0, 0.0])))  # 2 W
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxbody.math.rotation import (
    ArrayLike,
    RotationMatrix,
    _as_float,
    _check_trailing,
    _PytreeValue,
)


def _rot3(R: jax.Array, v: jax.Array) -> jax.Array:
    return jnp.einsum("...ij,...j->...i", R, v)


class _SpatialVector(_PytreeValue):
    """Shared storage and algebra; subclasses set ``_names = (rot, trans, full)``."""

    __slots__ = ("_rot", "_trans")
    _fields = ("_rot", "_trans")
    _names: tuple[str, str, str] = ("rot", "trans", "full")

    def _setup(self, rot: Any, trans: Any, full: Any) -> None:
        n_rot, n_trans, n_full = self._names
        if rot is not None and trans is None and full is None:
            a = _as_float(rot)
            if a.ndim >= 1 and a.shape[-1] == 6:
                rot, full = None, a
        if full is not None:
            if rot is not None or trans is not None:
                raise TypeError(f"{type(self).__name__}: give ({n_rot}, {n_trans}) or {n_full}.")
            full = _check_trailing(n_full, _as_float(full), (6,))
            self._init(full[..., :3], full[..., 3:])
            return
        if rot is None and trans is None:  # pydrake default-constructs to NaN.
            nan = jnp.full(3, jnp.nan, dtype=jnp.result_type(float))
            self._init(nan, nan)
            return
        if rot is None or trans is None:
            raise TypeError(f"{type(self).__name__} needs both {n_rot} and {n_trans}.")
        r = _check_trailing(n_rot, _as_float(rot), (3,))
        t = _check_trailing(n_trans, _as_float(trans), (3,))
        batch = jnp.broadcast_shapes(r.shape[:-1], t.shape[:-1])
        self._init(jnp.broadcast_to(r, batch + (3,)), jnp.broadcast_to(t, batch + (3,)))

    @classmethod
    def _new(cls, rot: jax.Array, trans: jax.Array):
        """Build from two ``(..., 3)`` arrays, broadcasting their batch axes together."""
        batch = jnp.broadcast_shapes(rot.shape[:-1], trans.shape[:-1])
        return cls._make(jnp.broadcast_to(rot, batch + (3,)), jnp.broadcast_to(trans, batch + (3,)))

    @classmethod
    def Zero(cls, dtype: Any = None):
        """All-zero spatial vector."""
        z = jnp.zeros(3, dtype=dtype or jnp.result_type(float))
        return cls._make(z, z)

    @classmethod
    def from_coeffs(cls, coeffs: ArrayLike):
        """From the 6-vector ``[rotational; translational]`` of shape ``(..., 6)``."""
        c = _check_trailing("coeffs", _as_float(coeffs), (6,))
        return cls._make(c[..., :3], c[..., 3:])

    def rotational(self) -> jax.Array:
        """The rotational part, ``(..., 3)``."""
        return self._rot

    def translational(self) -> jax.Array:
        """The translational part, ``(..., 3)``."""
        return self._trans

    def get_coeffs(self) -> jax.Array:
        """``[rotational; translational]`` as ``(..., 6)``."""
        return jnp.concatenate([self._rot, self._trans], -1)

    def Rotate(self, R_FE: RotationMatrix | ArrayLike):
        """Re-express from frame E to frame F: both parts are multiplied by ``R_FE``."""
        return rotate(R_FE, self)

    def __rmatmul__(self, R: Any):
        if isinstance(R, RotationMatrix):
            return rotate(R, self)
        return NotImplemented

    def __add__(self, other: Any):
        if type(other) is not type(self):
            return NotImplemented
        return type(self)._new(self._rot + other._rot, self._trans + other._trans)

    def __sub__(self, other: Any):
        if type(other) is not type(self):
            return NotImplemented
        return type(self)._new(self._rot - other._rot, self._trans - other._trans)

    def __neg__(self):
        return type(self)._new(-self._rot, -self._trans)

    def __mul__(self, s: Any):
        if isinstance(s, _PytreeValue):
            return NotImplemented
        s = jnp.asarray(s)[..., None]  # scalar or per-batch scalars (...)
        return type(self)._new(s * self._rot, s * self._trans)

    __rmul__ = __mul__

    def _dot(self, other: _SpatialVector, allowed: tuple[type, ...]) -> jax.Array:
        if not isinstance(other, allowed):
            names = " or ".join(t.__name__ for t in allowed)
            raise TypeError(f"{type(self).__name__}.dot() takes a {names}; got {type(other)}.")
        return jnp.sum(self._rot * other._rot, -1) + jnp.sum(self._trans * other._trans, -1)


def rotate(R_FE: RotationMatrix | ArrayLike, V: _SpatialVector):
    """Re-express a spatial vector from frame E to F: ``[R_FE r; R_FE t]``; same type as ``V``.

    Args:
        R_FE: `RotationMatrix` or ``(..., 3, 3)`` array; batch axes broadcast with ``V``'s.
        V: a SpatialVelocity, SpatialAcceleration, SpatialForce or SpatialMomentum.
    """
    R = R_FE.matrix() if isinstance(R_FE, RotationMatrix) else _as_float(R_FE)
    _check_trailing("R_FE", R, (3, 3))
    return type(V)._new(_rot3(R, V._rot), _rot3(R, V._trans))


@jax.tree_util.register_pytree_node_class
class SpatialVelocity(_SpatialVector):
    """``V_MB_E = [w_MB_E; v_MBo_E]``: angular velocity (rad/s) and velocity of Bo (m/s).

    ``SpatialVelocity(w, v)``, ``SpatialVelocity(V)`` with ``V: (..., 6)``, or no argument (NaN).
    """

    __slots__ = ()
    _names = ("w", "v", "V")

    def __init__(self, w: ArrayLike | None = None, v: ArrayLike | None = None, *,
                 V: ArrayLike | None = None) -> None:
        self._setup(w, v, V)

    def Shift(self, offset: ArrayLike) -> SpatialVelocity:
        """``V_MC_E`` of frame C fixed to B, from ``offset = p_BoCo_E: (..., 3)`` (m).

        ``w`` unchanged; ``v_MCo = v_MBo + w_MB x p_BoCo``.
        """
        p = _as_float(offset)
        return SpatialVelocity._new(self._rot, self._trans + jnp.cross(self._rot, p))

    def ComposeWithMovingFrameVelocity(self, position_of_moving_frame: ArrayLike,
                                       velocity_of_moving_frame: SpatialVelocity
                                       ) -> SpatialVelocity:
        """``V_MC_E`` from ``self = V_MB_E``, ``p_BoCo_E`` and ``V_BC_E`` (Drake's formula).

        ``w_MC = w_MB + w_BC``; ``v_MCo = v_MBo + w_MB x p_BoCo + v_BCo``.
        """
        p = _as_float(position_of_moving_frame)
        V_BC = velocity_of_moving_frame
        return SpatialVelocity._new(
            self._rot + V_BC._rot, self._trans + jnp.cross(self._rot, p) + V_BC._trans
        )

    ComposeWithMovingFrame = ComposeWithMovingFrameVelocity

    def dot(self, other: SpatialForce | SpatialMomentum) -> jax.Array:
        """Power ``V·F`` (W) with a SpatialForce, or ``2 KE`` (J) with a SpatialMomentum."""
        return self._dot(other, (SpatialForce, SpatialMomentum))


@jax.tree_util.register_pytree_node_class
class SpatialAcceleration(_SpatialVector):
    """``A_MB_E = [alpha_MB_E; a_MBo_E]`` (rad/s², m/s²).

    ``SpatialAcceleration(alpha, a)``, ``SpatialAcceleration(A)`` with ``A: (..., 6)``.
    """

    __slots__ = ()
    _names = ("alpha", "a", "A")

    def __init__(self, alpha: ArrayLike | None = None, a: ArrayLike | None = None, *,
                 A: ArrayLike | None = None) -> None:
        self._setup(alpha, a, A)

    def Shift(self, offset: ArrayLike, angular_velocity_of_this_frame: ArrayLike
              ) -> SpatialAcceleration:
        """``A_MC_E`` of frame C fixed to B, from ``offset = p_BoCo_E`` and ``w_MB_E``.

        ``alpha`` unchanged; ``a_MCo = a_MBo + alpha_MB x p + w_MB x (w_MB x p)``.
        """
        p = _as_float(offset)
        w = _as_float(angular_velocity_of_this_frame)
        a = self._trans + jnp.cross(self._rot, p) + jnp.cross(w, jnp.cross(w, p))
        return SpatialAcceleration._new(self._rot, a)

    def ShiftWithZeroAngularVelocity(self, offset: ArrayLike) -> SpatialAcceleration:
        """`Shift` with ``w_MB = 0``: ``a_MCo = a_MBo + alpha_MB x p_BoCo``."""
        p = _as_float(offset)
        return SpatialAcceleration._new(self._rot, self._trans + jnp.cross(self._rot, p))

    def ComposeWithMovingFrameAcceleration(
        self, position_of_moving_frame: ArrayLike, angular_velocity_of_this_frame: ArrayLike,
        velocity_of_moving_frame: SpatialVelocity,
        acceleration_of_moving_frame: SpatialAcceleration,
    ) -> SpatialAcceleration:
        """``A_MC_E`` from ``self = A_MB_E``, ``p_BoCo_E``, ``w_MB_E``, ``V_BC_E``, ``A_BC_E``.

        ``alpha_MC = alpha_MB + alpha_BC + w_MB x w_BC``;
        ``a_MCo = a_MBo + alpha_MB x p + w_MB x (w_MB x p) + 2 w_MB x v_BCo + a_BCo``.
        """
        p = _as_float(position_of_moving_frame)
        w = _as_float(angular_velocity_of_this_frame)
        V_BC, A_BC = velocity_of_moving_frame, acceleration_of_moving_frame
        alpha = self._rot + A_BC._rot + jnp.cross(w, V_BC._rot)
        a = (self._trans + jnp.cross(self._rot, p) + jnp.cross(w, jnp.cross(w, p))
             + 2.0 * jnp.cross(w, V_BC._trans) + A_BC._trans)
        return SpatialAcceleration._new(alpha, a)

    ComposeWithMovingFrame = ComposeWithMovingFrameAcceleration


class _ForceLike(_SpatialVector):
    """Shift rule shared by forces and momenta: ``r_Bq = r_Bp - p_BpBq x t``."""

    __slots__ = ()

    def Shift(self, offset: ArrayLike):
        """Shift from about-point Bp to Bq, ``offset = p_BpBq_E: (..., 3)`` (m).

        ``rot_Bq = rot_Bp - p_BpBq x trans``; ``trans`` unchanged.
        """
        p = _as_float(offset)
        return type(self)._new(self._rot - jnp.cross(p, self._trans), self._trans)

    def dot(self, velocity: SpatialVelocity) -> jax.Array:
        """Power (force) or ``2 KE`` (momentum) with a `SpatialVelocity` at the same point."""
        return self._dot(velocity, (SpatialVelocity,))


@jax.tree_util.register_pytree_node_class
class SpatialForce(_ForceLike):
    """``F_Bo_E = [tau_Bo_E; f_Bo_E]``: torque about Bo (N·m) and force at Bo (N).

    ``SpatialForce(tau, f)``, ``SpatialForce(F)`` with ``F: (..., 6)``.
    """

    __slots__ = ()
    _names = ("tau", "f", "F")

    def __init__(self, tau: ArrayLike | None = None, f: ArrayLike | None = None, *,
                 F: ArrayLike | None = None) -> None:
        self._setup(tau, f, F)


@jax.tree_util.register_pytree_node_class
class SpatialMomentum(_ForceLike):
    """``L_MBo_E = [h_MBo_E; l_MB_E]``: angular momentum about Bo and linear momentum.

    ``SpatialMomentum(h, l)``, ``SpatialMomentum(L)`` with ``L: (..., 6)``.
    """

    __slots__ = ()
    _names = ("h", "l", "L")

    def __init__(self, h: ArrayLike | None = None, l: ArrayLike | None = None, *,
                 L: ArrayLike | None = None) -> None:
        self._setup(h, l, L)
