"""The forces of a model's equations of motion, other than contact constraints: joint damping,
actuation, applied forces (Drake's input ports as arguments), gravity per model instance, and
the force elements (springs, bushings, door hinges, ...).

Inputs of the dynamics functions:
- ``actuation``: see `engine.actuation`;
- ``applied_generalized_force``: (num_velocities,) generalized forces;
- ``applied_spatial_force``: a list of `ExternallyAppliedSpatialForce`;
- ``applied_forces``: a `MultibodyForces` (jaxbody's own).
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

from jaxbody.algorithms.spatial import wrench_about_origin
from jaxbody.core.checks import check_shape
from jaxbody.core.multibody_forces import MultibodyForces
from jaxbody.engine import actuation as act
from jaxbody.engine import continuous_contact
from jaxbody.forces.applied import spatial_forces_to_body_forces
from jaxbody.forces.force_element import ElementKinematics


# --- Gravity per model instance ---------------------------------------------------------------
def gravity_masses(model, params):
    """(num_bodies,) masses that feel gravity: zero for the world and disabled instances."""
    mass = params.mass.at[0].set(0.0)
    idx = model.bodies.gravity_disabled
    return mass if idx.size == 0 else mass.at[idx].set(0.0)


def gravity_parameters(model, params):
    """``params`` with the masses of gravity-disabled bodies (and the world) zeroed where any
    instance has gravity off: the parameters of U and τ_g."""
    if model.bodies.gravity_disabled.size == 0:
        return params
    return dataclasses.replace(params, mass=gravity_masses(model, params))


def _cancel_disabled_gravity(model, ek, F):
    """Adds −m g at the COM of gravity-disabled bodies (ABA applies g to every body)."""
    idx = model.bodies.gravity_disabled
    P = ek.context.parameters
    r = jnp.einsum("nij,nj->ni", ek.R_WB[idx], P.com[idx])
    f = -P.mass[idx, None] * P.gravity[None, :]
    return F.at[idx].add(jnp.concatenate([jnp.cross(r, f), f], -1))


# --- Reflected rotor inertia ------------------------------------------------------------------
def reflected_inertia(model, context):
    """(nv,) ``rotor_inertia · gear_ratio²`` on each actuated dof, zero elsewhere."""
    P = context.parameters
    refl = jnp.zeros(model.nv, context.v.dtype)
    if not model.num_actuators:
        return refl
    return refl.at[model.actuators.dof].add(P.rotor_inertia * P.gear_ratio**2)


# --- Force elements ---------------------------------------------------------------------------
def element_kinematics(model, dk, context):
    """`ElementKinematics` (BodyIndex order) from the dynamics kinematics ``dk``."""
    nodes = model.topology.body_node
    return ElementKinematics(context, dk.pk.R_WB[nodes], dk.pk.p_WB[nodes], dk.vk.V_WB[nodes],
                             gravity_masses(model, context.parameters))


def element_forces(model, context, dk):
    """(τ (nv,), F_Bo_W (num_bodies, 6)) of every force element but gravity, or (None, None)."""
    if not model.elements:
        return None, None
    ek = element_kinematics(model, dk, context)
    tau = jnp.zeros_like(context.v)
    F = jnp.zeros((model.num_bodies, 6), context.v.dtype)
    for fe in model.elements:
        tau, F = fe._add_forces(ek, context.parameters.force_elements[int(fe.index())], tau, F)
    return tau, F


def elements_sum(model, context, dk, method):
    """Σ over the force elements but gravity of ``method`` ("_potential_energy",
    "_conservative_power" or "_non_conservative_power")."""
    total = jnp.zeros((), context.v.dtype)
    if not model.elements:
        return total
    ek = element_kinematics(model, dk, context)
    for fe in model.elements:
        total = total + getattr(fe, method)(ek, context.parameters.force_elements[int(fe.index())])
    return total


def force_elements_contribution(model, context, dk) -> MultibodyForces:
    """Every force element's forces, gravity's and joint damping's (Drake's
    ``CalcForceElementsContribution``)."""
    ek = element_kinematics(model, dk, context)
    tau = -context.parameters.damping * context.v
    F = jnp.zeros((model.num_bodies, 6), context.v.dtype)
    for fe in model.force_elements:
        tau, F = fe._add_forces(ek, context.parameters.force_elements[int(fe.index())], tau, F)
    return MultibodyForces(None, tau, F)


# --- Applied forces ---------------------------------------------------------------------------
def applied(model, dk, forces):
    """(F_O (n, 6) wrenches about Wo in node order, τ (nv,)) of a `MultibodyForces`, or
    (None, None)."""
    if forces is None:
        return None, None
    F = forces.body_forces_if_any()
    if F is None:
        return None, forces.generalized_forces()
    return wrench_about_origin(F[model.topology.node_body], dk.pk.p_WB), \
        forces.generalized_forces()


def joint_forces(model, context, actuation, forces, applied_generalized_force=None):
    """−D v + B sat(u) + τ_app (+ ``applied_generalized_force``): (nv,)."""
    tau = -context.parameters.damping * context.v
    Bu = act.generalized_actuation(model, actuation, context.v.dtype)
    if Bu is not None:
        tau = tau + Bu
    if forces is not None:
        tau = tau + forces.generalized_forces()
    if applied_generalized_force is not None:
        tau = tau + check_shape("applied_generalized_force", applied_generalized_force,
                                (model.nv,)).astype(tau.dtype)
    return tau


def dynamics_inputs(model, context, dk, actuation, applied_forces, applied_generalized_force,
                    applied_spatial_force, for_aba, body_forces=True):
    """(τ (nv,), F_O (n, 6) wrenches about Wo in node order, or None): damping, saturated
    actuation, applied forces, force elements and a continuous model's penalty contact; for
    ABA also the gravity cancellation of disabled model instances (the CRBA path uses masked
    masses instead). ``body_forces=False`` leaves out the body forces of ``applied_forces``
    (the caller handles them)."""
    tau = joint_forces(model, context, actuation, applied_forces, applied_generalized_force)
    tau_fe, F = element_forces(model, context, dk)
    if tau_fe is not None:
        tau = tau + tau_fe
    nb, dtype = model.num_bodies, context.v.dtype
    F_app = None if applied_forces is None else applied_forces.body_forces_if_any()
    if F_app is not None and body_forces:
        F = F_app if F is None else F + F_app
    if applied_spatial_force is not None and len(applied_spatial_force):
        F = jnp.zeros((nb, 6), dtype) if F is None else F
        F = spatial_forces_to_body_forces(nb, dk.pk.R_WB[model.topology.body_node], F,
                                          applied_spatial_force, dtype)
    F_contact = continuous_contact.contact_forces(model, context, dk)
    if F_contact is not None:
        F = F_contact if F is None else F + F_contact
    if for_aba and model.bodies.gravity_disabled.size:
        F = jnp.zeros((nb, 6), dtype) if F is None else F
        F = _cancel_disabled_gravity(model, element_kinematics(model, dk, context), F)
    if F is None:
        return tau, None
    return tau, wrench_about_origin(F[model.topology.node_body], dk.pk.p_WB)
