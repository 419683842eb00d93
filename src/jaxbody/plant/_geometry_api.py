"""Geometry registration on `MultibodyPlant` (Drake's names): collision and visual geometry
fixed to bodies, for the contact solver and for viewers.

Drake registers geometry with a SceneGraph; jaxbody keeps it on the plant, with SceneGraph's
collision filters (declared before ``Finalize()``) and collision candidates (after; made by
`finalize_contact.finalize_contact_query`). Registration is a build-time step: after
``Finalize()`` it raises, as in Drake. A geometry's name must be unique
among the geometries of the same role on the same body (SceneGraph's rule).

Example:
    >>> import jaxbody as jb
    >>> plant = jb.MultibodyPlant(0.0)
    >>> ball = plant.AddRigidBody("ball", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    >>> gid = plant.RegisterCollisionGeometry(ball, jb.RigidTransform(), jb.Sphere(0.1),
    ...                                       "ball_collision", jb.CoulombFriction(0.8, 0.6))
    >>> plant.GetGeometry(gid).shape()
    Sphere(radius=0.1)
"""

from __future__ import annotations

import numpy as np

from jaxbody.geometry import (
    CoulombFriction,
    GeometryId,
    GeometrySet,
    IllustrationProperties,
    MakePhongIllustrationProperties,
    ProximityProperties,
    RegisteredGeometry,
    Role,
    Shape,
)
from jaxbody.geometry.properties import FRICTION, MATERIAL_GROUP
from jaxbody.math import RigidTransform
from jaxbody.plant._core import PlantCore


