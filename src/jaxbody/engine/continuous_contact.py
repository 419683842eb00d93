"""Compliant point contact of a continuous model (``time_step = 0``): Drake's penalty method.

Each point slot of `jaxbody.engine.point_contact.point_contacts` pushes its two bodies apart
with a Hunt & Crossley normal force and Stribeck friction
(`jaxbody.contact.compliant_point_contact`), at the midpoint C of its witness points:

    fₙ = k·x·(1 + d·vₙ),  x = −φ,  vₙ = v_AcBc·n̂   (Hunt & Crossley; acts while fₙ > 0)
    fₜ = μ(‖vₜ‖)·fₙ·vₜ/‖vₜ‖                        (Stribeck curve, stiction tolerance v_s)
    F_Bo = Σ [p_BoC × f; f] per body,  τ_contact = Σ_B J_Bᵀ F_Bo  (one tip-to-base pass)

Everything is pure (jit/vmap/grad). The body kinematics ``dk`` are
`jaxbody.algorithms.dynamics_kinematics.dynamics_kinematics` of the context, so that the
callers that already hold them (forward dynamics) do not compute them twice.

Example:
    >>> import jaxbody as jb
    >>> from jaxbody.engine import continuous_contact
    >>> plant = jb.MultibodyPlant(0.0)
    >>> ball = plant.AddRigidBody("ball", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    >>> _ = plant.RegisterCollisionGeometry(ball, jb.RigidTransform(), jb.Sphere(0.1), "ball",
    ...                                     jb.CoulombFriction(0.5, 0.5))
    >>> _ = plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(),
    ...                                     jb.HalfSpace(), "ground", jb.CoulombFriction(1, 1))
    >>> plant.Finalize()
    >>> context = plant.SetPositions(plant.CreateDefaultContext(), [1, 0, 0, 0, 0, 0, 0.099])
    >>> tau = continuous_contact.generalized_contact_forces(plant.compiled_model(), context)
    >>> float(tau[5]) > 0  # the ground pushes the ball up
    True
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.algorithms import rnea
from jaxbody.algorithms.dynamics_kinematics import dynamics_kinematics
from jaxbody.algorithms.spatial import wrench_about_origin
from jaxbody.contact import compliant_point_contact as cpc
from jaxbody.engine.point_contact import point_contacts


def penalty(model, context, dk):
    """(`PointContacts`, `PenaltyForces`, p_WAo, p_WBo) of a continuous model's point contacts
    at ``context`` (``dk``: its `DynamicsKinematics`), or None without candidate pairs or
    slots."""
    if not model.contact.continuous:
        return None
    pc = point_contacts(model, context)
    if not pc.phi.shape[0]:
        return None
    node = jnp.asarray(model.topology.body_node)
    na, nb = node[pc.body_a], node[pc.body_b]
    V, p = dk.vk.V_WB, dk.pk.p_WB
    pf = cpc.penalty_forces(pc, V[na], V[nb], p[na], p[nb], model.contact.stiction_tolerance)
    return pc, pf, p[na], p[nb]


def _body_wrenches(model, out):
    pc, pf, p_WAo, p_WBo = out
    return cpc.body_wrenches(model.num_bodies, pc, pf.f_A, pf.p_WC, p_WAo, p_WBo)


def contact_forces(model, context, dk):
    """(num_bodies, 6) wrenches [τ; f] about each body origin, in World, of a continuous
    model's point contacts (BodyIndex order), or None without candidate pairs."""
    out = penalty(model, context, dk)
    return None if out is None else _body_wrenches(model, out)


def _generalized(model, context, dk, F):
    """τ = Σ Jᵀ F of (num_bodies, 6) body wrenches F (or None: zeros), (nv,)."""
    topo = model.topology
    if F is None:
        return jnp.zeros(topo.nv, context.v.dtype)
    F_O = wrench_about_origin(F[topo.node_body], dk.pk.p_WB)
    return rnea.project_to_joints(topo, dk, F_O.at[0].set(0.0))


def generalized_contact_forces(model, context):
    """τ_contact = Σ Jᵀ F of a continuous model's penalty forces at ``context``: (nv,)."""
    dk = dynamics_kinematics(model.topology, context.q, context.v, context.parameters)
    return _generalized(model, context, dk, contact_forces(model, context, dk))


def contact_results(model, context):
    """(τ_contact (nv,), `penalty` of the context or None): what a continuous model's
    ``ContactResults`` report, from one pass of body kinematics."""
    dk = dynamics_kinematics(model.topology, context.q, context.v, context.parameters)
    out = penalty(model, context, dk)
    F = None if out is None else _body_wrenches(model, out)
    return _generalized(model, context, dk, F), out
