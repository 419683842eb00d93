"""Mass matrix, inverse and forward dynamics, energies and actuation matrices (Drake's API).

The equations of motion are Drake's:
    M(q) v̇ + C(q, v) v = τ_g(q) + τ_app + B sat(u) − D v + τ_fe + Σ_b J_bᵀ F_b,    q̇ = N(q) v,
with D the joint damping, B the actuation matrix, sat(u) u clamped to the effort limits, τ_fe
the force elements' generalized forces and F_b the spatial forces on the bodies (applied, and
from force elements). `CalcInverseDynamics` excludes force elements and gravity, as Drake.
M includes each actuator's reflected rotor inertia ``rotor_inertia · gear_ratio²``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import aba, crba, energy, rnea, rnea_derivatives
from jaxbody.algorithms.batch_minor import dispatch as batch_minor
from jaxbody.algorithms.dynamics_kinematics import dynamics_kinematics
from jaxbody.algorithms.implicit_dynamics import (
    StatePart,
    implicit_forward_dynamics,
    with_state_jacobians,
)
from jaxbody.algorithms.spatial import wrench_about_origin
from jaxbody.core.checks import check_shape
from jaxbody.core.elements import JointIndex
from jaxbody.joints.simbody_kinds import Gimbal, gimbal_lock
from jaxbody.math.cholesky import cholesky, cholesky_solve, spd_solve


class DynamicsAPI:
    # --- Shared pieces ------------------------------------------------------------------------
    def _dk(self, context, what):
        self._check_context(context, what)
        return dynamics_kinematics(self._topology, context.q, context.v, context.parameters)

    @staticmethod
    def _frozen(context):
        """``context`` with (q, v) cut from differentiation (see `implicit_dynamics.StatePart`)."""
        return context.replace(q=jax.lax.stop_gradient(context.q),
                               v=jax.lax.stop_gradient(context.v))

    def _actuated_dofs(self):
        return np.asarray([a.joint().velocity_start() for a in self._actuators], np.int64)

    def _reflected_inertia(self, context):
        P = context.parameters
        refl = jnp.zeros(self._topology.nv, context.v.dtype)
        if not self._actuators:
            return refl
        return refl.at[self._actuated_dofs()].add(P.rotor_inertia * P.gear_ratio**2)

    def _applied(self, context, dk, forces):
        """(F_O (n, 6) in node order, τ (nv,)) from a `MultibodyForces` (or None)."""
        if forces is None:
            return None, None
        F = forces.body_forces()[self._topology.node_body]
        return wrench_about_origin(F, dk.pk.p_WB), forces.generalized_forces()

    def _check_vector(self, what, x, n):
        return check_shape(what, x, (n,))

    # --- Mass matrix -------------------------------------------------------------------------
    def CalcMassMatrix(self, context):
        """M(q): (nv, nv) by the composite-rigid-body algorithm (`algorithms/crba.py`; under
        `jax.vmap` its batch-minor form, `algorithms/batch_minor/`)."""
        self._check_context(context, "CalcMassMatrix")
        P = context.parameters
        M = batch_minor.mass_matrix(self._topology, context.q, P.mass, P.com, P.unit_inertia,
                                    P.frame_R, P.frame_p)
        return M + jnp.diag(self._reflected_inertia(context))

    def CalcMassMatrixViaInverseDynamics(self, context):
        """M(q) column by column: M e_k = ID(q, v = 0, v̇ = e_k) (O(n²), for checking)."""
        self._check_context(context, "CalcMassMatrixViaInverseDynamics")
        ctx0 = context.replace(v=jnp.zeros_like(context.v))
        dk = self._dk(ctx0, "CalcMassMatrixViaInverseDynamics")
        refl = self._reflected_inertia(context)
        eye = jnp.eye(self._topology.nv, dtype=context.v.dtype)
        cols = jax.vmap(lambda e: rnea.inverse_dynamics(self._topology, dk, e) + refl * e)(eye)
        return cols.T

    # --- Inverse dynamics ----------------------------------------------------------------------
    def CalcInverseDynamics(self, context, known_vdot, external_forces=None):
        """τ = M v̇ + C(q, v) v − τ_app − Σ Jᵀ F_app (gravity and damping not included, as
        in Drake: pass them in ``external_forces`` if wanted).

        Args:
            known_vdot: (nv,) generalized accelerations.
            external_forces: `MultibodyForces` or None.
        """
        vdot = self._check_vector("CalcInverseDynamics: known_vdot", known_vdot,
                                  self._topology.nv).astype(context.v.dtype)
        self._check_context(context, "CalcInverseDynamics")

        def inverse_dynamics(a, _, freeze_state=False):
            ctx, vd, forces = a
            state = self._frozen(ctx) if freeze_state else ctx
            P = ctx.parameters
            out = batch_minor.inverse_dynamics(
                self._topology, state.q, state.v, vd,
                None if forces is None else forces.body_forces().astype(vd.dtype),
                P.mass, P.com, P.unit_inertia, P.frame_R, P.frame_p)
            if forces is not None:
                out = out - forces.generalized_forces()
            return out + self._reflected_inertia(ctx) * vd

        state = StatePart(
            context.q, context.v, lambda a, _: inverse_dynamics(a, _, freeze_state=True),
            lambda a, _: self._inverse_dynamics_state_jacobians(a[0], a[1], "CalcInverseDynamics",
                                                                False, a[2]))
        state = state if self._analytic_state_derivatives() else None
        return with_state_jacobians(inverse_dynamics, (context, vdot, external_forces), state)

    def CalcBiasTerm(self, context):
        """C(q, v) v: (nv,), the Coriolis, centripetal and gyroscopic terms."""
        dk = self._dk(context, "CalcBiasTerm")
        return rnea.inverse_dynamics(self._topology, dk, jnp.zeros_like(context.v))

    def CalcGravityGeneralizedForces(self, context):
        """τ_g(q): (nv,), gravity's generalized forces, on the right-hand side of the EOM."""
        dk = self._dk(context, "CalcGravityGeneralizedForces")
        return energy.gravity_generalized_forces(self._topology, dk,
                                                 self._gravity_parameters(context.parameters))

    def CalcGeneralizedForces(self, context, forces):
        """τ_app + Σ_b J_bᵀ F_b: the generalized forces equivalent to ``forces``."""
        dk = self._dk(context, "CalcGeneralizedForces")
        F_O, tau = self._applied(context, dk, forces)
        return tau + rnea.project_to_joints(self._topology, dk, F_O.at[0].set(0.0))

    # --- Actuation ----------------------------------------------------------------------------
    def MakeActuationMatrix(self):
        """B: (nv, num_actuators) with B[velocity_start(joint), actuator] = 1."""
        self._require_finalized("MakeActuationMatrix")
        B = np.zeros((self._topology.nv, len(self._actuators)))
        for a in self._actuators:
            B[a.joint().velocity_start(), int(a.index())] = 1.0
        return B

    def MakeActuatorSelectorMatrix(self, user_to_actuator_index_map):
        """Su: (num_actuators, k) so that u = Su u_s, for actuator (or joint) indices."""
        self._require_finalized("MakeActuatorSelectorMatrix")
        rows = []
        for idx in user_to_actuator_index_map:
            if isinstance(idx, JointIndex):
                hits = [a for a in self._actuators if a.joint().index() == idx]
                if not hits:
                    raise ValueError(f"MakeActuatorSelectorMatrix: joint "
                                     f"'{self._joints[int(idx)].name()}' is not actuated")
                rows.append(int(hits[0].index()))
            else:
                rows.append(int(self.get_joint_actuator(idx).index()))
        Su = np.zeros((len(self._actuators), len(rows)))
        Su[rows, np.arange(len(rows))] = 1.0
        return Su

    def MakeStateSelectorMatrix(self, user_to_joint_index_map):
        """Sx: (nqs + nvs, nq + nv) selecting [q_s; v_s] of the listed joints, in that order."""
        self._require_finalized("MakeStateSelectorMatrix")
        idx = [int(j) for j in user_to_joint_index_map]
        if len(set(idx)) != len(idx):
            raise ValueError("MakeStateSelectorMatrix: a joint is listed more than once")
        joints = [self.get_joint(j) for j in idx]
        qs = [k for j in joints for k in range(j.position_start(),
                                                 j.position_start() + j.num_positions())]
        vs = [k for j in joints for k in range(j.velocity_start(),
                                                 j.velocity_start() + j.num_velocities())]
        nq, nv = self._topology.nq, self._topology.nv
        Sx = np.zeros((len(qs) + len(vs), nq + nv))
        Sx[np.arange(len(qs)), qs] = 1.0
        Sx[len(qs) + np.arange(len(vs)), nq + np.asarray(vs, np.int64)] = 1.0
        return Sx

    # --- Forward dynamics ---------------------------------------------------------------------
    def _total_generalized_forces(self, context, actuation, forces):
        """−D v + B sat(u) + τ_app; ``actuation``: (num_actuators,), a dict per model instance,
        or None (see `ForcesAPI.AssembleActuation`)."""
        tau = -context.parameters.damping * context.v
        if actuation is not None:
            u = self.SaturateActuation(self.AssembleActuation(actuation, context.v.dtype))
            tau = tau + jnp.asarray(self.MakeActuationMatrix(), context.v.dtype) @ u
        if forces is not None:
            tau = tau + forces.generalized_forces()
        return tau

    def _continuous_actuation(self, context, actuation, desired_state, what):
        """The actuation of a continuous plant with Drake's explicit PD controllers: for each
        armed PD-controlled actuator u = clamp(−Kp(q − q_d) − Kd(v − v_d) + u_ff, −e, e) at
        ``context``'s state (u_ff its actuation input), the others' input as given.
        ``desired_state`` as in `CalcDiscreteStep`; None disarms every controller (Drake's
        unconnected desired-state port), returning ``actuation`` unchanged."""
        if desired_state is None:
            return actuation
        (qd, vd, u_ff, on), u = self._pd_inputs(desired_state, actuation, context.v.dtype, what)
        layout, c = self._discrete_static(), context.parameters.constraints
        dtype = context.v.dtype
        e = jnp.asarray(layout.pd.effort, dtype)
        u_pd = jnp.clip(-jnp.asarray(c["pd_kp"], dtype) * (context.q[layout.pd.q] - qd)
                        - jnp.asarray(c["pd_kd"], dtype) * (context.v[layout.pd.dof] - vd)
                        + u_ff, -e, e)
        pd = layout.pd.actuator
        u = jnp.zeros(self.num_actuators(), dtype) if u is None else u
        return u.at[pd].set(jnp.where(on > 0, u_pd, u[pd]))

    def CalcGeneralizedAccelerations(self, context, actuation=None, applied_forces=None,
                                     method=None, *, applied_generalized_force=None,
                                     applied_spatial_force=None, desired_state=None):
        """v̇ of the continuous equations of motion: gravity, joint damping, force elements,
        actuation and applied forces (Drake's input ports, see `ForcesAPI`).

        Args:
            actuation: (num_actuators,) u, a dict ``{model_instance: u_i}``, or None (zero);
                clamped to the actuators' effort limits.
            applied_forces: `MultibodyForces`, or None.
            method: "aba" (articulated-body algorithm) or "crba" (M by CRBA, then a Cholesky
                solve); default: the plant's choice, ``forward_dynamics_method()``.
            applied_generalized_force: (num_velocities,) or None.
            applied_spatial_force: list of `ExternallyAppliedSpatialForce`, or None.
            desired_state: the PD-controlled actuators' [q_d; v_d] (Drake's desired state
                input): a whole-plant (2·num_actuators,) vector in actuator order, a dict
                ``{model_instance: [q_d; v_d]}``, or None (controllers disarmed). Armed
                actuators apply Drake's explicit law clamp(−Kp(q − q_d) − Kd(v − v_d) + u,
                −e, e) in place of their actuation u.
        """
        method = method or self.forward_dynamics_method()
        if method not in ("aba", "crba"):
            raise ValueError(f"forward dynamics method must be 'aba' or 'crba', got {method!r}")
        self._check_context(context, "CalcGeneralizedAccelerations")
        actuation = self._continuous_actuation(context, actuation, desired_state,
                                               "CalcGeneralizedAccelerations")
        inputs = (context, actuation, applied_forces, applied_generalized_force,
                  applied_spatial_force)
        what = "CalcGeneralizedAccelerations"
        state = StatePart(
            context.q, context.v,
            lambda a, vdot: self._velocity_residual(*a, vdot, what, freeze_state=True),
            lambda a, vdot: self._inverse_dynamics_state_jacobians(a[0], vdot, what, True, a[2]))
        state = state if self._analytic_state_derivatives() else None
        vdot = implicit_forward_dynamics(
            lambda a: self._forward_dynamics(*a, method=method),
            lambda a, vdot: self._velocity_residual(*a, vdot, what),
            lambda a: self.CalcMassMatrix(a[0]),
            inputs, state,
            factored_solve=(lambda a: self._crba_factored(*a)) if method == "crba" else None)
        self._check_nonsingular(context, vdot, what)
        return vdot

    def EvalBodySpatialAccelerationInWorld(self, context, body, actuation=None,
                                           applied_forces=None, **inputs):
        """``A_WB``: the `SpatialAcceleration` of ``body`` in World (about Bo, in W) under the
        given inputs (Drake's input ports; see `CalcGeneralizedAccelerations`). A continuous
        plant uses its forward dynamics; a discrete one, as Drake, the step's
        v̇ = (v_next − v₀)/δt (`CalcDiscreteStep`)."""
        what = "EvalBodySpatialAccelerationInWorld"
        self._check_context(context, what)
        if body.GetParentPlant() is not self:
            raise ValueError(f"{what}: body '{body.name()}' belongs to another plant")
        if self.is_discrete():
            step = self.CalcDiscreteStep(context, actuation, applied_forces, **inputs)
            vdot = (step.context.v - context.v) / self._time_step
        else:
            vdot = self.CalcGeneralizedAccelerations(context, actuation, applied_forces, **inputs)
        return self.CalcSpatialAccelerationsFromVdot(context, vdot)[int(body.index())]

    def _check_nonsingular(self, context, result, what):
        """Raises, naming the body, when a concrete (not traced) ``result`` is non-finite
        because the mass matrix is singular, as Drake raises when it meets a singular
        articulated-body hinge inertia: a joint whose outboard bodies have no mass at all, or
        have no inertia along its motion at this configuration (M's diagonal entry is zero),
        and no reflected rotor inertia. Under jit the result stays NaN."""
        if isinstance(result, jax.core.Tracer) or bool(np.all(np.isfinite(np.asarray(result)))):
            return
        if isinstance(context.q, jax.core.Tracer) or isinstance(context.parameters.mass,
                                                                jax.core.Tracer):
            return
        topo = self._topology
        outboard = topo.ancestor.T.astype(float) @ np.asarray(context.parameters.mass)[
            topo.node_body]  # total mass of each node's subtree
        diag = np.diag(np.asarray(self.CalcMassMatrix(context)))
        scale = max(float(np.max(np.abs(diag), initial=0.0)), 1e-300)
        for j in self._joints:  # host side, on concrete values only
            if j.num_velocities() == 0:
                continue
            if j.kind is Gimbal and bool(gimbal_lock(np.asarray(j.GetPositions(context)))):
                raise ValueError(
                    f"{what}: gimbal joint '{j.name()}' is at its singularity (middle angle "
                    "±90°, |cos θ1| < 1e-3): its first and third axes align and the mass "
                    "matrix is singular. Use a BallJoint (quaternion) for large rotations.")
            vs = slice(j.velocity_start(), j.velocity_start() + j.num_velocities())
            node = int(np.flatnonzero(topo.node_joint == int(j.index()))[0])
            child = self._bodies[int(topo.node_body[node])]  # outboard, reversed or not
            massless = outboard[node] <= 0.0
            if not (massless or np.any(diag[vs] <= 1e-14 * scale)):
                continue
            why = ("it and every body outboard of it have zero mass" if massless else
                   "the bodies outboard of it have no inertia along its motion in this "
                   "configuration")
            raise ValueError(
                f"{what}: encountered a singular articulated body hinge inertia at body "
                f"'{child.name()}' (joint '{j.name()}'): {why}. Please ensure that this body "
                "has non-zero inertia along all axes of motion (e.g. AddRigidBody(name, "
                "SpatialInertia(...)) or RigidBody.SetSpatialInertiaInBodyFrame(context, M)).")

    def _forward_dynamics(self, context, actuation, applied_forces, applied_generalized_force,
                          applied_spatial_force, method):
        """v̇ by ``method``, differentiated by plain autodiff through the algorithm (the
        reference for `implicit_forward_dynamics`' rule). ABA without force elements, applied
        spatial forces or gravity-disabled bodies goes through `batch_minor.dispatch`, whose
        `jax.vmap` runs the batch-minor kernel."""
        if method == "aba" and self._batch_minor_eligible(applied_spatial_force):
            return self._batch_minor_forward_dynamics(context, actuation, applied_forces,
                                                      applied_generalized_force)
        dk = self._dk(context, "CalcGeneralizedAccelerations")
        tau, F_O = self._dynamics_inputs(context, dk, actuation, applied_forces,
                                         applied_generalized_force, applied_spatial_force,
                                         for_aba=method == "aba")
        topo, refl = self._topology, self._reflected_inertia(context)
        if method == "aba":
            return aba.forward_dynamics(topo, dk, tau, context.parameters.gravity, F_O, refl)
        M, rhs = crba.forward_dynamics_system(
            topo, dk, tau, self._gravity_parameters(context.parameters), F_O, refl)
        return spd_solve(M, rhs)

    def _crba_factored(self, context, actuation, applied_forces, applied_generalized_force,
                       applied_spatial_force):
        """(v̇, L): CRBA + Cholesky forward dynamics and the factor L Lᵀ = M + diag(reflected
        inertia), for `implicit_forward_dynamics`' tangent rule (not differentiable itself)."""
        dk = self._dk(context, "CalcGeneralizedAccelerations")
        tau, F_O = self._dynamics_inputs(context, dk, actuation, applied_forces,
                                         applied_generalized_force, applied_spatial_force,
                                         for_aba=False)
        M, rhs = crba.forward_dynamics_system(
            self._topology, dk, tau, self._gravity_parameters(context.parameters), F_O,
            self._reflected_inertia(context))
        L = cholesky(M)
        return cholesky_solve(L, rhs), L

    def _batch_minor_eligible(self, applied_spatial_force):
        """Whether ABA's inputs need no kinematics outside the kernel."""
        return (not self._elements() and not applied_spatial_force
                and self._gravity_disabled_bodies().size == 0
                and not self._has_continuous_contact())

    def _batch_minor_forward_dynamics(self, context, actuation, applied_forces,
                                      applied_generalized_force):
        tau = self._total_generalized_forces(context, actuation, applied_forces)
        if applied_generalized_force is not None:
            tau = tau + check_shape("applied_generalized_force", applied_generalized_force,
                                     (self._topology.nv,)).astype(tau.dtype)
        F = None if applied_forces is None else applied_forces.body_forces().astype(tau.dtype)
        P = context.parameters
        return batch_minor.forward_dynamics(
            self._topology, context.q, context.v, tau, self._reflected_inertia(context), F,
            P.mass, P.com, P.unit_inertia, P.frame_R, P.frame_p, P.gravity)

    def _velocity_residual(self, context, actuation, applied_forces, applied_generalized_force,
                           applied_spatial_force, vdot, what, freeze_state=False):
        """M v̇ + C v − τ_g − τ_app − B u + D v − τ_elements − Σ Jᵀ F: (nv,), zero at the v̇ of
        `CalcGeneralizedAccelerations`; ``what`` names the caller in errors.

        With ``freeze_state``, the (q, v) dependence of M v̇ + C v − τ_g − Σ Jᵀ F_app (F_app:
        the body forces of ``applied_forces``; the part `_inverse_dynamics_state_jacobians`
        differentiates) is stopped."""
        dk = self._dk(context, what)
        dk_core = dk
        if freeze_state:
            dk_core = self._dk(self._frozen(context), what)
        tau, F_O = self._dynamics_inputs(context, dk, actuation, applied_forces,
                                         applied_generalized_force, applied_spatial_force,
                                         for_aba=False, body_forces=False)
        gparams = self._gravity_parameters(context.parameters)
        F_app, _ = self._applied(context, dk_core, applied_forces)
        r = (rnea.inverse_dynamics(self._topology, dk_core, vdot, F_app)
             + self._reflected_inertia(context) * vdot - tau
             - energy.gravity_generalized_forces(self._topology, dk_core, gparams))
        if F_O is not None:
            r = r - rnea.project_to_joints(self._topology, dk, F_O.at[0].set(0.0))
        return r

    def _analytic_state_derivatives(self) -> bool:
        """Whether every joint kind's columns are carried rigidly (``JointKind.moves``), so the
        (q, v) tangents of the dynamics come from the analytic RNEA derivatives; otherwise (an
        `EllipsoidJoint`, a `CustomJoint`) they come from forward-mode autodiff."""
        return all(g.kind.moves is not None for g in self._topology.groups)

    def _inverse_dynamics_state_jacobians(self, context, vdot, what, gravity, forces=None):
        """(∂/∂q (nv, nq), ∂/∂v (nv, nv)) of M v̇ + C v − Σ Jᵀ F (− τ_g if ``gravity``), F the
        body forces of the `MultibodyForces` ``forces``, analytically
        (`algorithms/rnea_derivatives.py`)."""
        topo, P = self._topology, context.parameters
        self._check_context(context, what)
        disabled = self._gravity_disabled_bodies()
        if not gravity or disabled.size == 0:  # batch-minor under vmap (every body or none)
            F = None if forces is None else forces.body_forces().astype(vdot.dtype)
            return batch_minor.inverse_dynamics_derivatives(
                topo, context.q, context.v, vdot, F, P.mass, P.com, P.unit_inertia, P.frame_R,
                P.frame_p, P.gravity if gravity else None)
        dk = self._dk(context, what)
        on = np.ones(len(self._bodies))
        on[disabled] = 0.0
        F = None if forces is None else forces.body_forces()[topo.node_body]
        Dd, Dv = rnea_derivatives.inverse_dynamics_derivatives(
            topo, dk, context.v, vdot, P.gravity, on[topo.node_body], F)
        return Dd @ rnea_derivatives.joint_delta_map(topo, context.q, Dd.dtype), Dv

    def forward_dynamics_method(self) -> str:
        """The forward-dynamics algorithm chosen at Finalize: CRBA + Cholesky for nv <= 12, ABA
        above. Measured (benchmarks/results/dynamics_*.json, 2 loaded CPU cores): on the 7-dof
        arm CRBA + Cholesky took 0.74-0.89x ABA's time at batch >= 64; on the 18- and 35-dof
        models the two were within about ±30% of each other, inside the noise, and ABA's cost
        grows only linearly with the number of bodies while the dense factorization grows with
        nv³. Pass ``method=`` to choose explicitly."""
        self._require_finalized("forward_dynamics_method")
        return "crba" if self._topology.nv <= 12 else "aba"

    def CalcTimeDerivatives(self, context, actuation=None, applied_forces=None, *,
                            applied_generalized_force=None, applied_spatial_force=None,
                            method=None, desired_state=None):
        """ẋ = [N(q) v; v̇]: (nq + nv,) for a continuous plant (see CalcGeneralizedAccelerations,
        whose ``desired_state`` arms the PD-controlled actuators as Drake's explicit
        controllers)."""
        vdot = self.CalcGeneralizedAccelerations(
            context, actuation, applied_forces, method,
            applied_generalized_force=applied_generalized_force,
            applied_spatial_force=applied_spatial_force, desired_state=desired_state)
        return jnp.concatenate([self.MapVelocityToQDot(context, context.v), vdot])

    def CalcImplicitTimeDerivativesResidual(self, context, proposed_derivatives, actuation=None,
                                            applied_forces=None, *, applied_generalized_force=None,
                                            applied_spatial_force=None, desired_state=None):
        """Residual (nq + nv,) of the implicit EOM at ẋ = ``proposed_derivatives``:
        [q̇ − N(q) v; M v̇ + C v − τ_g − τ_app − B u + D v − τ_elements − Σ Jᵀ F]; zero at the
        true ẋ."""
        nq, nv = self._topology.nq, self._topology.nv
        xdot = self._check_vector("CalcImplicitTimeDerivativesResidual: proposed_derivatives",
                                  proposed_derivatives, nq + nv)
        qdot, vdot = xdot[:nq], xdot[nq:]
        self._check_context(context, "CalcImplicitTimeDerivativesResidual")
        actuation = self._continuous_actuation(context, actuation, desired_state,
                                               "CalcImplicitTimeDerivativesResidual")
        r_q = qdot - self.MapVelocityToQDot(context, context.v)
        r_v = self._velocity_residual(context, actuation, applied_forces,
                                      applied_generalized_force, applied_spatial_force, vdot,
                                      "CalcImplicitTimeDerivativesResidual")
        return jnp.concatenate([r_q, r_v])

    # --- Energy and power -------------------------------------------------------------------
    def CalcKineticEnergy(self, context):
        """½ vᵀ M(q) v (J), including reflected rotor inertia."""
        dk = self._dk(context, "CalcKineticEnergy")
        refl = self._reflected_inertia(context)
        return energy.kinetic_energy(dk) + 0.5 * jnp.sum(refl * context.v**2)

    def CalcPotentialEnergy(self, context):
        """U (J): gravitational, −Σ m g·p_WBcm over bodies with gravity enabled, plus every
        force element's (springs, door hinges, bushings)."""
        dk = self._dk(context, "CalcPotentialEnergy")
        gparams = self._gravity_parameters(context.parameters)
        return (energy.potential_energy(self._topology, dk.pk, gparams)
                + self._elements_sum(context, dk, "_potential_energy"))

    def CalcConservativePower(self, context):
        """Pc = −dU/dt (W), gravity's and the force elements'."""
        dk = self._dk(context, "CalcConservativePower")
        gparams = self._gravity_parameters(context.parameters)
        return (energy.conservative_power(self._topology, dk.pk, dk.vk, gparams)
                + self._elements_sum(context, dk, "_conservative_power"))

    def CalcNonConservativePower(self, context):
        """Power of the force elements' non-conservative forces (W), as Drake defines it.

        Joint damping is not a force element and is not counted (pydrake returns 0 for a plant
        with only joint damping); its power is ``-vᵀ D v``, see `CalcJointDampingPower`.
        """
        dk = self._dk(context, "CalcNonConservativePower")
        return self._elements_sum(context, dk, "_non_conservative_power")

    def CalcJointDampingPower(self, context):
        """Power dissipated by joint damping, ``-vᵀ D v`` (W, <= 0)."""
        self._check_context(context, "CalcJointDampingPower")
        return -jnp.sum(context.parameters.damping * context.v**2)
