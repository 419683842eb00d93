"""Mass matrix, inverse dynamics, bias and gravity terms, energies and powers of a model.

The equations of motion are Drake's:
    M(q) v̇ + C(q, v) v = τ_g(q) + τ_app + B sat(u) − D v + τ_fe + Σ_b J_bᵀ F_b,    q̇ = N(q) v,
with D the joint damping, B the actuation matrix, sat(u) u clamped to the effort limits, τ_fe
the force elements' generalized forces and F_b the spatial forces on the bodies (applied, and
from force elements). Inverse dynamics excludes force elements and gravity, as Drake's
``CalcInverseDynamics``. M includes each actuator's reflected rotor inertia
``rotor_inertia · gear_ratio²``. Forward dynamics is in `forward_dynamics`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import energy, rnea, rnea_derivatives
from jaxbody.algorithms.batch_minor import dispatch as batch_minor
from jaxbody.algorithms.dynamics_kinematics import dynamics_kinematics
from jaxbody.algorithms.implicit_dynamics import StatePart, with_state_jacobians
from jaxbody.engine import forces as fo


def kinematics(model, context):
    """The `DynamicsKinematics` (joint, position and velocity kinematics) at ``context``."""
    return dynamics_kinematics(model.topology, context.q, context.v, context.parameters)


def frozen(context):
    """``context`` with (q, v) cut from differentiation (see `implicit_dynamics.StatePart`)."""
    return context.replace(q=jax.lax.stop_gradient(context.q),
                           v=jax.lax.stop_gradient(context.v))


def analytic_state_derivatives(model) -> bool:
    """Whether every joint kind's columns are carried rigidly (``JointKind.moves``), so the
    (q, v) tangents of the dynamics come from the analytic RNEA derivatives; otherwise (an
    `EllipsoidJoint`, a `CustomJoint`) they come from forward-mode autodiff."""
    return all(g.kind.moves is not None for g in model.topology.groups)


# --- Mass matrix ------------------------------------------------------------------------------
def mass_matrix(model, context):
    """M(q): (nv, nv) by the composite-rigid-body algorithm (`algorithms/crba.py`; under
    `jax.vmap` its batch-minor form, `algorithms/batch_minor/`)."""
    P = context.parameters
    M = batch_minor.mass_matrix(model.topology, context.q, P.mass, P.com, P.unit_inertia,
                                P.frame_R, P.frame_p)
    return M + jnp.diag(fo.reflected_inertia(model, context))


def mass_matrix_inverse(model, context):
    """M(q)⁻¹ (nv, nv), reflected inertia included: CRBA and a Cholesky inverse; under
    `jax.vmap` the batch-minor CRBA and the tree's sparse LᵀDL factorization
    (`algorithms/batch_minor/mass_inverse.py`)."""
    P = context.parameters
    return batch_minor.mass_matrix_inverse(model.topology, context.q,
                                           fo.reflected_inertia(model, context), P.mass, P.com,
                                           P.unit_inertia, P.frame_R, P.frame_p)


def mass_matrix_via_inverse_dynamics(model, context):
    """M(q) column by column: M e_k = ID(q, v = 0, v̇ = e_k) (O(n²), for checking)."""
    ctx0 = context.replace(v=jnp.zeros_like(context.v))
    dk = kinematics(model, ctx0)
    refl = fo.reflected_inertia(model, context)
    eye = jnp.eye(model.nv, dtype=context.v.dtype)
    cols = jax.vmap(lambda e: rnea.inverse_dynamics(model.topology, dk, e) + refl * e)(eye)
    return cols.T


def _body_forces(forces, dtype):
    """The body forces of a `MultibodyForces` or None (none, or none given)."""
    F = None if forces is None else forces.body_forces_if_any()
    return None if F is None else F.astype(dtype)


# --- Inverse dynamics -------------------------------------------------------------------------
def inverse_dynamics_state_jacobians(model, context, vdot, gravity, forces=None):
    """(∂/∂q (nv, nq), ∂/∂v (nv, nv)) of M v̇ + C v − Σ Jᵀ F (− τ_g if ``gravity``), F the
    body forces of the `MultibodyForces` ``forces``, analytically
    (`algorithms/rnea_derivatives.py`)."""
    topo, P = model.topology, context.parameters
    disabled = model.bodies.gravity_disabled
    if not gravity or disabled.size == 0:  # batch-minor under vmap (every body or none)
        F = _body_forces(forces, vdot.dtype)
        return batch_minor.inverse_dynamics_derivatives(
            topo, context.q, context.v, vdot, F, P.mass, P.com, P.unit_inertia, P.frame_R,
            P.frame_p, P.gravity if gravity else None)
    dk = kinematics(model, context)
    on = np.ones(model.num_bodies)
    on[disabled] = 0.0
    F = None if forces is None else forces.body_forces_if_any()
    F = None if F is None else F[topo.node_body]
    Dd, Dv = rnea_derivatives.inverse_dynamics_derivatives(
        topo, dk, context.v, vdot, P.gravity, on[topo.node_body], F)
    return Dd @ rnea_derivatives.joint_delta_map(topo, context.q, Dd.dtype), Dv


def inverse_dynamics(model, context, vdot, external_forces=None):
    """τ = M v̇ + C(q, v) v − τ_app − Σ Jᵀ F_app (gravity and damping not included, as
    Drake); (q, v) tangents from the analytic RNEA derivatives where every joint allows."""

    def run(a, _, freeze_state=False):
        ctx, vd, forces = a
        state = frozen(ctx) if freeze_state else ctx
        P = ctx.parameters
        out = batch_minor.inverse_dynamics(
            model.topology, state.q, state.v, vd,
            _body_forces(forces, vd.dtype),
            P.mass, P.com, P.unit_inertia, P.frame_R, P.frame_p)
        if forces is not None:
            out = out - forces.generalized_forces()
        return out + fo.reflected_inertia(model, ctx) * vd

    state = StatePart(
        context.q, context.v, lambda a, _: run(a, _, freeze_state=True),
        lambda a, _: inverse_dynamics_state_jacobians(model, a[0], a[1], False, a[2]))
    state = state if analytic_state_derivatives(model) else None
    return with_state_jacobians(run, (context, vdot, external_forces), state)


def bias_term(model, context):
    """C(q, v) v: (nv,), the Coriolis, centripetal and gyroscopic terms."""
    return rnea.inverse_dynamics(model.topology, kinematics(model, context),
                                 jnp.zeros_like(context.v))


def gravity_generalized_forces(model, context):
    """τ_g(q): (nv,), gravity's generalized forces, on the right-hand side of the EOM."""
    return energy.gravity_generalized_forces(
        model.topology, kinematics(model, context),
        fo.gravity_parameters(model, context.parameters))