class GeometryAPI(PlantCore):
    """Mixin of `MultibodyPlant`: ``RegisterCollisionGeometry``, ``RegisterVisualGeometry``,
    the lookups of registered geometry, Drake's collision filters and the collision
    candidates."""

    # --- Registration -----------------------------------------------------------------------
    def RegisterCollisionGeometry(self, body, X_BG, shape, name, properties) -> GeometryId:
        """Registers collision geometry G on ``body``.

        Args:
            body: a `RigidBody` of this plant (the world body for anchored geometry).
            X_BG: `RigidTransform`, the pose of G in the body frame B.
            shape: a `Shape` (in G).
            name: unique among this body's collision geometries.
            properties: `ProximityProperties` (copied), or a `CoulombFriction`, which becomes
                the ``("material", "coulomb_friction")`` property.

        Returns:
            The new geometry's `GeometryId`.
        """
        what = "RegisterCollisionGeometry"
        if isinstance(properties, CoulombFriction):
            props = ProximityProperties()
            props.AddProperty(MATERIAL_GROUP, FRICTION, properties)
        elif isinstance(properties, ProximityProperties):
            props = ProximityProperties(properties)
        else:
            raise TypeError(f"{what}('{name}'): properties must be ProximityProperties or a "
                            f"CoulombFriction, got {type(properties).__name__}")
        return self._register_geometry(what, body, X_BG, shape, name, Role.kProximity, props)

    def RegisterVisualGeometry(self, body, X_BG, shape, name, diffuse_color=None) -> GeometryId:
        """Registers visual geometry G on ``body``.

        Args:
            body: a `RigidBody` of this plant.
            X_BG: `RigidTransform`, the pose of G in the body frame B.
            shape: a `Shape` (in G).
            name: unique among this body's visual geometries.
            diffuse_color: RGBA (or RGB) in [0, 1], or `IllustrationProperties` (copied), or
                None for the viewer's default.

        Returns:
            The new geometry's `GeometryId`.
        """
        what = "RegisterVisualGeometry"
        if diffuse_color is None:
            props = IllustrationProperties()
        elif isinstance(diffuse_color, IllustrationProperties):
            props = IllustrationProperties(diffuse_color)
        else:
            props = MakePhongIllustrationProperties(diffuse_color)
        return self._register_geometry(what, body, X_BG, shape, name, Role.kIllustration, props)

    def _register_geometry(self, what, body, X_BG, shape, name, role, props):
        if self._finalized:
            raise RuntimeError(f"Post-finalize calls to '{what}()' are not allowed; calls to "
                               "this method must happen before Finalize().")
        self._own_body(body, what)
        if not isinstance(X_BG, RigidTransform):
            raise TypeError(f"{what}('{name}'): X_BG must be a RigidTransform, got "
                            f"{type(X_BG).__name__}")
        X = np.asarray(X_BG.GetAsMatrix4())
        if X.shape != (4, 4) or not np.all(np.isfinite(X)):
            raise ValueError(f"{what}('{name}'): X_BG must be a single finite pose")
        if not isinstance(shape, Shape):
            raise TypeError(f"{what}('{name}'): shape must be a Shape, got {type(shape).__name__}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{what}: name must be a non-empty string, got {name!r}")
        scoped = self._scoped_geometry_name(body, name)
        for g in self._geometries:
            if g.role() is role and g.body() is body and g.name() == scoped:
                kind = "proximity" if role is Role.kProximity else "illustration"
                raise ValueError(f"{what}: the name '{name}' has already been used by a "
                                 f"geometry with the '{kind}' role on body '{body.name()}'")
        gid = GeometryId(len(self._geometries))
        self._geometries.append(RegisteredGeometry(gid, body, role, X_BG, shape, scoped, props))
        return gid

    def _scoped_geometry_name(self, body, name):
        """Drake's ``GetScopedName``: ``model::name`` except in the world/default instances."""
        mi = int(body.model_instance())
        return name if mi in (0, 1) else f"{self._instance_names[mi]}::{name}"

    # --- Lookups ------------------------------------------------------------------------------
    def _geometries_for(self, body, role, what):
        self._own_body(body, what)
        return [g.geometry_id() for g in self._geometries if g.body() is body and g.role() is role]

    def GetCollisionGeometriesForBody(self, body) -> list:
        """The `GeometryId` of each collision geometry on ``body``, in registration order."""
        return self._geometries_for(body, Role.kProximity, "GetCollisionGeometriesForBody")

    def GetVisualGeometriesForBody(self, body) -> list:
        """The `GeometryId` of each visual geometry on ``body``, in registration order."""
        return self._geometries_for(body, Role.kIllustration, "GetVisualGeometriesForBody")

    def num_collision_geometries(self) -> int:
        return sum(g.role() is Role.kProximity for g in self._geometries)

    def num_visual_geometries(self) -> int:
        return sum(g.role() is Role.kIllustration for g in self._geometries)

    def GetGeometry(self, geometry_id) -> RegisteredGeometry:
        """The `RegisteredGeometry` (body, ``X_BG``, shape, name, properties) of an id."""
        i = int(geometry_id)
        if not 0 <= i < len(self._geometries):
            raise ValueError(f"GetGeometry: no geometry with id {i} in this plant "
                             f"({len(self._geometries)} registered)")
        return self._geometries[i]

    def GetGeometries(self, role=None) -> list:
        """All `RegisteredGeometry` records (of ``role`` if given), in registration order."""
        return [g for g in self._geometries if role is None or g.role() is role]

    # --- Filters (before Finalize) ---------------------------------------------------------
    def set_adjacent_bodies_collision_filters(self, value: bool):
        """Whether Finalize filters collisions between bodies joined by a joint (Drake's
        default: True; joints to the world and quaternion floating joints never filter)."""
        self._require_not_finalized("set_adjacent_bodies_collision_filters")
        self._adjacent_bodies_collision_filters = bool(value)

    def get_adjacent_bodies_collision_filters(self) -> bool:
        return self._adjacent_bodies_collision_filters

    def ExcludeCollisionGeometriesWithCollisionFilterGroupPair(self, collision_filter_group_a,
                                                               collision_filter_group_b):
        """Excludes collisions between two named groups ``(name, GeometrySet)``: within the
        set when both names are equal, else between the two sets (Drake's rule). Bodies in a
        set stand for their collision geometries registered so far. Before Finalize only."""
        what = "ExcludeCollisionGeometriesWithCollisionFilterGroupPair"
        if self._finalized:
            raise RuntimeError(f"Post-finalize calls to '{what}()' are not allowed; calls to "
                               "this method must happen before Finalize().")
        (name_a, set_a), (name_b, set_b) = collision_filter_group_a, collision_filter_group_b
        ids_a, ids_b = self._resolve_geometry_set(set_a, what), self._resolve_geometry_set(
            set_b, what)
        self._collision_filter_declarations.append(
            (ids_a, None if name_a == name_b else ids_b))

    def _resolve_geometry_set(self, geometry_set, what):
        if not isinstance(geometry_set, GeometrySet):
            raise TypeError(f"{what}: expected (name, GeometrySet), got a "
                            f"{type(geometry_set).__name__}")
        ids = set()
        for gid in geometry_set.geometry_ids():
            self.GetGeometry(gid)  # raises for an unknown id
            ids.add(int(gid))
        for body in geometry_set.bodies():
            ids.update(int(g) for g in self.GetCollisionGeometriesForBody(body))
        return ids

    # --- Candidates (after Finalize) --------------------------------------------------------
    def GetCollisionCandidates(self) -> list:
        """The (GeometryId A, GeometryId B) candidate pairs, A < B, after Drake's filters
        (what SceneGraph's ``inspector.GetCollisionCandidates()`` reports)."""
        self._require_finalized("GetCollisionCandidates")
        geoms = self._collision_geometries()
        pair_a, pair_b = self._collision_pairs
        return [(geoms[i].geometry_id(), geoms[j].geometry_id()) for i, j in zip(pair_a, pair_b)]

    def CollisionFiltered(self, geometry_id_a, geometry_id_b) -> bool:
        """Whether the two collision geometries are excluded from contact (SceneGraph
        inspector's ``CollisionFiltered``)."""
        self._require_finalized("CollisionFiltered")
        ids = {int(a) for a in (geometry_id_a, geometry_id_b)}
        for gid in ids:
            if self.GetGeometry(gid).role() is not Role.kProximity:
                raise ValueError(f"CollisionFiltered: geometry {gid} has no proximity role")
        pairs = {frozenset(map(int, p)) for p in self.GetCollisionCandidates()}
        return len(ids) < 2 or frozenset(ids) not in pairs
