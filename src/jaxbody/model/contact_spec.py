"""The contact part of a compiled model: collision geometries, candidate pairs (point and
hydroelastic), the contact approximation and the slot caps."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class ContactSpec(NamedTuple):
    """What the contact computations of a model read.

    Attributes:
        geometries: the collision (proximity-role) geometries, in collision-geometry order
            (the order of ``context.parameters.contact``).
        geometry_body: (G,) BodyIndex of each; geometry_ids: (G,) its GeometryId.
        R_BG, p_BG: (G, 3, 3), (G, 3) the pose of each in its body (float64).
        collision_pairs: (pair_a, pair_b) candidate pairs after Drake's filters (collision
            indices), empty when contact is disabled.
        point_pairs: (pair_a, pair_b) the candidates that use point contact.
        hydro_pairs: the candidates with a hydroelastic surface (`geometry.hydroelastic`
            pairs).
        query_options: the `ContactQueryOptions`.
        default_parameters: name -> (G,) default contact parameters (`contact_properties`).
        has_friction: (G,) bool, whether each geometry has a friction property.
        continuous: True for a continuous plant with candidate pairs (penalty contact).
        stiction_tolerance: v_s (m/s) of the Stribeck model and the Hunt & Crossley
            approximations.
        max_active_contacts: the cap of `set_max_active_contacts`, or None.
        capacity_setting: `set_contact_capacity`'s argument: an int, None or "auto".
    """

    geometries: tuple
    geometry_body: np.ndarray
    geometry_ids: np.ndarray
    R_BG: np.ndarray
    p_BG: np.ndarray
    collision_pairs: tuple
    point_pairs: tuple
    hydro_pairs: tuple
    query_options: object
    default_parameters: dict
    has_friction: np.ndarray
    continuous: bool
    stiction_tolerance: float
    max_active_contacts: int | None
    capacity_setting: object

    @property
    def has_candidates(self) -> bool:
        """Whether any pair of geometries may touch."""
        return len(self.collision_pairs[0]) > 0

    @property
    def has_point_pairs(self) -> bool:
        return len(self.point_pairs[0]) > 0
