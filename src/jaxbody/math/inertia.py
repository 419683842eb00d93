"""Drake's `RotationalInertia` and `UnitInertia` as immutable JAX pytrees, and the pure inertia
kernels that `SpatialInertia` (in `spatial_inertia.py`) and the multibody algorithms share.

A `RotationalInertia` ``I_BP_E`` (kg·m²) is a symmetric 3 × 3 matrix of a body B about a point
P, expressed in E; a `UnitInertia` ``G_BP_E`` (m²) is the same per unit mass. Leaves may carry
leading batch axes ``(..., 3, 3)``. Validity checks (``ValueError``) run only on concrete values.

Example:
    >>> G = UnitInertia.SolidBox(0.1, 0.2, 0.3)
    >>> I = RotationalInertia(1.0, 2.0, 3.0).ShiftFromCenterOfMass(2.0, jnp.array([0.0, 0.0, 0.5]))
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.math import so3
from jaxbody.math.rotation import (
    ArrayLike,
    RotationMatrix,
    _as_float,
    _check_trailing,
    _is_concrete,
    _PytreeValue,
)

# Drake: |‖unit_vector‖ - 1| must not exceed 1e-14 (widened to 16 eps for float32 inputs).
UNIT_VECTOR_TOLERANCE = 1e-14
# Drake's CouldBePhysicallyValid tolerance: 16 eps max(1, trace/2).
_VALIDITY_EPS_MULTIPLE = 16


# ------------------------------------------------------------------ pure array kernels
def point_mass_unit_inertia(p):
    """Unit inertia about the origin of a particle at ``p: (..., 3)``: ``|p|² 1 − p pᵀ``
    (= −[p]×², the parallel-axis term of every center-of-mass shift). NumPy in, NumPy out (the
    builders and parsers stay in float64 whatever JAX's precision); a JAX array in, JAX out."""
    xp = so3._xp(p)
    p = xp.asarray(p)
    return (xp.sum(p * p, -1)[..., None, None] * xp.eye(3, dtype=p.dtype)
            - p[..., :, None] * p[..., None, :])


_point_mass_G = point_mass_unit_inertia


def _rotate_sym(R: jax.Array, I: jax.Array) -> jax.Array:
    return R @ I @ jnp.swapaxes(R, -1, -2)


def spatial_inertia_matrix(mass: ArrayLike, p_BoBcm_B: ArrayLike, G_BBo_B: ArrayLike) -> jax.Array:
    """6x6 spatial inertia ``M_BBo_B`` [angular; linear], batched over leading axes.

    Args:
        mass: ``(...)`` kg.
        p_BoBcm_B: ``(..., 3)`` center of mass from Bo, in B (m).
        G_BBo_B: ``(..., 3, 3)`` unit inertia about Bo, in B (m²).

    Returns:
        ``(..., 6, 6)`` matrix ``[[m G, m [p]x], [-m [p]x, m 1]]``.
    """
    m = _as_float(mass)
    p, G = _as_float(p_BoBcm_B), _as_float(G_BBo_B)
    batch = jnp.broadcast_shapes(m.shape, p.shape[:-1], G.shape[:-2])
    m = jnp.broadcast_to(m, batch)[..., None, None]
    mS = m * so3.skew(jnp.broadcast_to(p, batch + (3,)))
    eye = jnp.eye(3, dtype=mS.dtype)
    top = jnp.concatenate([m * G, mS], -1)
    bottom = jnp.concatenate([-mS, m * eye], -1)
    return jnp.concatenate([jnp.broadcast_to(top, batch + (3, 6)), bottom], -2)


def rotational_inertia_about_com(mass: ArrayLike, p: ArrayLike, G: ArrayLike) -> jax.Array:
    """``I_BBcm = m (G_BBo - [|p|² 1 - p pᵀ])`` (kg m²) from ``mass (...)``, ``p (..., 3)``,
    ``G (..., 3, 3)`` about Bo; batched."""
    m, p, G = _as_float(mass), _as_float(p), _as_float(G)
    return m[..., None, None] * (G - _point_mass_G(p))


def _could_be_physically_valid(I: jax.Array) -> jax.Array:
    """Drake's test on ``I: (..., 3, 3)``: finite, principal moments >= -eps, triangle rule."""
    finite = jnp.all(jnp.isfinite(I), axis=(-2, -1))
    I = jnp.where(finite[..., None, None], I, 0.0)
    pm = jnp.linalg.eigvalsh(I)
    trace = jnp.trace(I, axis1=-2, axis2=-1)
    eps = _VALIDITY_EPS_MULTIPLE * jnp.finfo(I.dtype).eps * jnp.maximum(1.0, 0.5 * trace)
    a, b, c = pm[..., 0], pm[..., 1], pm[..., 2]
    positive = (a + eps >= 0) & (b + eps >= 0) & (c + eps >= 0)
    triangle = (a + b + eps >= c) & (a + c + eps >= b) & (b + c + eps >= a)
    return finite & positive & triangle


# ------------------------------------------------------------------ concrete-value checks
def _check_positive_finite(func: str, name: str, value: ArrayLike) -> None:
    if _is_concrete(value):
        v = np.asarray(value)
        if not np.all(np.isfinite(v) & (v > 0)):
            raise ValueError(f"{func}(): {name} is not positive and finite: {v}.")


def _check_nonnegative(func: str, name: str, value: ArrayLike) -> None:
    if _is_concrete(value):
        v = np.asarray(value)
        if not np.all(v >= 0):
            raise ValueError(f"{func}(): {name} must be non-negative: {v}.")


def _check_unit_vector(func: str, u: jax.Array) -> None:
    if _is_concrete(u):
        n = np.linalg.norm(np.asarray(u), axis=-1)
        tol = max(UNIT_VECTOR_TOLERANCE, 16 * float(jnp.finfo(u.dtype).eps))
        if not np.all(np.abs(n - 1) <= tol):
            raise ValueError(
                f"{func}(): The unit_vector argument {np.asarray(u)} is not a unit vector: "
                f"|unit_vector| = {n}, which is not within {tol:g} of 1."
            )


# ------------------------------------------------------------------ RotationalInertia
def _sym_from_moments(Ixx, Iyy, Izz, Ixy=0.0, Ixz=0.0, Iyz=0.0) -> jax.Array:
    v = jnp.broadcast_arrays(*(_as_float(x) for x in (Ixx, Iyy, Izz, Ixy, Ixz, Iyz)))
    xx, yy, zz, xy, xz, yz = v
    rows = [jnp.stack(r, -1) for r in ((xx, xy, xz), (xy, yy, yz), (xz, yz, zz))]
    return jnp.stack(rows, -2)


@jax.tree_util.register_pytree_node_class
class RotationalInertia(_PytreeValue):
    """Rotational inertia ``I_BP_E`` (kg m²) of a body B about a point P, expressed in E.

    ``RotationalInertia(Ixx, Iyy, Izz)``, ``RotationalInertia(Ixx, Iyy, Izz, Ixy, Ixz, Iyz)``,
    ``RotationalInertia(mass, p_PQ_E)`` (a particle Q), ``RotationalInertia(I=M)`` with
    ``M: (..., 3, 3)``, or no argument (NaN, as pydrake). Not validated (as pydrake release);
    use `MakeFromMomentsAndProductsOfInertia` or `CouldBePhysicallyValid`.
    """

    __slots__ = ("_I",)
    _fields = ("_I",)

    def __init__(self, *args: Any, I: Any = None) -> None:
        self._init(self._parse(args, I, allow_particle=True))

    @staticmethod
    def _parse(args: tuple, I: Any, allow_particle: bool) -> jax.Array:
        if I is not None:
            if args:
                raise TypeError("I= cannot be combined with positional arguments.")
            if isinstance(I, RotationalInertia):
                return I._I
            return _check_trailing("I", _as_float(I), (3, 3))
        if not args:
            return jnp.full((3, 3), jnp.nan, dtype=jnp.result_type(float))
        if len(args) == 2 and allow_particle:
            mass, p_PQ_E = args
            _check_nonnegative("RotationalInertia", "mass", mass)
            p = _check_trailing("p_PQ_E", _as_float(p_PQ_E), (3,))
            return _as_float(mass)[..., None, None] * _point_mass_G(p)
        if len(args) not in (3, 6):
            raise TypeError(f"give (Ixx, Iyy, Izz) or (Ixx, Iyy, Izz, Ixy, Ixz, Iyz); got "
                            f"{len(args)} arguments.")
        return _sym_from_moments(*args)

    @classmethod
    def MakeFromMomentsAndProductsOfInertia(cls, Ixx, Iyy, Izz, Ixy, Ixz, Iyz,
                                            skip_validity_check: bool = False):
        """Like the 6-argument constructor, but raises ValueError (when concrete and not
        ``skip_validity_check``) unless `CouldBePhysicallyValid`."""
        out = cls._make(_sym_from_moments(Ixx, Iyy, Izz, Ixy, Ixz, Iyz))
        if not skip_validity_check and _is_concrete(out._I):
            if not np.all(np.asarray(out.CouldBePhysicallyValid())):
                raise ValueError(
                    f"MakeFromMomentsAndProductsOfInertia(): The rotational inertia\n"
                    f"{np.asarray(out._I)}\ndid not pass the test CouldBePhysicallyValid(); "
                    f"principal moments {np.asarray(out.CalcPrincipalMomentsOfInertia())}."
                )
        return out

    # -- accessors
    def CopyToFullMatrix3(self) -> jax.Array:
        """The symmetric ``(..., 3, 3)`` matrix."""
        return self._I

    def get_moments(self) -> jax.Array:
        """``[Ixx, Iyy, Izz]``, ``(..., 3)``."""
        return jnp.diagonal(self._I, axis1=-2, axis2=-1)

    def get_products(self) -> jax.Array:
        """``[Ixy, Ixz, Iyz]``, ``(..., 3)``."""
        I = self._I
        return jnp.stack([I[..., 0, 1], I[..., 0, 2], I[..., 1, 2]], -1)

    def Trace(self) -> jax.Array:
        return jnp.trace(self._I, axis1=-2, axis2=-1)

    def CalcMaximumPossibleMomentOfInertia(self) -> jax.Array:
        """``Trace / 2``, an upper bound on any moment of a valid inertia."""
        return 0.5 * self.Trace()

    def CalcPrincipalMomentsOfInertia(self) -> jax.Array:
        """Eigenvalues in ascending order, ``(..., 3)``."""
        return jnp.linalg.eigvalsh(self._I)

    def CouldBePhysicallyValid(self) -> jax.Array:
        """Drake's necessary test: finite, principal moments >= 0 and the triangle inequality,
        to ``16 eps max(1, trace/2)``. Boolean array ``(...)``."""
        return _could_be_physically_valid(self._I)

    def IsNaN(self) -> jax.Array:
        return jnp.any(jnp.isnan(self._I), axis=(-2, -1))

    # -- operations
    def ReExpress(self, R_AE: RotationMatrix | ArrayLike):
        """``I_BP_A = R_AE I_BP_E R_AEᵀ`` (same class as ``self``)."""
        R = R_AE.matrix() if isinstance(R_AE, RotationMatrix) else _as_float(R_AE)
        return type(self)._make(_rotate_sym(R, self._I))

    def ShiftFromCenterOfMass(self, mass: ArrayLike, p_BcmQ_E: ArrayLike) -> RotationalInertia:
        """``I_BQ = I_BBcm + m PointMass(p_BcmQ)`` (parallel axis theorem)."""
        return RotationalInertia._make(self._I + _as_float(mass)[..., None, None]
                                       * _point_mass_G(_as_float(p_BcmQ_E)))

    def ShiftToCenterOfMass(self, mass: ArrayLike, p_QBcm_E: ArrayLike) -> RotationalInertia:
        """``I_BBcm = I_BQ - m PointMass(p_QBcm)``."""
        return RotationalInertia._make(self._I - _as_float(mass)[..., None, None]
                                       * _point_mass_G(_as_float(p_QBcm_E)))

    def __add__(self, other: Any) -> RotationalInertia:
        if not isinstance(other, RotationalInertia):
            return NotImplemented
        return RotationalInertia._make(self._I + other._I)

    def __sub__(self, other: Any) -> RotationalInertia:
        if not isinstance(other, RotationalInertia):
            return NotImplemented
        return RotationalInertia._make(self._I - other._I)

    def __mul__(self, s: Any) -> RotationalInertia:
        if isinstance(s, _PytreeValue):
            return NotImplemented
        return RotationalInertia._make(jnp.asarray(s)[..., None, None] * self._I)

    __rmul__ = __mul__

    def __truediv__(self, s: Any) -> RotationalInertia:
        return RotationalInertia._make(self._I / jnp.asarray(s)[..., None, None])


# ------------------------------------------------------------------ UnitInertia
@jax.tree_util.register_pytree_node_class
class UnitInertia(RotationalInertia):
    """Unit inertia ``G_BP_E = I_BP_E / m`` (m²). Scaling or adding gives a `RotationalInertia`.

    ``UnitInertia(Ixx, Iyy, Izz[, Ixy, Ixz, Iyz])`` or ``UnitInertia(I=M)`` (``M`` a
    RotationalInertia or ``(..., 3, 3)``, trusted to be a unit inertia), or the factories below.
    """

    __slots__ = ()

    def __init__(self, *args: Any, I: Any = None) -> None:
        self._init(self._parse(args, I, allow_particle=False))

    def ShiftFromCenterOfMass(self, p_BcmQ_E: ArrayLike) -> UnitInertia:  # type: ignore[override]
        """``G_BQ = G_BBcm + PointMass(p_BcmQ)``."""
        return UnitInertia._make(self._I + _point_mass_G(_as_float(p_BcmQ_E)))

    def ShiftToCenterOfMass(self, p_QBcm_E: ArrayLike) -> UnitInertia:  # type: ignore[override]
        """``G_BBcm = G_BQ - PointMass(p_QBcm)``."""
        return UnitInertia._make(self._I - _point_mass_G(_as_float(p_QBcm_E)))

    @classmethod
    def PointMass(cls, p_FQ: ArrayLike) -> UnitInertia:
        """Unit inertia about Fo of a particle at ``p_FQ: (..., 3)``."""
        return cls._make(_point_mass_G(_check_trailing("p_FQ", _as_float(p_FQ), (3,))))

    @classmethod
    def TriaxiallySymmetric(cls, I_triaxial: ArrayLike) -> UnitInertia:
        """``I_triaxial * 1``."""
        i = _as_float(I_triaxial)
        return cls._make(i[..., None, None] * jnp.eye(3, dtype=i.dtype))

    @classmethod
    def AxiallySymmetric(cls, moment_parallel, moment_perpendicular, unit_vector) -> UnitInertia:
        """``K 1 + (J - K) b bᵀ`` with ``J`` about the axis ``b`` (normalized here)."""
        b = _check_trailing("unit_vector", _as_float(unit_vector), (3,))
        b = b / so3.safe_norm(b, keepdims=True)
        J, K = _as_float(moment_parallel)[..., None, None], _as_float(moment_perpendicular)
        eye = jnp.eye(3, dtype=b.dtype)
        return cls._make(K[..., None, None] * eye + (J - K[..., None, None])
                         * (b[..., :, None] * b[..., None, :]))

    @classmethod
    def SolidEllipsoid(cls, a, b, c) -> UnitInertia:
        """Solid ellipsoid with semi-axes ``a, b, c`` (m) along x, y, z, about its center."""
        for n, v in (("a", a), ("b", b), ("c", c)):
            _check_nonnegative("SolidEllipsoid", n, v)
        a2, b2, c2 = (_as_float(x) ** 2 for x in (a, b, c))
        return cls._make(_sym_from_moments((b2 + c2) / 5, (a2 + c2) / 5, (a2 + b2) / 5))

    @classmethod
    def SolidSphere(cls, r) -> UnitInertia:
        """Solid sphere of radius ``r`` (m): ``2 r² / 5``."""
        _check_nonnegative("SolidSphere", "radius", r)
        return cls.TriaxiallySymmetric(0.4 * _as_float(r) ** 2)

    @classmethod
    def SolidBox(cls, Lx, Ly, Lz) -> UnitInertia:
        """Solid box with side lengths ``Lx, Ly, Lz`` (m), about its center."""
        for n, v in (("Lx", Lx), ("Ly", Ly), ("Lz", Lz)):
            _check_nonnegative("SolidBox", n, v)
        x2, y2, z2 = (_as_float(x) ** 2 for x in (Lx, Ly, Lz))
        return cls._make(_sym_from_moments((y2 + z2) / 12, (x2 + z2) / 12, (x2 + y2) / 12))

    @classmethod
    def SolidCylinder(cls, radius, length, unit_vector) -> UnitInertia:
        """Solid cylinder (axis ``unit_vector``), about its center: ``J = r²/2``,
        ``K = (3 r² + L²)/12``."""
        _check_nonnegative("SolidCylinder", "radius", radius)
        _check_nonnegative("SolidCylinder", "length", length)
        _check_unit_vector("SolidCylinder", _as_float(unit_vector))
        r2, L2 = _as_float(radius) ** 2, _as_float(length) ** 2
        return cls.AxiallySymmetric(0.5 * r2, (3 * r2 + L2) / 12.0, unit_vector)

    @classmethod
    def SolidCapsule(cls, radius, length, unit_vector) -> UnitInertia:
        """Solid capsule (cylinder of ``length`` plus two hemispheres), about its center."""
        _check_nonnegative("SolidCapsule", "radius", radius)
        _check_nonnegative("SolidCapsule", "length", length)
        _check_unit_vector("SolidCapsule", _as_float(unit_vector))
        r, L = _as_float(radius), _as_float(length)
        v_cyl, v_sph = r * r * L, (4.0 / 3.0) * r**3  # volumes / pi
        mc, ms = v_cyl / (v_cyl + v_sph), v_sph / (v_cyl + v_sph)
        J = mc * 0.5 * r * r + ms * 0.4 * r * r
        K = mc * (3 * r * r + L * L) / 12 + ms * (0.4 * r * r + 0.25 * L * L + 0.375 * L * r)
        return cls.AxiallySymmetric(J, K, unit_vector)
