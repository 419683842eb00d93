"""Multibody elements other than joints: indices, model instances, rigid bodies and frames.

These are the builder-side objects a user holds (``plant.AddRigidBody`` returns a `RigidBody`).
They store default values as NumPy arrays; the values used in computation live in the
`Context` parameters so that they can be differentiated and batched.
"""

from __future__ import annotations

import numpy as np

from jaxbody.math import RigidTransform, SpatialInertia, UnitInertia


class TypedIndex(int):
    """A typed integer index, as Drake's ``TypeSafeIndex``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"

    def is_valid(self) -> bool:
        return int(self) >= 0


def check_index(index, kind, what) -> int:
    """``index`` as an int, for a lookup that takes a ``kind`` (an `TypedIndex` subclass): another
    kind of typed index is refused, as Drake's type-safe indices are (a JointIndex is not a
    BodyIndex); a plain integer is accepted."""
    if isinstance(index, TypedIndex) and not isinstance(index, kind):
        raise TypeError(f"{what}: expected a {kind.__name__}, got {index!r}")
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"{what}: expected a {kind.__name__}, got {index!r}")
    return int(index)


class BodyIndex(TypedIndex):
    """Index of a body in its plant; ``BodyIndex(0)`` is the world."""


class FrameIndex(TypedIndex):
    """Index of a frame in its plant; ``FrameIndex(0)`` is the world frame."""


class JointIndex(TypedIndex):
    """Index of a joint in its plant."""


class JointActuatorIndex(TypedIndex):
    """Index of a joint actuator in its plant."""


class ModelInstanceIndex(TypedIndex):
    """Index of a model instance; 0 is the world instance, 1 the default instance."""


def world_model_instance() -> ModelInstanceIndex:
    """The world model instance (index 0), as Drake's ``world_model_instance()``."""
    return ModelInstanceIndex(0)


def default_model_instance() -> ModelInstanceIndex:
    """The default model instance (index 1), as Drake's ``default_model_instance()``."""
    return ModelInstanceIndex(1)


class MultibodyElement:
    """Common base: a name, an index, a model instance and the plant that owns the element."""

    def __init__(self, name: str, model_instance=None):
        if not isinstance(name, str) or not name:
            raise ValueError(f"{type(self).__name__}: name must be a non-empty string, got {name!r}")
        self._name = name
        self._model_instance = None if model_instance is None else ModelInstanceIndex(model_instance)
        self._index = None
        self._plant = None

    def name(self) -> str:
        return self._name

    def index(self):
        return self._index

    def model_instance(self) -> ModelInstanceIndex:
        return self._model_instance

    def GetParentPlant(self):
        if self._plant is None:
            raise RuntimeError(f"{type(self).__name__} '{self._name}' has not been added to a plant")
        return self._plant

    def _require_plant(self, plant=None):
        owner = self.GetParentPlant()
        if plant is not None and plant is not owner:
            raise ValueError(f"{type(self).__name__} '{self._name}' belongs to a different plant")
        return owner

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name='{self._name}' index={self._index}>"


def _unit_inertia(G):
    """A `UnitInertia` from a symmetric 3x3 matrix (NumPy or jax array)."""

    return UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2])


class RigidBody(MultibodyElement):
    """A rigid body with a default spatial inertia ``M_BBo_B`` (about Bo, expressed in B).

    Created by `MultibodyPlant.AddRigidBody`; do not construct directly.
    """

    def __init__(self, name, model_instance, mass, p_BoBcm_B, G_BBo_B):
        super().__init__(name, model_instance)
        self._default_mass = float(mass)
        self._default_com = np.asarray(p_BoBcm_B, dtype=float).reshape(3)
        self._default_unit_inertia = np.asarray(G_BBo_B, dtype=float).reshape(3, 3)
        self._body_frame = None

    # --- Identity and topology ------------------------------------------------------------
    def body_frame(self):
        """The frame B attached at the body origin."""
        return self._body_frame

    def is_floating(self) -> bool:
        """True if the body's inboard joint is a 6-dof floating joint to the world (post-Finalize)."""
        plant = self._require_plant()
        plant._require_finalized("is_floating")
        joint = plant._inboard_joint_of_body(self)
        return joint is not None and joint._is_floating_kind() and joint.parent_body().index() == 0

    def has_quaternion_dofs(self) -> bool:
        plant = self._require_plant()
        plant._require_finalized("has_quaternion_dofs")
        joint = plant._inboard_joint_of_body(self)
        return joint is not None and joint._has_quaternion()

    # --- Default inertial parameters --------------------------------------------------------
    def default_mass(self) -> float:
        return self._default_mass

    def default_com(self) -> np.ndarray:
        return self._default_com.copy()

    def default_unit_inertia(self):
        return _unit_inertia(self._default_unit_inertia)

    def default_spatial_inertia(self):

        return SpatialInertia(
            self._default_mass, self._default_com,
            _unit_inertia(self._default_unit_inertia), skip_validity_check=True,
        )

    def default_rotational_inertia(self):
        return self.default_spatial_inertia().CalcRotationalInertia()

    # --- Context parameters ------------------------------------------------------------------
    def get_mass(self, context):
        """This body's mass in ``context`` (kg)."""
        return context.parameters.mass[self._index]

    def get_default_mass(self) -> float:
        return self._default_mass

    def CalcCenterOfMassInBodyFrame(self, context):
        """``p_BoBcm_B`` (m) from ``context``."""
        return context.parameters.com[self._index]

    def CalcCenterOfMassTranslationalVelocityInWorld(self, context):
        plant = self._require_plant()
        V = plant.EvalBodySpatialVelocityInWorld(context, self)
        R_WB = plant.EvalBodyPoseInWorld(context, self).rotation().matrix()
        p_BoBcm_W = R_WB @ self.CalcCenterOfMassInBodyFrame(context)
        import jax.numpy as jnp

        return V.translational() + jnp.cross(V.rotational(), p_BoBcm_W)

    def CalcSpatialInertiaInBodyFrame(self, context):
        """``M_BBo_B`` from ``context`` as a `SpatialInertia`."""

        P = context.parameters
        return SpatialInertia(
            P.mass[self._index], P.com[self._index],
            _unit_inertia(P.unit_inertia[self._index]), skip_validity_check=True,
        )

    def SetMass(self, context, mass):
        """Returns a new context with this body's mass set (COM and unit inertia unchanged)."""
        return context._with_parameter("mass", self._index, mass)

    def SetCenterOfMassInBodyFrame(self, context, com):
        """Returns a new context with ``p_BoBcm_B`` set. The unit inertia about Bo is unchanged."""
        return context._with_parameter("com", self._index, com, shape=(3,))

    def SetSpatialInertiaInBodyFrame(self, context, M_BBo_B):
        """Returns a new context with mass, COM and unit inertia taken from ``M_BBo_B``."""
        ctx = context._with_parameter("mass", self._index, M_BBo_B.get_mass())
        ctx = ctx._with_parameter("com", self._index, M_BBo_B.get_com(), shape=(3,))
        G = M_BBo_B.get_unit_inertia().CopyToFullMatrix3()
        return ctx._with_parameter("unit_inertia", self._index, G, shape=(3, 3))

    def EvalPoseInWorld(self, context):
        return self._require_plant().EvalBodyPoseInWorld(context, self)

    def EvalSpatialVelocityInWorld(self, context):
        return self._require_plant().EvalBodySpatialVelocityInWorld(context, self)


