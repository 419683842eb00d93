"""Hydroelastic contact on `MultibodyPlant` (Drake's default contact model,
``kHydroelasticWithFallback``): which candidate pairs get contact surfaces, the surfaces of a
configuration, and their quadrature points in the discrete step.

At Finalize, a discrete plant whose contact model is not ``kPoint`` builds each collision
geometry's hydroelastic representation from its proximity properties
(`jaxbody.geometry.hydroelastic.representation`) and splits the candidate pairs: the pairs that
have a contact surface (`jaxbody.geometry.hydroelastic.query.classify`) are hydroelastic, the
others use point contact. With ``kHydroelastic`` (no fallback) a pair without a surface raises,
naming both geometries. A continuous plant keeps point contact for every pair and warns.

``CalcHydroelasticSurfaces(context)`` is pure (jit/vmap/grad; `jaxbody.engine.hydroelastic`);
``ComputeContactSurfaces(context)`` gives host-side `ContactSurface` records as pydrake's query
object does.
"""

from __future__ import annotations

import warnings

import jax
import numpy as np

from jaxbody.engine import hydroelastic
from jaxbody.engine.hydroelastic import concatenate_contacts  # noqa: F401 (re-exported)
from jaxbody.geometry import GeometryId
from jaxbody.geometry.hydroelastic import query as hq
from jaxbody.geometry.hydroelastic.representation import hydroelastic_representation
from jaxbody.plant._contact_model_api import ContactModel
from jaxbody.plant.hydroelastic_results import (
    ContactSurface,
    HydroelasticContactInfo,
    spatial_force_at_centroid,
)

# the surfaces of `ComputeContactSurfaces`, compiled once per model (equal models share it)
_surfaces_jit = jax.jit(hydroelastic.surfaces, static_argnums=0)


class HydroelasticAPI:
    """Mixin of `MultibodyPlant`: hydroelastic pairs, surfaces and quadrature points."""

    def _split_hydroelastic_pairs(self, pair_a, pair_b):
        """(point pair_a, point pair_b, [HydroPair]) of the candidate pairs (at Finalize)."""
        model = self.get_contact_model()
        geoms = self._collision_geometries()
        has_props = [g.properties() is not None and g.properties().HasGroup("hydroelastic")
                     for g in geoms]
        if model is ContactModel.kPoint or not len(pair_a):
            return pair_a, pair_b, []
        if not self.is_discrete():
            if any(has_props):
                warnings.warn(
                    "a continuous plant uses point contact for every pair: jaxbody's "
                    "hydroelastic contact is for discrete plants (time_step > 0); "
                    f"'{geoms[has_props.index(True)].name()}' has hydroelastic properties",
                    stacklevel=4)
            return pair_a, pair_b, []
        reps = {}
        for g in sorted(set(np.r_[pair_a, pair_b].tolist())):
            reps[g] = hydroelastic_representation(geoms[g])
        keep, pairs = [], []
        for p, (i, j) in enumerate(zip(pair_a.tolist(), pair_b.tolist())):
            kind = hq.classify(reps[i], reps[j])
            if kind is None:
                if model is ContactModel.kHydroelastic:
                    raise ValueError(
                        f"kHydroelastic: collision geometries '{geoms[i].name()}' and "
                        f"'{geoms[j].name()}' have no hydroelastic contact surface (each needs "
                        "hydroelastic properties, at least one compliant, and not two half "
                        "spaces); use kHydroelasticWithFallback or filter the pair")
                keep.append(p)
                continue
            pairs.append(hq.make_pair(kind[0], i, j, reps[i], reps[j], kind[1]))
        keep = np.asarray(keep, np.int64)
        return pair_a[keep], pair_b[keep], pairs

    def _hydro_pairs(self):
        return getattr(self, "_hydroelastic_pairs", [])

    def CalcHydroelasticSurfaces(self, context) -> list:
        """The contact surface of every hydroelastic pair (pure; jit/vmap/grad): a list, in
        pair order, of `HydroSurface` (`ContactPolygons` with M the geometry of lower collision
        index, normals out of N into M, fixed slot count per pair, and ``overflow``)."""
        self._check_context(context, "CalcHydroelasticSurfaces")
        if not self._hydro_pairs():
            return []
        return hydroelastic.surfaces(self._model, context)

    def _hydro_contact_points(self, context):
        """`PointContacts` of the quadrature points of every hydroelastic pair, or None."""
        if not self._hydro_pairs():
            return None
        self._check_context(context, "CalcHydroelasticSurfaces")
        return hydroelastic.quadrature_contacts(self._model, context)

    def ComputeContactSurfaces(self, context, keep_empty=False) -> list:
        """Host-side `ContactSurface` records of the configuration (pydrake's
        ``QueryObject.ComputeContactSurfaces`` with the polygon representation): one per
        hydroelastic pair whose surface has a face (``keep_empty``: None for the others, one
        entry per pair)."""
        self._check_context(context, "ComputeContactSurfaces")  # also before Finalize
        out = []
        if not self._hydro_pairs():
            return []
        model = self._model
        ids = model.contact.geometry_ids
        for pair, s in zip(model.contact.hydro_pairs,
                           jax.tree.map(np.asarray, _surfaces_jit(model, context))):
            if not s.polygons.valid.any():
                if keep_empty:
                    out.append(None)
                continue
            m, n = (pair.soft, pair.other) if pair.soft_is_m else (pair.other, pair.soft)
            m_soft = pair.soft_is_m or pair.kind == "soft_soft"
            n_soft = (not pair.soft_is_m) or pair.kind == "soft_soft"
            out.append(ContactSurface.from_polygons(
                GeometryId(int(ids[m])), GeometryId(int(ids[n])), s.polygons, m_soft, n_soft))
        return out

    def _hydroelastic_contact_infos(self, context, solution, num_point_slots, index=None):
        """[`HydroelasticContactInfo`] of a step: each pair's surface (as in
        `ComputeContactSurfaces`) and the spatial force on A at its centroid, the sum of the
        quadrature points' forces γ/δt (``solution`` arrays over the step's slots; ``index``:
        the uncapped slot of each step slot, None when uncapped)."""
        pairs = self._hydro_pairs()
        if not pairs:
            return []
        dt = self._time_step
        gamma, R_WC, p_WC = (np.asarray(x) for x in (solution.gamma, solution.R_WC,
                                                       solution.p_WC))
        f_A = np.einsum("pij,pj->pi", R_WC, gamma) / dt  # force on A at each slot, World
        slot_of = np.arange(gamma.shape[0]) if index is None else np.asarray(index)
        surfaces = self.ComputeContactSurfaces(context, keep_empty=True)
        out, start = [], num_point_slots
        for pair, surface in zip(pairs, surfaces):
            stop = start + pair.num_slots
            if surface is not None:
                mine = (slot_of >= start) & (slot_of < stop)
                F = spatial_force_at_centroid(surface, p_WC[mine], f_A[mine])
                out.append(HydroelasticContactInfo(surface, F))
            start = stop
        return out

