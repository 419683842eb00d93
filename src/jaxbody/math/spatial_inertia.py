"""Drake's `SpatialInertia` as an immutable JAX pytree.

A `SpatialInertia` ``M_SP_E`` is Drake's triple (mass, ``p_PScm_E``, ``G_SP_E``): mass (kg), the
position of S's center of mass from the about-point P (m), and the unit inertia (rotational
inertia per unit mass, m²) of S about P -- not about the center of mass. Leaves may carry leading
batch axes: ``mass: (...)``, ``p: (..., 3)``, ``G: (..., 3, 3)``. The 6x6 form is Drake's
[angular; linear] ``[[m G, m [p]x], [-m [p]x, m 1]]``. Names follow ``pydrake.multibody.tree``.

Validity checks (``ValueError``; pydrake raises ``RuntimeError``) run only on concrete values;
under ``jit``/``vmap``/``grad`` no check is made.

Example:
    >>> import jax.numpy as jnp
    >>> M_BBo_B = SpatialInertia.SolidBoxWithMass(2.0, 0.1, 0.2, 0.3)
    >>> M_BQ_B = M_BBo_B.Shift(jnp.array([0.0, 0.0, -0.15]))   # about a face center Q
    >>> L = M_BQ_B * SpatialVelocity(jnp.array([0.0, 0.0, 1.0]), jnp.zeros(3))
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.math.inertia import (
    RotationalInertia,
    UnitInertia,
    _check_positive_finite,
    _could_be_physically_valid,
    _point_mass_G,
    _rotate_sym,
    rotational_inertia_about_com,
    spatial_inertia_matrix,
)
from jaxbody.math.rotation import (
    ArrayLike,
    RotationMatrix,
    _as_float,
    _check_trailing,
    _is_concrete,
    _PytreeValue,
)
from jaxbody.math.spatial_algebra import (
    SpatialAcceleration,
    SpatialForce,
    SpatialMomentum,
    SpatialVelocity,
)


# ------------------------------------------------------------------ SpatialInertia
def _raise_if_invalid(mass: jax.Array, p: jax.Array, G: jax.Array) -> None:
    """pydrake's SpatialInertia::ThrowIfNotPhysicallyValid on concrete values (ValueError)."""
    head = "Spatial inertia fails SpatialInertia::IsPhysicallyValid().\n"
    m, p_np, G_np = np.asarray(mass), np.asarray(p), np.asarray(G)
    if not np.all(np.isfinite(m) & (m >= 0)):
        raise ValueError(head + f"mass = {m} is negative or not finite.")
    if not np.all(np.isfinite(p_np)):
        raise ValueError(head + f"Position vector {p_np} has non-finite elements.")
    if not np.all(np.isfinite(G_np)):
        raise ValueError(head + f"Unit inertia {G_np} has non-finite elements.")
    I_cm = rotational_inertia_about_com(mass, p, G)
    if not np.all(np.asarray(_could_be_physically_valid(I_cm))):
        raise ValueError(
            head + f" mass = {m}\n Center of mass = {p_np}\n Inertia about point P, I_BP =\n"
            f"{m[..., None, None] * G_np}\n Inertia about center of mass, I_BBcm =\n"
            f"{np.asarray(I_cm)}\n Principal moments of inertia about Bcm (center of mass) =\n"
            f"{np.asarray(jnp.linalg.eigvalsh(I_cm))}"
        )


