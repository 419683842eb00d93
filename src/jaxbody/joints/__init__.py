"""Joints: builder-side classes with Drake's API and the per-kind kinematics kernels."""

from jaxbody.joints.joint import Joint
from jaxbody.joints.orientation_joints import (
    BallJoint,
    BallRpyJoint,
    CylindricalJoint,
    QuaternionFloatingJoint,
    RpyFloatingJoint,
    TranslationalJoint,
)
from jaxbody.joints.simbody_joints import GimbalJoint
from jaxbody.joints.simple_joints import (
    PlanarJoint,
    PrismaticJoint,
    RevoluteJoint,
    ScrewJoint,
    UniversalJoint,
    WeldJoint,
)

__all__ = [
    "BallJoint", "BallRpyJoint", "CylindricalJoint", "GimbalJoint", "Joint", "PlanarJoint", "PrismaticJoint",
    "QuaternionFloatingJoint", "RevoluteJoint", "RpyFloatingJoint", "ScrewJoint",
    "TranslationalJoint", "UniversalJoint", "WeldJoint",
]
