"""Geometry properties with Drake's names: `CoulombFriction` and its combination rule,
`ProximityProperties` (contact material) and `IllustrationProperties` (visual color).

Properties are ``(group, name) -> value`` tables, as Drake's ``GeometryProperties``. The contact
solver reads these entries of a collision geometry's `ProximityProperties` (Drake's names):

- ``("material", "coulomb_friction")``: a `CoulombFriction`;
- ``("material", "point_contact_stiffness")``: float, N/m, > 0;
- ``("material", "hunt_crossley_dissipation")``: float, s/m, >= 0;
- ``("material", "relaxation_time")``: float, s, >= 0 (SAP's dissipation time scale).

Example:
    >>> from jaxbody.geometry import CoulombFriction, CalcContactFrictionFromSurfaceProperties
    >>> mu = CalcContactFrictionFromSurfaceProperties(CoulombFriction(0.5, 0.4),
    ...                                               CoulombFriction(1.0, 0.8))
    >>> round(mu.dynamic_friction(), 6)
    0.533333
"""

from __future__ import annotations

import copy

import numpy as np

MATERIAL_GROUP = "material"
FRICTION = "coulomb_friction"
POINT_STIFFNESS = "point_contact_stiffness"
HUNT_CROSSLEY_DISSIPATION = "hunt_crossley_dissipation"
RELAXATION_TIME = "relaxation_time"


class CoulombFriction:
    """Static and dynamic Coulomb friction coefficients of a surface (dimensionless).

    Both must be finite and >= 0, and ``dynamic_friction <= static_friction`` (as in Drake).
    """

    def __init__(self, static_friction=0.0, dynamic_friction=0.0):
        mu_s, mu_d = float(static_friction), float(dynamic_friction)
        for what, mu in (("static", mu_s), ("dynamic", mu_d)):
            if not (np.isfinite(mu) and mu >= 0):
                raise ValueError(f"CoulombFriction: the {what} friction must be finite and "
                                 f">= 0, given {mu}")
        if mu_d > mu_s:
            raise ValueError(f"CoulombFriction: the given dynamic friction ({mu_d}) is greater "
                             f"than the given static friction ({mu_s}); dynamic friction must "
                             "be less than or equal to static friction")
        self._static, self._dynamic = mu_s, mu_d

    def static_friction(self) -> float:
        return self._static

    def dynamic_friction(self) -> float:
        return self._dynamic

    def __eq__(self, other):
        if not isinstance(other, CoulombFriction):
            return NotImplemented
        return (self._static, self._dynamic) == (other._static, other._dynamic)

    def __hash__(self):
        return hash((self._static, self._dynamic))

    def __repr__(self):
        return f"CoulombFriction(static_friction={self._static:g}, dynamic_friction={self._dynamic:g})"


def CalcContactFrictionFromSurfaceProperties(surface_properties1, surface_properties2):
    """Drake's rule for the friction of a contact between two surfaces:
    ``μ = 2 μ₁ μ₂ / (μ₁ + μ₂)`` for the static and the dynamic coefficients (0 if both are 0).
    """
    def combine(a, b):
        return 0.0 if a + b == 0.0 else 2.0 * a * b / (a + b)

    return CoulombFriction(
        combine(surface_properties1.static_friction(), surface_properties2.static_friction()),
        combine(surface_properties1.dynamic_friction(), surface_properties2.dynamic_friction()))


class GeometryProperties:
    """A table of properties in named groups, as Drake's ``GeometryProperties``."""

    _DEFAULT_GROUP = "__default__"

    def __init__(self, other=None):
        self._groups = {self._DEFAULT_GROUP: {}}
        if other is not None:
            self._groups = copy.deepcopy(other._groups)

    @classmethod
    def default_group_name(cls) -> str:
        return cls._DEFAULT_GROUP

    def num_groups(self) -> int:
        return len(self._groups)

    def HasGroup(self, group_name) -> bool:
        return group_name in self._groups

    def GetGroupNames(self) -> set:
        return set(self._groups)

    def GetPropertiesInGroup(self, group_name) -> dict:
        if group_name not in self._groups:
            raise ValueError(f"{type(self).__name__}: no group named '{group_name}'")
        return dict(self._groups[group_name])

    def HasProperty(self, group_name, name) -> bool:
        return name in self._groups.get(group_name, {})

    def AddProperty(self, group_name, name, value):
        """Adds a new property; raises if ``(group_name, name)`` already exists."""
        if self.HasProperty(group_name, name):
            raise ValueError(f"{type(self).__name__}: trying to add property ('{group_name}', "
                             f"'{name}'); the property already exists")
        self._groups.setdefault(group_name, {})[name] = value

    def UpdateProperty(self, group_name, name, value):
        """Sets a property, adding it if absent."""
        self._groups.setdefault(group_name, {})[name] = value

    def GetProperty(self, group_name, name):
        if not self.HasProperty(group_name, name):
            raise ValueError(f"{type(self).__name__}: there is no property ('{group_name}', "
                             f"'{name}')")
        return self._groups[group_name][name]

    def GetPropertyOrDefault(self, group_name, name, default_value):
        return self._groups.get(group_name, {}).get(name, default_value)

    def RemoveProperty(self, group_name, name) -> bool:
        if not self.HasProperty(group_name, name):
            return False
        del self._groups[group_name][name]
        return True

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._groups == other._groups

    __hash__ = None

    def __repr__(self):
        lines = []
        for g in sorted(self._groups):
            lines.append(f"[{g}]")
            lines += [f"  {n}: {v!r}" for n, v in sorted(self._groups[g].items())]
        return "\n".join(lines)


