"""Mass properties of a compiled model: total mass, center of mass and its velocity, spatial
momentum, and the spatial inertia of a set of bodies (Drake's ``CalcTotalMass``,
``CalcCenterOfMassPositionInWorld``, ``CalcSpatialMomentumInWorldAboutPoint``,
``CalcSpatialInertia``).

A set S of bodies is all bodies but the world (``instances`` None) or the bodies of the given
model instances; with m_B, p_WBcm the mass and mass center of each body in S,

    m_S = Σ m_B,   p_WScm = Σ m_B p_WBcm / m_S,   L_WS_P = Σ M_B_P V_WB (shifted to P),

and a set's spatial inertia about a point is the sum of its bodies' inertias re-expressed and
shifted there ([Featherstone 2008, §2.13]). Pure functions of the context.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import center_of_mass as com_alg
from jaxbody.engine.kinematics import frame_in_world, position_kinematics, velocity_kinematics
from jaxbody.math import SpatialInertia, SpatialMomentum


def split_instances(args, n_rest):
    """Drake's optional leading ``model_instances`` argument: (instances or None, the rest)."""
    if len(args) == n_rest + 1:
        return list(args[0]), args[1:]
    if len(args) != n_rest:
        raise TypeError(f"expected {n_rest} or {n_rest + 1} arguments after the context")
    return None, args


def com_bodies(model, instances, what):
    """(nodes, bidx): the static tree nodes and BodyIndex of the bodies (the world left out)
    that count toward the center of mass, all or those of the model ``instances``."""
    if instances is not None and len(instances) == 0:
        raise ValueError(f"{what}: model_instances is empty")
    instance = model.bodies.instance
    keep = np.ones(len(instance), bool) if instances is None \
        else np.isin(instance, [int(i) for i in instances])
    keep[0] = False  # the world
    bidx = np.flatnonzero(keep).astype(np.int64)
    if bidx.size == 0:
        raise ValueError(f"{what}: there are no bodies (besides the world) to take the "
                         "center of mass of")
    return model.topology.body_node[bidx], bidx


def total_mass(model, context, instances=None, what="CalcTotalMass"):
    """Σ m_B (kg) over all bodies, or over those of ``instances``."""
    if instances is None:
        return jnp.sum(context.parameters.mass[1:])
    _, bidx = com_bodies(model, instances, what)
    return jnp.sum(context.parameters.mass[bidx])


def center_of_mass_position(model, context, instances=None,
                            what="CalcCenterOfMassPositionInWorld"):
    """``p_WoScm_W`` (3,)."""
    _, pk = position_kinematics(model, context)
    nodes, bidx = com_bodies(model, instances, what)
    return com_alg.com_position(pk, context.parameters, nodes, bidx)


def center_of_mass_velocity(model, context, instances=None,
                            what="CalcCenterOfMassTranslationalVelocityInWorld"):
    """``v_WScm_W`` (3,)."""
    _, pk, vk = velocity_kinematics(model, context)
    nodes, bidx = com_bodies(model, instances, what)
    return com_alg.com_velocity(pk, vk, context.parameters, nodes, bidx)


def spatial_momentum_about_point(model, context, instances, p_WoP_W,
                                 what="CalcSpatialMomentumInWorldAboutPoint"):
    """``L_WS_P_W``, a `SpatialMomentum`; zero for an empty ``instances`` list."""
    _, pk, vk = velocity_kinematics(model, context)
    if instances is not None and len(instances) == 0:
        z = jnp.zeros(3, context.v.dtype)
        return SpatialMomentum(z, z)
    nodes, bidx = com_bodies(model, instances, what)
    L = com_alg.spatial_momentum(pk, vk, context.parameters, nodes, bidx,
                                 jnp.asarray(p_WoP_W, context.v.dtype))
    return SpatialMomentum(L[:3], L[3:])


def check_body_indexes(model, body_indexes, what):
    """The body indexes as ints; ValueError on a repeat or an index out of range."""
    idx = [int(b) for b in body_indexes]
    if len(set(idx)) != len(idx):
        raise ValueError(f"{what}: body_indexes has a repeated body: {idx}")
    bad = [b for b in idx if not 0 <= b < model.num_bodies]
    if bad:
        raise ValueError(f"{what}: {bad[0]} is not a body index of this plant (it has "
                         f"{model.num_bodies} bodies)")
    return idx


def spatial_inertia(model, context, frame_F, body_indexes, what="CalcSpatialInertia"):
    """``M_SFo_F``: the spatial inertia of the bodies ``body_indexes`` (a set S) about the
    origin of frame F, expressed in F; Zero for an empty set. One kinematics pass; the
    bodies' inertias are re-expressed, shifted and summed as one batch."""
    idx = check_body_indexes(model, body_indexes, what)
    _, pk = position_kinematics(model, context)
    if not idx:
        return SpatialInertia.Zero(context.q.dtype)
    R_WF, p_WF = frame_in_world(model, context, pk, frame_F)
    idx = np.asarray(idx, np.int64)
    nodes, P = model.topology.body_node[idx], context.parameters
    R_FB = jnp.einsum("ji,njk->nik", R_WF, pk.R_WB[nodes])
    p_FoBo_F = (pk.p_WB[nodes] - p_WF) @ R_WF
    M_BBo_B = SpatialInertia(P.mass[idx], P.com[idx], P.unit_inertia[idx],
                             skip_validity_check=True)
    return M_BBo_B.ReExpress(R_FB).Shift(-p_FoBo_F)._sum_over_batch()
