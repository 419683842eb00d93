"""`MultibodyPlant`: Drake's builder API, Finalize(), and element lookups.

Build the model with Drake's calls (``AddRigidBody``, ``AddJoint``, ``WeldFrames``, ...), call
``Finalize()``, then ``CreateDefaultContext()``. Computations (kinematics, Jacobians, ...) come
from the topic mixins (``_state_api.py``, ``_kinematics_api.py``, ...), each a subclass of
`PlantCore` (``_core.py``: builder state, lifecycle checks, element lookups) that calls only
the core, never another topic; they are pure functions of the context, so ``jax.jit``,
``jax.vmap`` and ``jax.grad`` apply to them.

Example:
    >>> import numpy as np
    >>> from jaxbody import MultibodyPlant, RevoluteJoint, SpatialInertia
    >>> plant = MultibodyPlant(time_step=0.0)
    >>> link = plant.AddRigidBody("link", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 1.0))
    >>> _ = plant.AddJoint(RevoluteJoint("pin", plant.world_frame(), link.body_frame(), [0, 1, 0]))
    >>> plant.Finalize()
    >>> plant.num_positions()
    1
"""

from __future__ import annotations

import warnings

import numpy as np

from jaxbody.core.elements import (
    Frame,
    JointActuatorIndex,
    JointIndex,
    ModelInstanceIndex,
    RigidBody,
)
from jaxbody.engine.point_contact import check_pairs
from jaxbody.joints import Joint, QuaternionFloatingJoint, WeldJoint
from jaxbody.joints.orientation_joints import floating_positions
from jaxbody.math import SpatialInertia
from jaxbody.math.inertia import point_mass_unit_inertia
from jaxbody.plant._constraint_params_api import ConstraintParamsAPI
from jaxbody.plant._constraints_api import ConstraintsAPI
from jaxbody.plant._contact_model_api import ContactModelAPI
from jaxbody.plant._contact_query_api import ContactQueryAPI
from jaxbody.plant._discrete_api import DiscreteAPI
from jaxbody.plant._dynamics_api import DynamicsAPI
from jaxbody.plant._forces_api import ForcesAPI
from jaxbody.plant._geometry_api import GeometryAPI
from jaxbody.plant._hydroelastic_api import HydroelasticAPI
from jaxbody.plant._kinematics_api import KinematicsAPI
from jaxbody.plant._lookup_api import LookupAPI
from jaxbody.plant._mass_properties_api import MassPropertiesAPI
from jaxbody.plant._names_api import NamesAPI
from jaxbody.plant._state_api import StateAPI
from jaxbody.plant._station_api import StationAPI
from jaxbody.plant.actuator import JointActuator
from jaxbody.plant.compile_model import compile_model
from jaxbody.plant.default_parameters import build_defaults
from jaxbody.plant.finalize_checks import check_constraints_at_finalize
from jaxbody.plant.finalize_contact import finalize_contact_query
from jaxbody.plant.forest import grow_forest
from jaxbody.plant.topology import compile_topology

# Relative slack allowed in the triangle inequality of principal moments before warning.
TRIANGLE_INEQUALITY_TOLERANCE = 1e-10


