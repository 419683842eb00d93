"""The MultibodyPlant builder, the Finalize compiler and the plant's own records (its elements
and the Context live in `jaxbody.core`)."""

from jaxbody.engine.jacobians import JacobianWrtVariable
from jaxbody.plant._constraint_params_api import DistanceConstraintParams
from jaxbody.plant.actuator import JointActuator, PdControllerGains
from jaxbody.plant.contact_settings import ContactModel, DiscreteContactApproximation
from jaxbody.plant.multibody_plant import MultibodyPlant

__all__ = [
    "ContactModel", "DiscreteContactApproximation", "DistanceConstraintParams",
    "JacobianWrtVariable", "JointActuator", "MultibodyPlant", "PdControllerGains",
]
