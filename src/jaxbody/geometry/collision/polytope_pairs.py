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
E_A·E_B·(V_A + V_B) (12 ms per pair of the panda's 152-vertex link hulls). Above
`_ALL_EDGE_AXES_LIMIT` GJK and EPA (`hull_pair`) find the normal and depth instead, in
O(V_A + V_B) per iteration: the same least-penetration normal and depth when the polytopes
overlap (the direction of least overlap is normal to a face of the Minkowski difference, which
EPA converges to), the exact distance and nearest points when they are apart, and an exact
edge-edge point (two corners of EPA's face on A and two on B). The query refuses configurations
whose total cost exceeds `query.MAX_POLYTOPE_WORK` with the remedies.

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

from jaxbody.geometry.collision import epa, gjk
from jaxbody.geometry.collision._util import (
    BIG,
    ContactPoints,
    first_max,
    first_min,
    safe_normalize,
    stack,
    to_frame,
    to_world,
)
from jaxbody.geometry.collision.hull_pair import hull_pair

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


# Above this many projections (edge pairs × vertices) per polytope pair GJK/EPA (`hull_pair`)
# finds the normal and depth; below, the separating-axis test with every edge cross product.
_ALL_EDGE_AXES_LIMIT = 20_000


def uses_gjk_epa(params_a, params_b) -> bool:
    """Whether the pair's hulls are too large for every edge cross product: GJK/EPA
    (`hull_pair`) then finds the normal and depth."""
    work = (params_a["edges"].shape[-2] * params_b["edges"].shape[-2]
            * (params_a["vertices"].shape[-2] + params_b["vertices"].shape[-2]))
    return work > _ALL_EDGE_AXES_LIMIT


def work_estimate(params_a, params_b, single=False) -> int:
    """Rough operations of one evaluation of a pair of these (padded) polytope tables: face
    axes × vertices and edge pairs × vertices (small polytopes), or GJK/EPA's iterations ×
    vertices and, in multi-point mode, the vertex-inside tests (large hulls)."""
    VA, VB = params_a["vertices"].shape[-2], params_b["vertices"].shape[-2]
    if uses_gjk_epa(params_a, params_b):
        inside = 0 if single else (VA * params_b["planes"].shape[-2]
                                   + VB * params_a["planes"].shape[-2])
        return 3 * ((gjk.MAX_ITERATIONS + epa.MAX_ITERATIONS) * (VA + VB) + inside)
    faces = (params_a["axes"].shape[-2] + params_b["axes"].shape[-2]) * (VA + VB)
    edges = params_a["edges"].shape[-2] * params_b["edges"].shape[-2] * (VA + VB)
    return 3 * (faces + edges)


def _vertex_points(params_a, X_WA, vA, mA, params_b, X_WB, vB, mB, n, l_A, h_B):
    """The multi-point mode's vertex points along the normal n (from B into A), with A's and
    B's support planes l_A = min_A n·v and h_B = max_B n·w: each vertex of A inside B and each
    vertex of B inside A (the module docstring)."""
    phiA = vA @ n - h_B
    ptsA = ContactPoints(phiA, vA, vA - phiA[:, None] * n, jnp.broadcast_to(n, vA.shape),
                         mA & _inside(params_b, X_WB, vA))
    phiB = l_A - vB @ n
    ptsB = ContactPoints(phiB, vB + phiB[:, None] * n, vB, jnp.broadcast_to(n, vB.shape),
                         mB & _inside(params_a, X_WA, vB))
    return stack(ptsA, ptsB)


def _hull_points(params_a, X_WA, params_b, X_WB, single):
    """Large hulls: the GJK/EPA point (`hull_pair`), and in multi-point mode the vertices of
    each inside the other along its normal; the GJK/EPA point stays valid there only for an
    edge-edge contact (two corners on A and two on B: vertex contacts are the vertex points)."""
    pt, feat = hull_pair(params_a, X_WA, params_b, X_WB, with_features=True)
    if single:
        return pt
    n, phi = pt.nhat_BA_W[0], pt.phi[0]
    vA, mA = to_world(X_WA, params_a["vertices"]), params_a["vertex_mask"]
    vB, mB = to_world(X_WB, params_b["vertices"]), params_b["vertex_mask"]
    # B's and A's support planes along n (EPA's face lies on them)
    points = _vertex_points(params_a, X_WA, vA, mA, params_b, X_WB, vB, mB, n,
                            pt.p_WCa[0] @ n, pt.p_WCb[0] @ n)
    edge_edge = (feat.corners_a == 2) & (feat.corners_b == 2) & (phi < 0)
    return stack(points, pt._replace(valid=edge_edge[None]))


def polytope_polytope(params_a, X_WA, params_b, X_WB, single=False) -> ContactPoints:
    """Polytope A against polytope B (see the module docstring)."""
    if uses_gjk_epa(params_a, params_b):
        return _hull_points(params_a, X_WA, params_b, X_WB, single)
    vA, mA = to_world(X_WA, params_a["vertices"]), params_a["vertex_mask"]
    vB, mB = to_world(X_WB, params_b["vertices"]), params_b["vertex_mask"]
    Nf, of, mf, kf = _face_candidates(vA, mA, vB, mB, params_a, X_WA[0], params_b, X_WB[0])
    Ne, oe, me = _edge_candidates_all(vA, mA, vB, mB, params_a, X_WA[0], params_b, X_WB[0])
    N = jnp.concatenate([Nf, Ne], 0)
    overlap = jnp.concatenate([of, oe])
    umask = jnp.concatenate([mf, me])
    kind = jnp.concatenate([kf, jnp.full(oe.shape[0], 2, jnp.int32)])
    key = jnp.where(umask, overlap + jnp.where(kind == 2, EDGE_AXIS_BIAS, 0.0), BIG)
    j = first_min(key)
    n = N[j]
    depth = overlap[j]
    # Support planes and deepest vertices along n.
    sA = jnp.where(mA, vA @ n, BIG)
    sB = jnp.where(mB, vB @ n, -BIG)
    iA, iB = first_min(sA), first_max(sB)
    l_A, h_B = sA[iA], sB[iB]
    phi_sat = -depth
    mid = 0.5 * (vA[iA] + vB[iB])
    sat_a = jnp.where(kind[j] == 1, vA[iA],
                      jnp.where(kind[j] == 0, vB[iB] + phi_sat * n, mid - (mid @ n - l_A) * n))
    sat_b = jnp.where(kind[j] == 1, vA[iA] - phi_sat * n,
                      jnp.where(kind[j] == 0, vB[iB], mid - (mid @ n - h_B) * n))
    sat = ContactPoints(phi_sat[None], sat_a[None], sat_b[None], n[None],
                        jnp.asarray([True]) if single else (kind[j] == 2)[None])
    if single:
        return sat
    return stack(_vertex_points(params_a, X_WA, vA, mA, params_b, X_WB, vB, mB, n, l_A, h_B),
                 sat)
