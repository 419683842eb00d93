"""Point-contact queries on `MultibodyPlant`: collision candidates, Drake's collision filters,
and ``CalcPointContacts``, the geometry input of the discrete contact solver.

``Finalize()`` fixes the candidate pairs (Drake's filters: same body, adjacent bodies, welded
subgraphs, user filter groups; see `jaxbody.geometry.collision.candidates`) and the default
per-geometry contact parameters, which ``CreateDefaultContext()`` puts in
``context.parameters.contact`` as (num_collision_geometries,) ``jax.Array`` leaves (stiffness,
relaxation time, Hunt-Crossley dissipation, static and dynamic friction, in collision-geometry
order), so that results can be differentiated with respect to them. Shapes and ``X_BG`` are
static. The compiled query (kernel groups; mesh hulls are read here) is built on first use,
once per compiled model; the computations are the engine's (`jaxbody.engine.point_contact`).

Example:
    >>> import jax, dataclasses
    >>> import jaxbody as jb
    >>> plant = jb.MultibodyPlant(0.001)
    >>> ball = plant.AddRigidBody("ball", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    >>> _ = plant.RegisterCollisionGeometry(ball, jb.RigidTransform(), jb.Sphere(0.1), "ball",
    ...                                     jb.CoulombFriction(0.5, 0.5))
    >>> _ = plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(),
    ...                                     jb.HalfSpace(), "ground", jb.CoulombFriction(1, 1))
    >>> plant.Finalize()
    >>> context = plant.SetPositions(plant.CreateDefaultContext(), [1, 0, 0, 0, 0, 0, 0.09])
    >>> contacts = jax.jit(plant.CalcPointContacts)(context)
    >>> round(float(contacts.phi[0]), 6), round(float(contacts.mu[0]), 6)
    (-0.01, 0.666667)
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from jaxbody.engine import contact_parameters as cp
from jaxbody.engine import point_contact
from jaxbody.geometry import GeometryId, GeometrySet, Role
from jaxbody.geometry.collision.candidates import collision_candidates
from jaxbody.geometry.collision.contact_properties import (
    MODULUS,
    PARAMETER_NAMES,
    geometry_contact_parameters,
    hydroelastic_moduli,
    material_defaults,
)
from jaxbody.geometry.collision.query import ContactQueryOptions, PointContacts


class ContactQueryAPI:
    """Mixin of `MultibodyPlant`: collision filters, candidates and point-contact queries."""

    def _init_contact_query(self):
        self._adjacent_bodies_collision_filters = True
        self._collision_filter_declarations = []  # (set of ids, set of ids or None)
        self._contact_query_options = ContactQueryOptions()
        self._collision_pairs = None  # (pair_a, pair_b) collision indices, at Finalize

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

    # --- Options ----------------------------------------------------------------------------
    def set_contact_query_options(self, options: ContactQueryOptions):
        """Sets the `ContactQueryOptions` (single point per pair, culling cap). Before
        Finalize only: the options are part of the static structure that jit traces."""
        self._require_not_finalized("set_contact_query_options")
        if not isinstance(options, ContactQueryOptions):
            raise TypeError(f"set_contact_query_options: expected ContactQueryOptions, got "
                            f"{type(options).__name__}")
        self._contact_query_options = options

    def get_contact_query_options(self) -> ContactQueryOptions:
        return self._contact_query_options

    # --- Finalize ---------------------------------------------------------------------------
    def _collision_geometries(self):
        return [g for g in self._geometries if g.role() is Role.kProximity]

    def _finalize_contact_query(self):
        """Candidate pairs and default contact parameters (called by Finalize)."""
        geoms = self._collision_geometries()
        index = {int(g.geometry_id()): i for i, g in enumerate(geoms)}
        excluded = np.zeros((len(geoms), len(geoms)), bool)
        for ids_a, ids_b in self._collision_filter_declarations:
            a = np.array([index[g] for g in ids_a if g in index], np.int64)
            b = a if ids_b is None else np.array([index[g] for g in ids_b if g in index],
                                                 np.int64)
            excluded[np.ix_(a, b)] = True
            excluded[np.ix_(b, a)] = True
        body = [int(g.body().index()) for g in geoms]
        self._collision_pairs = collision_candidates(
            body, len(self._bodies), self._joints, self._adjacent_bodies_collision_filters,
            excluded)
        if not self.get_contact_enabled():  # set_contact_enabled(False): no candidates
            self._collision_pairs = tuple(p[:0] for p in self._collision_pairs)
        # hydroelastic pairs get contact surfaces; the rest use point contact
        *self._point_pairs, self._hydroelastic_pairs = self._split_hydroelastic_pairs(
            *self._collision_pairs)
        self._set_default_contact_parameters()

    def _set_default_contact_parameters(self):
        """Each collision geometry's contact parameters: its own properties, else SceneGraph's
        default proximity properties, else the penetration-allowance estimate (Drake's rule,
        `material_defaults`); discrete and continuous plants alike."""
        geoms = self._collision_geometries()
        defaults = material_defaults(
            self.get_scene_graph_config().default_proximity_properties,
            self._penalty_parameters())
        values, has_friction = geometry_contact_parameters(geoms, defaults)
        values[MODULUS] = hydroelastic_moduli(geoms)
        self._default_contact_parameters = values
        self._has_friction = has_friction

    def _default_parameters(self, dtype):
        params = super()._default_parameters(dtype)
        contact = {k: jnp.asarray(self._default_contact_parameters[k], dtype)
                   for k in PARAMETER_NAMES} if self._collision_geometries() else {}
        return dataclasses.replace(params, contact=contact)

    def _contact_static_key(self):
        if self._collision_pairs is None:
            return None
        geoms = self._collision_geometries()
        return (tuple(self._collision_pairs[0]), tuple(self._collision_pairs[1]),
                tuple((g.shape(), tuple(np.asarray(g.pose_in_body().GetAsMatrix4()).ravel()),
                       int(g.body().index())) for g in geoms),
                self._contact_query_options)

    @property
    def _contact_query(self):
        """The compiled `ContactQuery` (`jaxbody.engine.point_contact.contact_query`: built on
        first use, once per compiled model)."""
        self._require_finalized("CalcPointContacts")
        return point_contact.contact_query(self._model)

    # --- Queries ----------------------------------------------------------------------------
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

    def CalcPointContacts(self, context) -> PointContacts:
        """Every contact point of the configuration in ``context`` (pure; jit/vmap/grad).

        Returns:
            `PointContacts` over the query's P slots: signed distance, contact point, normal,
            combined stiffness, relaxation time, friction and dissipation, validity and the
            (dynamic) body and geometry indices of each slot; see
            `jaxbody.geometry.collision.query`.
        """
        _ = self._contact_query  # the query's errors come before the context's
        self._check_context(context, "CalcPointContacts")
        return point_contact.point_contacts(self._model, context)

    def SetContactParameters(self, context, geometry_ids=None, **values):
        """A new Context with contact parameters of collision geometries replaced (Drake changes
        them through SceneGraph's ``AssignRole(..., RoleAssign.kReplace)`` on a context; here they
        are Context leaves, so this is pure, jit-able and vmappable: domain randomization is
        ``jax.vmap(lambda mu: plant.SetContactParameters(ctx, static_friction=mu,
        dynamic_friction=mu))(mus)``).

        Args:
            context: the Context to start from (left unchanged).
            geometry_ids: a collision `GeometryId`, a sequence of them, or None for every
                collision geometry of the plant.
            **values: any of ``point_contact_stiffness`` (N/m), ``relaxation_time`` (s),
                ``hunt_crossley_dissipation`` (s/m), ``static_friction``, ``dynamic_friction``,
                ``hydroelastic_modulus`` (Pa; finite and > 0 for a compliant geometry, whose
                mesh stays the one built at Finalize; ignored for the others):
                a scalar (every geometry named) or an array with one entry per geometry named.
                Concrete values must be >= 0 (stiffness may be inf); traced ones are not checked.
        """
        self._check_context(context, "SetContactParameters")
        cp.check_names(values)
        index = self._collision_geometry_indices("SetContactParameters", geometry_ids)
        return cp.set_contact_parameters(self._model, context, index, **values)

    def GetContactParameters(self, context, geometry_id) -> dict:
        """``{name: value}`` of one collision geometry's contact parameters in ``context`` (the
        names of `SetContactParameters`)."""
        self._check_context(context, "GetContactParameters")
        return cp.contact_parameters(context, self.GetCollisionGeometryIndex(geometry_id))

    def _collision_geometry_indices(self, what, geometry_ids):
        n = len(self._collision_geometries())
        if n == 0:
            raise ValueError(f"{what}: the plant has no collision geometry")
        if geometry_ids is None:
            return np.arange(n)
        ids = [geometry_ids] if isinstance(geometry_ids, (GeometryId, int, np.integer)) else \
            list(geometry_ids)
        index = np.asarray([self.GetCollisionGeometryIndex(g) for g in ids], np.int64)
        if len(set(index.tolist())) != len(index):
            raise ValueError(f"{what}: a collision geometry is listed more than once in "
                             f"{[int(g) for g in ids]}")
        return index

    def GetCollisionGeometryIndex(self, geometry_id) -> int:
        """The index of a collision geometry in ``context.parameters.contact`` arrays."""
        for i, g in enumerate(self._collision_geometries()):
            if g.geometry_id() == GeometryId(int(geometry_id)):
                return i
        raise ValueError(f"GetCollisionGeometryIndex: {int(geometry_id)} is not the id of a "
                         "collision geometry of this plant")