@jax.tree_util.register_pytree_node_class
class SpatialInertia(_PytreeValue):
    """Spatial inertia ``M_SP_E`` of a body (or composite body) S about point P, expressed in E.

    Args:
        mass: ``(...)`` kg, finite and >= 0.
        p_PScm_E: ``(..., 3)`` position of S's center of mass from P, in E (m).
        G_SP_E: `UnitInertia` (or ``(..., 3, 3)`` array) of S about P -- not about Scm -- in E.
        skip_validity_check: skip `IsPhysicallyValid` (checked only on concrete values).

    Raises:
        ValueError: if checked and not physically valid (pydrake raises RuntimeError).
        TypeError: if ``G_SP_E`` is a RotationalInertia that is not a UnitInertia.
    """

    __slots__ = ("_mass", "_p", "_G")
    _fields = ("_mass", "_p", "_G")

    def __init__(self, mass: ArrayLike, p_PScm_E: ArrayLike, G_SP_E: UnitInertia | ArrayLike,
                 skip_validity_check: bool = False) -> None:
        if isinstance(G_SP_E, RotationalInertia) and not isinstance(G_SP_E, UnitInertia):
            raise TypeError("G_SP_E must be a UnitInertia (inertia per unit mass about P); for a "
                            "central RotationalInertia use SpatialInertia.MakeFromCentralInertia.")
        G = G_SP_E.CopyToFullMatrix3() if isinstance(G_SP_E, UnitInertia) else G_SP_E
        m = _as_float(mass)
        p = _check_trailing("p_PScm_E", _as_float(p_PScm_E), (3,))
        G = _check_trailing("G_SP_E", _as_float(G), (3, 3))
        batch = jnp.broadcast_shapes(m.shape, p.shape[:-1], G.shape[:-2])
        m, p = jnp.broadcast_to(m, batch), jnp.broadcast_to(p, batch + (3,))
        G = jnp.broadcast_to(G, batch + (3, 3))
        if not skip_validity_check and _is_concrete(m, p, G):
            _raise_if_invalid(m, p, G)
        self._init(m, p, G)

    # -- factories
    @classmethod
    def MakeFromCentralInertia(cls, mass, p_PScm_E, I_SScm_E: RotationalInertia | ArrayLike
                               ) -> SpatialInertia:
        """From mass (kg, > 0), ``p_PScm_E: (..., 3)`` and the central inertia ``I_SScm_E``.

        ``G_SP_E = I_SScm_E / mass + PointMass(p_PScm_E)``. Concrete ``mass <= 0`` raises
        ValueError (Drake aborts); under tracing it yields ``I_SScm_E + PointMass(p)`` (no NaN).
        """
        _check_positive_finite("MakeFromCentralInertia", "mass", mass)
        I = I_SScm_E.CopyToFullMatrix3() if isinstance(I_SScm_E, RotationalInertia) else I_SScm_E
        m, p = _as_float(mass), _as_float(p_PScm_E)
        safe_m = jnp.where(m > 0, m, 1.0)[..., None, None]
        return cls(m, p, _as_float(I) / safe_m + _point_mass_G(p))

    @classmethod
    def Zero(cls, dtype: Any = None) -> SpatialInertia:
        dtype = dtype or jnp.result_type(float)
        return cls._make(jnp.zeros((), dtype), jnp.zeros(3, dtype), jnp.zeros((3, 3), dtype))

    @classmethod
    def PointMass(cls, mass, p_PQ_E) -> SpatialInertia:
        """A particle of ``mass`` at ``p_PQ_E``, about P."""
        p = _as_float(p_PQ_E)
        return cls(mass, p, _point_mass_G(p))

    @classmethod
    def _solid(cls, func, mass_or_density, is_density, volume, G_fn, dims) -> SpatialInertia:
        _check_positive_finite(func, "density" if is_density else "mass", mass_or_density)
        for name, value in dims:
            _check_positive_finite(func, name, value)
        m = _as_float(mass_or_density)
        m = m * volume() if is_density else m
        G = G_fn().CopyToFullMatrix3()
        return cls(m, jnp.zeros(G.shape[:-1], G.dtype), G, skip_validity_check=True)

    @classmethod
    def SolidBoxWithMass(cls, mass, lx, ly, lz) -> SpatialInertia:
        """Uniform box with side lengths ``lx, ly, lz`` (m), about its center."""
        return cls._solid("SolidBoxWithMass", mass, False, None,
                          lambda: UnitInertia.SolidBox(lx, ly, lz),
                          (("x-length", lx), ("y-length", ly), ("z-length", lz)))

    @classmethod
    def SolidBoxWithDensity(cls, density, lx, ly, lz) -> SpatialInertia:
        return cls._solid("SolidBoxWithDensity", density, True,
                          lambda: _as_float(lx) * ly * lz, lambda: UnitInertia.SolidBox(lx, ly, lz),
                          (("x-length", lx), ("y-length", ly), ("z-length", lz)))

    @classmethod
    def SolidSphereWithMass(cls, mass, radius) -> SpatialInertia:
        return cls._solid("SolidSphereWithMass", mass, False, None,
                          lambda: UnitInertia.SolidSphere(radius), (("radius", radius),))

    @classmethod
    def SolidSphereWithDensity(cls, density, radius) -> SpatialInertia:
        return cls._solid("SolidSphereWithDensity", density, True,
                          lambda: (4.0 / 3.0) * np.pi * _as_float(radius) ** 3,
                          lambda: UnitInertia.SolidSphere(radius), (("radius", radius),))

    @classmethod
    def SolidEllipsoidWithMass(cls, mass, a, b, c) -> SpatialInertia:
        return cls._solid("SolidEllipsoidWithMass", mass, False, None,
                          lambda: UnitInertia.SolidEllipsoid(a, b, c),
                          (("a", a), ("b", b), ("c", c)))

    @classmethod
    def SolidEllipsoidWithDensity(cls, density, a, b, c) -> SpatialInertia:
        return cls._solid("SolidEllipsoidWithDensity", density, True,
                          lambda: (4.0 / 3.0) * np.pi * _as_float(a) * b * c,
                          lambda: UnitInertia.SolidEllipsoid(a, b, c),
                          (("a", a), ("b", b), ("c", c)))

    @classmethod
    def SolidCylinderWithMass(cls, mass, radius, length, unit_vector) -> SpatialInertia:
        """Uniform cylinder with axis ``unit_vector``, about its center."""
        return cls._solid("SolidCylinderWithMass", mass, False, None,
                          lambda: UnitInertia.SolidCylinder(radius, length, unit_vector),
                          (("radius", radius), ("length", length)))

    @classmethod
    def SolidCylinderWithDensity(cls, density, radius, length, unit_vector) -> SpatialInertia:
        return cls._solid("SolidCylinderWithDensity", density, True,
                          lambda: np.pi * _as_float(radius) ** 2 * length,
                          lambda: UnitInertia.SolidCylinder(radius, length, unit_vector),
                          (("radius", radius), ("length", length)))

    @classmethod
    def SolidCapsuleWithMass(cls, mass, radius, length, unit_vector) -> SpatialInertia:
        """Uniform capsule (cylinder ``length`` + hemispherical caps), about its center."""
        return cls._solid("SolidCapsuleWithMass", mass, False, None,
                          lambda: UnitInertia.SolidCapsule(radius, length, unit_vector),
                          (("radius", radius), ("length", length)))

    @classmethod
    def SolidCapsuleWithDensity(cls, density, radius, length, unit_vector) -> SpatialInertia:
        def volume():
            r = _as_float(radius)
            return np.pi * r * r * (length + (4.0 / 3.0) * r)
        return cls._solid("SolidCapsuleWithDensity", density, True, volume,
                          lambda: UnitInertia.SolidCapsule(radius, length, unit_vector),
                          (("radius", radius), ("length", length)))

    # -- accessors
    def get_mass(self) -> jax.Array:
        return self._mass

    def get_com(self) -> jax.Array:
        """``p_PScm_E: (..., 3)``."""
        return self._p

    def CalcComMoment(self) -> jax.Array:
        """``m p_PScm_E``."""
        return self._mass[..., None] * self._p

    def get_unit_inertia(self) -> UnitInertia:
        """``G_SP_E`` (about P)."""
        return UnitInertia._make(self._G)

    def CalcRotationalInertia(self) -> RotationalInertia:
        """``I_SP_E = m G_SP_E`` (about P)."""
        return RotationalInertia._make(self._mass[..., None, None] * self._G)

    def CopyToFullMatrix6(self) -> jax.Array:
        """``(..., 6, 6)`` [angular; linear], as pydrake."""
        return spatial_inertia_matrix(self._mass, self._p, self._G)

    def IsPhysicallyValid(self) -> jax.Array:
        """mass finite and >= 0, and ``m G_SScm`` passes `CouldBePhysicallyValid`. ``(...)``."""
        I_cm = rotational_inertia_about_com(self._mass, self._p, self._G)
        finite_p = jnp.all(jnp.isfinite(self._p), -1)
        return jnp.isfinite(self._mass) & (self._mass >= 0) & finite_p & \
            _could_be_physically_valid(I_cm)

    # -- operations
    def Shift(self, p_PQ_E: ArrayLike) -> SpatialInertia:
        """``M_SQ_E``: about Q instead of P; ``G_SQ = G_SP - PM(p_PScm) + PM(p_QScm)``."""
        p_QScm = self._p - _as_float(p_PQ_E)
        G = self._G - _point_mass_G(self._p) + _point_mass_G(p_QScm)
        return SpatialInertia(self._mass, p_QScm, G, skip_validity_check=True)

    def ReExpress(self, R_AE: RotationMatrix | ArrayLike) -> SpatialInertia:
        """``M_SP_A``: ``p -> R_AE p``, ``G -> R_AE G R_AEᵀ``."""
        R = R_AE.matrix() if isinstance(R_AE, RotationMatrix) else _as_float(R_AE)
        return SpatialInertia(self._mass, jnp.einsum("...ij,...j->...i", R, self._p),
                              _rotate_sym(R, self._G), skip_validity_check=True)

    def __add__(self, other: Any) -> SpatialInertia:
        """Composite of two inertias about the same point P in the same frame E.

        With zero total mass, Drake's limit is used: the mean of the COMs and unit inertias.
        """
        if not isinstance(other, SpatialInertia):
            return NotImplemented
        return SpatialInertia._make(jnp.stack([self._mass, other._mass]),
                                    jnp.stack([self._p, other._p]),
                                    jnp.stack([self._G, other._G]))._sum_over_batch()

    def _sum_over_batch(self) -> SpatialInertia:
        """The composite of a batch of inertias ``(n, ...)`` about the same point P in the same
        frame E (the sum over the leading axis; Drake's ``+`` folded over n terms, with its
        zero-mass limit: the mean of the COMs and unit inertias)."""
        m = jnp.sum(self._mass, 0)
        nz = m != 0
        safe_m = jnp.where(nz, m, 1.0)
        p = jnp.where(nz[..., None], jnp.sum(self.CalcComMoment(), 0) / safe_m[..., None],
                      jnp.mean(self._p, 0))
        mG = jnp.sum(self._mass[..., None, None] * self._G, 0)
        G = jnp.where(nz[..., None, None], mG / safe_m[..., None, None], jnp.mean(self._G, 0))
        return SpatialInertia(m, p, G, skip_validity_check=True)

    def __mul__(self, other: Any):
        """``M * V`` -> SpatialMomentum; ``M * A`` -> SpatialForce (same point and frame)."""
        if isinstance(other, SpatialVelocity):
            out = SpatialMomentum
        elif isinstance(other, SpatialAcceleration):
            out = SpatialForce
        else:
            return NotImplemented
        m, c = self._mass[..., None], self._p
        w, v = other.rotational(), other.translational()
        h = m * (jnp.einsum("...ij,...j->...i", self._G, w) + jnp.cross(c, v))
        l = m * (v - jnp.cross(c, w))
        return out._new(h, l)
