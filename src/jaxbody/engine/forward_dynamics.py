"""Forward dynamics of a continuous model: v̇ from every force of the equations of motion
(`dynamics`), by the articulated-body algorithm or CRBA + Cholesky, differentiated by the
implicit function theorem (`algorithms/implicit_dynamics.py`); the implicit residual; and
Drake's singular-hinge check."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import aba, crba, energy, rnea
from jaxbody.algorithms.batch_minor import dispatch as batch_minor
from jaxbody.algorithms.implicit_dynamics import StatePart, implicit_forward_dynamics
from jaxbody.core.checks import check_shape
from jaxbody.engine import actuation as act
from jaxbody.engine import dynamics as dyn
from jaxbody.engine import forces as fo
from jaxbody.engine import state as st
from jaxbody.joints.simbody_kinds import Gimbal, gimbal_lock
from jaxbody.math.cholesky import cholesky, cholesky_solve, spd_solve


class DynamicsInputs(NamedTuple):
    """What forward dynamics differentiates through besides the model: the arguments of
    `generalized_accelerations`, in the order `accelerations_by` and `velocity_residual`
    take them."""

    context: object
    actuation: object
    applied_forces: object
    applied_generalized_force: object
    applied_spatial_force: object


def _batch_minor_eligible(model, applied_spatial_force):
    """Whether ABA's inputs need no kinematics outside the batch-minor kernel."""
    return (not model.elements and not applied_spatial_force
            and model.bodies.gravity_disabled.size == 0 and not model.contact.continuous)


def _batch_minor_inputs(model, context, actuation, applied_forces, applied_generalized_force):
    tau = fo.joint_forces(model, context, actuation, applied_forces)
    if applied_generalized_force is not None:
        tau = tau + check_shape("applied_generalized_force", applied_generalized_force,
                                (model.nv,)).astype(tau.dtype)
    F = None if applied_forces is None else applied_forces.body_forces_if_any()
    F = None if F is None else F.astype(tau.dtype)
    P = context.parameters
    return (model.topology, context.q, context.v, tau, fo.reflected_inertia(model, context), F,
            P.mass, P.com, P.unit_inertia, P.frame_R, P.frame_p, P.gravity)


def _batch_minor_aba(model, context, actuation, applied_forces, applied_generalized_force):
    return batch_minor.forward_dynamics(*_batch_minor_inputs(
        model, context, actuation, applied_forces, applied_generalized_force))


def _batch_minor_derivatives(model, context, actuation, applied_forces,
                             applied_generalized_force):
    """(v̇, (∂r/∂q, ∂r/∂v), M⁻¹) of `velocity_residual`'s state part, as
    `generalized_accelerations`' tangent rule needs them, from one batch-minor kernel."""
    vdot, Dq, Dv, M_inv = batch_minor.forward_dynamics_derivatives(*_batch_minor_inputs(
        model, context, actuation, applied_forces, applied_generalized_force))
    return vdot, (Dq, Dv), M_inv


def accelerations_by(model, context, actuation, applied_forces, applied_generalized_force,
                     applied_spatial_force, method):
    """v̇ by ``method`` ("aba" or "crba"), differentiated by plain autodiff through the
    algorithm (the reference for `implicit_forward_dynamics`' rule). ABA without force
    elements, applied spatial forces, gravity-disabled bodies or penalty contact goes through
    `batch_minor.dispatch`, whose `jax.vmap` runs the batch-minor kernel."""
    if method == "aba" and _batch_minor_eligible(model, applied_spatial_force):
        return _batch_minor_aba(model, context, actuation, applied_forces,
                                applied_generalized_force)
    dk = dyn.kinematics(model, context)
    tau, F_O = fo.dynamics_inputs(model, context, dk, actuation, applied_forces,
                                  applied_generalized_force, applied_spatial_force,
                                  for_aba=method == "aba")
    topo, refl = model.topology, fo.reflected_inertia(model, context)
    if method == "aba":
        return aba.forward_dynamics(topo, dk, tau, context.parameters.gravity, F_O, refl)
    M, rhs = crba.forward_dynamics_system(
        topo, dk, tau, fo.gravity_parameters(model, context.parameters), F_O, refl)
    return spd_solve(M, rhs)


def _crba_factored(model, context, actuation, applied_forces, applied_generalized_force,
                   applied_spatial_force):
    """(v̇, L): CRBA + Cholesky forward dynamics and the factor L Lᵀ = M + diag(reflected
    inertia), for `implicit_forward_dynamics`' tangent rule (not differentiable itself)."""
    dk = dyn.kinematics(model, context)
    tau, F_O = fo.dynamics_inputs(model, context, dk, actuation, applied_forces,
                                  applied_generalized_force, applied_spatial_force,
                                  for_aba=False)
    M, rhs = crba.forward_dynamics_system(
        model.topology, dk, tau, fo.gravity_parameters(model, context.parameters), F_O,
        fo.reflected_inertia(model, context))
    L = cholesky(M)
    return cholesky_solve(L, rhs), L


