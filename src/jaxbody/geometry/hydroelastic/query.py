"""The hydroelastic query of a plant: which candidate pairs get contact surfaces, the surfaces
of a configuration, and their quadrature points for the discrete (SAP) step.

Pairs (Drake's ``kHydroelasticWithFallback``): a compliant volume against a rigid surface mesh
or a rigid half space, two compliant volumes, or a compliant half space against a rigid mesh
gets a contact surface; every other pair (no hydroelastic properties, rigid-rigid, a compliant
half space against a compliant volume, as in Drake) falls back to point contact.
The surface of a pair is computed in a fixed number of polygon slots (`ContactPolygons`), so
everything is a pure function of the poses and the moduli: jit, vmap and grad apply.

Quadrature (Drake's ``AppendDiscreteContactPairsForHydroelasticContact``, one point per polygon
at its centroid C): with n̂ out of N into M and the pressure gradients taken positive into each
body, g_M = ∇p_M·n̂ and g_N = −∇p_N·n̂ (∞ for a rigid geometry),

    g = 1/(1/g_M + 1/g_N),   k = A·g,   φ₀ = −p(C)/g,   f_n0 = A·p(C) = −k φ₀,

which the SAP step consumes as a point contact at C with stiffness k and signed distance φ₀.
Faces with area ≤ 1e-14 m² or g_M, g_N < 1e-14 Pa/m are skipped, as in Drake. A face whose
normal is perpendicular to ∇p (a body face parallel to the contact plane in a tetrahedron that
belongs to another face's region) has g = 0 only up to round-off; Drake and jaxbody then keep or
drop it by the round-off's sign, each with its full force A·p (~1e-3 N on a 1 kg box at rest):
see docs/differences_from_drake.md.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.geometry.collision.contact_properties import (
    DISSIPATION,
    DYNAMIC_FRICTION,
    STATIC_FRICTION,
    STIFFNESS,
    TAU,
    combine_contact_parameters,
)
from jaxbody.geometry.hydroelastic.polygons import ContactPolygons
from jaxbody.geometry.hydroelastic.representation import (
    HalfSpaceRepresentation,
    RigidSurface,
    SoftVolume,
)
from jaxbody.geometry.hydroelastic.soft_half_space import soft_half_space_polygons
from jaxbody.geometry.hydroelastic.soft_half_space_rigid_mesh import (
    half_space_rigid_mesh_polygons,
)
from jaxbody.geometry.hydroelastic.soft_rigid_mesh import soft_rigid_mesh_polygons
from jaxbody.geometry.hydroelastic.soft_soft import soft_soft_polygons

MODULUS = "hydroelastic_modulus"  # the Context's per-geometry modulus (Pa; inf: rigid)
MIN_AREA = 1e-14  # m², Drake's
MIN_GRADIENT = 1e-14  # Pa/m, Drake's
PHI_INVALID = 1.0e3
# Quadrature points a hydroelastic pair is expected to have in a step, for the default SAP
# capacity (more still solve exactly, with every slot).
HYDRO_POINTS_PER_PAIR = 64
DEFAULT_MAX_PAIRS = 4096
# Element pairs clipped when, over the whole batch, no more can intersect (the exact fast path
# of the soft-mesh kinds; every candidate is clipped otherwise).
FAST_ELEMENT_PAIRS = 128  # element-pair candidates per geometry pair (soft-mesh kinds)


@dataclasses.dataclass(frozen=True, eq=False)
class HydroPair:
    """One hydroelastic candidate pair: ``kind`` ("soft_half_space", "soft_mesh",
    "soft_soft", "soft_half_space_mesh"), the
    collision indices of its compliant geometry ``soft`` and the other one, their
    representations, whether the soft geometry is M (the lower index), and the slot count."""

    kind: str
    soft: int
    other: int
    soft_rep: object = dataclasses.field(repr=False)
    other_rep: object = dataclasses.field(repr=False)
    soft_is_m: bool
    num_slots: int
    max_pairs: int


def classify(rep_a, rep_b):
    """(kind, a_is_soft) of a pair of representations, or None for point contact."""
    if isinstance(rep_a, SoftVolume) and isinstance(rep_b, SoftVolume):
        return "soft_soft", True
    for r0, r1, a_soft in ((rep_a, rep_b, True), (rep_b, rep_a, False)):
        if isinstance(r0, HalfSpaceRepresentation) and r0.compliant and isinstance(
                r1, RigidSurface):
            return "soft_half_space_mesh", a_soft
        if isinstance(r0, SoftVolume):
            if isinstance(r1, HalfSpaceRepresentation) and not r1.compliant:
                return "soft_half_space", a_soft
            if isinstance(r1, RigidSurface):
                return "soft_mesh", a_soft
    return None


def make_pair(kind, a, b, rep_a, rep_b, a_is_soft, max_pairs=DEFAULT_MAX_PAIRS) -> HydroPair:
    soft, other = (a, b) if a_is_soft else (b, a)
    srep, orep = (rep_a, rep_b) if a_is_soft else (rep_b, rep_a)
    if kind == "soft_half_space_mesh":  # one slot per rigid triangle
        return HydroPair(kind, soft, other, srep, orep, soft < other,
                         int(orep.arrays[1].shape[0]), int(max_pairs))
    T = srep.arrays[1].shape[0]
    if kind == "soft_half_space":
        n = T
    elif kind == "soft_soft":
        n = min(T * orep.arrays[1].shape[0], max_pairs)
    else:
        n = min(T * orep.arrays[1].shape[0], max_pairs)
    return HydroPair(kind, soft, other, srep, orep, soft < other, int(n), int(max_pairs))


class HydroSurface(NamedTuple):
    """The contact surface of one pair in a configuration: `ContactPolygons` (M the lower
    collision index; normals out of N into M) and ``overflow`` (a polygon may be missing)."""

    polygons: ContactPolygons
    overflow: jax.Array


def pair_surface(pair: HydroPair, X_W, modulus) -> HydroSurface:
    """The surface of ``pair`` given geometry poses ``X_W = (R_WG (G, 3, 3), p_WG (G, 3))`` and
    the (G,) moduli."""
    R_WG, p_WG = X_W
    X_S = (R_WG[pair.soft], p_WG[pair.soft])
    X_O = (R_WG[pair.other], p_WG[pair.other])
    E = modulus[pair.soft]
    if pair.kind == "soft_half_space":
        polys = soft_half_space_polygons(pair.soft_rep.arrays[:4], E, X_S, X_O)
        overflow = jnp.zeros((), bool)
    elif pair.kind == "soft_half_space_mesh":
        polys = half_space_rigid_mesh_polygons(pair.other_rep.arrays, E,
                                               pair.soft_rep.slab_thickness, X_S, X_O)
        overflow = jnp.zeros((), bool)
    elif pair.kind == "soft_soft":
        polys, overflow = soft_soft_polygons(pair.soft_rep.arrays, pair.other_rep.arrays, E,
                                             modulus[pair.other], X_S, X_O, pair.max_pairs,
                                             FAST_ELEMENT_PAIRS)
    else:
        polys, overflow = soft_rigid_mesh_polygons(pair.soft_rep.arrays, pair.other_rep.arrays,
                                                   E, X_S, X_O, pair.max_pairs,
                                                   FAST_ELEMENT_PAIRS)
    if not pair.soft_is_m:  # N is the soft geometry: flip the normal, swap the gradients
        polys = polys._replace(normal=-polys.normal, grad_M=polys.grad_N, grad_N=polys.grad_M)
    return HydroSurface(polys, overflow)


def _normal_gradient(grad, normal, sign):
    """(g, whether g counts): g = sign·∇p·n̂, counted when g ≥ `MIN_GRADIENT` (Drake's test)."""
    g = sign * jnp.sum(grad * normal, -1)
    return g, g >= MIN_GRADIENT


def effective_gradient(polys: ContactPolygons, m_compliant, n_compliant):
    """(g, usable) per face: Drake's combined gradient and whether the face is a quadrature
    point (area and gradient thresholds)."""
    inf = jnp.full_like(polys.area, jnp.inf)
    ok = polys.valid & (polys.area > MIN_AREA)
    gM, gN = inf, inf
    if m_compliant:
        gM, okM = _normal_gradient(polys.grad_M, polys.normal, 1.0)
        ok = ok & okM
    if n_compliant:
        gN, okN = _normal_gradient(polys.grad_N, polys.normal, -1.0)
        ok = ok & okN
    usable = ok
    gM_s = jnp.where(usable, gM, 1.0)
    gN_s = jnp.where(usable, gN, 1.0)
    g = 1.0 / (1.0 / gM_s + 1.0 / gN_s)
    return jnp.where(usable, g, 1.0), usable


def quadrature_slots(pair: HydroPair, surface: HydroSurface, contact):
    """The per-slot arrays of a pair's quadrature points: dict with phi, p_WC, nhat_BA_W, k,
    tau, mu, mu_static, d, valid and the (static) collision indices m, n."""
    polys = surface.polygons
    m, n = (pair.soft, pair.other) if pair.soft_is_m else (pair.other, pair.soft)
    m_compliant = pair.soft_is_m or isinstance(pair.other_rep, SoftVolume)
    n_compliant = (not pair.soft_is_m) or isinstance(pair.other_rep, SoftVolume)
    g, usable = effective_gradient(polys, m_compliant, n_compliant)
    F = polys.area.shape[0]
    params = {}
    for side, idx in (("m", m), ("n", n)):
        params[side] = {name: jnp.broadcast_to(contact[key][idx], (F,)) for name, key in (
            (STIFFNESS, MODULUS), (TAU, TAU), (DISSIPATION, DISSIPATION),
            (STATIC_FRICTION, STATIC_FRICTION), (DYNAMIC_FRICTION, DYNAMIC_FRICTION))}
    # Drake combines the Hunt-Crossley dissipation with the moduli as weights.
    props = combine_contact_parameters(params["m"], params["n"])
    return {"phi": jnp.where(usable, -polys.pressure / g, PHI_INVALID),
            "p_WC": polys.centroid, "nhat_BA_W": polys.normal,
            "k": jnp.where(usable, polys.area * g, 0.0), "tau": props["tau"], "mu": props["mu"],
            "mu_static": props["mu_static"], "d": props["d"], "valid": usable,
            "m": m, "n": n}


def surface_totals(polys: ContactPolygons):
    """(total area, area-weighted centroid) of a surface over its valid faces."""
    a = jnp.where(polys.valid, polys.area, 0.0)
    total = jnp.sum(a)
    c = jnp.sum(a[:, None] * polys.centroid, 0) / jnp.where(total > 0, total, 1.0)
    return total, c


def num_slots(pairs) -> int:
    return int(sum(p.num_slots for p in pairs))


def pair_slot_ranges(pairs):
    """[(start, stop)] of each pair's slots in the concatenated quadrature slots."""
    ends = np.cumsum([p.num_slots for p in pairs]).tolist()
    return list(zip([0] + ends[:-1], ends))