def generalized_forces(model, context, forces):
    """τ_app + Σ_b J_bᵀ F_b: the generalized forces equivalent to the `MultibodyForces`."""
    dk = kinematics(model, context)
    F_O, tau = fo.applied(model, dk, forces)
    if F_O is None:
        return tau
    return tau + rnea.project_to_joints(model.topology, dk, F_O.at[0].set(0.0))


# --- Energy and power -------------------------------------------------------------------------
def kinetic_energy(model, context):
    """½ vᵀ M(q) v (J), including reflected rotor inertia."""
    dk = kinematics(model, context)
    refl = fo.reflected_inertia(model, context)
    return energy.kinetic_energy(dk) + 0.5 * jnp.sum(refl * context.v**2)


def potential_energy(model, context):
    """U (J): gravitational, −Σ m g·p_WBcm over bodies with gravity enabled, plus every
    force element's."""
    dk = kinematics(model, context)
    gparams = fo.gravity_parameters(model, context.parameters)
    return (energy.potential_energy(model.topology, dk.pk, gparams)
            + fo.elements_sum(model, context, dk, "_potential_energy"))


def conservative_power(model, context):
    """Pc = −dU/dt (W), gravity's and the force elements'."""
    dk = kinematics(model, context)
    gparams = fo.gravity_parameters(model, context.parameters)
    return (energy.conservative_power(model.topology, dk.pk, dk.vk, gparams)
            + fo.elements_sum(model, context, dk, "_conservative_power"))


def non_conservative_power(model, context):
    """Power of the force elements' non-conservative forces (W), as Drake defines it (joint
    damping is not counted; see `joint_damping_power`)."""
    return fo.elements_sum(model, context, kinematics(model, context), "_non_conservative_power")


def joint_damping_power(model, context):
    """Power dissipated by joint damping, ``-vᵀ D v`` (W, <= 0)."""
    return -jnp.sum(context.parameters.damping * context.v**2)
