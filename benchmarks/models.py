"""Benchmark models, each built identically in jaxbody, pydrake and Pinocchio from NumPy data.

A `ModelSpec` lists bodies in topological order (parent before child). Each body has a mass,
a center of mass ``p_BoBcm_B``, a central inertia ``I_Bcm_B``, and an inboard joint: either a
revolute or prismatic joint along ``axis`` whose frame J is fixed in the parent at
``X_PJ = (R_PJ, p_PJ)`` (the child's frame B coincides with J at q = 0), or the free floating
base (world-attached).

q and v layouts. jaxbody and Drake share one layout (mobilized bodies depth-first); their
quaternion floating joint has ``q = [qw, qx, qy, qz, x, y, z]`` and ``v = [w_WB_W; v_WBo_W]``
(both in World). Pinocchio's free flyer has ``q = [x, y, z, qx, qy, qz, qw]`` and
``v = [R_WBᵀ v_WBo_W; R_WBᵀ w_WB_W]`` (local frame). `PinocchioCoordinates` is the one
converter (q, v, v̇, τ and M); `to_pinocchio` is its shorthand for q and v.
"""

from __future__ import annotations

import dataclasses

import numpy as np

POSE_TOL = 1e-10  # agreement required between engines (float64), relative to max(1, |x|)


@dataclasses.dataclass(frozen=True)
class BodySpec:
    name: str
    parent: int  # index into ModelSpec.bodies; -1 is the world
    joint: str  # "revolute", "prismatic" or "free"
    axis: np.ndarray  # revolute or prismatic axis, unit, in J (= in B)
    R_PJ: np.ndarray
    p_PJ: np.ndarray
    mass: float
    com: np.ndarray  # p_BoBcm_B
    I_com: np.ndarray  # I_Bcm_B, central inertia expressed in B


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    name: str
    bodies: tuple


