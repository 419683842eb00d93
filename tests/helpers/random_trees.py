"""Random multibody trees built identically in jaxbody and pydrake, for cross-checks.

A *spec* is plain NumPy data: bodies with random physically valid inertias, and joints of
random kinds with random frames. `build_jaxbody` and `build_drake` turn one spec into the two
engines' plants; states are random but valid (unit quaternions, pitch away from ±π/2).
"""

from __future__ import annotations

import dataclasses

import numpy as np

DRAKE_KINDS = ("revolute", "prismatic", "screw", "universal", "planar", "ball_rpy",
               "rpy_floating", "quaternion_floating", "weld")
ELLIPSOID_RADII = (0.3, 0.45, 0.6)  # the semi-axes of random trees' ellipsoid joints


@dataclasses.dataclass
class JointSpec:
    kind: str
    parent: int  # body index in spec (0 = world)
    child: int
    R_PF: np.ndarray
    p_PF: np.ndarray
    R_BM: np.ndarray
    p_BM: np.ndarray
    axis: np.ndarray
    pitch: float
    damping: float


@dataclasses.dataclass
class TreeSpec:
    masses: list
    coms: list
    I_cm: list  # central rotational inertia, in B
    joints: list  # JointSpec; bodies without a joint become free bodies
    actuated: list = dataclasses.field(default_factory=list)  # (joint k, rotor inertia, gear)


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def random_central_inertia(rng, mass):
    """A random valid central inertia: principal moments from a random solid ellipsoid."""
    a, b, c = rng.uniform(0.05, 0.5, size=3)
    moments = mass / 5 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    R = random_rotation(rng)
    return R @ np.diag(moments) @ R.T


def random_tree(rng, num_bodies, kinds=DRAKE_KINDS, free_fraction=0.1, world_fraction=0.2):
    masses = list(rng.uniform(0.5, 3.0, size=num_bodies))
    coms = [rng.uniform(-0.2, 0.2, size=3) for _ in range(num_bodies)]
    I_cm = [random_central_inertia(rng, m) for m in masses]
    joints = []
    for i in range(1, num_bodies + 1):
        if rng.uniform() < free_fraction and i > 1:
            continue  # a free body: Finalize() gives it a quaternion floating joint
        parent = 0 if (i == 1 or rng.uniform() < world_fraction) else int(rng.integers(1, i))
        kind = str(rng.choice(kinds))
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        joints.append(JointSpec(
            kind=kind, parent=parent, child=i,
            R_PF=random_rotation(rng), p_PF=rng.uniform(-0.5, 0.5, 3),
            R_BM=random_rotation(rng), p_BM=rng.uniform(-0.3, 0.3, 3),
            axis=axis, pitch=float(rng.uniform(0.05, 0.5)), damping=float(rng.uniform(0, 1))))
    actuated = [(k, float(rng.uniform(0, 0.1)), float(rng.uniform(1, 50)))
                for k, js in enumerate(joints)
                if js.kind in ("revolute", "prismatic", "screw") and rng.uniform() < 0.6]
    return TreeSpec(masses, coms, I_cm, joints, actuated)


def _unit_inertia_about_Bo(mass, com, I_cm):
    if mass == 0:  # a massless body (e.g. between the joints of an equivalent chain)
        return np.zeros((3, 3))
    return I_cm / mass + (np.dot(com, com) * np.eye(3) - np.outer(com, com))


def build_jaxbody(spec):
    import jaxbody as jb

    plant = jb.MultibodyPlant(0.0)
    bodies = [plant.world_body()]
    for i, (m, c, I) in enumerate(zip(spec.masses, spec.coms, spec.I_cm)):
        G = _unit_inertia_about_Bo(m, c, I)
        M = jb.SpatialInertia(m, c, jb.UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1],
                                                    G[0, 2], G[1, 2]))
        bodies.append(plant.AddRigidBody(f"body{i + 1}", M))
    for k, js in enumerate(spec.joints):
        P, B = bodies[js.parent], bodies[js.child]
        F = plant.AddFrame(jb.FixedOffsetFrame(f"F{k}", P.body_frame(),
                                               jb.RigidTransform(jb.RotationMatrix(js.R_PF), js.p_PF)))
        Mf = plant.AddFrame(jb.FixedOffsetFrame(f"M{k}", B.body_frame(),
                                                jb.RigidTransform(jb.RotationMatrix(js.R_BM), js.p_BM)))
        plant.AddJoint(_make_joint(jb, js, f"joint{k}", F, Mf))
    _add_actuators(plant, spec)
    plant.Finalize()
    return plant


def _add_actuators(plant, spec):
    for k, rotor, gear in spec.actuated:
        a = plant.AddJointActuator(f"motor{k}", plant.GetJointByName(f"joint{k}"))
        a.set_default_rotor_inertia(rotor)
        a.set_default_gear_ratio(gear)


