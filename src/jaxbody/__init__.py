"""jaxbody: Drake's MultibodyPlant on JAX — jit-, vmap- and grad-able multibody dynamics.

Public API: explicit re-exports only.
"""

# isort: skip_file
# (the plant package must be imported before jaxbody.joints, which builds on its elements)

from jaxbody.plant import (
    BodyFrame,
    BodyIndex,
    ContactModel,
    Context,
    DiscreteContactApproximation,
    DistanceConstraintParams,
    FixedOffsetFrame,
    Frame,
    FrameIndex,
    JacobianWrtVariable,
    JointActuator,
    JointActuatorIndex,
    JointIndex,
    MultibodyConstraintId,
    ModelInstanceIndex,
    MultibodyForces,
    MultibodyPlant,
    Parameters,
    PdControllerGains,
    RigidBody,
    default_model_instance,
    world_model_instance,
)
from jaxbody.joints import (
    BallJoint,
    BallRpyJoint,
    GimbalJoint,
    CylindricalJoint,
    Joint,
    PlanarJoint,
    PrismaticJoint,
    QuaternionFloatingJoint,
    RevoluteJoint,
    RpyFloatingJoint,
    ScrewJoint,
    TranslationalJoint,
    UniversalJoint,
    WeldJoint,
)
from jaxbody.math import (
    RigidTransform,
    RollPitchYaw,
    RotationalInertia,
    RotationMatrix,
    SpatialAcceleration,
    SpatialForce,
    SpatialInertia,
    SpatialMomentum,
    SpatialVelocity,
    UnitInertia,
)
from jaxbody.forces import (
    DoorHinge,
    DoorHingeConfig,
    ExternallyAppliedSpatialForce,
    ForceElement,
    ForceElementIndex,
    LinearBushingRollPitchYaw,
    LinearSpringDamper,
    PrismaticSpring,
    RevoluteSpring,
    UniformGravityFieldElement,
)
from jaxbody.simulation import (
    AdaptiveResult,
    DiscreteRolloutResult,
    RolloutResult,
    discrete_rollout,
    explicit_euler_step,
    rk2_step,
    rk4_step,
    rollout,
    semi_implicit_euler_step,
    simulate_adaptive,
)
from jaxbody.geometry import (
    AddContactMaterial,
    Box,
    CalcContactFrictionFromSurfaceProperties,
    Capsule,
    Convex,
    CoulombFriction,
    Cylinder,
    Ellipsoid,
    GeometryId,
    GeometrySet,
    HalfSpace,
    IllustrationProperties,
    Mesh,
    ProximityProperties,
    RegisteredGeometry,
    Role,
    Shape,
    Sphere,
)
from jaxbody.contact import SapSolverParameters, SapStatistics
from jaxbody.parsers import PackageMap, ParseError, ParseWarning, Parser

__version__ = "0.1.0"

__all__ = [
    "BallJoint", "BallRpyJoint", "GimbalJoint", "BodyFrame", "BodyIndex", "Context", "CylindricalJoint",
    "ContactModel", "DiscreteContactApproximation", "DistanceConstraintParams",
    "PdControllerGains",
    "FixedOffsetFrame", "Frame", "FrameIndex", "JacobianWrtVariable", "Joint", "JointActuator",
    "JointActuatorIndex", "JointIndex",
    "MultibodyConstraintId", "ModelInstanceIndex", "MultibodyForces", "MultibodyPlant",
    "Parameters",
    "PlanarJoint", "PrismaticJoint", "QuaternionFloatingJoint", "RevoluteJoint", "RigidBody",
    "RigidTransform", "RollPitchYaw", "RotationMatrix", "RotationalInertia", "RpyFloatingJoint",
    "ScrewJoint", "SpatialAcceleration", "SpatialForce", "SpatialInertia", "SpatialMomentum",
    "SpatialVelocity", "TranslationalJoint", "UnitInertia", "UniversalJoint", "WeldJoint",
    "default_model_instance", "world_model_instance",
    "DoorHinge", "DoorHingeConfig", "ExternallyAppliedSpatialForce", "ForceElement",
    "ForceElementIndex", "LinearBushingRollPitchYaw", "LinearSpringDamper", "PrismaticSpring",
    "RevoluteSpring", "UniformGravityFieldElement",
    "AdaptiveResult", "DiscreteRolloutResult", "RolloutResult", "discrete_rollout",
    "explicit_euler_step", "rk2_step", "rk4_step", "rollout", "semi_implicit_euler_step",
    "simulate_adaptive", "SapSolverParameters", "SapStatistics",
    "AddContactMaterial", "Box", "CalcContactFrictionFromSurfaceProperties", "Capsule", "Convex",
    "CoulombFriction", "Cylinder", "Ellipsoid", "GeometryId", "GeometrySet", "HalfSpace",
    "IllustrationProperties",
    "Mesh", "PackageMap", "ParseError", "ParseWarning", "Parser", "ProximityProperties",
    "RegisteredGeometry", "Role", "Shape", "Sphere",
]