def velocity_residual(model, context, actuation, applied_forces, applied_generalized_force,
                      applied_spatial_force, vdot, freeze_state=False):
    """M v̇ + C v − τ_g − τ_app − B u + D v − τ_elements − Σ Jᵀ F: (nv,), zero at the v̇ of
    `generalized_accelerations`. With ``freeze_state``, the (q, v) dependence of
    M v̇ + C v − τ_g − Σ Jᵀ F_app (the part `dynamics.inverse_dynamics_state_jacobians`
    differentiates) is stopped."""
    dk = dyn.kinematics(model, context)
    dk_core = dyn.kinematics(model, dyn.frozen(context)) if freeze_state else dk
    tau, F_O = fo.dynamics_inputs(model, context, dk, actuation, applied_forces,
                                  applied_generalized_force, applied_spatial_force,
                                  for_aba=False, body_forces=False)
    gparams = fo.gravity_parameters(model, context.parameters)
    F_app, _ = fo.applied(model, dk_core, applied_forces)
    topo = model.topology
    r = (rnea.inverse_dynamics(topo, dk_core, vdot, F_app)
         + fo.reflected_inertia(model, context) * vdot - tau
         - energy.gravity_generalized_forces(topo, dk_core, gparams))
    if F_O is not None:
        r = r - rnea.project_to_joints(topo, dk, F_O.at[0].set(0.0))
    return r


def generalized_accelerations(model, context, actuation=None, applied_forces=None,
                              method=None, applied_generalized_force=None,
                              applied_spatial_force=None, desired_state=None,
                              what="CalcGeneralizedAccelerations"):
    """v̇ of the continuous equations of motion (see `dynamics`); ``method``: "aba", "crba"
    or None (the model's ``forward_dynamics_method``); ``desired_state`` arms the PD
    controllers as Drake's explicit ones (`actuation.explicit_pd_actuation`)."""
    method = method or model.forward_dynamics_method
    if method not in ("aba", "crba"):
        raise ValueError(f"forward dynamics method must be 'aba' or 'crba', got {method!r}")
    actuation = act.explicit_pd_actuation(model, context, actuation, desired_state, what)
    inputs = DynamicsInputs(context, actuation, applied_forces, applied_generalized_force,
                            applied_spatial_force)
    state = StatePart(
        context.q, context.v,
        lambda a, vdot: velocity_residual(model, *a, vdot, freeze_state=True),
        lambda a, vdot: dyn.inverse_dynamics_state_jacobians(model, a.context, vdot, True,
                                                             a.applied_forces))
    state = state if dyn.analytic_state_derivatives(model) else None
    fused = None
    if method == "aba" and _batch_minor_eligible(model, applied_spatial_force):
        fused = lambda a: _batch_minor_derivatives(  # noqa: E731
            model, a.context, a.actuation, a.applied_forces, a.applied_generalized_force)
    vdot = implicit_forward_dynamics(
        lambda a: accelerations_by(model, *a, method=method),
        lambda a, vdot: velocity_residual(model, *a, vdot),
        lambda a: dyn.mass_matrix_inverse(model, a.context),
        inputs, state,
        factored_solve=(lambda a: _crba_factored(model, *a)) if method == "crba" else None,
        fused=fused)
    check_nonsingular(model, context, vdot, what)
    return vdot


class TimeDerivativesLinearization(NamedTuple):
    """ẋ = [N(q) v; v̇(x, u)] linearized at a known ẋ (`time_derivatives_linearization`).

    Attributes:
        A: ∂ẋ/∂x (nq + nv, nq + nv).
        mass_matrix_inverse: M⁻¹ (nv, nv), reflected inertia included: the tangent of ẋ in any
            other input p is −[∂R_q/∂p; M⁻¹ ∂R_v/∂p] dp, R = [R_q; R_v] the implicit residual
            (`velocity_residual`, ``CalcImplicitTimeDerivativesResidual``) at the same ẋ.
    """

    A: jax.Array
    mass_matrix_inverse: jax.Array


