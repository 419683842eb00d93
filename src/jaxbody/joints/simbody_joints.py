"""Joints with Simbody's mobilizers that Drake lacks (seed 004), with Drake-style accessors
and Simbody's fit routines (never throwing: the best fit). Kinematics in `simbody_kinds`.

The fit routines take and return a context, as every jaxbody setter: ``SetQToFitTransform``,
``SetQToFitRotation``, ``SetQToFitTranslation`` (q from a wanted X_FM, R_FM or p_FM), and
``SetUToFitVelocity``, ``SetUToFitAngularVelocity``, ``SetUToFitLinearVelocity`` (u from a
wanted V_FM = [w_FM; v_FM] in F, at the context's q). What the joint cannot represent is left
as close as it can be; nothing raises.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.core.checks import check_shape
from jaxbody.joints import simbody_kinds
from jaxbody.joints.joint import Joint
from jaxbody.math.so3 import (
    axis_angle_to_rotation,
    quaternion_to_rotation,
    rotation_to_quaternion,
)


def _rotation_array(R):
    return R.matrix() if hasattr(R, "matrix") else jnp.asarray(R)


def _spatial_parts(V, what):
    """(w, v) of a `SpatialVelocity` or a 6-vector [w; v]."""
    if hasattr(V, "rotational"):
        return jnp.asarray(V.rotational()), jnp.asarray(V.translational())
    V = check_shape(what, V, (6,))
    return V[:3], V[3:]


def _vector3(joint, routine, x):
    """``x`` as a 3-vector, or an error naming the joint and the routine."""
    return check_shape(f"{type(joint).__name__} '{joint.name()}'.{routine}", x, (3,))


def _rotation3(joint, routine, R):
    R = R.matrix() if hasattr(R, "matrix") else R
    return check_shape(f"{type(joint).__name__} '{joint.name()}'.{routine}", R, (3, 3))


class _FittingJoint(Joint):
    """Simbody's fit routines; a subclass overrides what its mobility can represent. The
    defaults represent nothing (the context is returned unchanged)."""

    def SetQToFitTransform(self, context, X_FM):
        """Rotation first, then translation (Simbody's order)."""
        if not (hasattr(X_FM, "rotation") and hasattr(X_FM, "translation")):
            raise TypeError(f"{type(self).__name__} '{self.name()}'.SetQToFitTransform: X_FM "
                            f"must be a RigidTransform, got {type(X_FM).__name__}")
        context = self.SetQToFitRotation(context, X_FM.rotation())
        return self.SetQToFitTranslation(context, X_FM.translation())

    def SetQToFitRotation(self, context, R_FM):
        """q best reproducing ``R_FM`` (a `RotationMatrix` or 3×3)."""
        return self._fit_rotation(context, _rotation3(self, "SetQToFitRotation", R_FM))

    def SetQToFitTranslation(self, context, p_FM):
        """q best reproducing ``p_FM`` (3,), the position of Mo in F."""
        return self._fit_translation(context, _vector3(self, "SetQToFitTranslation", p_FM))

    def SetUToFitVelocity(self, context, V_FM):
        """Angular velocity first, then linear (Simbody's order)."""
        w, v = _spatial_parts(V_FM, f"{type(self).__name__} '{self.name()}'.SetUToFitVelocity")
        return self.SetUToFitLinearVelocity(self.SetUToFitAngularVelocity(context, w), v)

    def SetUToFitAngularVelocity(self, context, w_FM):
        """u best reproducing ``w_FM`` (3,) at the context's q."""
        return self._fit_angular_velocity(
            context, _vector3(self, "SetUToFitAngularVelocity", w_FM))

    def SetUToFitLinearVelocity(self, context, v_FM):
        """u best reproducing ``v_FM`` (3,), the velocity of Mo in F, at the context's q."""
        return self._fit_linear_velocity(
            context, _vector3(self, "SetUToFitLinearVelocity", v_FM))

    # What the mobility can represent; by default nothing (the context unchanged).
    def _fit_rotation(self, context, R_FM):
        return context

    def _fit_translation(self, context, p_FM):
        return context

    def _fit_angular_velocity(self, context, w_FM):
        return context

    def _fit_linear_velocity(self, context, v_FM):
        return context

    def _with_q(self, context, q):
        return self.SetPositions(context, jnp.asarray(q, context.q.dtype))

    def _with_v(self, context, v):
        return self.SetVelocities(context, jnp.asarray(v, context.v.dtype))

    def _subspace(self, context):
        """H_FM_F (6, nv) at the context's q."""
        q = self.GetPositions(context)
        consts = {k: v[None] for k, v in self._constants.items()}
        return self.kind.subspace(q[None], consts)[0]


class GimbalJoint(_FittingJoint):
    """Simbody's Gimbal: unrestricted orientation as body-fixed 1-2-3 Euler angles.

    q = [θ0, θ1, θ2] with R_FM = Rx(θ0)·Ry(θ1)·Rz(θ2) (rotations about x of F, then the new y,
    then the newest z: three revolute joints in series); v = q̇ (Simbody's u), not Drake's
    BallRpyJoint's w_FM (whose angles are space-fixed x-y-z). Fo = Mo. Singular (the mass
    matrix loses rank) where cos θ1 = 0: forward dynamics raises there, naming the joint.
    """

    kind = simbody_kinds.Gimbal

    def __init__(self, name, frame_on_parent, frame_on_child, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def damping(self) -> float:
        return float(self._damping[0])

    def get_angles(self, context):
        return self.GetPositions(context)

    def set_angles(self, context, angles):
        return self.SetPositions(context, angles)

    def get_angle_rates(self, context):
        return self.GetVelocities(context)

    def set_angle_rates(self, context, rates):
        return self.SetVelocities(context, rates)

    def set_default_angles(self, angles):
        self.set_default_positions(angles)

    def get_angular_velocity(self, context):
        """w_FM_F = H(q) q̇ (rad/s)."""
        return self._subspace(context)[:3] @ self.get_angle_rates(context)

    def _fit_rotation(self, context, R_FM):
        """The angles that reproduce ``R_FM`` (a `RotationMatrix` or 3×3), θ1 ∈ [−π/2, π/2]."""
        return self._with_q(context, simbody_kinds.rotation_to_body_xyz(_rotation_array(R_FM)))

    def _fit_angular_velocity(self, context, w_FM):
        """The rates q̇ with H(q) q̇ = w_FM_F, by least squares (exact away from gimbal lock,
        the minimum-norm best fit at it)."""
        H = self._subspace(context)[:3]
        return self._with_v(context, jnp.linalg.lstsq(H, jnp.asarray(w_FM, H.dtype))[0])


class BendStretchJoint(_FittingJoint):
    """Simbody's BendStretch (PolarCoords): a turn θ about F's z axis, then a slide x along
    the turned x axis: R_FM = Rz(θ), p_FM = Rz(θ)·(x, 0, 0); q = (θ, x), v = q̇. The same
    motion as a revolute joint about z followed by a prismatic joint along x (with a massless
    body between them)."""

    kind = simbody_kinds.BendStretch

    def __init__(self, name, frame_on_parent, frame_on_child, damping=(0.0, 0.0)):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def damping(self):
        return self._damping.copy()

    def get_angle(self, context):
        return self.GetPositions(context)[0]

    def get_length(self, context):
        return self.GetPositions(context)[1]

    def _fit_rotation(self, context, R_FM):
        """The turn about z closest to ``R_FM``: the angle of its x axis projected on F's xy
        plane (Simbody takes the third body-fixed angle; this is its least-squares best)."""
        R = _rotation_array(R_FM)
        angle = jnp.arctan2(R[1, 0] - R[0, 1], R[0, 0] + R[1, 1])
        return self._with_q(context, self.GetPositions(context).at[0].set(angle))

    def _fit_translation(self, context, p_FM):
        """Polar coordinates of ``p_FM``'s xy part (its z part cannot be reached); the angle is
        kept when that part is nearly zero."""
        p = jnp.asarray(p_FM, context.q.dtype)
        d = jnp.hypot(p[0], p[1])
        q = self.GetPositions(context)
        angle = jnp.where(d >= 4 * jnp.finfo(q.dtype).eps, jnp.arctan2(p[1], p[0]), q[0])
        return self._with_q(context, jnp.stack([angle, d]))

    def _fit_angular_velocity(self, context, w_FM):
        return self._with_v(context, self.GetVelocities(context).at[0].set(w_FM[2]))

    def _fit_linear_velocity(self, context, v_FM):
        """The slide rate is v_FM along M's x; the turn rate gives v_FM along M's y when the
        length is not near zero."""
        q, u = self.GetPositions(context), self.GetVelocities(context)
        c, s = jnp.cos(q[0]), jnp.sin(q[0])
        vx, vy = c * v_FM[0] + s * v_FM[1], -s * v_FM[0] + c * v_FM[1]
        far = jnp.abs(q[1]) >= 1e-12
        turn = jnp.where(far, vy / jnp.where(far, q[1], 1.0), u[0])
        return self._with_v(context, jnp.stack([turn, vx]))


class _QuaternionFitting(_FittingJoint):
    """Orientation from a quaternion in q[0:4]."""

    def _rotation(self, context):
        return quaternion_to_rotation(self.GetPositions(context)[:4])

    def get_quaternion(self, context):
        return self.GetPositions(context)[:4]

    def set_quaternion(self, context, quaternion):
        q = self.GetPositions(context).at[:4].set(jnp.asarray(quaternion, context.q.dtype))
        return self._with_q(context, q)

    def set_default_quaternion(self, quaternion):
        q = np.array(self.default_positions(), float)
        q[:4] = np.asarray(quaternion, float)
        self.set_default_positions(q)

    def _fit_rotation(self, context, R_FM):
        return self.set_quaternion(context, rotation_to_quaternion(_rotation_array(R_FM)))


class LineOrientationJoint(_QuaternionFitting):
    """Simbody's LineOrientation: the orientation of a body that is a line along Mz (thin
    along it, as a linear molecule). q = a quaternion of R_FM (Drake's [w, x, y, z] order);
    v = (ωx, ωy), the angular velocity of M in F expressed in *M*, whose z component is zero:
    the spin about the line is not a coordinate. Fo = Mo."""

    kind = simbody_kinds.LineOrientation

    def __init__(self, name, frame_on_parent, frame_on_child, damping=(0.0, 0.0)):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def get_angular_velocity(self, context):
        """w_FM_F = R_FM·(ωx, ωy, 0)."""
        return self._subspace(context)[:3] @ self.GetVelocities(context)

    def _fit_angular_velocity(self, context, w_FM):
        """The x and y components of w_FM in M (its spin about Mz is dropped)."""
        w_M = self._rotation(context).T @ jnp.asarray(w_FM, context.v.dtype)
        return self._with_v(context, w_M[:2])


class FreeLineJoint(_QuaternionFitting):
    """Simbody's FreeLine: LineOrientation plus free translation. q = [quaternion (4);
    p_FM (3)]; v = [ωx, ωy of w_FM in M; v_FM in F (3)] (5 velocities)."""

    kind = simbody_kinds.FreeLine

    def __init__(self, name, frame_on_parent, frame_on_child, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def get_translation(self, context):
        return self.GetPositions(context)[4:]

    def set_translation(self, context, p_FM):
        q = self.GetPositions(context).at[4:].set(jnp.asarray(p_FM, context.q.dtype))
        return self._with_q(context, q)

    def get_angular_velocity(self, context):
        return self._subspace(context)[:3] @ self.GetVelocities(context)

    def get_translational_velocity(self, context):
        return self.GetVelocities(context)[2:]

    def _fit_translation(self, context, p_FM):
        return self.set_translation(context, p_FM)

    def _fit_angular_velocity(self, context, w_FM):
        w_M = self._rotation(context).T @ jnp.asarray(w_FM, context.v.dtype)
        return self._with_v(context, self.GetVelocities(context).at[:2].set(w_M[:2]))

    def _fit_linear_velocity(self, context, v_FM):
        v = jnp.asarray(v_FM, context.v.dtype)
        return self._with_v(context, self.GetVelocities(context).at[2:].set(v))


class EllipsoidJoint(_QuaternionFitting):
    """Simbody's Ellipsoid: unrestricted orientation with Mo kept on the surface of an
    ellipsoid with semi-axes ``radii`` = (a, b, c) centred at Fo: p_FM = diag(a, b, c)·n, n =
    R_FM ẑ (Simbody's formula; n is the surface normal there only for a sphere). q = a
    quaternion (4), v = w_FM_F (3). At q = identity, Mo = (0, 0, c)."""

    kind = simbody_kinds.Ellipsoid

    def __init__(self, name, frame_on_parent, frame_on_child, radii, damping=0.0):
        r = np.asarray(radii, float)
        if r.shape != (3,) or not np.all(np.isfinite(r)) or np.any(r <= 0):
            raise ValueError(f"EllipsoidJoint '{name}': radii must be three positive finite "
                             f"semi-axes (a, b, c), got {radii!r}")
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping,
                         constants={"semi_axes": r})

    def radii(self):
        return self._constants["semi_axes"].copy()

    def get_angular_velocity(self, context):
        return self.GetVelocities(context)

    def _fit_translation(self, context, p_FM):
        """Turn M (by the smallest rotation) so that Mo lies on the ray from Fo through
        ``p_FM``: n ∝ diag(a, b, c)⁻¹ p. Simbody's routine aims latitude and longitude
        separately, which misses the ray off the coordinate planes. Unchanged for p ≈ 0."""
        p = jnp.asarray(p_FM, context.q.dtype)
        R = self._rotation(context)
        n_new = p / jnp.asarray(self._constants["semi_axes"], p.dtype)
        norm = jnp.linalg.norm(n_new)
        n_new = n_new / jnp.where(norm > 0, norm, 1.0)
        n_cur = R[:, 2]
        axis = jnp.cross(n_cur, n_new)
        s, c = jnp.linalg.norm(axis), jnp.dot(n_cur, n_new)
        # the half-turn case (n_new = −n_cur) turns about M's x axis
        k = jnp.where(s > 1e-12, axis / jnp.where(s > 1e-12, s, 1.0), R[:, 0])
        turn = axis_angle_to_rotation(k, jnp.arctan2(s, c))
        R_new = jnp.where(norm > 1e-12, turn @ R, R)
        return self.SetQToFitRotation(context, R_new)

    def _fit_angular_velocity(self, context, w_FM):
        return self._with_v(context, jnp.asarray(w_FM, context.v.dtype))

    def _fit_linear_velocity(self, context, v_FM):
        """The angular velocity that gives v_FM's tangential part (least squares over the
        two rotations about axes in the tangent plane), keeping the spin about n."""
        H = self._subspace(context)
        w = self.GetVelocities(context)
        n = self._rotation(context)[:, 2]
        spin = jnp.dot(w, n)
        # v = L w with L = H's linear block; solve min |L w − v| over w ⟂ n, then add the spin.
        L = H[3:]
        P = jnp.eye(3, dtype=L.dtype) - jnp.outer(n, n)
        w_t = jnp.linalg.lstsq(L @ P, jnp.asarray(v_FM, L.dtype))[0]
        return self._with_v(context, P @ w_t + spin * n)


__all__ = ["BendStretchJoint", "EllipsoidJoint", "FreeLineJoint", "GimbalJoint",
           "LineOrientationJoint"]
