"""`PlantCore`: the base class of every `MultibodyPlant` topic mixin.

It holds the builder state (elements, geometry, collision filters, constraints; created in
``__init__``), the compiled `Model` (``_model``), the lifecycle checks every topic needs
(``_require_finalized``, ``_require_not_finalized``, ``_check_instance``, ``_check_context``)
and the element lookups by index and by name. The topic mixins (``_*_api.py``) inherit it and
call only it, never each other; Finalize-time steps shared by several topics are builder
functions of the plant (`default_parameters`, `finalize_contact`, `finalize_checks`).
"""

from __future__ import annotations

import numpy as np

from jaxbody.core.elements import (
    BodyFrame,
    BodyIndex,
    FrameIndex,
    JointActuatorIndex,
    JointIndex,
    ModelInstanceIndex,
    RigidBody,
    check_index,
)
from jaxbody.engine import state
from jaxbody.forces.force_element import ForceElementIndex
from jaxbody.forces.gravity import UniformGravityFieldElement
from jaxbody.geometry import Role
from jaxbody.geometry.collision.query import ContactQueryOptions
from jaxbody.plant.compile_model import compile_model


def _fmt_instance(plant, mi):
    return "" if mi is None else f" in model instance '{plant._instance_names[int(mi)]}'"


class PlantCore:
    """Builder state, lifecycle checks and element lookups shared by every topic mixin."""

    def __init__(self, time_step: float = 0.0):
        time_step = float(time_step)
        if not np.isfinite(time_step) or time_step < 0:
            raise ValueError(f"MultibodyPlant: time_step must be finite and >= 0, got {time_step}")
        self._compiled = None  # the `Model`, compiled at Finalize (see `_model`)
        self._time_step = time_step
        self._finalized = False
        self._instance_names = ["WorldModelInstance", "DefaultModelInstance"]
        self._bodies, self._frames, self._joints, self._actuators = [], [], [], []
        self._force_elements = []
        self._topology = None
        self._geometries = []  # RegisteredGeometry, indexed by GeometryId
        self._adjacent_bodies_collision_filters = True
        self._collision_filter_declarations = []  # (set of ids, set of ids or None)
        self._contact_query_options = ContactQueryOptions()
        self._collision_pairs = None  # (pair_a, pair_b) collision indices, at Finalize
        self._point_pairs = None  # (pair_a, pair_b) of point contact, at Finalize
        self._hydroelastic_pairs = []  # the hydroelastic pairs, at Finalize
        # constraints, by kind in registration order, and (kind, slot) by constraint id
        self._couplers, self._balls, self._distances, self._welds = [], [], [], []
        self._constraint_order = []
        world = RigidBody("world", ModelInstanceIndex(0), 0.0, np.zeros(3), np.zeros((3, 3)))
        self._register_body(world)
        self._register_force_element(UniformGravityFieldElement())  # element 0, as in Drake

    # --- Registration of elements (the builder's lists) ----------------------------------------
    def _register_body(self, body):
        body._index = BodyIndex(len(self._bodies))
        body._plant = self
        self._bodies.append(body)
        frame = BodyFrame(body)
        body._body_frame = frame
        self._register_frame(frame)

    def _register_frame(self, frame):
        frame._index = FrameIndex(len(self._frames))
        frame._plant = self
        self._frames.append(frame)

    def _register_force_element(self, force_element):
        force_element._attach(self)
        force_element._index = ForceElementIndex(len(self._force_elements))
        force_element._plant = self
        self._force_elements.append(force_element)
        return force_element

    @property
    def _gravity(self):
        """The default gravity vector (m/s², in World), held by the gravity element."""
        return self._force_elements[0].gravity_vector()

    # --- The compiled model -------------------------------------------------------------------
    @property
    def _model(self):
        """The compiled `Model` (`plant/compile_model.py`), made at Finalize and again after a
        setter that changes the plant."""
        model = self._compiled
        if model is None:
            self._require_finalized("the compiled model")
            model = self._compiled = compile_model(self)
        return model

    def _model_changed(self):
        """Called by the setters Drake allows after Finalize(): the next computation compiles
        a new `Model` (the old one, and compiled code keyed on it, stay as they were)."""
        self._compiled = None

    # --- Lifecycle ------------------------------------------------------------------------------
    def time_step(self) -> float:
        return self._time_step

    def is_discrete(self) -> bool:
        return self._time_step > 0

    def is_finalized(self) -> bool:
        return self._finalized

    def _require_not_finalized(self, what):
        if self._finalized:
            raise RuntimeError(f"MultibodyPlant.{what}: the plant is finalized; no more elements "
                               "can be added after Finalize()")

    def _require_finalized(self, what):
        if not self._finalized:
            raise RuntimeError(f"MultibodyPlant.{what}: call Finalize() first")

    def _check_instance(self, model_instance, what):
        try:
            mi = check_index(model_instance, ModelInstanceIndex, what)
        except TypeError:
            raise TypeError(f"{what}: expected a ModelInstanceIndex, got {model_instance!r} (look "
                            "one up by name with GetModelInstanceByName)") from None
        if not 0 <= mi < len(self._instance_names):
            raise ValueError(f"{what}: invalid model instance {mi}; the plant has "
                             f"{len(self._instance_names)} instances")
        return ModelInstanceIndex(mi)

    def _check_context(self, context, what):
        self._require_finalized(what)
        return state.check_context(self._model, context, what)

    # --- Elements by index ----------------------------------------------------------------
    def world_body(self):
        return self._bodies[0]

    def world_frame(self):
        return self._frames[0]

    def _get(self, seq, index, what, kind):
        i = check_index(index, kind, what)
        if not 0 <= i < len(seq):
            raise IndexError(f"{what}: index {i} out of range [0, {len(seq)})")
        return seq[i]

    def get_body(self, body_index):
        return self._get(self._bodies, body_index, "get_body", BodyIndex)

    def get_joint(self, joint_index):
        return self._get(self._joints, joint_index, "get_joint", JointIndex)

    def get_frame(self, frame_index):
        return self._get(self._frames, frame_index, "get_frame", FrameIndex)

    def get_joint_actuator(self, actuator_index):
        return self._get(self._actuators, actuator_index, "get_joint_actuator", JointActuatorIndex)

    def _own_body(self, body, what) -> int:
        if getattr(body, "_plant", None) is not self:
            raise ValueError(f"{what}: body '{getattr(body, 'name', lambda: body)()}' is not "
                             "in this plant")
        return int(body.index())

    def _own_frame(self, frame, what):
        if getattr(frame, "_plant", None) is not self:
            raise ValueError(f"{what}: frame '{getattr(frame, 'name', lambda: frame)()}' is not "
                             "in this plant")
        return frame

    def _inboard_joint_of_body(self, body):
        node = self._topology.body_node[int(body.index())]
        j = self._topology.node_joint[node]
        return None if j < 0 else self._joints[j]

    def _collision_geometries(self):
        """The registered geometries with the proximity role, in registration order."""
        return [g for g in self._geometries if g.role() is Role.kProximity]

    # --- Counters -------------------------------------------------------------------------------
    def num_bodies(self) -> int:
        return len(self._bodies)

    def num_joints(self) -> int:
        return len(self._joints)

    def num_frames(self) -> int:
        return len(self._frames)

    def num_actuators(self, model_instance=None) -> int:
        return len(self._actuators_in(model_instance))

    def num_model_instances(self) -> int:
        return len(self._instance_names)

    def _joints_in(self, model_instance):
        if model_instance is None:
            return list(self._joints)
        mi = self._check_instance(model_instance, "model instance")
        return [j for j in self._joints if j.model_instance() == mi]

    def _actuators_in(self, model_instance):
        if model_instance is None:
            return list(self._actuators)
        mi = self._check_instance(model_instance, "model instance")
        return [a for a in self._actuators if a.model_instance() == mi]

    def num_positions(self, model_instance=None) -> int:
        if model_instance is None and self._finalized:
            return self._topology.nq
        self._require_finalized("num_positions")
        return sum(j.num_positions() for j in self._joints_in(model_instance))

    def num_velocities(self, model_instance=None) -> int:
        if model_instance is None and self._finalized:
            return self._topology.nv
        self._require_finalized("num_velocities")
        return sum(j.num_velocities() for j in self._joints_in(model_instance))

    def num_multibody_states(self, model_instance=None) -> int:
        return self.num_positions(model_instance) + self.num_velocities(model_instance)

    def num_actuated_dofs(self, model_instance=None) -> int:
        self._require_finalized("num_actuated_dofs")
        return sum(a.joint().num_velocities() for a in self._actuators_in(model_instance))

    # --- By name -------------------------------------------------------------------------------
    def _find(self, seq, name, model_instance, what):
        if model_instance is not None:
            mi = self._check_instance(model_instance, what)
            hits = [e for e in seq if e.name() == name and e.model_instance() == mi]
        else:
            hits = [e for e in seq if e.name() == name]
        if not hits:
            raise ValueError(f"{what}: no element named '{name}'{_fmt_instance(self, model_instance)}")
        if len(hits) > 1:
            insts = [self._instance_names[int(e.model_instance())] for e in hits]
            raise ValueError(f"{what}: the name '{name}' is in several model instances {insts}; "
                             "pass the model instance")
        return hits[0]

    def _has(self, seq, name, model_instance):
        return any(e.name() == name and (model_instance is None
                                         or e.model_instance() == int(model_instance))
                   for e in seq)

    def HasBodyNamed(self, name, model_instance=None) -> bool:
        return self._has(self._bodies, name, model_instance)

    def HasJointNamed(self, name, model_instance=None) -> bool:
        return self._has(self._joints, name, model_instance)

    def HasFrameNamed(self, name, model_instance=None) -> bool:
        return self._has(self._frames, name, model_instance)

    def HasJointActuatorNamed(self, name, model_instance=None) -> bool:
        return self._has(self._actuators, name, model_instance)

    def NumBodiesWithName(self, name) -> int:
        return sum(b.name() == name for b in self._bodies)

    def GetBodyByName(self, name, model_instance=None):
        return self._find(self._bodies, name, model_instance, "GetBodyByName")

    def GetRigidBodyByName(self, name, model_instance=None):
        return self._find(self._bodies, name, model_instance, "GetRigidBodyByName")

    def GetJointByName(self, name, model_instance=None):
        return self._find(self._joints, name, model_instance, "GetJointByName")

    def GetFrameByName(self, name, model_instance=None):
        return self._find(self._frames, name, model_instance, "GetFrameByName")

    def GetJointActuatorByName(self, name, model_instance=None):
        return self._find(self._actuators, name, model_instance, "GetJointActuatorByName")
