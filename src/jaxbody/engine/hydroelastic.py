"""Hydroelastic contact of a compiled model (Drake's ``kHydroelasticWithFallback``): the
collision geometries' poses, the contact surface of every hydroelastic pair, and the surfaces'
quadrature points as the contact slots of the discrete step.

Which candidate pairs are hydroelastic is fixed at Finalize (``model.contact.hydro_pairs``,
each a `jaxbody.geometry.hydroelastic.query.HydroPair` with its representations); here
everything is a pure function of the model and the context (jit/vmap/grad):

    X_WG = X_WB · X_BG                      (each collision geometry in World)
    surface(pair) = pair_surface(X_WS, X_WO, E_S)       (`geometry.hydroelastic.query`)
    slots(pair) = quadrature_slots(pair, surface(pair), context.parameters.contact)

Example:
    >>> import jaxbody as jb
    >>> from jaxbody.engine import hydroelastic
    >>> plant = jb.MultibodyPlant(0.001)
    >>> plant.Finalize()
    >>> hydroelastic.surfaces(plant.compiled_model(), plant.CreateDefaultContext())
    []
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import kinematics as kin
from jaxbody.geometry.collision.query import PointContacts
from jaxbody.geometry.hydroelastic import query as hq


def concatenate_contacts(parts):
    """One `PointContacts` from several (slots concatenated, overflow or-ed); None if empty."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    overflow = jnp.zeros((), bool)
    for p in parts:
        overflow = overflow | jnp.asarray(p.overflow)
    fields = {f: jnp.concatenate([getattr(p, f) for p in parts], 0)
              for f in PointContacts._fields if f != "overflow"}
    return PointContacts(**fields, overflow=overflow)


def geometry_poses(model, context):
    """(R_WG (G, 3, 3), p_WG (G, 3)): the pose in World of each collision geometry of
    ``model`` at ``context``'s configuration, X_WG = X_WB · X_BG."""
    topo, spec = model.topology, model.contact
    jk = kin.joint_kinematics(topo, context.q, context.v)
    pk = kin.position_kinematics(topo, context.q, context.parameters, jk)
    dtype = context.q.dtype
    R_BG, p_BG = jnp.asarray(spec.R_BG, dtype), jnp.asarray(spec.p_BG, dtype)
    nodes, body = topo.body_node, spec.geometry_body
    R_WB, p_WB = pk.R_WB[nodes][body], pk.p_WB[nodes][body]
    return R_WB @ R_BG, p_WB + jnp.einsum("gij,gj->gi", R_WB, p_BG)


def surfaces(model, context) -> list:
    """The contact surface of every hydroelastic pair of ``model``: a list, in pair order, of
    `HydroSurface` (`ContactPolygons` with M the geometry of lower collision index, normals
    out of N into M, a fixed slot count per pair, and ``overflow``); [] without pairs."""
    pairs = model.contact.hydro_pairs
    if not pairs:
        return []
    X_W = geometry_poses(model, context)
    modulus = context.parameters.contact[hq.MODULUS]
    return [hq.pair_surface(p, X_W, modulus) for p in pairs]


def quadrature_contacts(model, context):
    """`PointContacts` of the quadrature points of every hydroelastic pair (the pairs' slots
    concatenated in pair order), or None without hydroelastic pairs."""
    pairs = model.contact.hydro_pairs
    if not pairs:
        return None
    contact = context.parameters.contact
    ids = np.asarray(model.contact.geometry_ids, np.int32)
    body = np.asarray(model.contact.geometry_body, np.int32)
    parts = []
    for pair, s in zip(pairs, surfaces(model, context)):
        q = hq.quadrature_slots(pair, s, contact)
        F = q["phi"].shape[0]
        full = lambda x, F=F: jnp.full((F,), x, jnp.int32)  # noqa: E731
        parts.append(PointContacts(
            phi=q["phi"], p_WC=q["p_WC"], nhat_BA_W=q["nhat_BA_W"], k=q["k"],
            tau=q["tau"], mu=q["mu"], mu_static=q["mu_static"], d=q["d"],
            valid=q["valid"], p_WCa=q["p_WC"], p_WCb=q["p_WC"],
            body_a=full(body[q["m"]]), body_b=full(body[q["n"]]),
            geometry_a=full(ids[q["m"]]), geometry_b=full(ids[q["n"]]),
            overflow=s.overflow))
    return concatenate_contacts(parts)
