"""Per-geometry contact properties and Drake's rules for combining them per contact point.

Per geometry (``ProximityProperties`` group ``"material"``, Drake's names). A property the
geometry lacks takes the value of `MaterialDefaults` (Drake: SceneGraph's
``DefaultProximityProperties``, see `jaxbody.geometry.scene_graph_config`, else the plant's
penetration-allowance estimate):

- ``point_contact_stiffness`` k (N/m), >= 0: Drake's default 1e6; without it, the estimate
  ``2·m_max·g/δ`` (`estimate_point_contact_parameters`);
- ``relaxation_time`` τ (s), >= 0: Drake's default 0.1 (SAP's dissipation time scale);
- ``hunt_crossley_dissipation`` d (s/m), >= 0: Drake's default 50; without it, the estimate
  ``1/√(g δ)`` (critical damping);
- ``coulomb_friction`` (μs, μd): Drake's default (0.5, 0.5); without it the query raises for a
  candidate pair whose geometry has none (``GetCoulombFriction`` throws).

Combination for a pair (A, B) (``multibody/plant/contact_properties.cc``):

    k  = kA kB / (kA + kB)            (springs in series; kA = ∞ gives kB; 0 if both 0)
    τ  = τA + τB
    d  = (kB dA + kA dB) / (kA + kB)  (dB if kA = ∞, dA if kB = ∞, 0 if kA + kB = 0)
    μ  = 2 μA μB / (μA + μB)          (static and dynamic; ``CalcContactFrictionFromSurfaceProperties``)
    p_WC = wA p_WCa + wB p_WCb,   wA = kA / (kA + kB), wB = 1 - wA   (0.5 each if both 0;
           the contact point of ``AppendDiscreteContactPairsForPointContact``)

All combinations are written with guarded divisions so that derivatives with respect to the
per-geometry values are finite everywhere (including k = 0 and k = ∞).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from jaxbody.geometry.hydroelastic.representation import compliance_type
from jaxbody.geometry.properties import (
    FRICTION,
    HUNT_CROSSLEY_DISSIPATION,
    MATERIAL_GROUP,
    POINT_STIFFNESS,
    RELAXATION_TIME,
    CoulombFriction,
)

DEFAULT_POINT_CONTACT_STIFFNESS = 1.0e6  # N/m, Drake's DefaultProximityProperties
DEFAULT_RELAXATION_TIME = 0.1  # s, Drake's DefaultProximityProperties
DEFAULT_PENETRATION_ALLOWANCE = 1.0e-3  # m, Drake's MultibodyPlantConfig default
STANDARD_GRAVITY = 9.81  # m/s², Drake's UniformGravityFieldElement::kDefaultStrength

# Keys of ``Context.parameters.contact`` (arrays indexed by collision-geometry order).
STIFFNESS, TAU, DISSIPATION = POINT_STIFFNESS, RELAXATION_TIME, HUNT_CROSSLEY_DISSIPATION
STATIC_FRICTION, DYNAMIC_FRICTION = "static_friction", "dynamic_friction"
MODULUS = "hydroelastic_modulus"  # Pa; inf for rigid geometries and those without one
PARAMETER_NAMES = (STIFFNESS, TAU, DISSIPATION, STATIC_FRICTION, DYNAMIC_FRICTION, MODULUS)


class PenaltyParameters(NamedTuple):
    """Drake's ``EstimatePointContactParameters``: per-geometry stiffness (N/m), Hunt-Crossley
    dissipation (s/m) and the contact time scale 1/ω (s)."""

    geometry_stiffness: float
    dissipation: float
    time_scale: float


def estimate_point_contact_parameters(max_mass, gravity, penetration_allowance):
    """`PenaltyParameters` of a plant whose heaviest body has ``max_mass`` (kg).

    A critically damped mass on a spring that sags δ under its weight: the combined stiffness
    k₁₂ = m g/δ, ω = √(g/δ), d = 1/(ω δ) = 1/√(g δ); a geometry's stiffness is 2 k₁₂ (two equal
    springs in series give k₁₂). g is the plant's gravity (9.81 m/s² if zero).
    """
    g = float(np.linalg.norm(gravity)) or STANDARD_GRAVITY
    delta = float(penetration_allowance)
    k_combined = float(max_mass) * g / delta
    time_scale = 1.0 / math.sqrt(g / delta)
    return PenaltyParameters(2.0 * k_combined, time_scale / delta, time_scale)


class MaterialDefaults(NamedTuple):
    """The values a collision geometry without the property gets: stiffness (N/m),
    Hunt-Crossley dissipation (s/m), relaxation time (s), friction (`CoulombFriction`, or None:
    a geometry without one then raises at its first query)."""

    point_stiffness: float
    hunt_crossley_dissipation: float
    relaxation_time: float
    friction: CoulombFriction | None


def material_defaults(default_proximity, penalty: PenaltyParameters) -> MaterialDefaults:
    """Drake's rule: SceneGraph's ``DefaultProximityProperties`` where set, else the plant's
    penalty estimate (stiffness, dissipation) or Drake's 0.1 s (relaxation time)."""
    p = default_proximity
    friction = (None if p.static_friction is None
                else CoulombFriction(p.static_friction, p.dynamic_friction))
    return MaterialDefaults(
        penalty.geometry_stiffness if p.point_stiffness is None else float(p.point_stiffness),
        penalty.dissipation if p.hunt_crossley_dissipation is None
        else float(p.hunt_crossley_dissipation),
        DEFAULT_RELAXATION_TIME if p.relaxation_time is None else float(p.relaxation_time),
        friction)


