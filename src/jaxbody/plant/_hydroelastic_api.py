"""Hydroelastic contact on `MultibodyPlant` (Drake's default contact model,
``kHydroelasticWithFallback``): which candidate pairs get contact surfaces, the surfaces of a
configuration, and their quadrature points in the discrete step.

At Finalize, a discrete plant whose contact model is not ``kPoint`` builds each collision
geometry's hydroelastic representation from its proximity properties
(`jaxbody.geometry.hydroelastic.representation`) and splits the candidate pairs
(`finalize_contact.split_hydroelastic_pairs`): the pairs that have a contact surface
(`jaxbody.geometry.hydroelastic.query.classify`) are hydroelastic, the others use point
contact. With ``kHydroelastic`` (no fallback) a pair without a surface raises, naming both
geometries. A continuous plant keeps point contact for every pair and warns.

``CalcHydroelasticSurfaces(context)`` is pure (jit/vmap/grad; `jaxbody.engine.hydroelastic`);
``ComputeContactSurfaces(context)`` gives host-side `ContactSurface` records as pydrake's query
object does.
"""

from __future__ import annotations

from jaxbody.engine import hydroelastic
from jaxbody.engine.hydroelastic import concatenate_contacts  # noqa: F401 (re-exported)
from jaxbody.plant._core import PlantCore
from jaxbody.plant.hydroelastic_results import contact_surfaces


class HydroelasticAPI(PlantCore):
    """Mixin of `MultibodyPlant`: hydroelastic pairs and surfaces."""

    def CalcHydroelasticSurfaces(self, context) -> list:
        """The contact surface of every hydroelastic pair (pure; jit/vmap/grad): a list, in
        pair order, of `HydroSurface` (`ContactPolygons` with M the geometry of lower collision
        index, normals out of N into M, fixed slot count per pair, and ``overflow``)."""
        self._check_context(context, "CalcHydroelasticSurfaces")
        if not self._model.contact.hydro_pairs:
            return []
        return hydroelastic.surfaces(self._model, context)

    def ComputeContactSurfaces(self, context, keep_empty=False) -> list:
        """Host-side `ContactSurface` records of the configuration (pydrake's
        ``QueryObject.ComputeContactSurfaces`` with the polygon representation): one per
        hydroelastic pair whose surface has a face (``keep_empty``: None for the others, one
        entry per pair)."""
        self._check_context(context, "ComputeContactSurfaces")  # also before Finalize
        if not self._model.contact.hydro_pairs:
            return []
        return contact_surfaces(self._model, context, keep_empty)
