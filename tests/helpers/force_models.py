"""Models with force elements, built identically in jaxbody and pydrake (for cross-checks).

`build(engine, kind)` returns ``(plant, info)`` for ``engine`` in {"jaxbody", "drake"}, with
``info`` a dict of the elements and frames the tests need. Every model has two free bodies A
and B (quaternion floating joints added by Finalize), a revolute link C to the world, a
prismatic link D on C, and the force element(s) of ``kind``.
"""

from __future__ import annotations

import numpy as np

KINDS = ("linear_spring_damper", "revolute_spring", "prismatic_spring", "door_hinge",
         "door_hinge_viscous", "bushing", "all")

BUSHING_K = ([30.0, 40.0, 50.0], [0.3, 0.4, 0.5], [100.0, 200.0, 300.0], [1.0, 2.0, 3.0])


def _modules(engine):
    if engine == "jaxbody":
        import jaxbody as jb

        return jb, jb, jb
    from pydrake import math as dm
    from pydrake.multibody import plant as dp
    from pydrake.multibody import tree as dt

    return dt, dm, dp


def _inertia(mod, mass, com, lx, ly, lz):
    I = mass / 12 * np.array([ly * ly + lz * lz, lx * lx + lz * lz, lx * lx + ly * ly])
    return mod.SpatialInertia.MakeFromCentralInertia(mass, np.asarray(com, float),
                                                     mod.RotationalInertia(*I))


def build(engine, kind):
    tree, math, plant_mod = _modules(engine)
    plant = plant_mod.MultibodyPlant(0.0)
    A = plant.AddRigidBody("A", _inertia(tree, 1.5, [0.05, -0.02, 0.1], 0.2, 0.3, 0.4))
    B = plant.AddRigidBody("B", _inertia(tree, 0.8, [-0.03, 0.04, 0.0], 0.3, 0.1, 0.2))
    C = plant.AddRigidBody("C", _inertia(tree, 2.0, [0.0, 0.0, -0.3], 0.1, 0.1, 0.6))
    D = plant.AddRigidBody("D", _inertia(tree, 0.7, [0.1, 0.0, 0.0], 0.2, 0.1, 0.1))
    E = plant.AddRigidBody("E", _inertia(tree, 0.5, [0.0, 0.2, 0.0], 0.05, 0.4, 0.05))
    X = math.RigidTransform
    RPY = math.RollPitchYaw
    FC = plant.AddFrame(tree.FixedOffsetFrame("FC", plant.world_frame(),
                                              X(RPY([0.2, -0.1, 0.4]), [0.1, 0.2, 1.0])))
    jc = plant.AddJoint(tree.RevoluteJoint("jc", FC, C.body_frame(), [0.3, 0.5, 0.8], 0.1))
    FD = plant.AddFrame(tree.FixedOffsetFrame("FD", C.body_frame(), X(RPY([0.0, 0.3, 0.0]),
                                                                      [0.0, 0.0, -0.6])))
    jd = plant.AddJoint(tree.PrismaticJoint("jd", FD, D.body_frame(), [1.0, 0.0, 0.0],
                                            -np.inf, np.inf, 0.2))
    FE = plant.AddFrame(tree.FixedOffsetFrame("FE", C.body_frame(), X(RPY([0.5, 0.0, 0.1]),
                                                                      [0.1, 0.0, -0.3])))
    je = plant.AddJoint(tree.RevoluteJoint("je", FE, E.body_frame(), [0.0, 0.0, 1.0], 0.0))
    info = {"A": A, "B": B, "C": C, "jc": jc, "jd": jd, "je": je}
    kinds = KINDS[:-1] if kind == "all" else (kind,)
    if "linear_spring_damper" in kinds:
        info["lsd"] = plant.AddForceElement(tree.LinearSpringDamper(
            A, [0.1, 0.2, -0.1], B, [-0.2, 0.05, 0.1], 0.4, 50.0, 3.0))
        info["lsd_world"] = plant.AddForceElement(tree.LinearSpringDamper(
            plant.world_body(), [0.0, 0.0, 1.5], A, [0.0, 0.1, 0.0], 1.0, 20.0, 0.5))
    if "revolute_spring" in kinds:
        info["rs"] = plant.AddForceElement(tree.RevoluteSpring(jc, 0.3, 12.0))
    if "prismatic_spring" in kinds:
        info["ps"] = plant.AddForceElement(tree.PrismaticSpring(jd, -0.1, 40.0))
    if "door_hinge" in kinds:
        info["dh"] = plant.AddForceElement(tree.DoorHinge(je, tree.DoorHingeConfig()))
    if "door_hinge_viscous" in kinds:
        cfg = tree.DoorHingeConfig()
        cfg.motion_threshold, cfg.catch_width, cfg.viscous_friction = 0.0, 0.0, 2.5
        info["dh0"] = plant.AddForceElement(tree.DoorHinge(jc, cfg))
    if "bushing" in kinds:
        FA = plant.AddFrame(tree.FixedOffsetFrame("bushA", A.body_frame(),
                                                  X(RPY([0.1, 0.2, -0.3]), [0.1, 0.0, 0.05])))
        FB = plant.AddFrame(tree.FixedOffsetFrame("bushC", B.body_frame(),
                                                  X(RPY([-0.2, 0.1, 0.3]), [0.0, -0.1, 0.1])))
        info["bushing"] = plant.AddForceElement(tree.LinearBushingRollPitchYaw(FA, FB, *BUSHING_K))
        FW = plant.AddFrame(tree.FixedOffsetFrame("bushW", plant.world_frame(),
                                                  X(RPY([0.0, 0.0, 0.2]), [0.0, 0.0, 0.5])))
        info["bushing_world"] = plant.AddForceElement(tree.LinearBushingRollPitchYaw(
            FW, A.body_frame(), [5.0, 6.0, 7.0], [0.1, 0.1, 0.1], [60.0, 70.0, 80.0],
            [0.5, 0.6, 0.7]))
        info["frames"] = (FA, FB)
    plant.Finalize()
    return plant, info


def random_state(rng, plant, info=None):
    """Random (q, v) in the shared layout: unit quaternions near identity (so bushing pitches
    stay away from gimbal lock), joint coordinates in [-1, 1]."""
    nq, nv = plant.num_positions(), plant.num_velocities()
    q = rng.uniform(-1.0, 1.0, size=nq)
    for name in ("A", "B"):
        j = plant.GetJointByName(name)
        s = j.position_start()
        quat = np.array([1.0, 0, 0, 0]) + 0.35 * rng.normal(size=4)
        q[s:s + 4] = quat / np.linalg.norm(quat)
        q[s + 4:s + 7] = rng.uniform(-0.3, 0.3, size=3) + ([0.0, 0.0, 0.5] if name == "A" else
                                                           [0.1, 0.3, 0.6])
    return q, rng.normal(size=nv)
