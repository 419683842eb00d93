"""A geometry registered on a body: `GeometryId`, `Role` and the `RegisteredGeometry` record.

`MultibodyPlant.RegisterCollisionGeometry` and `RegisterVisualGeometry` return a `GeometryId`;
`MultibodyPlant.GetGeometry(id)` returns the `RegisteredGeometry`: the body B it is fixed to, its
pose ``X_BG`` in B, its shape, its name and its properties. This replaces what a pydrake user
reads from SceneGraph's inspector (``GetShape``, ``GetName``, ``GetPoseInFrame``,
``GetProximityProperties``); those names are provided too.
"""

from __future__ import annotations

import enum


class GeometryId(int):
    """The id of a registered geometry (unique within its plant)."""

    def __repr__(self) -> str:
        return f"GeometryId({int(self)})"

    def get_value(self) -> int:
        return int(self)


class Role(enum.Enum):
    """What a geometry is for, as Drake's ``geometry::Role``."""

    kProximity = 1  # collision: contact and signed-distance queries
    kIllustration = 2  # visual: drawing


class RegisteredGeometry:
    """A geometry G fixed to body B of a plant (read-only).

    Args:
        geometry_id: its `GeometryId`.
        body: the `RigidBody` B.
        role: `Role.kProximity` (collision) or `Role.kIllustration` (visual).
        X_BG: `RigidTransform`, the pose of G in B.
        shape: the `Shape`, in G.
        name: the geometry's name as Drake's SceneGraph reports it: ``"model::name"``, unscoped
            for the world and default model instances.
        properties: `ProximityProperties` or `IllustrationProperties` (copied).
    """

    def __init__(self, geometry_id, body, role, X_BG, shape, name, properties):
        self._id = GeometryId(geometry_id)
        self._body = body
        self._role = role
        self._X_BG = X_BG
        self._shape = shape
        self._name = name
        self._properties = properties

    def geometry_id(self) -> GeometryId:
        return self._id

    def body(self):
        return self._body

    def role(self) -> Role:
        return self._role

    def pose_in_body(self):
        """``X_BG``, the pose of the geometry frame G in the body frame B."""
        return self._X_BG

    GetPoseInFrame = pose_in_body

    def shape(self):
        return self._shape

    GetShape = shape

    def name(self) -> str:
        return self._name

    GetName = name

    def properties(self):
        """The geometry's properties (proximity for collision, illustration for visual)."""
        return self._properties

    def GetProximityProperties(self):
        return self._properties if self._role is Role.kProximity else None

    def GetIllustrationProperties(self):
        return self._properties if self._role is Role.kIllustration else None

    def diffuse_color(self):
        """The RGBA diffuse color of a visual geometry, or None."""
        return self._properties.GetPropertyOrDefault("phong", "diffuse", None)

    def __repr__(self) -> str:
        kind = "collision" if self._role is Role.kProximity else "visual"
        return (f"<RegisteredGeometry {kind} id={int(self._id)} name='{self._name}' "
                f"body='{self._body.name()}' shape={self._shape!r}>")
