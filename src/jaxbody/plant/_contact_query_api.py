"""Point-contact queries on `MultibodyPlant`: ``CalcPointContacts``, the geometry input of the
discrete contact solver, and the contact parameters of a Context (collision filters and
candidates are in `_geometry_api.py`).

``Finalize()`` fixes the candidate pairs (Drake's filters: same body, adjacent bodies, welded
subgraphs, user filter groups; see `jaxbody.geometry.collision.candidates` and
`finalize_contact`) and the default per-geometry contact parameters, which ``CreateDefaultContext()`` puts in
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

import numpy as np

from jaxbody.engine import contact_parameters as cp
from jaxbody.engine import point_contact
from jaxbody.geometry import GeometryId
from jaxbody.geometry.collision.query import ContactQueryOptions, PointContacts
from jaxbody.plant._core import PlantCore


class ContactQueryAPI(PlantCore):
    """Mixin of `MultibodyPlant`: the query options, point-contact queries and the contact
    parameters of a Context (the collision filters and candidates are `_geometry_api`'s)."""

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

    def get_contact_query_cost(self):
        """What one evaluation of the point-contact query costs, from its static structure
        (`jaxbody.geometry.collision.QueryCost`): candidate pairs, pairs evaluated after the
        caps, how many of them run GJK/EPA on convex hulls and with what iteration budget,
        and the point slots. After Finalize."""
        self._require_finalized("get_contact_query_cost")
        return point_contact.query_cost(self._model)

    @property
    def _contact_query(self):
        """The compiled `ContactQuery` (`jaxbody.engine.point_contact.contact_query`: built on
        first use, once per compiled model)."""
        self._require_finalized("CalcPointContacts")
        return point_contact.contact_query(self._model)

    # --- Queries ----------------------------------------------------------------------------
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
