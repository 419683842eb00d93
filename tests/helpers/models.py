"""Small closed-form models shared by the tests (pendulum, double pendulum, free body, ...)."""

from __future__ import annotations

import numpy as np

import jaxbody as jb


def box_inertia(mass=1.0, lx=0.1, ly=0.2, lz=0.3):
    return jb.SpatialInertia.SolidBoxWithMass(mass, lx, ly, lz)


def point_mass_at(mass, p):
    """A point mass at ``p`` in B (inertia about Bo is that of the point)."""
    return jb.SpatialInertia.PointMass(mass, np.asarray(p, float))


def pendulum(length=1.0, mass=1.0, axis=(0.0, 1.0, 0.0)):
    """A point mass at (0, 0, -length) in B on a revolute joint to the world."""
    plant = jb.MultibodyPlant(0.0)
    link = plant.AddRigidBody("link", point_mass_at(mass, [0.0, 0.0, -length]))
    plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), link.body_frame(), list(axis)))
    plant.Finalize()
    return plant, link


def double_pendulum(l1=1.0, l2=0.7, m1=1.0, m2=0.5):
    """Planar double pendulum about y; link origins at the joints, masses at the tips."""
    plant = jb.MultibodyPlant(0.0)
    a = plant.AddRigidBody("a", point_mass_at(m1, [0.0, 0.0, -l1]))
    b = plant.AddRigidBody("b", point_mass_at(m2, [0.0, 0.0, -l2]))
    plant.AddJoint(jb.RevoluteJoint("j1", plant.world_frame(), a.body_frame(), [0, 1, 0]))
    F = plant.AddFrame(jb.FixedOffsetFrame("a_tip", a.body_frame(), jb.RigidTransform(p=[0, 0, -l1])))
    plant.AddJoint(jb.RevoluteJoint("j2", F, b.body_frame(), [0, 1, 0]))
    plant.Finalize()
    return plant, a, b


def single_joint_plant(joint_cls, *args, **kwargs):
    """One box body on a joint of ``joint_cls`` to the world, with offset frames."""
    plant = jb.MultibodyPlant(0.0)
    body = plant.AddRigidBody("body", box_inertia())
    F = plant.AddFrame(jb.FixedOffsetFrame(
        "F", plant.world_frame(), jb.RigidTransform(jb.RollPitchYaw([0.1, -0.2, 0.3]), [0.1, 0.2, 0.3])))
    M = plant.AddFrame(jb.FixedOffsetFrame(
        "M", body.body_frame(), jb.RigidTransform(jb.RollPitchYaw([-0.3, 0.2, 0.1]), [0.0, -0.1, 0.2])))
    joint = plant.AddJoint(joint_cls("joint", F, M, *args, **kwargs))
    plant.Finalize()
    return plant, body, joint