def _value(geom, name, default, allow_inf=False):
    v = geom.properties().GetPropertyOrDefault(MATERIAL_GROUP, name, default)
    try:
        x = float(v)
    except (TypeError, ValueError):
        x = float("nan")
    if not (x >= 0 and (np.isfinite(x) or (allow_inf and x == np.inf))):
        raise ValueError(
            f"Collision geometry '{geom.name()}' on body '{geom.body().name()}': the contact "
            f"property ('{MATERIAL_GROUP}', '{name}') must be a number >= 0"
            f"{'' if allow_inf else ' and finite'}; got {v!r}")
    return x


def geometry_contact_parameters(geometries, defaults: MaterialDefaults):
    """Per-geometry property arrays and which geometries have a friction property.

    Args:
        geometries: the collision `RegisteredGeometry` records, in collision order.
        defaults: the values of the properties a geometry lacks (`material_defaults`).

    Returns:
        ``(values, has_friction)``: a dict of (G,) float arrays keyed by `PARAMETER_NAMES`,
        and a (G,) bool array. Raises ValueError naming a geometry with an invalid value.
    """
    values = {name: np.zeros(len(geometries)) for name in PARAMETER_NAMES}
    has_friction = np.zeros(len(geometries), bool)
    for i, g in enumerate(geometries):
        values[STIFFNESS][i] = _value(g, POINT_STIFFNESS, defaults.point_stiffness,
                                      allow_inf=True)
        values[TAU][i] = _value(g, RELAXATION_TIME, defaults.relaxation_time)
        values[DISSIPATION][i] = _value(g, HUNT_CROSSLEY_DISSIPATION,
                                        defaults.hunt_crossley_dissipation)
        mu = g.properties().GetPropertyOrDefault(MATERIAL_GROUP, FRICTION, defaults.friction)
        if mu is not None:
            if not isinstance(mu, CoulombFriction):
                raise ValueError(f"Collision geometry '{g.name()}' on body '{g.body().name()}':"
                                 f" ('{MATERIAL_GROUP}', '{FRICTION}') must be a "
                                 f"CoulombFriction, got {type(mu).__name__}")
            values[STATIC_FRICTION][i] = mu.static_friction()
            values[DYNAMIC_FRICTION][i] = mu.dynamic_friction()
            has_friction[i] = True
    return values, has_friction


def hydroelastic_moduli(geometries) -> np.ndarray:
    """(G,) each collision geometry's ``("hydroelastic", "hydroelastic_modulus")`` (Pa) when it
    is compliant, else inf (Drake's ``GetHydroelasticModulus``: rigid geometries are infinitely
    stiff). A value that is not a finite number > 0 raises, naming the geometry."""
    out = np.full(len(geometries), np.inf)
    for i, g in enumerate(geometries):
        if compliance_type(g) != "compliant":
            continue
        E = g.properties().GetPropertyOrDefault("hydroelastic", MODULUS, None)
        if E is None:
            continue  # the representation raises if the geometry takes part in a pair
        try:
            x = float(E)
        except (TypeError, ValueError):
            x = float("nan")
        if not (np.isfinite(x) and x > 0):
            raise ValueError(f"Collision geometry '{g.name()}' on body '{g.body().name()}': "
                             f"('hydroelastic', '{MODULUS}') must be a finite number > 0; got "
                             f"{E!r}")
        out[i] = x
    return out


def _div(num, den):
    ok = den != 0
    return jnp.where(ok, num / jnp.where(ok, den, 1.0), 0.0)


def _harmonic(a, b):
    """2ab/(a + b), 0 when a + b = 0."""
    return _div(2.0 * a * b, a + b)


def combine_contact_parameters(pa: dict, pb: dict) -> dict:
    """Drake's combination (module docstring) of per-point A and B property arrays.

    Returns a dict with ``k, tau, d, mu, mu_static`` and ``w_a`` (the weight of p_WCa).
    """
    kA, kB = pa[STIFFNESS], pb[STIFFNESS]
    infA, infB = jnp.isinf(kA), jnp.isinf(kB)
    fA, fB = jnp.where(infA, 1.0, kA), jnp.where(infB, 1.0, kB)  # finite stand-ins
    den = fA + fB
    k = jnp.where(infA, kB, jnp.where(infB, kA, _div(fA * fB, den)))
    d_mix = _div(fB * pa[DISSIPATION] + fA * pb[DISSIPATION], den)
    d = jnp.where(infA, pb[DISSIPATION], jnp.where(infB, pa[DISSIPATION], d_mix))
    w_a = jnp.where(infA, 1.0, jnp.where(infB, 0.0, jnp.where(den > 0, _div(fA, den), 0.5)))
    return {"k": k, "tau": pa[TAU] + pb[TAU], "d": d,
            "mu": _harmonic(pa[DYNAMIC_FRICTION], pb[DYNAMIC_FRICTION]),
            "mu_static": _harmonic(pa[STATIC_FRICTION], pb[STATIC_FRICTION]), "w_a": w_a}