def _rot(axis, angle):
    """Rotation matrix about a unit axis (Rodrigues)."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


class _Builder:
    """Accumulates bodies; links are boxes of ``size`` hanging along ``link`` from Bo."""

    def __init__(self, name):
        self.name, self.bodies = name, []

    def add(self, name, parent, joint, axis=(0, 0, 1), p_PJ=(0, 0, 0), R_PJ=None,
            link=(0, 0, 0.3), mass=1.0):
        link = np.asarray(link, float)
        a, b, c = np.abs(link) + 0.06  # box extents around the link
        I_com = mass / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
        self.bodies.append(BodySpec(
            name=name, parent=-1 if parent is None else self.index(parent), joint=joint,
            axis=np.asarray(axis, float) / np.linalg.norm(axis),
            R_PJ=np.eye(3) if R_PJ is None else np.asarray(R_PJ, float),
            p_PJ=np.asarray(p_PJ, float), mass=float(mass), com=0.5 * link, I_com=I_com))
        return name

    def index(self, name):
        return [b.name for b in self.bodies].index(name)

    def spec(self):
        return ModelSpec(self.name, tuple(self.bodies))


def arm7() -> ModelSpec:
    """A 7-dof arm (Panda/iiwa-like): revolute joints alternating about z and y, 0.3 m links."""
    m = _Builder("arm7")
    parent = None
    for i in range(7):
        parent = m.add(f"link{i + 1}", parent, "revolute", axis=(0, 0, 1) if i % 2 == 0 else
                       (0, 1, 0), p_PJ=(0, 0, 0.1 if i == 0 else 0.3),
                       R_PJ=_rot((1, 0, 0), 0.05 * i), mass=4.0 - 0.4 * i)
    return m.spec()


def quadruped() -> ModelSpec:
    """A floating-base quadruped: trunk + 4 legs x (hip abduction, hip flexion, knee); nv = 18."""
    m = _Builder("quadruped")
    m.add("trunk", None, "free", link=(0.5, 0, 0), mass=12.0)
    for leg, (sx, sy) in {"FL": (1, 1), "FR": (1, -1), "HL": (-1, 1), "HR": (-1, -1)}.items():
        hip = m.add(f"{leg}_hip", "trunk", "revolute", axis=(1, 0, 0),
                    p_PJ=(0.25 + 0.2 * sx, 0.1 * sy, 0), link=(0, 0.08 * sy, 0), mass=1.0)
        thigh = m.add(f"{leg}_thigh", hip, "revolute", axis=(0, 1, 0), p_PJ=(0, 0.08 * sy, 0),
                      link=(0, 0, -0.3), mass=1.2)
        m.add(f"{leg}_calf", thigh, "revolute", axis=(0, 1, 0), p_PJ=(0, 0, -0.3),
              R_PJ=_rot((0, 1, 0), 0.3), link=(0, 0, -0.3), mass=0.4)
    return m.spec()


LEG_JOINTS = ("hip_yaw", "hip_roll", "hip_pitch", "knee", "ankle_pitch", "ankle_roll")
ARM_JOINTS = ("shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow", "wrist_yaw",
              "wrist_pitch", "wrist_roll")


def humanoid() -> ModelSpec:
    """A floating-base humanoid: pelvis + waist 1 + neck 2 + legs 2 x 6 + arms 2 x 7; nv = 35."""
    m = _Builder("humanoid")
    X, Y, Z = (1, 0, 0), (0, 1, 0), (0, 0, 1)
    m.add("pelvis", None, "free", link=(0, 0, 0.15), mass=10.0)
    for side, s in (("l", 1), ("r", -1)):
        parent, p = "pelvis", (0, 0.1 * s, -0.05)
        for k, (axis, joint) in enumerate(zip((Z, X, Y, Y, Y, X), LEG_JOINTS)):
            name = f"{side}_{joint}"
            link = (0, 0, -0.4) if k in (2, 3) else (0, 0, -0.05)
            parent = m.add(name, parent, "revolute", axis=axis, p_PJ=p, link=link,
                           mass=(1.5, 1.5, 5.0, 3.0, 1.0, 1.0)[k])
            p = link
    torso = m.add("torso", "pelvis", "revolute", axis=Z, p_PJ=(0, 0, 0.15), link=(0, 0, 0.4),
                  mass=15.0)
    neck = m.add("neck", torso, "revolute", axis=Z, p_PJ=(0, 0, 0.45), link=(0, 0, 0.05))
    m.add("head", neck, "revolute", axis=Y, p_PJ=(0, 0, 0.05), link=(0, 0, 0.2), mass=3.0)
    for side, s in (("l", 1), ("r", -1)):
        parent, p = torso, (0, 0.2 * s, 0.35)
        R = _rot(X, 0.2 * s)  # shoulders tilted: non-trivial placements
        for k, (axis, joint) in enumerate(zip((Y, X, Z, Y, Z, Y, X), ARM_JOINTS)):
            name = f"{side}_{joint}"
            link = (0, 0, -0.28) if k in (2, 4) else (0, 0, -0.02)
            parent = m.add(name, parent, "revolute", axis=axis, p_PJ=p, R_PJ=R, link=link,
                           mass=(1.0, 1.0, 2.0, 0.5, 1.2, 0.3, 0.3)[k])
            p, R = link, None
    return m.spec()


MODELS = {"arm7": arm7, "quadruped": quadruped, "humanoid": humanoid}


# ---- builders -------------------------------------------------------------------------------
def _unit_inertia_about_Bo(b):
    c = b.com
    return b.I_com / b.mass + (c @ c * np.eye(3) - np.outer(c, c))


def _build_plant(spec, mod, math_mod, plant):
    """Adds the spec's bodies and joints to a jaxbody or pydrake plant (same API)."""
    bodies = []
    for b in spec.bodies:
        G = _unit_inertia_about_Bo(b)
        M = mod.SpatialInertia(b.mass, b.com, mod.UnitInertia(
            G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2]))
        bodies.append(plant.AddRigidBody(b.name, M))
    for b, body in zip(spec.bodies, bodies):
        if b.joint == "free":
            continue  # Finalize() adds a quaternion floating joint named after the body
        P = plant.world_body() if b.parent < 0 else bodies[b.parent]
        X_PJ = math_mod.RigidTransform(math_mod.RotationMatrix(b.R_PJ), b.p_PJ)
        J = plant.AddFrame(mod.FixedOffsetFrame(f"{b.name}_J", P.body_frame(), X_PJ))
        joint = mod.RevoluteJoint if b.joint == "revolute" else mod.PrismaticJoint
        plant.AddJoint(joint(b.name, J, body.body_frame(), b.axis))
    plant.Finalize()
    return plant, bodies


