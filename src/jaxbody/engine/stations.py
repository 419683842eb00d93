"""Simbody's station and mass-center operators (``MobilizedBody``'s "basic operators") on a
compiled model, bodies given by BodyIndex.

A *station* S is a point fixed on a body B, given by p_BS (from Bo, expressed in B). "In A"
means measured in body A's frame and expressed in A. With (R_WA, p_WAo, ω_WA, v_WAo, α_WA,
a_WAo) body A's motion and r = p_WS − p_WAo,

    p_AS = R_AW r
    v_AS = R_AW (v_WS − v_WAo − ω_WA × r)
    a_AS = R_AW (a_WS − a_WAo − α_WA × r − ω_WA × (ω_WA × r) − 2 ω_WA × v_AS_W)

[Simbody, MobilizedBody.h]. Accelerations need the generalized accelerations ``vdot``.
The distance d = |p_WS − p_WQ| between two stations has ḋ = u·Δv and
d̈ = u·Δa + (|Δv|² − (u·Δv)²)/d, u the unit vector from Q to S; where the stations coincide
Simbody's convention gives |Δv| and the relative acceleration along Δv.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.core.checks import check_shape
from jaxbody.engine.kinematics import spatial_accelerations_from_vdot, velocity_kinematics
from jaxbody.math import SpatialInertia, SpatialMomentum, SpatialVelocity, UnitInertia
from jaxbody.math.so3 import safe_norm


def _station(what, p):
    return check_shape(f"{what}: station", p, (3,))


class _Motion:
    """World pose, spatial velocity and (for ``vdot``) spatial acceleration of a body, and of
    its stations."""

    def __init__(self, model, context, body, vdot):
        _, pk, vk = velocity_kinematics(model, context)
        n = int(model.topology.body_node[body])
        V = vk.V_WB[n]
        self.V_WB = SpatialVelocity(V[:3], V[3:])
        self.R, self.p = pk.R_WB[n], pk.p_WB[n]
        self.w, self.v = self.V_WB.rotational(), self.V_WB.translational()
        self._model, self._context, self._body, self._vdot = model, context, body, vdot

    def spatial_acceleration(self):
        """A_WB (about Bo, in W)."""
        return spatial_accelerations_from_vdot(self._model, self._context,
                                               self._vdot)[int(self._body)]

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


def _relative(model, context, body_B, p_BS, body_A, order, vdot, what):
    """Position, velocity, acceleration (up to ``order``) of station S of B measured in A,
    expressed in A."""
    p_BS = _station(what, p_BS)
    S = _Motion(model, context, body_B, vdot).station(p_BS, order)
    A = _Motion(model, context, body_A, vdot)
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


# --- locations -------------------------------------------------------------------------------
def station_location_in_world(model, context, body, p_BS, what="CalcStationLocationInWorld"):
    """p_WS (3,): where station S of ``body`` is, in World."""
    return _Motion(model, context, body, None).station(_station(what, p_BS), 0)[0]


def station_location_in_body(model, context, body_B, p_BS, body_A,
                             what="CalcStationLocationInBody"):
    """p_AS (3,): the point of body A coincident with station S of body B, in A."""
    return _relative(model, context, body_B, p_BS, body_A, 0, None, what)[0]


def station_at_world_point(model, context, body, p_WQ, what="CalcStationAtWorldPoint"):
    """p_BQ (3,): the station of ``body`` now at the World point p_WQ."""
    K = _Motion(model, context, body, None)
    return K.R.T @ (check_shape(f"{what}: p_WQ", p_WQ, (3,)) - K.p)


def mass_center_location_in_body(model, context, body_B, body_A,
                                 what="CalcStationLocationInBody"):
    """p_A_Bcm (3,): the point of A coincident with B's mass center, in A."""
    return station_location_in_body(model, context, body_B,
                                    context.parameters.com[body_B], body_A, what)


# --- velocities and accelerations ------------------------------------------------------------
def station_velocity_in_world(model, context, body, p_BS, what="CalcStationVelocityInWorld"):
    """v_WS (3,): the velocity of station S of ``body`` in World (m/s)."""
    return _Motion(model, context, body, None).station(_station(what, p_BS), 1)[1]


def station_velocity_in_body(model, context, body_B, p_BS, body_A,
                             what="CalcStationVelocityInBody"):
    """v_AS_A (3,): the velocity of station S of B measured in A, expressed in A."""
    return _relative(model, context, body_B, p_BS, body_A, 1, None, what)[1]


