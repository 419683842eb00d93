"""`Model`: the frozen, compiled form of a finalized `MultibodyPlant`.

``MultibodyPlant.Finalize()`` (and any setter Drake allows afterwards) compiles the builder's
elements into one immutable `Model` (`jaxbody.plant.compile_model`): the `Topology`, typed
tables of bodies, joints, actuators and model instances, the force elements, the default state
and parameters, the constraint and contact specifications, and the discrete step's
`DiscreteLayout`. The engine functions (`jaxbody.engine`) are pure functions of
``(model, context, inputs)`` and read nothing else, so a model is also the static key of
compiled code: two models compare equal exactly when their content keys do (a hash of the
model's own fields, `jaxbody.model.content_key`), and ``jax.jit(f, static_argnums=0)(model,
...)`` shares compiled code between equal models.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxbody.contact.discrete_layout import DiscreteLayout
from jaxbody.core.context import Parameters
from jaxbody.model.constraint_spec import ConstraintSpec
from jaxbody.model.contact_spec import ContactSpec
from jaxbody.model.tables import ActuatorTable, BodyTable, FrameTable, InstanceTable, JointTable


@dataclasses.dataclass(frozen=True, eq=False)
class Model:
    """A compiled multibody model (immutable; hashable by content).

    Attributes:
        key: the content key (SHA-256 hex) of every other field
            (`jaxbody.model.content_key`).
        time_step: δt (s); 0 for a continuous model.
        topology: the compiled tree (`jaxbody.plant.topology.Topology`).
        bodies, frames, joints, actuators, instances: `BodyTable`, `FrameTable`, `JointTable`,
            `ActuatorTable`, `InstanceTable`.
        force_elements: every `ForceElement`, the gravity field first (ForceElementIndex
            order).
        default_q: (nq,) the default positions.
        default_parameters: the `Parameters` of a default context, float64 NumPy leaves.
        constraints: `ConstraintSpec`.
        contact: `ContactSpec`.
        visual_geometries: the visual (illustration) `RegisteredGeometry` records, for
            viewers.
        discrete: the discrete step's `DiscreteLayout`.
        forward_dynamics_method: "crba" or "aba", the default of forward dynamics.
    """

    key: str
    time_step: float
    topology: object
    bodies: BodyTable
    frames: FrameTable
    joints: JointTable
    actuators: ActuatorTable
    instances: InstanceTable
    force_elements: tuple
    default_q: np.ndarray
    default_parameters: Parameters
    constraints: ConstraintSpec
    contact: ContactSpec
    visual_geometries: tuple
    discrete: DiscreteLayout
    forward_dynamics_method: str

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, Model) and other.key == self.key

    @property
    def nq(self) -> int:
        return self.topology.nq

    @property
    def nv(self) -> int:
        return self.topology.nv

    @property
    def num_actuators(self) -> int:
        return self.actuators.dof.shape[0]

    @property
    def num_bodies(self) -> int:
        return len(self.bodies.names)

    @property
    def is_discrete(self) -> bool:
        return self.time_step > 0

    @property
    def elements(self) -> tuple:
        """The force elements other than the gravity field."""
        return self.force_elements[1:]
