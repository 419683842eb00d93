"""`LinearBushingRollPitchYaw`: Drake's massless 6-dof bushing between frames A and C.

[Drake ``linear_bushing_roll_pitch_yaw.{h,cc}``; seed 002; spec §3.1]. With R_AC = AngleAxis(θ, k̂):
    R_AB = AngleAxis(θ/2, k̂)  (from q_AC = [q0, q⃗], q0 >= 0: e0 = √((1 + q0)/2), e⃗ = q⃗/(2 e0))
    r = p_AoCo,  p_AoBo = r/2,   [x y z] = R_ABᵀ r_A,   [ẋ ẏ ż] = R_ABᵀ (v_ACo_A − ½ w_AC_A × r_A)
    q = rpy(R_AC) = [q0 q1 q2],   q̇ = N(q) w_AC_A,
        N = [[c2/c1, s2/c1, 0], [−s2, c2, 0], [c2 t1, s2 t1, 1]]  (c1 = cos q1, c2 = cos q2, ...)
    τ = −K₀₁₂ q − D₀₁₂ q̇,   t = Nᵀ τ (torque on C, in A),   f = −Kxyz [x y z] − Dxyz [ẋ ẏ ż] (in B)
    on C: t and f at Cp = Bo;  on A: −t and −f at Ap = Bo.
Both outputs need q̇ and so fail at gimbal lock (|cos q1| < 0.008), as Drake.

Energy (jaxbody; Drake throws, issue #12982). The power of the bushing forces on A and C is
    P = t·w_AC + f·v_ACp = τ·q̇ + f·[ẋ ẏ ż],   v_ACp_A = ṙ_A − ½ w_AC × r_A  (Cp at Bo),
where Drake's [ẋ ẏ ż] takes B's angular velocity in A as ½ w_AC. The exact one is
    w_AB = ½ w_AC − ½ (e⃗/e0) × w_AC      (e = q_AB; from R = exp(φ k̂) with φ = θ/2),
so with U = ½ K₀₁₂·q² + ½ Kxyz·[x y z]² the exact rate d[x y z]/dt = R_ABᵀ (ṙ_A − w_AB × r_A)
gives Pc = −dU/dt, and Pnc = P − Pc = −D₀₁₂ q̇·q̇ − Dxyz [ẋẏż]·[ẋẏż]
− Kxyz [x y z]·([ẋ ẏ ż] − d[x y z]/dt): the last (circulatory) term is the non-conservative
power of an anisotropic force stiffness and vanishes when kx = ky = kz. Hence d(KE + U)/dt =
Pnc holds exactly (tested). U jumps when roll or yaw wraps through ±π.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from jaxbody.forces.force_element import ForceElement, _nonnegative
from jaxbody.math import RigidTransform, RollPitchYaw, RotationMatrix, SpatialForce, so3
from jaxbody.math.rotation import GIMBAL_LOCK_TOLERANCE_COS_PITCH, _is_concrete

# When True (default), a traced bushing near gimbal lock raises through `equinox.error_if`
# (eager calls always raise ValueError). Set False inside long rollouts guarded otherwise.
CHECK_GIMBAL_LOCK = True
_TOL_DEG = float(np.degrees(np.pi / 2 - np.arccos(GIMBAL_LOCK_TOLERANCE_COS_PITCH)))
_CONSTANTS = ("torque_stiffness", "torque_damping", "force_stiffness", "force_damping")


def _gimbal_message(func, pitch_deg="p"):
    return (f"LinearBushingRollPitchYaw::{func}(): Pitch angle {pitch_deg} degrees is within "
            f"{_TOL_DEG:.6g} degrees of gimbal-lock which means p ≈ (n*π ± π/2) where n = 0, 1, "
            "2, ... There is a divide-by-zero error (singularity) at gimbal-lock due to this "
            "bushing's mathematical dependence on roll-pitch-yaw angles.")


class LinearBushingRollPitchYaw(ForceElement):
    """Bushing forces between frame A (on link L0) and frame C (on link L1).

    Args:
        frameA, frameC: the two `Frame`s; the element belongs to ``frameC.model_instance()``.
        torque_stiffness_constants: [k₀ k₁ k₂] >= 0 (N·m/rad).
        torque_damping_constants: [d₀ d₁ d₂] >= 0 (N·m·s/rad).
        force_stiffness_constants: [kx ky kz] >= 0 (N/m).
        force_damping_constants: [dx dy dz] >= 0 (N·s/m).
    """

    def __init__(self, frameA, frameC, torque_stiffness_constants, torque_damping_constants,
                 force_stiffness_constants, force_damping_constants):
        super().__init__(frameC.model_instance())
        self._frameA, self._frameC = frameA, frameC
        values = (torque_stiffness_constants, torque_damping_constants,
                  force_stiffness_constants, force_damping_constants)
        self._defaults = {k: _nonnegative(f"LinearBushingRollPitchYaw: {k}_constants", v, (3,))
                          for k, v in zip(_CONSTANTS, values)}

    # --- Accessors -------------------------------------------------------------------------
    def frameA(self):
        return self._frameA

    def frameC(self):
        return self._frameC

    def link0(self):
        return self._frameA.body()

    def link1(self):
        return self._frameC.body()

    def torque_stiffness_constants(self) -> np.ndarray:
        return self._defaults["torque_stiffness"].copy()

    def torque_damping_constants(self) -> np.ndarray:
        return self._defaults["torque_damping"].copy()

    def force_stiffness_constants(self) -> np.ndarray:
        return self._defaults["force_stiffness"].copy()

    def force_damping_constants(self) -> np.ndarray:
        return self._defaults["force_damping"].copy()

    def GetTorqueStiffnessConstants(self, context):
        return self._get_parameter(context, "torque_stiffness")

    def GetTorqueDampingConstants(self, context):
        return self._get_parameter(context, "torque_damping")

    def GetForceStiffnessConstants(self, context):
        return self._get_parameter(context, "force_stiffness")

    def GetForceDampingConstants(self, context):
        return self._get_parameter(context, "force_damping")

    def SetTorqueStiffnessConstants(self, context, torque_stiffness):
        """A new context with [k₀ k₁ k₂] (N·m/rad)."""
        return self._set_parameter(context, "torque_stiffness", torque_stiffness)

    def SetTorqueDampingConstants(self, context, torque_damping):
        return self._set_parameter(context, "torque_damping", torque_damping)

    def SetForceStiffnessConstants(self, context, force_stiffness):
        return self._set_parameter(context, "force_stiffness", force_stiffness)

    def SetForceDampingConstants(self, context, force_damping):
        return self._set_parameter(context, "force_damping", force_damping)

    def _attach(self, plant):
        self._owned(plant, self._frameA, "frameA")
        self._owned(plant, self._frameC, "frameC")

    def _static_key(self):
        return ("LinearBushingRollPitchYaw", int(self._frameA.index()), int(self._frameC.index()))

    def _default_parameter_values(self):
        return {k: v.copy() for k, v in self._defaults.items()}

    # --- Kinematics of the bushing --------------------------------------------------------
    def _terms(self, ek, params, func):
        R_WA, p_WA = ek.frame_pose(self._frameA)
        R_WC, p_WC = ek.frame_pose(self._frameC)
        V_WA, V_WC = ek.frame_velocity(self._frameA), ek.frame_velocity(self._frameC)
        R_AC = R_WA.T @ R_WC
        r_A = R_WA.T @ (p_WC - p_WA)  # p_AoCo_A
        w_AC_A = R_WA.T @ (V_WC[:3] - V_WA[:3])
        v_ACo_A = R_WA.T @ (V_WC[3:] - V_WA[3:] - jnp.cross(V_WA[:3], p_WC - p_WA))
        R_AB, e = _half_rotation(R_AC)
        rpy = so3.rotation_to_rpy(R_AC)
        c1, s1 = jnp.cos(rpy[1]), jnp.sin(rpy[1])
        c2, s2 = jnp.cos(rpy[2]), jnp.sin(rpy[2])
        c1 = _check_gimbal(c1, rpy[1], func)
        N = jnp.stack([jnp.stack([c2 / c1, s2 / c1, 0 * c1]), jnp.stack([-s2, c2, 0 * c1]),
                       jnp.stack([c2 * s1 / c1, s2 * s1 / c1, 1 + 0 * c1])])
        rpy_dt = N @ w_AC_A
        xyz = R_AB.T @ r_A
        xyz_dt = R_AB.T @ (v_ACo_A - 0.5 * jnp.cross(w_AC_A, r_A))
        w_AB_A = 0.5 * w_AC_A - 0.5 * jnp.cross(e[1:] / e[0], w_AC_A)
        xyz_rate = R_AB.T @ (v_ACo_A - jnp.cross(w_AB_A, r_A))  # exact d[x y z]/dt
        tau = -(params["torque_stiffness"] * rpy + params["torque_damping"] * rpy_dt)
        f_B = -(params["force_stiffness"] * xyz + params["force_damping"] * xyz_dt)
        return dict(R_WA=R_WA, p_WA=p_WA, R_WC=R_WC, p_WC=p_WC, R_AC=R_AC, R_AB=R_AB, r_A=r_A,
                    rpy=rpy, rpy_dt=rpy_dt, xyz=xyz, xyz_dt=xyz_dt, xyz_rate=xyz_rate, tau=tau,
                    f_B=f_B, t_A=N.T @ tau, f_A=R_AB @ f_B)

    def _F_Ao_A(self, t):
        """[−t − ½ r × f; −f]: the moment about Ao of −f at Bo plus −t, and −f (in A)."""
        return jnp.concatenate([-t["t_A"] - 0.5 * jnp.cross(t["r_A"], t["f_A"]), -t["f_A"]])

    def _F_Co_A(self, t):
        """[t − ½ r × f; f]: the moment about Co of f at Bo plus t, and f (in A)."""
        return jnp.concatenate([t["t_A"] - 0.5 * jnp.cross(t["r_A"], t["f_A"]), t["f_A"]])

    def _eval(self, context, func):
        return self._terms(self._ek(context), self._parameters(context), func)

    # --- Public outputs -------------------------------------------------------------------
    def CalcBushingSpatialForceOnFrameA(self, context):
        """``F_Ao_A``: the bushing's spatial force on frame A, about Ao, expressed in A.

        Raises:
            ValueError: near gimbal lock (|cos pitch| < 0.008) of R_AC, as Drake.
        """
        F = self._F_Ao_A(self._eval(context, "CalcBushingSpatialForceOnFrameA"))
        return SpatialForce(F[:3], F[3:])

    def CalcBushingSpatialForceOnFrameC(self, context):
        """``F_Co_C``: the bushing's spatial force on frame C, about Co, expressed in C.

        Raises:
            ValueError: near gimbal lock, as `CalcBushingSpatialForceOnFrameA`.
        """
        t = self._eval(context, "CalcBushingSpatialForceOnFrameC")
        F = self._F_Co_A(t)
        R_CA = t["R_AC"].T
        return SpatialForce(R_CA @ F[:3], R_CA @ F[3:])

    def CalcBushingRollPitchYawAngles(self, context):
        """[q₀ q₁ q₂] of R_AC, a `RollPitchYaw` (Drake's private helper, public here)."""
        R_WA, _ = self._ek(context).frame_pose(self._frameA)
        R_WC, _ = self._ek(context).frame_pose(self._frameC)
        return RollPitchYaw(RotationMatrix(R_WA.T @ R_WC))

    def CalcBushingRollPitchYawAngleRates(self, context):
        """[q̇₀ q̇₁ q̇₂] (3,) rad/s. Raises near gimbal lock."""
        return self._eval(context, "CalcBushingRollPitchYawAngleRates")["rpy_dt"]

    def CalcBushingFrameBPoseInA(self, context):
        """``X_AB``: the "halfway" bushing frame B (R_AB half of R_AC; Bo midway Ao–Co)."""
        t = self._eval(context, "CalcBushingFrameBPoseInA")
        return RigidTransform(RotationMatrix(t["R_AB"]), 0.5 * t["r_A"])

    def CalcBushingDisplacement(self, context):
        """[x y z] (3,): p_AoCo expressed in frame B (m)."""
        return self._eval(context, "CalcBushingDisplacement")["xyz"]

    def CalcBushingDisplacementRate(self, context):
        """[ẋ ẏ ż] (3,): the time derivative in B of p_AoCo, expressed in B (m/s)."""
        return self._eval(context, "CalcBushingDisplacementRate")["xyz_dt"]

    # --- Contributions ----------------------------------------------------------------------
    def _add_forces(self, ek, params, tau, F):
        t = self._terms(ek, params, "CalcBushingSpatialForceOnFrameA")
        R_WA = t["R_WA"]
        F_A = self._F_Ao_A(t)
        F_C = self._F_Co_A(t)
        for frame, p_WF, F_F in ((self._frameA, t["p_WA"], F_A), (self._frameC, t["p_WC"], F_C)):
            b = int(frame.body().index())
            tq, f = R_WA @ F_F[:3], R_WA @ F_F[3:]
            tq = tq + jnp.cross(p_WF - ek.p_WB[b], f)  # shift from Fo to the body origin
            F = F.at[b].add(jnp.concatenate([tq, f]))
        return tau, F

    def _potential_energy(self, ek, params):
        t = self._terms(ek, params, "CalcPotentialEnergy")
        return 0.5 * (params["torque_stiffness"] @ t["rpy"] ** 2
                      + params["force_stiffness"] @ t["xyz"] ** 2)

    def _conservative_power(self, ek, params):
        t = self._terms(ek, params, "CalcConservativePower")
        return -((params["torque_stiffness"] * t["rpy"]) @ t["rpy_dt"]
                 + (params["force_stiffness"] * t["xyz"]) @ t["xyz_rate"])

    def _non_conservative_power(self, ek, params):
        t = self._terms(ek, params, "CalcNonConservativePower")
        power = t["tau"] @ t["rpy_dt"] + t["f_B"] @ t["xyz_dt"]  # of the bushing's forces
        return power - self._conservative_power(ek, params)


def _half_rotation(R_AC):
    """(R_AB, q_AB): half the rotation R_AC about the same axis (Drake's ``CalcR_AB``)."""
    q = so3.rotation_to_quaternion(R_AC)  # w >= 0
    e0 = jnp.sqrt(0.5 * (q[0] + 1.0))
    e = jnp.concatenate([e0[None], q[1:] / (2.0 * e0)])
    return so3.quaternion_to_rotation(e), e


def _check_gimbal(cos_pitch, pitch, func):
    bad = jnp.abs(cos_pitch) < GIMBAL_LOCK_TOLERANCE_COS_PITCH
    if _is_concrete(cos_pitch):
        if bool(bad):
            raise ValueError(_gimbal_message(func, f"p = {float(np.degrees(pitch)):.6g}"))
        return cos_pitch
    if CHECK_GIMBAL_LOCK:
        return eqx.error_if(cos_pitch, bad, _gimbal_message(func))
    return cos_pitch