def station_acceleration_in_world(model, context, body, p_BS, vdot,
                                  what="CalcStationAccelerationInWorld"):
    """a_WS (3,): the acceleration of station S of ``body`` in World (m/s²) for ``vdot``."""
    return _Motion(model, context, body, vdot).station(_station(what, p_BS), 2)[2]


def station_acceleration_in_body(model, context, body_B, p_BS, body_A, vdot,
                                 what="CalcStationAccelerationInBody"):
    """a_AS_A (3,): the acceleration of station S of B measured in A, expressed in A (with
    the Coriolis and centripetal terms of A's motion), for ``vdot``."""
    return _relative(model, context, body_B, p_BS, body_A, 2, vdot, what)[2]


# --- distances -------------------------------------------------------------------------------
def _distance_terms(model, context, body_B, p_BS, body_A, p_AQ, order, vdot, what):
    S = _Motion(model, context, body_B, vdot).station(_station(what, p_BS), order)
    Q = _Motion(model, context, body_A, vdot).station(_station(what, p_AQ), order)
    return [s - q for s, q in zip(S, Q)]


def station_to_station_distance(model, context, body_B, p_BS, body_A, p_AQ,
                                what="CalcStationToStationDistance"):
    """|p_WS − p_WQ| (m) between station S of B and station Q of A."""
    d = _distance_terms(model, context, body_B, p_BS, body_A, p_AQ, 0, None, what)[0]
    return safe_norm(d)


def station_to_station_distance_time_derivative(
        model, context, body_B, p_BS, body_A, p_AQ,
        what="CalcStationToStationDistanceTimeDerivative"):
    """ḋ = u·(v_WS − v_WQ) (m/s); the relative speed's norm where the stations coincide."""
    d, dv = _distance_terms(model, context, body_B, p_BS, body_A, p_AQ, 1, None, what)
    n = safe_norm(d)
    return jnp.where(n > 0, jnp.dot(d, dv) / jnp.where(n > 0, n, 1.0), safe_norm(dv))


def station_to_station_distance_second_time_derivative(
        model, context, body_B, p_BS, body_A, p_AQ, vdot,
        what="CalcStationToStationDistanceSecondTimeDerivative"):
    """d̈ = u·Δa + (|Δv|² − (u·Δv)²)/d (m/s²) for ``vdot``; the relative acceleration along
    Δv where d = 0."""
    d, dv, da = _distance_terms(model, context, body_B, p_BS, body_A, p_AQ, 2, vdot, what)
    n = safe_norm(d)
    safe = jnp.where(n > 0, n, 1.0)
    u = d / safe
    along = jnp.dot(u, dv)
    far = jnp.dot(u, da) + (jnp.dot(dv, dv) - along * along) / safe
    speed = safe_norm(dv)
    near = jnp.dot(dv, da) / jnp.where(speed > 0, speed, 1.0)
    return jnp.where(n > 0, far, near)


# --- mass properties -------------------------------------------------------------------------
def _body_inertia(context, body):
    """M_BBo_B from the context's parameters (G_BBo_B read as a symmetric matrix)."""
    P = context.parameters
    G = P.unit_inertia[body]
    return SpatialInertia(P.mass[body], P.com[body],
                          UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2]),
                          skip_validity_check=True)


def body_spatial_inertia_about_body_station(model, context, body_B, body_A, p_AS,
                                            what="CalcBodySpatialInertiaAboutBodyStation"):
    """M_BS_A: body B's spatial inertia about station S of body A, expressed in A."""
    KA = _Motion(model, context, body_A, None)
    KB = _Motion(model, context, body_B, None)
    p_AS = _station(what, p_AS)
    R_AB = KA.R.T @ KB.R
    p_Bo_in_A = KA.R.T @ (KB.p - KA.p)  # p_AoBo_A
    M_BBo_A = _body_inertia(context, body_B).ReExpress(R_AB)
    return M_BBo_A.Shift(p_AS - p_Bo_in_A)


def body_spatial_momentum_about_mass_center_in_world(model, context, body):
    """L_WBcm_W: body B's spatial momentum in World about its mass center, in W."""
    K = _Motion(model, context, body, None)
    com = context.parameters.com[body]
    M_Bcm_W = _body_inertia(context, body).Shift(com).ReExpress(K.R)
    r = K.R @ com
    w, v_cm = K.w, K.v + jnp.cross(K.w, r)
    I = M_Bcm_W.CalcRotationalInertia().CopyToFullMatrix3()
    return SpatialMomentum(I @ w, M_Bcm_W.get_mass() * v_cm)