class ProximityProperties(GeometryProperties):
    """Properties of a collision geometry (contact material, see the module docstring)."""


class IllustrationProperties(GeometryProperties):
    """Properties of a visual geometry: ``("phong", "diffuse")`` is its RGBA color."""


def MakePhongIllustrationProperties(diffuse) -> IllustrationProperties:
    """Illustration properties with diffuse color ``diffuse`` (RGBA, each in [0, 1])."""
    rgba = _rgba(diffuse, "MakePhongIllustrationProperties")
    props = IllustrationProperties()
    props.AddProperty("phong", "diffuse", rgba)
    return props


def _rgba(color, what):
    c = np.asarray(color, dtype=float).reshape(-1)
    if c.shape == (3,):
        c = np.append(c, 1.0)
    if c.shape != (4,) or not np.all(np.isfinite(c)) or np.any((c < 0) | (c > 1)):
        raise ValueError(f"{what}: a color must be 3 or 4 numbers in [0, 1] (RGB[A]), got {color}")
    return c


def AddContactMaterial(dissipation=None, point_stiffness=None, friction=None, properties=None):
    """Adds Drake's contact-material entries to ``properties`` (as Drake's
    ``geometry::AddContactMaterial``), validating each value. Returns ``properties``.

    Args:
        dissipation: Hunt-Crossley dissipation (s/m), >= 0, or None.
        point_stiffness: point-contact stiffness (N/m), > 0, or None.
        friction: a `CoulombFriction`, or None.
        properties: the `ProximityProperties` to add to (a new one if None).
    """
    props = ProximityProperties() if properties is None else properties
    if dissipation is not None:
        d = float(dissipation)
        if not (np.isfinite(d) and d >= 0):
            raise ValueError(f"AddContactMaterial: the dissipation can't be negative (or "
                             f"non-finite); given {dissipation}")
        props.AddProperty(MATERIAL_GROUP, HUNT_CROSSLEY_DISSIPATION, d)
    if point_stiffness is not None:
        k = float(point_stiffness)
        if not (np.isfinite(k) and k > 0):
            raise ValueError(f"AddContactMaterial: the point stiffness must be strictly "
                             f"positive and finite; given {point_stiffness}")
        props.AddProperty(MATERIAL_GROUP, POINT_STIFFNESS, k)
    if friction is not None:
        if not isinstance(friction, CoulombFriction):
            raise TypeError(f"AddContactMaterial: friction must be a CoulombFriction, got "
                            f"{type(friction).__name__}")
        props.AddProperty(MATERIAL_GROUP, FRICTION, friction)
    return props


HYDRO_GROUP = "hydroelastic"


def _hydro_value(what, name, value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = float("nan")
    if not (np.isfinite(x) and x > 0):
        raise ValueError(f"{what}: {name} must be a finite number > 0, got {value!r}")
    return x


def AddRigidHydroelasticProperties(resolution_hint=None, properties=None):
    """Declares a collision geometry rigid for hydroelastic contact (Drake's function of the same
    name): ``("hydroelastic", "compliance_type") = "rigid"`` and, if given, the
    ``resolution_hint`` (m) of its surface mesh (needed for Sphere, Cylinder, Capsule and
    Ellipsoid). Returns ``properties`` (a new `ProximityProperties` if None). Also accepts
    ``AddRigidHydroelasticProperties(properties)``, as pydrake does."""
    if isinstance(resolution_hint, GeometryProperties) and properties is None:
        resolution_hint, properties = None, resolution_hint
    props = ProximityProperties() if properties is None else properties
    if resolution_hint is not None:
        props.AddProperty(HYDRO_GROUP, "resolution_hint", _hydro_value(
            "AddRigidHydroelasticProperties", "resolution_hint", resolution_hint))
    props.AddProperty(HYDRO_GROUP, "compliance_type", "rigid")
    return props


def AddCompliantHydroelasticProperties(resolution_hint, hydroelastic_modulus, properties=None):
    """Declares a collision geometry compliant for hydroelastic contact (Drake's function of
    the same name): its tetrahedral mesh's ``resolution_hint`` (m; Box and Convex ignore it) and
    its ``hydroelastic_modulus`` E (Pa): the pressure field is E times the extent (0 on the
    surface, 1 deepest). Returns ``properties`` (a new `ProximityProperties` if None)."""
    what = "AddCompliantHydroelasticProperties"
    props = ProximityProperties() if properties is None else properties
    props.AddProperty(HYDRO_GROUP, "resolution_hint",
                      _hydro_value(what, "resolution_hint", resolution_hint))
    props.AddProperty(HYDRO_GROUP, "hydroelastic_modulus",
                      _hydro_value(what, "hydroelastic_modulus", hydroelastic_modulus))
    props.AddProperty(HYDRO_GROUP, "compliance_type", "compliant")
    return props


def AddCompliantHydroelasticPropertiesForHalfSpace(slab_thickness, hydroelastic_modulus,
                                                   properties=None):
    """A compliant half space (Drake's function of the same name): a slab of
    ``slab_thickness`` (m) with ``hydroelastic_modulus`` E (Pa). Returns ``properties``."""
    what = "AddCompliantHydroelasticPropertiesForHalfSpace"
    props = ProximityProperties() if properties is None else properties
    props.AddProperty(HYDRO_GROUP, "slab_thickness",
                      _hydro_value(what, "slab_thickness", slab_thickness))
    props.AddProperty(HYDRO_GROUP, "hydroelastic_modulus",
                      _hydro_value(what, "hydroelastic_modulus", hydroelastic_modulus))
    props.AddProperty(HYDRO_GROUP, "compliance_type", "compliant")
    return props
