"""Rotations, rigid transforms, spatial vectors and inertias: Drake's value types as JAX pytrees,
plus the pure ``jnp`` kernels the multibody algorithms use on raw arrays.

Public API: explicit re-exports only.
"""

from jaxbody.math.inertia import (
    RotationalInertia,
    UnitInertia,
    rotational_inertia_about_com,
    spatial_inertia_matrix,
)
from jaxbody.math.rigid_transform import RigidTransform
from jaxbody.math.rotation import GIMBAL_LOCK_TOLERANCE_COS_PITCH, RollPitchYaw, RotationMatrix
from jaxbody.math.so3 import (
    axis_angle_to_rotation,
    project_to_rotation,
    quaternion_multiply,
    quaternion_to_rotation,
    rot_x,
    rot_y,
    rot_z,
    rotation_to_quaternion,
    rotation_to_rpy,
    rotation_vector_to_rotation,
    rpy_to_rotation,
    safe_norm,
    skew,
    unskew,
)
from jaxbody.math.spatial_algebra import (
    SpatialAcceleration,
    SpatialForce,
    SpatialMomentum,
    SpatialVelocity,
    rotate,
)
from jaxbody.math.spatial_inertia import SpatialInertia

__all__ = [
    "GIMBAL_LOCK_TOLERANCE_COS_PITCH",
    "RigidTransform",
    "RollPitchYaw",
    "RotationMatrix",
    "RotationalInertia",
    "SpatialAcceleration",
    "SpatialForce",
    "SpatialInertia",
    "SpatialMomentum",
    "SpatialVelocity",
    "UnitInertia",
    "axis_angle_to_rotation",
    "project_to_rotation",
    "quaternion_multiply",
    "quaternion_to_rotation",
    "rot_x",
    "rot_y",
    "rot_z",
    "rotate",
    "rotation_to_quaternion",
    "rotation_to_rpy",
    "rotation_vector_to_rotation",
    "rotational_inertia_about_com",
    "rpy_to_rotation",
    "safe_norm",
    "skew",
    "spatial_inertia_matrix",
    "unskew",
]