def build_jaxbody(spec):
    import jaxbody as jb

    return _build_plant(spec, jb, jb, jb.MultibodyPlant(0.0))


def build_drake(spec):
    from pydrake import math as dm
    from pydrake.multibody import tree as dt
    from pydrake.multibody.plant import MultibodyPlant

    return _build_plant(spec, dt, dm, MultibodyPlant(0.0))


def build_pinocchio(spec):
    """A `pin.Model` whose joint i + 1 carries body i (body frame = joint frame)."""
    import pinocchio as pin

    model = pin.Model()
    model.name = spec.name
    for b in spec.bodies:
        parent = 0 if b.parent < 0 else b.parent + 1
        if b.joint == "free":
            jm, placement = pin.JointModelFreeFlyer(), pin.SE3.Identity()
        else:
            jm = (pin.JointModelRevoluteUnaligned if b.joint == "revolute"
                  else pin.JointModelPrismaticUnaligned)(b.axis)
            placement = pin.SE3(b.R_PJ, b.p_PJ)
        jid = model.addJoint(parent, jm, placement, b.name)
        model.appendBodyToJoint(jid, pin.Inertia(b.mass, b.com, b.I_com), pin.SE3.Identity())
    model.gravity = pin.Motion(np.array([0.0, 0.0, -9.81]), np.zeros(3))  # Drake's default
    return model


@dataclasses.dataclass
class Engines:
    """One model in the three engines, plus the q/v index maps between their layouts."""

    spec: ModelSpec
    jaxbody: object  # (plant, bodies)
    drake: object  # (plant, bodies)
    pinocchio: object  # pin.Model
    q_perm: np.ndarray  # q_pin = q[q_perm]  (q in the jaxbody/Drake layout)
    free_v: list  # (Drake v start, Pinocchio v start) of each free base

    @property
    def nq(self):
        return self.pinocchio.nq

    @property
    def nv(self):
        return self.pinocchio.nv


def build(name_or_spec) -> Engines:
    """The three engines for a model of `MODELS` (by name) or for any `ModelSpec`."""
    spec = MODELS[name_or_spec]() if isinstance(name_or_spec, str) else name_or_spec
    (pj, bj), (pd, bd), pm = build_jaxbody(spec), build_drake(spec), build_pinocchio(spec)
    q_perm, free_v = np.zeros(pm.nq, np.int64), []
    for i, b in enumerate(spec.bodies):
        dj, jj, pjm = pd.GetJointByName(b.name), pj.GetJointByName(b.name), pm.joints[i + 1]
        if (dj.position_start(), dj.velocity_start()) != (jj.position_start(),
                                                          jj.velocity_start()):
            raise AssertionError(f"{spec.name}: jaxbody and Drake order joint '{b.name}' "
                                 "differently in q or v")
        s, t = dj.position_start(), pjm.idx_q
        if b.joint == "free":  # Drake [qw qx qy qz x y z] -> Pinocchio [x y z qx qy qz qw]
            q_perm[t:t + 7] = s + np.array([4, 5, 6, 1, 2, 3, 0])
            free_v.append((dj.velocity_start(), pjm.idx_v))
        else:
            q_perm[t] = s
    return Engines(spec, (pj, bj), (pd, bd), pm, q_perm, free_v)


