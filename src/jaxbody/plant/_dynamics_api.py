"""Mass matrix, inverse and forward dynamics, energies and actuation matrices (Drake's API).

The equations of motion are Drake's:
    M(q) v̇ + C(q, v) v = τ_g(q) + τ_app + B sat(u) − D v + τ_fe + Σ_b J_bᵀ F_b,    q̇ = N(q) v,
with D the joint damping, B the actuation matrix, sat(u) u clamped to the effort limits, τ_fe
the force elements' generalized forces and F_b the spatial forces on the bodies (applied, and
from force elements). `CalcInverseDynamics` excludes force elements and gravity, as Drake.
M includes each actuator's reflected rotor inertia ``rotor_inertia · gear_ratio²``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.core.checks import check_shape
from jaxbody.core.elements import JointIndex
from jaxbody.engine import discrete_step as ds
from jaxbody.engine import dynamics as dyn
from jaxbody.engine import forward_dynamics as fd
from jaxbody.engine import kinematics as kin
from jaxbody.engine import state as st
from jaxbody.plant._core import PlantCore


class DynamicsAPI(PlantCore):
    """Mixin of `MultibodyPlant`: Drake's dynamics methods, forwarded to `jaxbody.engine`."""

    # --- Mass matrix -------------------------------------------------------------------------
    def CalcMassMatrix(self, context):
        """M(q): (nv, nv) by the composite-rigid-body algorithm (`algorithms/crba.py`; under
        `jax.vmap` its batch-minor form, `algorithms/batch_minor/`)."""
        self._check_context(context, "CalcMassMatrix")
        return dyn.mass_matrix(self._model, context)

    def CalcMassMatrixViaInverseDynamics(self, context):
        """M(q) column by column: M e_k = ID(q, v = 0, v̇ = e_k) (O(n²), for checking)."""
        self._check_context(context, "CalcMassMatrixViaInverseDynamics")
        return dyn.mass_matrix_via_inverse_dynamics(self._model, context)

    # --- Inverse dynamics ----------------------------------------------------------------------
    def CalcInverseDynamics(self, context, known_vdot, external_forces=None):
        """τ = M v̇ + C(q, v) v − τ_app − Σ Jᵀ F_app (gravity and damping not included, as
        in Drake: pass them in ``external_forces`` if wanted).

        Args:
            known_vdot: (nv,) generalized accelerations.
            external_forces: `MultibodyForces` or None.
        """
        self._require_finalized("CalcInverseDynamics")
        vdot = check_shape("CalcInverseDynamics: known_vdot", known_vdot,
                           (self._model.nv,)).astype(context.v.dtype)
        self._check_context(context, "CalcInverseDynamics")
        return dyn.inverse_dynamics(self._model, context, vdot, external_forces)

    def CalcBiasTerm(self, context):
        """C(q, v) v: (nv,), the Coriolis, centripetal and gyroscopic terms."""
        self._check_context(context, "CalcBiasTerm")
        return dyn.bias_term(self._model, context)

    def CalcGravityGeneralizedForces(self, context):
        """τ_g(q): (nv,), gravity's generalized forces, on the right-hand side of the EOM."""
        self._check_context(context, "CalcGravityGeneralizedForces")
        return dyn.gravity_generalized_forces(self._model, context)

    def CalcGeneralizedForces(self, context, forces):
        """τ_app + Σ_b J_bᵀ F_b: the generalized forces equivalent to ``forces``."""
        self._check_context(context, "CalcGeneralizedForces")
        return dyn.generalized_forces(self._model, context, forces)

    # --- Actuation ----------------------------------------------------------------------------
    def MakeActuationMatrix(self):
        """B: (nv, num_actuators) with B[velocity_start(joint), actuator] = 1."""
        self._require_finalized("MakeActuationMatrix")
        return self._model.actuators.actuation_matrix(self._model.nv)

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
        if method not in (None, "aba", "crba"):
            raise ValueError(f"forward dynamics method must be 'aba' or 'crba', got {method!r}")
        self._check_context(context, "CalcGeneralizedAccelerations")
        return fd.generalized_accelerations(
            self._model, context, actuation, applied_forces, method,
            applied_generalized_force=applied_generalized_force,
            applied_spatial_force=applied_spatial_force, desired_state=desired_state)

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
        model = self._model
        if model.is_discrete:
            step = ds.step(model, context, actuation, applied_forces, **inputs)
            vdot = (step.context.v - context.v) / model.time_step
        else:
            vdot = fd.generalized_accelerations(model, context, actuation, applied_forces,
                                                **inputs)
        return kin.spatial_accelerations_from_vdot(model, context, vdot)[int(body.index())]

    def forward_dynamics_method(self) -> str:
        """The forward-dynamics algorithm of every plant: the articulated-body algorithm, as
        Drake's. CRBA + Cholesky was the default up to 12 velocities until the batch-minor ABA
        kernel; measured on the 7-dof arm (one core, float64, 2026-12-07): ABA 114 against
        261 µs for v̇ at batch 64 (1.6 against 3.6 ms at 1024), its jacfwd 316 against 492 µs,
        a 100-step RK4 rollout's mass gradient 5.0 against 5.4-5.6 ms; CRBA stays faster for a
        single unbatched call (24 against 29 µs, mostly call overhead) and compiles faster
        under vmap (1.3 against 4.5 s). Pass ``method="crba"`` to choose it."""
        self._require_finalized("forward_dynamics_method")
        return self._model.forward_dynamics_method

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
        return jnp.concatenate([st.map_velocity_to_qdot(self._model, context, context.v), vdot])

    def CalcImplicitTimeDerivativesResidual(self, context, proposed_derivatives, actuation=None,
                                            applied_forces=None, *, applied_generalized_force=None,
                                            applied_spatial_force=None, desired_state=None):
        """Residual (nq + nv,) of the implicit EOM at ẋ = ``proposed_derivatives``:
        [q̇ − N(q) v; M v̇ + C v − τ_g − τ_app − B u + D v − τ_elements − Σ Jᵀ F]; zero at the
        true ẋ."""
        what = "CalcImplicitTimeDerivativesResidual"
        self._require_finalized(what)
        model = self._model
        nq, nv = model.nq, model.nv
        xdot = check_shape(f"{what}: proposed_derivatives", proposed_derivatives, (nq + nv,))
        qdot, vdot = xdot[:nq], xdot[nq:]
        self._check_context(context, what)
        r_q = qdot - st.map_velocity_to_qdot(model, context, context.v)
        r_v = fd.velocity_residual_at(model, context, vdot, actuation, applied_forces,
                                      applied_generalized_force, applied_spatial_force,
                                      desired_state, what)
        return jnp.concatenate([r_q, r_v])

    def CalcTimeDerivativesLinearization(self, context, time_derivatives, actuation=None):
        """jaxbody's extension: ∂ẋ/∂x (nq + nv, nq + nv) at ẋ = ``time_derivatives``, which
        must be ``CalcTimeDerivatives(context, actuation)`` (taken as known: no forward dynamics
        is evaluated), and M⁻¹ (nv, nv), as a `TimeDerivativesLinearization`. The tangent of ẋ
        in any other input p (parameters, actuation) is −[∂R_q/∂p; M⁻¹ ∂R_v/∂p] dp, R =
        `CalcImplicitTimeDerivativesResidual` at the same ẋ. What `jax.jacfwd` of
        CalcTimeDerivatives returns, from the same implicit-function rule, without its forward
        dynamics and its products with the identity basis (`rollout`'s adjoint uses it)."""
        what = "CalcTimeDerivativesLinearization"
        self._require_finalized(what)
        model = self._model
        xdot = check_shape(f"{what}: time_derivatives", time_derivatives, (model.nq + model.nv,))
        self._check_context(context, what)
        return fd.time_derivatives_linearization(model, context, xdot, actuation)

    # --- Energy and power -------------------------------------------------------------------
    def CalcKineticEnergy(self, context):
        """½ vᵀ M(q) v (J), including reflected rotor inertia."""
        self._check_context(context, "CalcKineticEnergy")
        return dyn.kinetic_energy(self._model, context)

    def CalcPotentialEnergy(self, context):
        """U (J): gravitational, −Σ m g·p_WBcm over bodies with gravity enabled, plus every
        force element's (springs, door hinges, bushings)."""
        self._check_context(context, "CalcPotentialEnergy")
        return dyn.potential_energy(self._model, context)

    def CalcConservativePower(self, context):
        """Pc = −dU/dt (W), gravity's and the force elements'."""
        self._check_context(context, "CalcConservativePower")
        return dyn.conservative_power(self._model, context)

    def CalcNonConservativePower(self, context):
        """Power of the force elements' non-conservative forces (W), as Drake defines it.

        Joint damping is not a force element and is not counted (pydrake returns 0 for a plant
        with only joint damping); its power is ``-vᵀ D v``, see `CalcJointDampingPower`.
        """
        self._check_context(context, "CalcNonConservativePower")
        return dyn.non_conservative_power(self._model, context)

    def CalcJointDampingPower(self, context):
        """Power dissipated by joint damping, ``-vᵀ D v`` (W, <= 0)."""
        self._check_context(context, "CalcJointDampingPower")
        return dyn.joint_damping_power(self._model, context)
