"""The base layer below joints/, forces/ and plant/: multibody elements and typed indices
(`elements`), the `Context` pytree (`context`), `MultibodyForces` (`multibody_forces`) and the
argument checks every layer shares (`checks`). It imports only `jaxbody.math`."""

from jaxbody.core.checks import check_shape
from jaxbody.core.context import Context, Parameters
from jaxbody.core.elements import (
    BodyFrame,
    BodyIndex,
    FixedOffsetFrame,
    Frame,
    FrameIndex,
    JointActuatorIndex,
    JointIndex,
    ModelInstanceIndex,
    MultibodyConstraintId,
    MultibodyElement,
    RigidBody,
    TypedIndex,
    default_model_instance,
    world_model_instance,
)
from jaxbody.core.multibody_forces import MultibodyForces

__all__ = [
    "BodyFrame", "BodyIndex", "Context", "FixedOffsetFrame", "Frame", "FrameIndex",
    "JointActuatorIndex", "JointIndex", "ModelInstanceIndex", "MultibodyConstraintId",
    "MultibodyElement", "MultibodyForces", "Parameters", "RigidBody", "TypedIndex",
    "check_shape", "default_model_instance", "world_model_instance",
]