def _make_joint(mod, js, name, F, M):
    """Builds a joint of kind ``js.kind`` with module ``mod`` (jaxbody or pydrake.multibody.tree)."""
    if js.kind == "revolute":
        return mod.RevoluteJoint(name, F, M, js.axis, js.damping)
    if js.kind == "prismatic":
        return mod.PrismaticJoint(name, F, M, js.axis, -np.inf, np.inf, js.damping)
    if js.kind == "screw":
        return mod.ScrewJoint(name, F, M, js.axis, js.pitch, js.damping)
    if js.kind == "universal":
        return mod.UniversalJoint(name, F, M, js.damping)
    if js.kind == "planar":
        return mod.PlanarJoint(name, F, M, np.full(3, js.damping))
    if js.kind == "ball_rpy":
        return mod.BallRpyJoint(name, F, M, js.damping)
    if js.kind == "rpy_floating":
        return mod.RpyFloatingJoint(name, F, M, js.damping, js.damping)
    if js.kind == "quaternion_floating":
        return mod.QuaternionFloatingJoint(name, F, M, js.damping, js.damping)
    if js.kind == "weld":
        X = mod.RigidTransform(mod.RotationMatrix(random_rotation(np.random.default_rng(7))),
                               [0.1, -0.2, 0.3]) if hasattr(mod, "RigidTransform") else None
        return mod.WeldJoint(name, F, M, X)
    if js.kind == "ball":  # Simbody's kinds: jaxbody only
        return mod.BallJoint(name, F, M, js.damping)
    if js.kind == "cylindrical":
        return mod.CylindricalJoint(name, F, M, (js.damping, js.damping))
    if js.kind == "translational":
        return mod.TranslationalJoint(name, F, M, (js.damping,) * 3)
    if js.kind == "gimbal":
        return mod.GimbalJoint(name, F, M, js.damping)
    if js.kind == "bend_stretch":
        return mod.BendStretchJoint(name, F, M, (js.damping,) * 2)
    if js.kind == "line_orientation":
        return mod.LineOrientationJoint(name, F, M, (js.damping,) * 2)
    if js.kind == "free_line":
        return mod.FreeLineJoint(name, F, M, js.damping)
    if js.kind == "ellipsoid":
        return mod.EllipsoidJoint(name, F, M, ELLIPSOID_RADII, js.damping)
    raise ValueError(js.kind)


def build_drake(spec):
    from pydrake.math import RigidTransform, RotationMatrix
    from pydrake.multibody import tree as dt
    from pydrake.multibody.plant import MultibodyPlant

    class _Mod:  # joint constructors plus the math types _make_joint needs
        pass

    mod = _Mod()
    for name in ("RevoluteJoint", "PrismaticJoint", "ScrewJoint", "UniversalJoint", "PlanarJoint",
                 "BallRpyJoint", "RpyFloatingJoint", "QuaternionFloatingJoint", "WeldJoint"):
        setattr(mod, name, getattr(dt, name))
    mod.RigidTransform, mod.RotationMatrix = RigidTransform, RotationMatrix

    plant = MultibodyPlant(0.0)
    bodies = [plant.world_body()]
    for i, (m, c, I) in enumerate(zip(spec.masses, spec.coms, spec.I_cm)):
        G = _unit_inertia_about_Bo(m, c, I)
        M = dt.SpatialInertia(m, c, dt.UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1],
                                                   G[0, 2], G[1, 2]))
        bodies.append(plant.AddRigidBody(f"body{i + 1}", M))
    for k, js in enumerate(spec.joints):
        P, B = bodies[js.parent], bodies[js.child]
        F = plant.AddFrame(dt.FixedOffsetFrame(f"F{k}", P.body_frame(),
                                               RigidTransform(RotationMatrix(js.R_PF), js.p_PF)))
        Mf = plant.AddFrame(dt.FixedOffsetFrame(f"M{k}", B.body_frame(),
                                                RigidTransform(RotationMatrix(js.R_BM), js.p_BM)))
        plant.AddJoint(_make_joint(mod, js, f"joint{k}", F, Mf))
    _add_actuators(plant, spec)
    plant.Finalize()
    return plant


def random_state(rng, plant):
    """Random (q, v) for a jaxbody plant: unit quaternions, |pitch| <= 1.2 rad."""
    nq, nv = plant.num_positions(), plant.num_velocities()
    q = rng.uniform(-1.2, 1.2, size=nq)
    for j in plant._joints:
        s = j.position_start()
        if j.kind.has_quaternion:
            quat = rng.normal(size=4)
            q[s:s + 4] = quat / np.linalg.norm(quat)
    return q, rng.normal(size=nv)
