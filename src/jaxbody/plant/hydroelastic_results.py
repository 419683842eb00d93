"""Host-side hydroelastic records with Drake's names: `ContactSurface` (a contact surface's
polygons, areas, centroids, normals, pressures and pressure gradients) and
`HydroelasticContactInfo` (a surface and the spatial force on body A at its centroid).

Conventions are Drake's: the surface is between geometries M and N (M the lower id), each face
normal points out of N into M, and ``F_Ac_W`` is the spatial force on the body of M (A)
applied at the surface centroid C, in World.
"""

from __future__ import annotations

import jax
import numpy as np

from jaxbody.engine import hydroelastic
from jaxbody.geometry import GeometryId
from jaxbody.math.spatial_algebra import SpatialForce

# the surfaces of `contact_surfaces`, compiled once per model (equal models share it)
_surfaces_jit = jax.jit(hydroelastic.surfaces, static_argnums=0)


class ContactSurface:
    """The contact surface of one geometry pair (polygon representation)."""

    def __init__(self, id_M, id_N, area, centroid, normal, pressure, grad_M, grad_N, polygons,
                 has_grad_M, has_grad_N):
        self._id_M, self._id_N = id_M, id_N
        self._area, self._centroid, self._normal = area, centroid, normal
        self._pressure, self._grad_M, self._grad_N = pressure, grad_M, grad_N
        self._polygons = polygons
        self._has_M, self._has_N = has_grad_M, has_grad_N

    @classmethod
    def from_polygons(cls, id_M, id_N, polys, has_grad_M, has_grad_N):
        """From one pair's host `ContactPolygons` (valid slots only)."""
        keep = np.flatnonzero(np.asarray(polys.valid))
        verts = [np.asarray(polys.vertices[i][:int(polys.num_vertices[i])]) for i in keep]
        return cls(id_M, id_N, np.asarray(polys.area)[keep], np.asarray(polys.centroid)[keep],
                   np.asarray(polys.normal)[keep], np.asarray(polys.pressure)[keep],
                   np.asarray(polys.grad_M)[keep], np.asarray(polys.grad_N)[keep], verts,
                   has_grad_M, has_grad_N)

    def id_M(self):
        return self._id_M

    def id_N(self):
        return self._id_N

    def num_faces(self) -> int:
        return len(self._area)

    def area(self, face) -> float:
        return float(self._area[face])

    def total_area(self) -> float:
        return float(np.sum(self._area))

    def centroid(self, face=None) -> np.ndarray:
        """A face's centroid, or (no argument) the area-weighted centroid of the surface."""
        if face is not None:
            return self._centroid[face]
        total = self.total_area()
        if total == 0:
            return np.mean(self._centroid, 0)
        return self._area @ self._centroid / total

    def face_normal(self, face) -> np.ndarray:
        return self._normal[face]

    def pressure(self, face) -> float:
        """The pressure at the face's centroid (Pa)."""
        return float(self._pressure[face])

    def polygon(self, face) -> np.ndarray:
        """(n, 3) the face's vertices in World, counterclockwise about its normal."""
        return self._polygons[face]

    def HasGradE_M(self) -> bool:
        return self._has_M

    def HasGradE_N(self) -> bool:
        return self._has_N

    def EvaluateGradE_M_W(self, face) -> np.ndarray:
        if not self._has_M:
            raise ValueError("EvaluateGradE_M_W: geometry M is rigid (no pressure field)")
        return self._grad_M[face]

    def EvaluateGradE_N_W(self, face) -> np.ndarray:
        if not self._has_N:
            raise ValueError("EvaluateGradE_N_W: geometry N is rigid (no pressure field)")
        return self._grad_N[face]

    def __repr__(self):
        return (f"ContactSurface(id_M={int(self._id_M)}, id_N={int(self._id_N)}, "
                f"num_faces={self.num_faces()}, total_area={self.total_area():.6g})")


class HydroelasticContactInfo:
    """A contact surface and the spatial force F_Ac_W on body A (geometry M's body) at the
    surface centroid, in World (Drake's ``HydroelasticContactInfo``)."""

    def __init__(self, surface: ContactSurface, F_Ac_W: SpatialForce):
        self._surface, self._F = surface, F_Ac_W

    def contact_surface(self) -> ContactSurface:
        return self._surface

    def F_Ac_W(self) -> SpatialForce:
        return self._F


def spatial_force_at_centroid(surface: ContactSurface, p_WQ, f_Aq_W) -> SpatialForce:
    """Σ of point forces f_Aq_W (n, 3) at quadrature points p_WQ (n, 3), as one spatial force
    on A about the surface centroid C: (Σ (p_WQ − p_WC) × f, Σ f)."""
    p_WC = surface.centroid()
    f = np.sum(f_Aq_W, 0)
    tau = np.sum(np.cross(p_WQ - p_WC, f_Aq_W), 0)
    return SpatialForce(np.asarray(tau), np.asarray(f))


def contact_surfaces(model, context, keep_empty=False) -> list:
    """Host-side `ContactSurface` records of the configuration in ``context`` (``model``: the
    plant's compiled `Model`): one per hydroelastic pair whose surface has a face
    (``keep_empty``: None for the others, one entry per pair). The caller checks the context."""
    if not model.contact.hydro_pairs:
        return []
    out = []
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


def hydroelastic_contact_infos(model, context, solution, num_point_slots, index=None) -> list:
    """[`HydroelasticContactInfo`] of a discrete step of ``model`` from ``context``: each pair's
    surface (as in `contact_surfaces`) and the spatial force on A at its centroid, the sum of
    the quadrature points' forces γ/δt (``solution`` arrays over the step's slots;
    ``num_point_slots``: the point-contact slots before the pairs' quadrature points;
    ``index``: the uncapped slot of each step slot, None when uncapped)."""
    pairs = model.contact.hydro_pairs
    if not pairs:
        return []
    dt = model.time_step
    gamma, R_WC, p_WC = (np.asarray(x) for x in (solution.gamma, solution.R_WC, solution.p_WC))
    f_A = np.einsum("pij,pj->pi", R_WC, gamma) / dt  # force on A at each slot, World
    slot_of = np.arange(gamma.shape[0]) if index is None else np.asarray(index)
    surfaces = contact_surfaces(model, context, keep_empty=True)
    out, start = [], num_point_slots
    for pair, surface in zip(pairs, surfaces):
        stop = start + pair.num_slots
        if surface is not None:
            mine = (slot_of >= start) & (slot_of < stop)
            F = spatial_force_at_centroid(surface, p_WC[mine], f_A[mine])
            out.append(HydroelasticContactInfo(surface, F))
        start = stop
    return out
