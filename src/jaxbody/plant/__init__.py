"""The MultibodyPlant builder, its elements, the Finalize compiler and the Context."""

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
    RigidBody,
    default_model_instance,
    world_model_instance,
)
from jaxbody.core.multibody_forces import MultibodyForces
from jaxbody.plant._constraint_params_api import DistanceConstraintParams
from jaxbody.plant._contact_model_api import ContactModel, DiscreteContactApproximation
from jaxbody.plant._kinematics_api import JacobianWrtVariable
from jaxbody.plant.actuator import JointActuator, PdControllerGains
from jaxbody.plant.multibody_plant import MultibodyPlant

__all__ = [
    "BodyFrame", "BodyIndex", "ContactModel", "Context", "DiscreteContactApproximation",
    "DistanceConstraintParams", "FixedOffsetFrame",
    "Frame", "FrameIndex",
    "JacobianWrtVariable", "JointActuator", "JointActuatorIndex", "JointIndex",
    "MultibodyConstraintId", "PdControllerGains",
    "ModelInstanceIndex", "MultibodyForces", "MultibodyPlant", "Parameters", "RigidBody",
    "default_model_instance", "world_model_instance",
]
