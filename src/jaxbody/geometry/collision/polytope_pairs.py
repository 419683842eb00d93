"""Polytope A against polytope B (Box, Convex, and a Cylinder's prism): separating axes and
vertex contacts.

Separating-axis test [Gottschalk, Lin, Manocha, "OBBTree", SIGGRAPH 1996; Ericson 2005, §4.4]:
for each candidate axis u (the face normals of A and of B, and the cross products of an edge
direction of A with one of B), the overlap of the projections is

    o(u) = min(max_B u - min_A u,  max_A u - min_B u)

and the normal n̂_BA (from B into A) is the axis of least overlap, signed so that A lies on its
positive side; depth = o(n̂) (negative: separated along n̂). Edge-edge axes get a small bias
(`EDGE_AXIS_BIAS`) so that face axes win ties.

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


def _axes(params_a, R_A, params_b, R_B):
    """Candidate axes (k, 3), their masks, and whether each is an edge-edge axis."""
    aA, aB = params_a["axes"] @ R_A.T, params_b["axes"] @ R_B.T
    eA, eB = params_a["edges"] @ R_A.T, params_b["edges"] @ R_B.T
    cross = jnp.cross(eA[:, None, :], eB[None, :, :]).reshape(-1, 3)
    cmask = (params_a["edges_mask"][:, None] & params_b["edges_mask"][None, :]).reshape(-1)
    cmask = cmask & (jnp.sum(cross * cross, -1) > _MIN_CROSS_SQ)
    cross, _ = safe_normalize(cross, (1.0, 0.0, 0.0))
    U = jnp.concatenate([aA, aB, cross], 0)
    mask = jnp.concatenate([params_a["axes_mask"], params_b["axes_mask"], cmask])
    n_a, n_b = aA.shape[0], aB.shape[0]
    kind = jnp.concatenate([jnp.zeros(n_a, jnp.int32), jnp.ones(n_b, jnp.int32),
                            jnp.full(cross.shape[0], 2, jnp.int32)])
    return U, mask, kind


def polytope_polytope(params_a, X_WA, params_b, X_WB, single=False) -> ContactPoints:
    """Polytope A against polytope B (see the module docstring)."""
    vA, mA = to_world(X_WA, params_a["vertices"]), params_a["vertex_mask"]
    vB, mB = to_world(X_WB, params_b["vertices"]), params_b["vertex_mask"]
    U, umask, kind = _axes(params_a, X_WA[0], params_b, X_WB[0])
    minA, maxA = _extent(vA, mA, U)
    minB, maxB = _extent(vB, mB, U)
    o_pos, o_neg = maxB - minA, maxA - minB  # A on the +u side / on the -u side
    overlap = jnp.minimum(o_pos, o_neg)
    key = jnp.where(umask, overlap + jnp.where(kind == 2, EDGE_AXIS_BIAS, 0.0), BIG)
    j = jnp.argmin(key)
    n = jnp.where(o_pos[j] <= o_neg[j], 1.0, -1.0) * U[j]
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
