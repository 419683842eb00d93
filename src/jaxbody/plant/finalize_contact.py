"""The contact side of Finalize (builder functions of the plant): collision candidates after
Drake's filters, the split of the candidate pairs into point and hydroelastic pairs, and each
collision geometry's default contact parameters (again after ``set_penetration_allowance``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from jaxbody.geometry.collision.candidates import collision_candidates
from jaxbody.geometry.collision.contact_properties import (
    MODULUS,
    estimate_point_contact_parameters,
    geometry_contact_parameters,
    hydroelastic_moduli,
    material_defaults,
)
from jaxbody.geometry.hydroelastic import query as hq
from jaxbody.geometry.hydroelastic.representation import hydroelastic_representation
from jaxbody.plant.contact_settings import ContactModel


def finalize_contact_query(plant):
    """Candidate pairs, their split into point and hydroelastic pairs, and default contact
    parameters (called by Finalize)."""
    geoms = plant._collision_geometries()
    index = {int(g.geometry_id()): i for i, g in enumerate(geoms)}
    excluded = np.zeros((len(geoms), len(geoms)), bool)
    for ids_a, ids_b in plant._collision_filter_declarations:
        a = np.array([index[g] for g in ids_a if g in index], np.int64)
        b = a if ids_b is None else np.array([index[g] for g in ids_b if g in index], np.int64)
        excluded[np.ix_(a, b)] = True
        excluded[np.ix_(b, a)] = True
    body = [int(g.body().index()) for g in geoms]
    plant._collision_pairs = collision_candidates(
        body, len(plant._bodies), plant._joints, plant._adjacent_bodies_collision_filters,
        excluded)
    if not plant.get_contact_enabled():  # set_contact_enabled(False): no candidates
        plant._collision_pairs = tuple(p[:0] for p in plant._collision_pairs)
    # hydroelastic pairs get contact surfaces; the rest use point contact
    *plant._point_pairs, plant._hydroelastic_pairs = split_hydroelastic_pairs(
        plant, *plant._collision_pairs)
    set_default_contact_parameters(plant)


def split_hydroelastic_pairs(plant, pair_a, pair_b):
    """(point pair_a, point pair_b, [HydroPair]) of the candidate pairs (at Finalize): a
    discrete plant whose contact model is not kPoint gives the pairs that have a contact
    surface (`jaxbody.geometry.hydroelastic.query.classify`) hydroelastic contact; with
    kHydroelastic a pair without a surface raises. A continuous plant keeps point contact for
    every pair (and warns when a geometry has hydroelastic properties)."""
    model = plant.get_contact_model()
    geoms = plant._collision_geometries()
    has_props = [g.properties() is not None and g.properties().HasGroup("hydroelastic")
                 for g in geoms]
    if model is ContactModel.kPoint or not len(pair_a):
        return pair_a, pair_b, []
    if not plant.is_discrete():
        if any(has_props):
            warnings.warn(
                "a continuous plant uses point contact for every pair: jaxbody's "
                "hydroelastic contact is for discrete plants (time_step > 0); "
                f"'{geoms[has_props.index(True)].name()}' has hydroelastic properties",
                stacklevel=4)
        return pair_a, pair_b, []
    reps = {}
    for g in sorted(set(np.r_[pair_a, pair_b].tolist())):
        reps[g] = hydroelastic_representation(geoms[g])
    keep, pairs = [], []
    for p, (i, j) in enumerate(zip(pair_a.tolist(), pair_b.tolist())):
        kind = hq.classify(reps[i], reps[j])
        if kind is None:
            if model is ContactModel.kHydroelastic:
                raise ValueError(
                    f"kHydroelastic: collision geometries '{geoms[i].name()}' and "
                    f"'{geoms[j].name()}' have no hydroelastic contact surface (each needs "
                    "hydroelastic properties, at least one compliant, and not two half "
                    "spaces); use kHydroelasticWithFallback or filter the pair")
            keep.append(p)
            continue
        pairs.append(hq.make_pair(kind[0], i, j, reps[i], reps[j], kind[1]))
    keep = np.asarray(keep, np.int64)
    return pair_a[keep], pair_b[keep], pairs


def penalty_parameters(plant):
    """Drake's ``EstimatePointContactParameters`` for the plant's heaviest body, gravity and
    penetration allowance (`PenaltyParameters`)."""
    masses = [float(b.default_mass()) for b in plant._bodies]
    mass = max([m for m in masses if math.isfinite(m)] + [0.0])
    return estimate_point_contact_parameters(mass, plant._gravity,
                                             plant.get_penetration_allowance())


def set_default_contact_parameters(plant):
    """Each collision geometry's contact parameters: its own properties, else SceneGraph's
    default proximity properties, else the penetration-allowance estimate (Drake's rule,
    `material_defaults`); discrete and continuous plants alike."""
    geoms = plant._collision_geometries()
    defaults = material_defaults(plant.get_scene_graph_config().default_proximity_properties,
                                 penalty_parameters(plant))
    values, has_friction = geometry_contact_parameters(geoms, defaults)
    values[MODULUS] = hydroelastic_moduli(geoms)
    plant._default_contact_parameters = values
    plant._has_friction = has_friction
