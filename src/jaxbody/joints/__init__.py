"""Joints: builder-side classes with Drake's API and the per-kind kinematics kernels."""

from jaxbody.joints.custom_joint import CustomJoint, FunctionBasedJoint
from jaxbody.joints.joint import Joint
from jaxbody.joints.orientation_joints import (
    BallJoint,
    BallRpyJoint,
    CylindricalJoint,
    QuaternionFloatingJoint,
    RpyFloatingJoint,
    TranslationalJoint,
)
from jaxbody.joints.simbody_joints import (
    BendStretchJoint,
    EllipsoidJoint,
    FreeLineJoint,
    GimbalJoint,
    LineOrientationJoint,
)
from jaxbody.joints.simple_joints import (
    PlanarJoint,
    PrismaticJoint,
    RevoluteJoint,
    ScrewJoint,
    UniversalJoint,
    WeldJoint,
)

__all__ = [
    "BallJoint", "BallRpyJoint", "BendStretchJoint", "CustomJoint", "CylindricalJoint",
    "EllipsoidJoint", "FreeLineJoint", "FunctionBasedJoint", "GimbalJoint", "Joint",
    "LineOrientationJoint", "PlanarJoint", "PrismaticJoint",
    "QuaternionFloatingJoint", "RevoluteJoint", "RpyFloatingJoint", "ScrewJoint",
    "TranslationalJoint", "UniversalJoint", "WeldJoint",
]