class Frame(MultibodyElement):
    """Base class of frames. A frame is fixed to a body at a (parameterized) pose ``X_BF``."""

    def __init__(self, name, body, model_instance=None):
        super().__init__(name, model_instance)
        self._body = body

    def body(self) -> RigidBody:
        return self._body

    def is_world_frame(self) -> bool:
        return self._index == 0

    def is_body_frame(self) -> bool:
        return False

    def GetFixedPoseInBodyFrame(self, context=None):
        """``X_BF``: from ``context`` if given, else the default."""

        if context is None:
            return self._default_X_BF()
        P = context.parameters
        return RigidTransform(P.frame_R[self._index], P.frame_p[self._index])

    def CalcPoseInBodyFrame(self, context):
        return self.GetFixedPoseInBodyFrame(context)

    def CalcPoseInWorld(self, context):
        plant = self._require_plant()
        return plant.CalcRelativeTransform(context, plant.world_frame(), self)

    def CalcPose(self, context, frame_M):
        return self._require_plant().CalcRelativeTransform(context, frame_M, self)

    def CalcRotationMatrixInWorld(self, context):
        return self.CalcPoseInWorld(context).rotation()

    def CalcSpatialVelocityInWorld(self, context):
        plant = self._require_plant()
        W = plant.world_frame()
        return plant.CalcSpatialVelocity(context, self, W, W)

    def CalcSpatialVelocity(self, context, frame_M, frame_E):
        return self._require_plant().CalcSpatialVelocity(context, self, frame_M, frame_E)

    def _default_X_BF(self):

        return RigidTransform()


class BodyFrame(Frame):
    """The frame B of a body: ``X_BF`` is the identity."""

    def __init__(self, body):
        super().__init__(body.name(), body, body.model_instance())

    def is_body_frame(self) -> bool:
        return True

    def _default_X_BF(self):

        return RigidTransform()


class FixedOffsetFrame(Frame):
    """A frame F fixed to frame P at pose ``X_PF`` (as Drake's ``FixedOffsetFrame``).

    Args:
        name: the frame's name (unique within its model instance).
        P: the parent frame (a body frame or another FixedOffsetFrame).
        X_PF: `RigidTransform` pose of F in P.
        model_instance: defaults to ``P``'s model instance.
    """

    def __init__(self, name, P, X_PF=None, model_instance=None):

        if not isinstance(P, Frame):
            raise TypeError(f"FixedOffsetFrame '{name}': parent P must be a Frame, got {type(P)}")
        mi = model_instance if model_instance is not None else P.model_instance()
        super().__init__(name, P.body(), mi)
        self._parent_frame = P
        self._X_PF = RigidTransform() if X_PF is None else X_PF
        self._X_PF_np = (
            np.asarray(self._X_PF.rotation().matrix(), float),
            np.asarray(self._X_PF.translation(), float),
        )

    def parent_frame(self) -> Frame:
        return self._parent_frame

    def _default_X_BF_np(self):
        R_PF, p_PF = self._X_PF_np
        if isinstance(self._parent_frame, FixedOffsetFrame):
            R_BP, p_BP = self._parent_frame._default_X_BF_np()
        else:
            R_BP, p_BP = np.eye(3), np.zeros(3)
        return R_BP @ R_PF, p_BP + R_BP @ p_PF

    def _default_X_BF(self):

        R, p = self._default_X_BF_np()
        return RigidTransform(R, p)


class MultibodyConstraintId(TypedIndex):
    """Id of a constraint in its plant (`AddCouplerConstraint`), Drake's ``MultibodyConstraintId``;
    numbered 0, 1, ... in the order the constraints were added."""
