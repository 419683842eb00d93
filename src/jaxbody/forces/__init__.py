"""Force elements (Drake's API) and externally applied forces.

Every element's numeric constants are Context parameters (``context.parameters.force_elements``)
so that rollouts can be differentiated and batched over them.
"""

from jaxbody.forces.applied import ExternallyAppliedSpatialForce
from jaxbody.forces.bushing import LinearBushingRollPitchYaw
from jaxbody.forces.door_hinge import DoorHinge, DoorHingeConfig
from jaxbody.forces.force_element import ElementKinematics, ForceElement, ForceElementIndex
from jaxbody.forces.gravity import UniformGravityFieldElement
from jaxbody.forces.gravity_compensation import GravityCompensation
from jaxbody.forces.springs import LinearSpringDamper, PrismaticSpring, RevoluteSpring

__all__ = [
    "DoorHinge", "DoorHingeConfig", "ElementKinematics", "ExternallyAppliedSpatialForce",
    "ForceElement", "ForceElementIndex", "GravityCompensation", "LinearBushingRollPitchYaw",
    "LinearSpringDamper", "PrismaticSpring", "RevoluteSpring", "UniformGravityFieldElement",
]
