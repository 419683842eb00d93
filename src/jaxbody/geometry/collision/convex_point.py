"""Signed distance from a point Q to a convex polytope (Drake's `Convex`, or a `Mesh`'s hull).

The polytope is stored (see `shape_data.polytope_data`) both as half spaces ``n_f·x <= d_f``
(``planes``) and as the triangles of its hull surface (``tri``), each padded with a mask.

- Inside (max_f n_f·Q - d_f <= 0): φ = max_f (n_f·Q - d_f), N = Q - φ n_f*, ∇φ = n_f*, the
  nearest face plane f*.
- Outside: N = the nearest of the closest points on every hull triangle [Ericson, "Real-Time
  Collision Detection", 2005, §5.1.5], φ = ‖Q - N‖, ∇φ = (Q - N)/φ; above `GJK_MIN_VERTICES`
  hull vertices N comes from GJK (`gjk.py`: O(V) per iteration instead of O(triangles) work
  per triangle), its barycentric weights recomputed at Q so that gradients follow the nearest
  feature.

Every division is guarded so that gradients are finite in every Voronoi region.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.geometry.collision._util import BIG, first_max, first_min, safe_normalize
from jaxbody.geometry.collision.gjk import gjk, nearest_in_simplex

GJK_MIN_VERTICES = 64


def _div(num, den):
    ok = den != 0
    return jnp.where(ok, num / jnp.where(ok, den, 1.0), 0.0)


def closest_point_on_triangles(p, tri):
    """Closest points on triangles ``tri`` (T, 3, 3) to ``p`` (3,): (T, 3)."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    ab, ac = b - a, c - a
    dot = lambda u, v: jnp.sum(u * v, -1)  # noqa: E731
    ap, bp, cp = p - a, p - b, p - c
    d1, d2 = dot(ab, ap), dot(ac, ap)
    d3, d4 = dot(ab, bp), dot(ac, bp)
    d5, d6 = dot(ab, cp), dot(ac, cp)
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    den = va + vb + vc
    inner = a + ab * _div(vb, den)[:, None] + ac * _div(vc, den)[:, None]
    on_bc = b + (c - b) * _div(d4 - d3, (d4 - d3) + (d5 - d6))[:, None]
    on_ac = a + ac * _div(d2, d2 - d6)[:, None]
    on_ab = a + ab * _div(d1, d1 - d3)[:, None]
    # Voronoi regions, tested in Ericson's order (the first that holds wins).
    regions = [
        ((d1 <= 0) & (d2 <= 0), a),
        ((d3 >= 0) & (d4 <= d3), b),
        ((vc <= 0) & (d1 >= 0) & (d3 <= 0), on_ab),
        ((d6 >= 0) & (d5 <= d6), c),
        ((vb <= 0) & (d2 >= 0) & (d6 <= 0), on_ac),
        ((va <= 0) & ((d4 - d3) >= 0) & ((d5 - d6) >= 0), on_bc),
    ]
    out = inner
    for cond, point in reversed(regions):
        out = jnp.where(cond[:, None], point, out)
    return out


def convex_point(params, p):
    """(φ, p_GN, ∇φ_G) of the point ``p`` (3,) in G for a polytope ``params``."""
    n, d, pmask = params["planes"][:, :3], params["planes"][:, 3], params["plane_mask"]
    s = jnp.where(pmask, n @ p - d, -BIG)
    f = first_max(s)
    phi_in = s[f]
    inside = phi_in <= 0
    if params["vertices"].shape[-2] > GJK_MIN_VERTICES:  # outside: GJK on the hull's vertices
        V, vmask = params["vertices"], params["vertex_mask"]
        point, one = p[None], jnp.ones(1, bool)
        g = gjk(V, vmask, jax.lax.stop_gradient(point), one,
                jax.lax.stop_gradient(V[jnp.argmax(vmask)] - p))
        _, lam = nearest_in_simplex(V[g.ia] - p, g.mask)
        near = lam @ V[g.ia]
    else:  # outside: the nearest hull triangle
        c = closest_point_on_triangles(p, params["tri"])
        dist2 = jnp.where(params["tri_mask"], jnp.sum((p - c) ** 2, -1), BIG)
        near = c[first_min(dist2)]
    g_out, d_out = safe_normalize(p - near, n[f])
    return (jnp.where(inside, phi_in, d_out), jnp.where(inside, p - phi_in * n[f], near),
            jnp.where(inside, n[f], g_out))
