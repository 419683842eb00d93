"""Polytope A against polytope B (Box, Convex, and a Cylinder's prism): separating axes and
vertex contacts.

Separating-axis test [Gottschalk, Lin, Manocha, "OBBTree", SIGGRAPH 1996; Ericson 2005, §4.4]:
for each candidate axis u (the face normals of A and of B, and the cross products of an edge
direction of A with one of B), the overlap of the projections is

    o(u) = min(max_B u - min_A u,  max_A u - min_B u)

and the normal n̂_BA (from B into A) is the axis of least overlap, signed so that A lies on its
positive side; depth = o(n̂) (negative: separated along n̂). Edge-edge axes get a small bias
(`EDGE_AXIS_BIAS`) so that face axes win ties.

Large hulls (meshes): projecting every vertex on every edge cross product costs
E_A·E_B·(V_A + V_B), 28 GB for a panda's self-collisions. Above `_ALL_EDGE_AXES_LIMIT` the
edge-edge axes are instead the pairs whose arcs cross on the Gauss map, i.e. that build a face
of the Minkowski difference [Gregorius, GDC 2013]; their overlap is read off the edges
themselves (O(1) per pair). When the polytopes overlap, the penetration depth and normal are
the same as with every axis (the least overlap lies on a Minkowski face); an edge-edge contact
point is then exact: the closest points of the two supporting edges. The query refuses
configurations whose total cost exceeds `query.MAX_POLYTOPE_WORK` (talos's or g1's mesh
self-collisions) with the remedies.

Contact points (multi-point mode), all with the normal n̂_BA, where h_B = max_B n̂·w and
l_A = min_A n̂·v are the support planes:

- each vertex v of A inside B:  φ = n̂·v - h_B,  p_WCa = v,  p_WCb = v - φ n̂;
- each vertex w of B inside A:  φ = l_A - n̂·w,  p_WCb = w,  p_WCa = w + φ n̂;
- one edge-edge point, valid only when the least-overlap axis is an edge-edge axis: φ = -depth
  at the midpoint of A's and B's deepest vertices, projected on each support plane.

Limitation: the edge-edge point is placed at the midpoint of the two deepest vertices (the
endpoints of the supporting edges), not at the exact closest points of the two edges, so its
location can be off by up to half an edge length; vertex-inside tests use a tolerance of
`INSIDE_TOLERANCE`. With ``single=True`` only the SAT point (valid always, φ = -depth; Drake's
single point) is returned: a vertex of A on B's face, a vertex of B on A's face, or the
edge-edge midpoint. A cylinder is approximated by its inscribed prism
(`shape_data.CYLINDER_PRISM_SIDES` sides) in these pairs.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.geometry.collision._util import (
    BIG,
    ContactPoints,
    safe_normalize,
    stack,
    to_frame,
    to_world,
)

EDGE_AXIS_BIAS = 1e-9  # m
INSIDE_TOLERANCE = 1e-9  # m
_MIN_CROSS_SQ = 1e-18


def _extent(p_WV, mask, U):
    """(min, max) over masked vertices (V, 3) of their projections on axes U (k, 3)."""
    proj = p_WV @ U.T
    return (jnp.min(jnp.where(mask[:, None], proj, BIG), 0),
            jnp.max(jnp.where(mask[:, None], proj, -BIG), 0))


def _inside(params, X_WG, p_WQ):
    """Whether points (n, 3) are inside the polytope (within `INSIDE_TOLERANCE`)."""
    planes = params["planes"]
    s = to_frame(X_WG, p_WQ) @ planes[:, :3].T - planes[:, 3]
    return jnp.max(jnp.where(params["plane_mask"], s, -BIG), 1) <= INSIDE_TOLERANCE


def _face_candidates(vA, mA, vB, mB, params_a, R_A, params_b, R_B):
    """(signed axes N (k, 3) with A on their positive side, overlaps (k,), masks, kinds) of
    the face-normal axes of A (kind 0) and of B (kind 1)."""
    aA, aB = params_a["axes"] @ R_A.T, params_b["axes"] @ R_B.T
    U = jnp.concatenate([aA, aB], 0)
    minA, maxA = _extent(vA, mA, U)
    minB, maxB = _extent(vB, mB, U)
    o_pos, o_neg = maxB - minA, maxA - minB  # A on the +u side / on the -u side
    N = jnp.where((o_pos <= o_neg)[:, None], U, -U)
    kind = jnp.concatenate([jnp.zeros(aA.shape[0], jnp.int32), jnp.ones(aB.shape[0], jnp.int32)])
    return N, jnp.minimum(o_pos, o_neg), jnp.concatenate([params_a["axes_mask"],
                                                          params_b["axes_mask"]]), kind


def _edge_candidates_all(vA, mA, vB, mB, params_a, R_A, params_b, R_B):
    """Every cross product of an edge direction of A with one of B, projected on all vertices
    (small polytopes: boxes, prisms)."""
    eA, eB = params_a["edges"] @ R_A.T, params_b["edges"] @ R_B.T
    cross = jnp.cross(eA[:, None, :], eB[None, :, :]).reshape(-1, 3)
    cmask = (params_a["edges_mask"][:, None] & params_b["edges_mask"][None, :]).reshape(-1)
    cmask = cmask & (jnp.sum(cross * cross, -1) > _MIN_CROSS_SQ)
    U, _ = safe_normalize(cross, (1.0, 0.0, 0.0))
    minA, maxA = _extent(vA, mA, U)
    minB, maxB = _extent(vB, mB, U)
    o_pos, o_neg = maxB - minA, maxA - minB
    N = jnp.where((o_pos <= o_neg)[:, None], U, -U)
    return N, jnp.minimum(o_pos, o_neg), cmask


def _edge_candidates_gauss_map(vA, mA, vB, mB, params_a, X_WA, params_b, X_WB):
    """The edge pairs that build a face of the Minkowski difference A − B (their arcs cross
    on the Gauss map [Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC
    2013]): O(1) per pair instead of a projection of every vertex, so large hulls fit. For
    such a pair the supports along n = ±(e_A × e_B), n pointing out of A, are the edges
    themselves: overlap = n·(p_A − p_B), A on the side of −n."""
    R_A, R_B = X_WA[0], X_WB[0]
    eA, aA, bA = (params_a[k] @ R_A.T for k in ("gm_e", "gm_n1", "gm_n2"))
    eB = params_b["gm_e"] @ R_B.T
    cB, dB = -(params_b["gm_n1"] @ R_B.T), -(params_b["gm_n2"] @ R_B.T)  # normals of −B
    pA, pB = to_world(X_WA, params_a["gm_p"]), to_world(X_WB, params_b["gm_p"])
    cA = jnp.sum(jnp.where(mA[:, None], vA, 0.0), 0) / jnp.maximum(jnp.sum(mA), 1)
    a, b, e1, p1 = aA[:, None], bA[:, None], eA[:, None], pA[:, None]
    c, d, e2, p2 = cB[None], dB[None], eB[None], pB[None]
    bxa, dxc = jnp.cross(b, a), jnp.cross(d, c)
    cba, dba = jnp.sum(c * bxa, -1), jnp.sum(d * bxa, -1)
    adc, bdc = jnp.sum(a * dxc, -1), jnp.sum(b * dxc, -1)
    face = (cba * dba < 0) & (adc * bdc < 0) & (cba * bdc > 0)
    n = jnp.cross(e1, e2)
    n2 = jnp.sum(n * n, -1)
    ok = face & (n2 > _MIN_CROSS_SQ * jnp.sum(e1 * e1, -1) * jnp.sum(e2 * e2, -1))
    ok = ok & params_a["gm_mask"][:, None] & params_b["gm_mask"][None, :]
    n = n / jnp.sqrt(jnp.where(ok, n2, 1.0))[..., None]
    n = jnp.where((jnp.sum(n * (p1 - cA), -1) < 0)[..., None], -n, n)
    overlap = jnp.sum(n * (p1 - p2), -1)
    return (-n).reshape(-1, 3), overlap.reshape(-1), ok.reshape(-1)


def _closest_points_of_lines(p1, d1, p2, d2):
    """The closest points of the lines p1 + s·d1 and p2 + t·d2 (not parallel)."""
    r = p1 - p2
    a, b, c = d1 @ d1, d1 @ d2, d2 @ d2
    d, e = d1 @ r, d2 @ r
    den = a * c - b * b
    den = jnp.where(den > 0, den, 1.0)
    s, t = (b * e - c * d) / den, (a * e - b * d) / den
    return p1 + s * d1, p2 + t * d2


# Above this many projections (edge pairs × vertices) per polytope pair the edge-edge axes are
# pruned on the Gauss map (`_edge_candidates_gauss_map`); below, all cross products are tested.
_ALL_EDGE_AXES_LIMIT = 20_000


def work_estimate(params_a, params_b) -> int:
    """Rough operations of one evaluation of a pair of these (padded) polytope tables: face
    axes × vertices, and edge pairs × vertices (small polytopes) or edge pairs (Gauss map)."""
    V = params_a["vertices"].shape[-2] + params_b["vertices"].shape[-2]
    faces = (params_a["axes"].shape[-2] + params_b["axes"].shape[-2]) * V
    edges = params_a["edges"].shape[-2] * params_b["edges"].shape[-2] * V
    if edges > _ALL_EDGE_AXES_LIMIT and "gm_e" in params_a and "gm_e" in params_b:
        edges = 20 * params_a["gm_e"].shape[-2] * params_b["gm_e"].shape[-2]
    return 3 * (faces + edges)


def polytope_polytope(params_a, X_WA, params_b, X_WB, single=False) -> ContactPoints:
    """Polytope A against polytope B (see the module docstring)."""
    vA, mA = to_world(X_WA, params_a["vertices"]), params_a["vertex_mask"]
    vB, mB = to_world(X_WB, params_b["vertices"]), params_b["vertex_mask"]
    Nf, of, mf, kf = _face_candidates(vA, mA, vB, mB, params_a, X_WA[0], params_b, X_WB[0])
    work = (params_a["edges"].shape[0] * params_b["edges"].shape[0]
            * (vA.shape[0] + vB.shape[0]))
    gauss_map = not (work <= _ALL_EDGE_AXES_LIMIT or "gm_e" not in params_a
                     or "gm_e" not in params_b)
    if gauss_map:
        Ne, oe, me = _edge_candidates_gauss_map(vA, mA, vB, mB, params_a, X_WA, params_b, X_WB)
    else:
        Ne, oe, me = _edge_candidates_all(vA, mA, vB, mB, params_a, X_WA[0], params_b, X_WB[0])
    N = jnp.concatenate([Nf, Ne], 0)
    overlap = jnp.concatenate([of, oe])
    umask = jnp.concatenate([mf, me])
    kind = jnp.concatenate([kf, jnp.full(oe.shape[0], 2, jnp.int32)])
    key = jnp.where(umask, overlap + jnp.where(kind == 2, EDGE_AXIS_BIAS, 0.0), BIG)
    j = jnp.argmin(key)
    n = N[j]
    depth = overlap[j]
    # Support planes and deepest vertices along n.
    sA = jnp.where(mA, vA @ n, BIG)
    sB = jnp.where(mB, vB @ n, -BIG)
    iA, iB = jnp.argmin(sA), jnp.argmax(sB)
    l_A, h_B = sA[iA], sB[iB]
    phi_sat = -depth
    mid = 0.5 * (vA[iA] + vB[iB])
    sat_a = jnp.where(kind[j] == 1, vA[iA],
                      jnp.where(kind[j] == 0, vB[iB] + phi_sat * n, mid - (mid @ n - l_A) * n))
    sat_b = jnp.where(kind[j] == 1, vA[iA] - phi_sat * n,
                      jnp.where(kind[j] == 0, vB[iB], mid - (mid @ n - h_B) * n))
    if gauss_map:  # the supporting edges are known: their closest points, exactly
        e = jnp.maximum(j - Nf.shape[0], 0)
        hb = params_b["gm_e"].shape[0]
        ca, cb = _closest_points_of_lines(
            to_world(X_WA, params_a["gm_p"][e // hb]), X_WA[0] @ params_a["gm_e"][e // hb],
            to_world(X_WB, params_b["gm_p"][e % hb]), X_WB[0] @ params_b["gm_e"][e % hb])
        sat_a = jnp.where(kind[j] == 2, ca, sat_a)
        sat_b = jnp.where(kind[j] == 2, cb, sat_b)
    sat = ContactPoints(phi_sat[None], sat_a[None], sat_b[None], n[None],
                        jnp.asarray([True]) if single else (kind[j] == 2)[None])
    if single:
        return sat
    phiA = vA @ n - h_B
    ptsA = ContactPoints(phiA, vA, vA - phiA[:, None] * n, jnp.broadcast_to(n, vA.shape),
                         mA & _inside(params_b, X_WB, vA))
    phiB = l_A - vB @ n
    ptsB = ContactPoints(phiB, vB + phiB[:, None] * n, vB, jnp.broadcast_to(n, vB.shape),
                         mB & _inside(params_a, X_WA, vB))
    return stack(ptsA, ptsB, sat)