class MultibodyPlant(ConstraintsAPI, ConstraintParamsAPI, ContactModelAPI, ContactQueryAPI,
                     LookupAPI, NamesAPI, StateAPI, KinematicsAPI, MassPropertiesAPI, DynamicsAPI,
                     ForcesAPI, GeometryAPI, DiscreteAPI, StationAPI, HydroelasticAPI):
    """A multibody model: the builder before ``Finalize()``, a pure-function engine after.

    Args:
        time_step: 0 for a continuous-time plant; > 0 (s) for a discrete plant.
    """

    # --- Identity (a finalized plant is its compiled model: equal models share jit caches) -----
    def __hash__(self):
        return hash(self._model) if self._finalized else id(self)

    def __eq__(self, other):
        if not (self._finalized and isinstance(other, MultibodyPlant) and other._finalized):
            return self is other
        return self._model == other._model

    def compiled_model(self):
        """The frozen `jaxbody.model.Model` of this finalized plant: what every computation
        reads (jaxbody only; the engine functions of `jaxbody.engine` take it)."""
        return self._model

    # --- Construction ---------------------------------------------------------------------------
    def AddModelInstance(self, name: str) -> ModelInstanceIndex:
        self._require_not_finalized("AddModelInstance")
        if name in self._instance_names:
            raise ValueError(f"AddModelInstance: a model instance named '{name}' already exists")
        self._instance_names.append(name)
        return ModelInstanceIndex(len(self._instance_names) - 1)

    def AddRigidBody(self, name, *args, **kwargs) -> RigidBody:
        """``AddRigidBody(name, M_BBo_B)`` or ``AddRigidBody(name, model_instance, M_BBo_B)``.

        ``M_BBo_B`` is the body's `SpatialInertia` about its origin Bo, expressed in B
        (default: zero mass). Without a model instance the body goes to the default instance,
        which is an error once other instances exist (as in Drake).
        """
        self._require_not_finalized("AddRigidBody")
        model_instance = kwargs.pop("model_instance", None)
        M = kwargs.pop("M_BBo_B", None)
        if kwargs:
            raise TypeError(f"AddRigidBody: unexpected arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, SpatialInertia):
                M = a
            else:
                model_instance = a
        if model_instance is None:
            if len(self._instance_names) > 2:
                raise ValueError(
                    f"AddRigidBody('{name}'): model instances beyond the world and default ones "
                    "exist; name the model instance explicitly")
            model_instance = ModelInstanceIndex(1)
        mi = self._check_instance(model_instance, f"AddRigidBody('{name}')")
        if self.HasBodyNamed(name, mi):
            raise ValueError(f"AddRigidBody: model instance '{self._instance_names[mi]}' already "
                             f"has a body named '{name}'")
        if M is None:
            mass, com, G = 0.0, np.zeros(3), np.zeros((3, 3))
        else:
            mass = np.asarray(M.get_mass(), float)
            com = np.asarray(M.get_com(), float)
            G = np.asarray(M.get_unit_inertia().CopyToFullMatrix3(), float)
        _validate_inertia(name, float(mass), com, G)
        body = RigidBody(name, mi, float(mass), com, G)
        self._register_body(body)
        return body

    def AddFrame(self, frame: Frame) -> Frame:
        self._require_not_finalized("AddFrame")
        if not isinstance(frame, Frame):
            raise TypeError(f"AddFrame: expected a Frame, got {type(frame).__name__}")
        if frame._plant is not None:
            raise ValueError(f"AddFrame: frame '{frame.name()}' was already added to a plant")
        if frame.body().GetParentPlant() is not self:
            raise ValueError(f"AddFrame: frame '{frame.name()}' is attached to a body of "
                             "another plant")
        if self.HasFrameNamed(frame.name(), frame.model_instance()):
            raise ValueError(f"AddFrame: model instance "
                             f"'{self._instance_names[frame.model_instance()]}' already has a "
                             f"frame named '{frame.name()}'")
        self._register_frame(frame)
        return frame

    def AddJoint(self, joint: Joint) -> Joint:
        self._require_not_finalized("AddJoint")
        if not isinstance(joint, Joint):
            raise TypeError(f"AddJoint: expected a Joint, got {type(joint).__name__}")
        if joint._plant is not None:
            raise ValueError(f"AddJoint: joint '{joint.name()}' was already added to a plant")
        for f in (joint.frame_on_parent(), joint.frame_on_child()):
            if f._plant is not self:
                raise ValueError(f"AddJoint('{joint.name()}'): frame '{f.name()}' is not in "
                                 "this plant (add FixedOffsetFrames with AddFrame first)")
        if self.HasJointNamed(joint.name(), joint.model_instance()):
            raise ValueError(f"AddJoint: model instance "
                             f"'{self._instance_names[joint.model_instance()]}' already has a "
                             f"joint named '{joint.name()}'")
        joint._index = JointIndex(len(self._joints))
        joint._plant = self
        self._joints.append(joint)
        return joint

    def WeldFrames(self, frame_on_parent_F, frame_on_child_M, X_FM=None) -> WeldJoint:
        """Welds M to F at ``X_FM``; the joint is named ``F.name() + "_welds_to_" + M.name()``."""
        name = f"{frame_on_parent_F.name()}_welds_to_{frame_on_child_M.name()}"
        return self.AddJoint(WeldJoint(name, frame_on_parent_F, frame_on_child_M, X_FM))

    def AddJointActuator(self, name, joint, effort_limit=np.inf) -> JointActuator:
        self._require_not_finalized("AddJointActuator")
        actuator = JointActuator(name, joint, effort_limit)
        if any(a.name() == name and a.model_instance() == actuator.model_instance()
               for a in self._actuators):
            raise ValueError(f"AddJointActuator: an actuator named '{name}' already exists in "
                             "that model instance")
        if any(a.joint() is joint for a in self._actuators):
            raise ValueError(f"AddJointActuator('{name}'): joint '{joint.name()}' already has "
                             "an actuator")
        actuator._index = JointActuatorIndex(len(self._actuators))
        actuator._plant = self
        self._actuators.append(actuator)
        return actuator

    # --- Finalize -----------------------------------------------------------------------------
    def Finalize(self):
        """Adds floating joints to free bodies, validates the model and compiles the tree."""
        if self._finalized:
            raise RuntimeError("MultibodyPlant.Finalize: the plant is already finalized")
        # Each body's inboard joint, reversed where the tree reaches a joint from its child's
        # side; floating joints for the groups the world does not reach (`forest.py`).
        self._inboard = grow_forest(self, self._add_floating_joint)
        for body in self._bodies[1:]:
            _warn_triangle_inequality(body)
        self._topology = compile_topology(self)
        check_constraints_at_finalize(self)
        self._finalized = True
        build_defaults(self)
        finalize_contact_query(self)
        self._compiled = compile_model(self)
        check_pairs(self._compiled)  # structural contact errors, at Finalize

    def _add_floating_joint(self, body):
        name = body.name()
        while self.HasJointNamed(name, body.model_instance()):
            name = "_" + name
        joint = QuaternionFloatingJoint(name, self.world_frame(), body.body_frame())
        joint._ephemeral = True
        X = getattr(body, "_default_free_pose", None)
        if X is not None:
            joint.set_default_positions(floating_positions(X, 7))
        self.AddJoint(joint)

    # --- Graph ----------------------------------------------------------------------------------
    def GetTopologyGraphvizString(self) -> str:
        """A Graphviz ``digraph`` of bodies (nodes, clustered by model instance) and joints."""
        lines = ["digraph MultibodyPlant {", 'label="";', "rankdir=BT;", "labelloc=t;"]
        for mi, iname in enumerate(self._instance_names):
            lines.append(f"subgraph cluster{mi} {{")
            lines.append(f' label="{iname}";')
            for b in self._bodies:
                if int(b.model_instance()) == mi:
                    lines.append(f' body{int(b.index())} [label="{b.name()}"];')
            lines.append("}")
        for j in self._joints:
            lines.append(f" body{int(j.child_body().index())} -> body{int(j.parent_body().index())}"
                         f' [label="{j.name()} [{j.type_name()}]"];')
        lines.append("}")
        return "\n".join(lines)


def _validate_inertia(name, mass, com, G):
    if not np.isfinite(mass) or mass < 0:
        raise ValueError(f"RigidBody '{name}': mass must be finite and >= 0, got {mass}")
    if not np.all(np.isfinite(com)) or not np.all(np.isfinite(G)):
        raise ValueError(f"RigidBody '{name}': center of mass and inertia must be finite")
    if not np.allclose(G, G.T, atol=1e-12 * max(1.0, np.abs(G).max())):
        raise ValueError(f"RigidBody '{name}': the unit inertia is not symmetric:\n{G}")
    # Central rotational inertia must be positive semi-definite.
    I_cm = mass * (G - point_mass_unit_inertia(np.asarray(com, float)))
    scale = max(1.0, np.abs(mass * G).max())
    if np.linalg.eigvalsh(I_cm).min() < -1e-10 * scale:
        raise ValueError(f"RigidBody '{name}': the rotational inertia about the center of mass "
                         f"is not positive semi-definite (moments {np.linalg.eigvalsh(I_cm)})")


def _warn_triangle_inequality(body):
    m, c, G = body._default_mass, body._default_com, body._default_unit_inertia
    I_cm = m * (G - point_mass_unit_inertia(np.asarray(c, float)))
    e = np.sort(np.linalg.eigvalsh(I_cm))
    tol = TRIANGLE_INEQUALITY_TOLERANCE * max(1.0, e[-1])
    if e[0] + e[1] < e[2] - tol:
        warnings.warn(f"RigidBody '{body.name()}': principal moments of inertia {e} violate the "
                      "triangle inequality (physically invalid, loaded anyway)", stacklevel=3)
