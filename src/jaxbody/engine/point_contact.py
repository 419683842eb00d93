"""Point contact of a compiled model: the compiled `ContactQuery`, the point contacts of a
configuration (``CalcPointContacts``), and the contact slots of the discrete step.

The candidate pairs, the geometries' shapes and poses in their bodies and the query options are
static (``model.contact``); the contact parameters (stiffness, relaxation time, dissipation,
friction) are (G,) leaves of ``context.parameters.contact``, so the contacts can be
differentiated with respect to them. A discrete step's slots are, in Drake's order, the point
pairs' slots and then the hydroelastic quadrature points (`jaxbody.engine.hydroelastic`), capped
at the ``set_max_active_contacts`` deepest when the model has that cap.

Example:
    >>> import jaxbody as jb
    >>> from jaxbody.engine import point_contact
    >>> plant = jb.MultibodyPlant(0.001)
    >>> ball = plant.AddRigidBody("ball", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    >>> _ = plant.RegisterCollisionGeometry(ball, jb.RigidTransform(), jb.Sphere(0.1), "ball",
    ...                                     jb.CoulombFriction(0.5, 0.5))
    >>> _ = plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(),
    ...                                     jb.HalfSpace(), "ground", jb.CoulombFriction(1, 1))
    >>> plant.Finalize()
    >>> model = plant.compiled_model()
    >>> context = plant.SetPositions(plant.CreateDefaultContext(), [1, 0, 0, 0, 0, 0, 0.09])
    >>> round(float(point_contact.point_contacts(model, context).phi[0]), 6)
    -0.01
    >>> point_contact.contact_query(model) is point_contact.contact_query(model)  # cached
    True
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import kinematics as kin
from jaxbody.contact import capacity as cap
from jaxbody.engine.hydroelastic import concatenate_contacts, quadrature_contacts
from jaxbody.geometry.collision.contact_properties import PARAMETER_NAMES, STIFFNESS
from jaxbody.geometry.collision.query import (
    ContactQuery,
    PointContacts,
    build_contact_query,
    calc_point_contacts,
)
from jaxbody.geometry.collision.query_cost import QueryCost
from jaxbody.geometry.collision.query_cost import query_cost as _cost
from jaxbody.geometry.hydroelastic import query as hq

__all__ = ["concatenate_contacts", "contact_capacity", "contact_query", "contact_slots",
           "point_contacts", "query_cost"]


@functools.lru_cache(maxsize=64)
def contact_query(model) -> ContactQuery:
    """The compiled `ContactQuery` of ``model``'s point pairs (built once per model: equal
    models share it; static per-slot index arrays ``body_a, body_b, geometry_a, geometry_b``
    live here when nothing is culled).

    Raises:
        ValueError: a pair no kernel supports (and the errors of `check_pairs`).
    """
    check_pairs(model)
    spec = model.contact
    return build_contact_query(spec.geometries, *spec.point_pairs, spec.query_options)


def query_cost(model) -> QueryCost:
    """The static cost of one evaluation of ``model``'s point-contact query (`QueryCost`:
    candidate and evaluated pairs, GJK/EPA pairs and their iteration budget, point slots)."""
    return _cost(contact_query(model))


def check_pairs(model):
    """Drake's structural checks of the candidate pairs, run at Finalize: every geometry of a
    candidate pair has a friction property, and no point pair has two rigid geometries
    (infinite stiffness). Raises ValueError naming the geometries."""
    spec = model.contact
    geoms = spec.geometries
    for g in sorted(set(np.concatenate(spec.collision_pairs).tolist())):
        if not spec.has_friction[g]:
            raise ValueError(
                f"Collision geometry '{geoms[g].name()}' on body "
                f"'{model.bodies.names[spec.geometry_body[g]]}' has no ('material', "
                "'coulomb_friction') property; point contact needs one for every geometry of a "
                "candidate pair (Drake throws likewise)")
    pair_a, pair_b = spec.point_pairs
    k = spec.default_parameters[STIFFNESS]
    for i, j in zip(pair_a, pair_b):
        if np.isinf(k[i]) and np.isinf(k[j]):
            raise ValueError(f"Collision geometries '{geoms[i].name()}' and "
                             f"'{geoms[j].name()}' are both rigid (infinite point "
                             "contact stiffness); at least one must be compliant")


def point_contacts(model, context) -> PointContacts:
    """Every point-contact slot of ``model``'s point pairs at ``context``'s configuration:
    signed distance, contact point, normal, combined stiffness, relaxation time, friction and
    dissipation, validity and the body and geometry indices of each slot (see
    `jaxbody.geometry.collision.query`).

    Raises:
        ValueError: a ``context.parameters.contact`` entry that is not (G,).
    """
    query = contact_query(model)
    contact = context.parameters.contact
    G = len(query.geometry_ids)
    for name in PARAMETER_NAMES:
        if G and (name not in contact or jnp.shape(contact[name]) != (G,)):
            raise ValueError(f"CalcPointContacts: context.parameters.contact['{name}'] "
                             f"must have shape ({G},) (one per collision geometry), got "
                             f"{jnp.shape(contact[name]) if name in contact else 'nothing'}")
    topo = model.topology
    jk = kin.joint_kinematics(topo, context.q, context.v)
    pk = kin.position_kinematics(topo, context.q, context.parameters, jk)
    nodes = topo.body_node
    return calc_point_contacts(query, pk.R_WB[nodes], pk.p_WB[nodes], contact)


def contact_slots(model, context, with_index=False):
    """The discrete step's `PointContacts`: the point pairs' slots, then the hydroelastic
    quadrature points (Drake's order); the ``max_active_contacts`` deepest when capped; None
    without slots. ``with_index``: returns (contacts, index), index the (P,) position of each
    slot among the uncapped slots, or None when uncapped."""
    spec = model.contact
    if not spec.has_candidates:
        return (None, None) if with_index else None
    pc = concatenate_contacts([point_contacts(model, context) if spec.has_point_pairs else None,
                               quadrature_contacts(model, context)])
    P = 0 if pc is None else pc.phi.shape[0]
    if not P:
        return (None, None) if with_index else None
    limit = spec.max_active_contacts
    index = None
    if limit is not None and limit < P:
        # the SAP problem's size, not the number of candidate points, then sets the cost
        index = cap.deepest_slots(pc.phi, pc.valid, limit)
        pc = cap.keep_deepest(pc, limit)
    return (pc, index) if with_index else pc


def contact_capacity(model):
    """The slot capacity of the discrete step's SAP problem (``set_contact_capacity`` as
    resolved for ``model``): an int, or None when every slot is solved."""
    spec = model.contact
    setting = spec.capacity_setting
    if not spec.has_candidates:
        return None
    num_slots = contact_query(model).num_points + hq.num_slots(spec.hydro_pairs)
    limit = spec.max_active_contacts
    if limit is not None:
        num_slots = min(num_slots, limit)
    if setting != "auto":
        return None if setting is None or setting >= num_slots else setting
    trees = model.discrete.trees
    bodies = sorted({int(spec.geometry_body[g]) for g in np.concatenate(spec.collision_pairs)})
    nodes = np.asarray(model.topology.body_node)[bodies]
    moving = int(np.sum(trees.tree_index[nodes] < trees.num_trees))
    return cap.default_capacity(num_slots, moving,
                                hq.HYDRO_POINTS_PER_PAIR * len(spec.hydro_pairs))