class PinocchioCoordinates:
    """The one converter from the jaxbody/Drake layout to Pinocchio's, at configurations q.

    Pinocchio's velocities are ``v_pin = T(q) v`` with T the velocity permutation, and for each
    free base the block ``[w_W; v_W] -> [R_WBᵀ v_W; R_WBᵀ w_W]``. T is orthogonal, so power
    (τᵀ v) and kinetic energy (vᵀ M v) are kept by ``τ_pin = T⁻ᵀ τ = T τ`` and
    ``M_pin = T⁻ᵀ M T⁻¹ = T M Tᵀ``. Pinocchio's free-flyer acceleration is the time derivative
    of its (body-frame) velocity, ``v̇_pin = T v̇ + Ṫ v``: for each free base
    ``[R_WBᵀ a_W - w_B × v_B; R_WBᵀ ẇ_W]`` with ``w_B = R_WBᵀ w_W``, ``v_B = R_WBᵀ v_W``.

    Args:
        engines: an `Engines`.
        q: (..., nq) configurations in the jaxbody/Drake layout; every other array passed to
            the methods has the same leading shape.
    """

    def __init__(self, engines, q):
        q = np.asarray(q, float)
        self.q = q[..., engines.q_perm]  # q_pin
        nv = engines.nv
        T = np.zeros(q.shape[:-1] + (nv, nv))
        for i, b in enumerate(engines.spec.bodies):
            if b.joint != "free":
                T[..., engines.pinocchio.joints[i + 1].idx_v,
                  engines.drake[0].GetJointByName(b.name).velocity_start()] = 1.0
        self._free = []  # (Drake v start, Pinocchio v start, R_WB (..., 3, 3))
        for (s, t), qs in zip(engines.free_v, _free_q_starts(engines)):
            R_WB = quat_to_rotation(q[..., qs:qs + 4])
            R_BW = np.swapaxes(R_WB, -1, -2)
            T[..., t:t + 3, s + 3:s + 6] = R_BW
            T[..., t + 3:t + 6, s:s + 3] = R_BW
            self._free.append((s, t, R_BW))
        self.T = T  # (..., nv, nv)

    def v(self, v):
        return np.einsum("...ij,...j->...i", self.T, np.asarray(v, float))

    def tau(self, tau):
        """Generalized forces (gravity, bias, inverse dynamics), τ_pin = T⁻ᵀ τ = T τ."""
        return self.v(tau)

    def M(self, M):
        return self.T @ np.asarray(M, float) @ np.swapaxes(self.T, -1, -2)

    def vdot(self, vdot, v):
        """Accelerations: T v̇ + Ṫ v (needs the velocities v, jaxbody/Drake layout)."""
        a, v = self.v(vdot), np.asarray(v, float)
        for s, t, R_BW in self._free:
            w_B = np.einsum("...ij,...j->...i", R_BW, v[..., s:s + 3])
            v_B = np.einsum("...ij,...j->...i", R_BW, v[..., s + 3:s + 6])
            a[..., t:t + 3] -= np.cross(w_B, v_B)
        return a


def to_pinocchio(engines, q, v=None):
    """Converts q (..., nq) and optionally v (..., nv) from the jaxbody/Drake layout to
    Pinocchio's. Returns ``q_pin`` or ``(q_pin, v_pin)``."""
    c = PinocchioCoordinates(engines, q)
    return c.q if v is None else (c.q, c.v(v))


def _free_q_starts(engines):
    pd = engines.drake[0]
    return [pd.GetJointByName(b.name).position_start() for b in engines.spec.bodies
            if b.joint == "free"]


def quat_to_rotation(quat):
    """R (..., 3, 3) from unit quaternions (..., 4) ordered [w, x, y, z]."""
    w, x, y, z = np.moveaxis(np.asarray(quat, float), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def random_q(engines, rng, batch):
    """(batch, nq) random configurations in the jaxbody/Drake layout: joint angles in [-π, π],
    unit quaternions, base positions in [-1, 1] m."""
    q = rng.uniform(-np.pi, np.pi, size=(batch, engines.nq))
    for s in _free_q_starts(engines):
        quat = rng.normal(size=(batch, 4))
        q[:, s:s + 4] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
        q[:, s + 4:s + 7] = rng.uniform(-1, 1, size=(batch, 3))
    return q