def time_derivatives_linearization(model, context, xdot, actuation=None):
    """∂ẋ/∂x and M⁻¹ at ``xdot`` = ẋ(context, actuation), which is taken as known: no forward
    dynamics is evaluated. The v̇ rows are the implicit rule of `generalized_accelerations`,
    −M⁻¹ [∂r/∂q, ∂r/∂v] at r(x, v̇) = 0, with the inverse-dynamics core's derivatives analytic
    where every joint allows (`StatePart`) and the rest of r (damping, force elements, ...)
    by forward-mode autodiff with that core frozen. Applied forces and desired states are not
    taken (their tangents would be the caller's)."""
    nq = model.nq
    vdot = xdot[nq:]
    analytic = dyn.analytic_state_derivatives(model)

    def rest(q, v):
        c = context.replace(q=q, v=v)
        return velocity_residual(model, c, actuation, None, None, None, vdot,
                                 freeze_state=analytic)

    Rq, Rv = jax.jacfwd(rest, (0, 1))(context.q, context.v)
    if analytic and model.bodies.gravity_disabled.size == 0:  # one kernel under vmap
        P = context.parameters
        Dq, Dv, M_inv = batch_minor.state_derivatives(
            model.topology, context.q, context.v, vdot, fo.reflected_inertia(model, context),
            None, P.mass, P.com, P.unit_inertia, P.frame_R, P.frame_p, P.gravity)
        Rq, Rv = Rq + Dq, Rv + Dv
    else:
        if analytic:
            Dq, Dv = dyn.inverse_dynamics_state_jacobians(model, context, vdot, True)
            Rq, Rv = Rq + Dq, Rv + Dv
        M_inv = dyn.mass_matrix_inverse(model, context)
    Nq, Nv = st.velocity_to_qdot_jacobians(model, context, context.v)
    A = jnp.concatenate([jnp.concatenate([Nq, Nv], 1),
                         -(M_inv @ jnp.concatenate([Rq, Rv], 1))], 0)
    return TimeDerivativesLinearization(A, M_inv)


def velocity_residual_at(model, context, vdot, actuation=None, applied_forces=None,
                         applied_generalized_force=None, applied_spatial_force=None,
                         desired_state=None, what="CalcImplicitTimeDerivativesResidual"):
    """The v-part of Drake's implicit residual at a proposed v̇, the PD controllers armed by
    ``desired_state`` as in `generalized_accelerations`."""
    actuation = act.explicit_pd_actuation(model, context, actuation, desired_state, what)
    return velocity_residual(model, context, actuation, applied_forces,
                             applied_generalized_force, applied_spatial_force, vdot)


def check_nonsingular(model, context, result, what):
    """Raises, naming the body, when a concrete (not traced) ``result`` is non-finite
    because the mass matrix is singular, as Drake raises when it meets a singular
    articulated-body hinge inertia: a joint whose outboard bodies have no mass at all, or
    have no inertia along its motion at this configuration (M's diagonal entry is zero),
    and no reflected rotor inertia. Under jit the result stays NaN."""
    if isinstance(result, jax.core.Tracer) or isinstance(context.q, jax.core.Tracer):
        return
    topo, J = model.topology, model.joints
    gimbals = [j for j, kind in enumerate(J.kinds) if kind is Gimbal]
    q = np.asarray(context.q) if gimbals else None
    for j in gimbals:  # checked first: ABA can return large finite values there
        name = J.names[j]
        if bool(gimbal_lock(q[J.q_start[j]: J.q_start[j] + J.nq[j]])):
            raise ValueError(
                f"{what}: gimbal joint '{name}' is at its singularity (middle angle "
                "±90°, |cos θ1| < 1e-3): its first and third axes align and the mass "
                "matrix is singular. Use a BallJoint (quaternion) for large rotations.")
    if bool(np.all(np.isfinite(np.asarray(result)))) or isinstance(context.parameters.mass,
                                                                  jax.core.Tracer):
        return
    outboard = topo.ancestor.T.astype(float) @ np.asarray(context.parameters.mass)[
        topo.node_body]  # total mass of each node's subtree
    diag = np.diag(np.asarray(dyn.mass_matrix(model, context)))
    scale = max(float(np.max(np.abs(diag), initial=0.0)), 1e-300)
    for j, name in enumerate(J.names):  # host side, on concrete values only
        if J.nv[j] == 0:
            continue
        vs = slice(J.v_start[j], J.v_start[j] + J.nv[j])
        node = int(J.node[j])
        child = model.bodies.names[int(topo.node_body[node])]  # outboard, reversed or not
        massless = outboard[node] <= 0.0
        if not (massless or np.any(diag[vs] <= 1e-14 * scale)):
            continue
        why = ("it and every body outboard of it have zero mass" if massless else
               "the bodies outboard of it have no inertia along its motion in this "
               "configuration")
        raise ValueError(
            f"{what}: encountered a singular articulated body hinge inertia at body "
            f"'{child}' (joint '{name}'): {why}. Please ensure that this body "
            "has non-zero inertia along all axes of motion (e.g. AddRigidBody(name, "
            "SpatialInertia(...)) or RigidBody.SetSpatialInertiaInBodyFrame(context, M)).")
