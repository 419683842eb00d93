"""Simbody's station and mass-center operators (seed 004, ``MobilizedBody``'s "basic
operators") that Drake has no single call for, under Drake-style names; pure functions of the
Context, so they jit, vmap and differentiate.

A *station* S is a point fixed on a body B, given by p_BS (from Bo, expressed in B). "In A"
means measured in body A's frame and expressed in A, as Simbody's "InAnotherBody" operators.
Accelerations need v̇: pass ``vdot`` (e.g. from a simulation), or leave it None for the plant's
own forward dynamics with no inputs (as `EvalBodySpatialAccelerationInWorld`; Simbody's
operators read the accelerations realized in the State).

Simbody name → jaxbody:

- findStationLocationInGround / InAnotherBody → `CalcStationLocationInWorld` / `InBody`
- findStationVelocityInGround / InAnotherBody → `CalcStationVelocityInWorld` / `InBody`
- findStationAccelerationInGround / InAnotherBody → `CalcStationAccelerationInWorld` / `InBody`
- findStationAtGroundPoint, findStationAtAnotherBodyStation → `CalcStationAtWorldPoint`,
  `CalcStationAtBodyStation`
- findMassCenterLocationInAnotherBody → `CalcMassCenterLocationInBody`
- calcStationToStationDistance (and its first and second time derivatives) →
  `CalcStationToStationDistance` (…`TimeDerivative`, …`SecondTimeDerivative`)
- calcBodyInertiaAboutAnotherBodyStation → `CalcBodySpatialInertiaAboutBodyStation`
- calcBodyMomentumAboutBodyMassCenterInGround → `CalcBodySpatialMomentumAboutMassCenterInWorld`
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.core.checks import check_shape
from jaxbody.math import SpatialMomentum
from jaxbody.math.so3 import safe_norm


class _Kinematics:
    """World pose, spatial velocity and acceleration of a body, and of its stations."""

    def __init__(self, plant, context, body, vdot):
        X = plant.EvalBodyPoseInWorld(context, body)
        self.V_WB = plant.EvalBodySpatialVelocityInWorld(context, body)
        self.R = X.rotation().matrix()
        self.p = X.translation()
        self.w, self.v = self.V_WB.rotational(), self.V_WB.translational()
        self._plant, self._context, self._body, self._vdot = plant, context, body, vdot

    def spatial_acceleration(self):
        """A_WB (about Bo, in W)."""
        if self._vdot is None:
            return self._plant.EvalBodySpatialAccelerationInWorld(self._context, self._body)
        return self._plant.CalcSpatialAccelerationsFromVdot(
            self._context, self._vdot)[int(self._body.index())]

    def acceleration(self):
        """(α_WB, a_WBo) in W."""
        A = self.spatial_acceleration()
        return A.rotational(), A.translational()

    def station(self, p_BS, order):
        """(p_WS, v_WS, a_WS) up to ``order`` (0, 1, 2), in W."""
        r = self.R @ p_BS
        out = [self.p + r]
        if order >= 1:
            out.append(self.V_WB.Shift(r).translational())
        if order >= 2:
            out.append(self.spatial_acceleration().Shift(r, self.w).translational())
        return out


class StationAPI:
    """Mixed into `MultibodyPlant`."""

    def _station(self, what, p):
        return check_shape(f"{what}: station", p, (3,))

    def _station_kinematics(self, context, body, vdot, what):
        self._require_finalized(what)
        self._check_context(context, what)
        if vdot is not None:
            vdot = check_shape(f"{what}: vdot", vdot, (self.num_velocities(),))
        return _Kinematics(self, context, body, vdot)

    def _relative(self, context, body_B, p_BS, body_A, order, vdot, what):
        """Position, velocity, acceleration (up to ``order``) of station S of B measured in A,
        expressed in A."""
        p_BS = self._station(what, p_BS)
        S = self._station_kinematics(context, body_B, vdot, what).station(p_BS, order)
        A = self._station_kinematics(context, body_A, vdot, what)
        r = S[0] - A.p  # from Ao to S, in W
        out = [A.R.T @ r]
        if order >= 1:
            v_rel = S[1] - A.v - jnp.cross(A.w, r)
            out.append(A.R.T @ v_rel)
        if order >= 2:
            alpha, a_Ao = A.acceleration()
            a_rel = (S[2] - a_Ao - jnp.cross(alpha, r) - jnp.cross(A.w, jnp.cross(A.w, r))
                     - 2.0 * jnp.cross(A.w, v_rel))
            out.append(A.R.T @ a_rel)
        return out

    # --- locations ---------------------------------------------------------------------------
    def CalcStationLocationInWorld(self, context, body, p_BS):
        """p_WS (3,): where station S of ``body`` is, in World."""
        what = "CalcStationLocationInWorld"
        return self._station_kinematics(context, body, None, what).station(
            self._station(what, p_BS), 0)[0]

    def CalcStationLocationInBody(self, context, body_B, p_BS, body_A):
        """p_AS (3,): the point of body A coincident with station S of body B, in A."""
        return self._relative(context, body_B, p_BS, body_A, 0, None,
                              "CalcStationLocationInBody")[0]

    def CalcStationAtWorldPoint(self, context, body, p_WQ):
        """p_BQ (3,): the station of ``body`` now at the World point p_WQ."""
        what = "CalcStationAtWorldPoint"
        K = self._station_kinematics(context, body, None, what)
        return K.R.T @ (check_shape(f"{what}: p_WQ", p_WQ, (3,)) - K.p)

    def CalcStationAtBodyStation(self, context, body_B, body_A, p_AS):
        """p_BS (3,): the station of B coincident with station S of body A."""
        return self._relative(context, body_A, p_AS, body_B, 0, None,
                              "CalcStationAtBodyStation")[0]

    def CalcMassCenterLocationInBody(self, context, body_B, body_A):
        """p_A_Bcm (3,): the point of A coincident with B's mass center, in A."""
        return self.CalcStationLocationInBody(
            context, body_B, body_B.CalcCenterOfMassInBodyFrame(context), body_A)

    # --- velocities and accelerations --------------------------------------------------------
    def CalcStationVelocityInWorld(self, context, body, p_BS):
        """v_WS (3,): the velocity of station S of ``body`` in World (m/s)."""
        what = "CalcStationVelocityInWorld"
        return self._station_kinematics(context, body, None, what).station(
            self._station(what, p_BS), 1)[1]

    def CalcStationVelocityInBody(self, context, body_B, p_BS, body_A):
        """v_AS_A (3,): the velocity of station S of B measured in A, expressed in A."""
        return self._relative(context, body_B, p_BS, body_A, 1, None,
                              "CalcStationVelocityInBody")[1]

    def CalcStationAccelerationInWorld(self, context, body, p_BS, vdot=None):
        """a_WS (3,): the acceleration of station S of ``body`` in World (m/s²), for ``vdot``
        (default: the plant's forward dynamics with no inputs)."""
        what = "CalcStationAccelerationInWorld"
        return self._station_kinematics(context, body, vdot, what).station(
            self._station(what, p_BS), 2)[2]

    def CalcStationAccelerationInBody(self, context, body_B, p_BS, body_A, vdot=None):
        """a_AS_A (3,): the acceleration of station S of B measured in A, expressed in A
        (with the Coriolis and centripetal terms of A's motion)."""
        return self._relative(context, body_B, p_BS, body_A, 2, vdot,
                              "CalcStationAccelerationInBody")[2]

    # --- distances ---------------------------------------------------------------------------
    def _distance_terms(self, context, body_B, p_BS, body_A, p_AQ, order, vdot, what):
        S = self._station_kinematics(context, body_B, vdot, what).station(
            self._station(what, p_BS), order)
        Q = self._station_kinematics(context, body_A, vdot, what).station(
            self._station(what, p_AQ), order)
        return [s - q for s, q in zip(S, Q)]

    def CalcStationToStationDistance(self, context, body_B, p_BS, body_A, p_AQ):
        """|p_WS − p_WQ| (m) between station S of B and station Q of A."""
        d = self._distance_terms(context, body_B, p_BS, body_A, p_AQ, 0, None,
                                 "CalcStationToStationDistance")[0]
        return safe_norm(d)

    def CalcStationToStationDistanceTimeDerivative(self, context, body_B, p_BS, body_A, p_AQ):
        """ḋ = u·(v_WS − v_WQ), u the unit vector from Q to S (m/s); the relative speed's
        norm where the stations coincide (Simbody's convention)."""
        d, dv = self._distance_terms(context, body_B, p_BS, body_A, p_AQ, 1, None,
                                     "CalcStationToStationDistanceTimeDerivative")
        n = safe_norm(d)
        return jnp.where(n > 0, jnp.dot(d, dv) / jnp.where(n > 0, n, 1.0), safe_norm(dv))

    def CalcStationToStationDistanceSecondTimeDerivative(self, context, body_B, p_BS, body_A,
                                                          p_AQ, vdot=None):
        """d̈ = u·Δa + (|Δv|² − (u·Δv)²)/d (m/s²), for ``vdot`` (default: the plant's forward
        dynamics with no inputs); the relative acceleration along Δv where d = 0."""
        d, dv, da = self._distance_terms(
            context, body_B, p_BS, body_A, p_AQ, 2, vdot,
            "CalcStationToStationDistanceSecondTimeDerivative")
        n = safe_norm(d)
        safe = jnp.where(n > 0, n, 1.0)
        u = d / safe
        along = jnp.dot(u, dv)
        far = jnp.dot(u, da) + (jnp.dot(dv, dv) - along * along) / safe
        speed = safe_norm(dv)
        near = jnp.dot(dv, da) / jnp.where(speed > 0, speed, 1.0)
        return jnp.where(n > 0, far, near)

    # --- mass properties ---------------------------------------------------------------------
    def CalcBodySpatialInertiaAboutBodyStation(self, context, body_B, body_A, p_AS):
        """M_BS_A: body B's spatial inertia about station S of body A, expressed in A."""
        what = "CalcBodySpatialInertiaAboutBodyStation"
        KA = self._station_kinematics(context, body_A, None, what)
        KB = self._station_kinematics(context, body_B, None, what)
        p_AS = self._station(what, p_AS)
        M_BBo_B = body_B.CalcSpatialInertiaInBodyFrame(context)
        R_AB = KA.R.T @ KB.R
        p_Bo_in_A = KA.R.T @ (KB.p - KA.p)  # p_AoBo_A
        M_BBo_A = M_BBo_B.ReExpress(R_AB)
        return M_BBo_A.Shift(p_AS - p_Bo_in_A)

    def CalcBodySpatialMomentumAboutMassCenterInWorld(self, context, body):
        """L_WBcm_W: body B's spatial momentum in World about its mass center, in W."""
        what = "CalcBodySpatialMomentumAboutMassCenterInWorld"
        K = self._station_kinematics(context, body, None, what)
        M_BBo_B = body.CalcSpatialInertiaInBodyFrame(context)
        com = body.CalcCenterOfMassInBodyFrame(context)
        M_Bcm_W = M_BBo_B.Shift(com).ReExpress(K.R)
        r = K.R @ com
        w, v_cm = K.w, K.v + jnp.cross(K.w, r)
        I = M_Bcm_W.CalcRotationalInertia().CopyToFullMatrix3()
        return SpatialMomentum(I @ w, M_Bcm_W.get_mass() * v_cm)
