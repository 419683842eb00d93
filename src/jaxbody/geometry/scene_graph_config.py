"""Drake's ``SceneGraphConfig`` and ``DefaultProximityProperties``: the contact properties a
collision geometry gets where its own `ProximityProperties` lack them.

In Drake, a plant registers its geometry with a ``SceneGraph``, and the SceneGraph fills every
missing ``("material", ...)`` entry of a geometry with the proximity role from its config's
``default_proximity_properties`` (``geometry/scene_graph_config.h``). With Drake's defaults a
collision geometry registered with empty properties therefore contacts with

    point_contact_stiffness 1e6 N/m, hunt_crossley_dissipation 50 s/m,
    relaxation_time 0.1 s, coulomb_friction (0.5, 0.5),

in continuous and discrete plants alike. The plant's own estimate from the penetration
allowance (``MultibodyPlant::EstimatePointContactParameters``: 2·m_max·g/δ per geometry,
1/√(g δ) s/m) is Drake's fallback, used only where a default is set to ``None``. jaxbody has no
separate SceneGraph: the plant holds its geometry, so the config is given to the plant
(`MultibodyPlant.set_scene_graph_config`) and read at ``Finalize()``.

Example (Drake's fallback to the penetration-allowance estimate):
    >>> import jaxbody as jb
    >>> config = jb.SceneGraphConfig()
    >>> config.default_proximity_properties.point_stiffness = None
    >>> plant = jb.MultibodyPlant(0.0)
    >>> plant.set_scene_graph_config(config)
"""

from __future__ import annotations

import copy
import dataclasses
import math

COMPLIANCE_TYPES = ("undefined", "rigid", "compliant")


@dataclasses.dataclass
class DefaultProximityProperties:
    """Drake's ``geometry::DefaultProximityProperties`` (same fields, names and defaults).

    The ``material`` values (N/m, s/m, s, dimensionless) fill what a collision geometry lacks;
    ``None`` leaves the property unset (then the plant's penetration-allowance estimate applies
    to stiffness and dissipation, and a geometry without friction raises at its first query).
    jaxbody applies only ``compliance_type="undefined"`` and no ``slab_thickness``/``margin``;
    ``hydroelastic_modulus`` and ``resolution_hint`` are not filled in (a compliant geometry
    must carry its own, and one that does not raises, naming it).
    """

    compliance_type: str = "undefined"
    hydroelastic_modulus: float | None = 1.0e7
    resolution_hint: float | None = 0.02
    slab_thickness: float | None = None
    margin: float | None = None
    dynamic_friction: float | None = 0.5
    static_friction: float | None = 0.5
    hunt_crossley_dissipation: float | None = 50.0
    relaxation_time: float | None = 0.1
    point_stiffness: float | None = 1.0e6

    def ValidateOrThrow(self) -> None:
        """Raise ValueError naming the first invalid field (Drake's checks, and the fields
        jaxbody does not apply)."""
        if self.compliance_type not in COMPLIANCE_TYPES:
            raise ValueError(f"DefaultProximityProperties.compliance_type must be one of "
                             f"{COMPLIANCE_TYPES}, got {self.compliance_type!r}")
        if self.compliance_type != "undefined":
            raise ValueError("DefaultProximityProperties.compliance_type: only 'undefined' is "
                             "supported (give geometries their hydroelastic properties with "
                             f"Add*HydroelasticProperties); got {self.compliance_type!r}")
        for name in ("slab_thickness", "margin"):
            if getattr(self, name) is not None:
                raise ValueError(f"DefaultProximityProperties.{name}: not supported (must be "
                                 f"None), got {getattr(self, name)!r}")
        for name in ("hydroelastic_modulus", "resolution_hint", "dynamic_friction",
                     "static_friction", "hunt_crossley_dissipation", "relaxation_time",
                     "point_stiffness"):
            x = getattr(self, name)
            if x is None:
                continue
            positive = name in ("hydroelastic_modulus", "resolution_hint", "point_stiffness")
            ok = isinstance(x, int | float) and math.isfinite(x) and (x > 0 if positive else x >= 0)
            if not ok:
                raise ValueError(f"DefaultProximityProperties.{name} must be a finite number "
                                 f"{'> 0' if positive else '>= 0'} or None, got {x!r}")
        mu_s, mu_d = self.static_friction, self.dynamic_friction
        if (mu_s is None) != (mu_d is None):
            raise ValueError("DefaultProximityProperties: static_friction and dynamic_friction "
                             f"must be both set or both None, got {mu_s!r} and {mu_d!r}")
        if mu_s is not None and mu_d > mu_s:
            raise ValueError("DefaultProximityProperties: dynamic_friction must not exceed "
                             f"static_friction, got {mu_d!r} > {mu_s!r}")


@dataclasses.dataclass
class SceneGraphConfig:
    """Drake's ``geometry::SceneGraphConfig``: here only its default proximity properties."""

    default_proximity_properties: DefaultProximityProperties = dataclasses.field(
        default_factory=DefaultProximityProperties)

    def ValidateOrThrow(self) -> None:
        if not isinstance(self.default_proximity_properties, DefaultProximityProperties):
            raise TypeError("SceneGraphConfig.default_proximity_properties must be a "
                            "DefaultProximityProperties, got "
                            f"{type(self.default_proximity_properties).__name__}")
        self.default_proximity_properties.ValidateOrThrow()


def checked_copy(config) -> SceneGraphConfig:
    """A validated deep copy of ``config`` (the plant keeps its own: Drake's configs are
    mutable structs a user may change after handing them over)."""
    if not isinstance(config, SceneGraphConfig):
        raise TypeError(f"set_scene_graph_config: expected a SceneGraphConfig, got "
                        f"{type(config).__name__}")
    config = copy.deepcopy(config)
    config.ValidateOrThrow()
    return config
