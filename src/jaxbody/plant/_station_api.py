"""Simbody's station and mass-center operators (seed 004, ``MobilizedBody``'s "basic
operators") that Drake has no single call for, under Drake-style names: the facade over
`jaxbody.engine.stations`. Pure functions of the Context, so they jit, vmap and differentiate.

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

from jaxbody.core.checks import check_shape
from jaxbody.engine import discrete_step as ds
from jaxbody.engine import forward_dynamics as fd
from jaxbody.engine import stations as st
from jaxbody.plant._core import PlantCore


class StationAPI(PlantCore):
    """Mixed into `MultibodyPlant`."""

    def _station_context(self, context, what, *bodies):
        """Checks the context and the bodies (as the world pose they are read through); the
        bodies' indices."""
        self._require_finalized(what)
        self._check_context(context, what)
        return [self._own_body(b, "EvalBodyPoseInWorld") for b in bodies]

    def _station_vdot(self, context, vdot, what):
        """``vdot`` checked, or the plant's v̇ with no inputs: its forward dynamics, or for a
        discrete plant the step's (v_next − v₀)/δt, as `EvalBodySpatialAccelerationInWorld`."""
        if vdot is not None:
            return check_shape(f"{what}: vdot", vdot, (self._topology.nv,))
        model = self._model
        if model.is_discrete:
            return (ds.step(model, context).context.v - context.v) / model.time_step
        return fd.generalized_accelerations(model, context)

    # --- locations ---------------------------------------------------------------------------
    def CalcStationLocationInWorld(self, context, body, p_BS):
        """p_WS (3,): where station S of ``body`` is, in World."""
        b, = self._station_context(context, "CalcStationLocationInWorld", body)
        return st.station_location_in_world(self._model, context, b, p_BS)

    def CalcStationLocationInBody(self, context, body_B, p_BS, body_A):
        """p_AS (3,): the point of body A coincident with station S of body B, in A."""
        B, A = self._station_context(context, "CalcStationLocationInBody", body_B, body_A)
        return st.station_location_in_body(self._model, context, B, p_BS, A)

    def CalcStationAtWorldPoint(self, context, body, p_WQ):
        """p_BQ (3,): the station of ``body`` now at the World point p_WQ."""
        b, = self._station_context(context, "CalcStationAtWorldPoint", body)
        return st.station_at_world_point(self._model, context, b, p_WQ)

    def CalcStationAtBodyStation(self, context, body_B, body_A, p_AS):
        """p_BS (3,): the station of B coincident with station S of body A."""
        what = "CalcStationAtBodyStation"
        A, B = self._station_context(context, what, body_A, body_B)
        return st.station_location_in_body(self._model, context, A, p_AS, B, what)

    def CalcMassCenterLocationInBody(self, context, body_B, body_A):
        """p_A_Bcm (3,): the point of A coincident with B's mass center, in A."""
        B, A = self._station_context(context, "CalcStationLocationInBody", body_B, body_A)
        return st.mass_center_location_in_body(self._model, context, B, A)

    # --- velocities and accelerations --------------------------------------------------------
    def CalcStationVelocityInWorld(self, context, body, p_BS):
        """v_WS (3,): the velocity of station S of ``body`` in World (m/s)."""
        b, = self._station_context(context, "CalcStationVelocityInWorld", body)
        return st.station_velocity_in_world(self._model, context, b, p_BS)

    def CalcStationVelocityInBody(self, context, body_B, p_BS, body_A):
        """v_AS_A (3,): the velocity of station S of B measured in A, expressed in A."""
        B, A = self._station_context(context, "CalcStationVelocityInBody", body_B, body_A)
        return st.station_velocity_in_body(self._model, context, B, p_BS, A)

    def CalcStationAccelerationInWorld(self, context, body, p_BS, vdot=None):
        """a_WS (3,): the acceleration of station S of ``body`` in World (m/s²), for ``vdot``
        (default: the plant's forward dynamics with no inputs)."""
        what = "CalcStationAccelerationInWorld"
        b, = self._station_context(context, what, body)
        vdot = self._station_vdot(context, vdot, what)
        return st.station_acceleration_in_world(self._model, context, b, p_BS, vdot)

    def CalcStationAccelerationInBody(self, context, body_B, p_BS, body_A, vdot=None):
        """a_AS_A (3,): the acceleration of station S of B measured in A, expressed in A
        (with the Coriolis and centripetal terms of A's motion)."""
        what = "CalcStationAccelerationInBody"
        B, A = self._station_context(context, what, body_B, body_A)
        vdot = self._station_vdot(context, vdot, what)
        return st.station_acceleration_in_body(self._model, context, B, p_BS, A, vdot)

    # --- distances ---------------------------------------------------------------------------
    def CalcStationToStationDistance(self, context, body_B, p_BS, body_A, p_AQ):
        """|p_WS − p_WQ| (m) between station S of B and station Q of A."""
        B, A = self._station_context(context, "CalcStationToStationDistance", body_B, body_A)
        return st.station_to_station_distance(self._model, context, B, p_BS, A, p_AQ)

    def CalcStationToStationDistanceTimeDerivative(self, context, body_B, p_BS, body_A, p_AQ):
        """ḋ = u·(v_WS − v_WQ), u the unit vector from Q to S (m/s); the relative speed's
        norm where the stations coincide (Simbody's convention)."""
        what = "CalcStationToStationDistanceTimeDerivative"
        B, A = self._station_context(context, what, body_B, body_A)
        return st.station_to_station_distance_time_derivative(
            self._model, context, B, p_BS, A, p_AQ)

    def CalcStationToStationDistanceSecondTimeDerivative(self, context, body_B, p_BS, body_A,
                                                          p_AQ, vdot=None):
        """d̈ = u·Δa + (|Δv|² − (u·Δv)²)/d (m/s²), for ``vdot`` (default: the plant's forward
        dynamics with no inputs); the relative acceleration along Δv where d = 0."""
        what = "CalcStationToStationDistanceSecondTimeDerivative"
        B, A = self._station_context(context, what, body_B, body_A)
        vdot = self._station_vdot(context, vdot, what)
        return st.station_to_station_distance_second_time_derivative(
            self._model, context, B, p_BS, A, p_AQ, vdot)

    # --- mass properties ---------------------------------------------------------------------
    def CalcBodySpatialInertiaAboutBodyStation(self, context, body_B, body_A, p_AS):
        """M_BS_A: body B's spatial inertia about station S of body A, expressed in A."""
        what = "CalcBodySpatialInertiaAboutBodyStation"
        B, A = self._station_context(context, what, body_B, body_A)
        return st.body_spatial_inertia_about_body_station(self._model, context, B, A, p_AS)

    def CalcBodySpatialMomentumAboutMassCenterInWorld(self, context, body):
        """L_WBcm_W: body B's spatial momentum in World about its mass center, in W."""
        what = "CalcBodySpatialMomentumAboutMassCenterInWorld"
        b, = self._station_context(context, what, body)
        return st.body_spatial_momentum_about_mass_center_in_world(self._model, context, b)
