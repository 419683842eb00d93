"""Contact polygons with static shapes: the record every hydroelastic kernel returns, Drake's
area/normal/centroid of a polygon, and Sutherland-Hodgman clipping of a fixed-capacity polygon.

A polygon is an (N, 3) vertex array padded by repeating its last vertex, so that the padding
adds zero-area triangles to the fan about vertex 0: Drake's formulas (``PolygonSurfaceMesh``)
then apply unchanged to every slot.

    area  = ½ Σᵢ ‖(vᵢ − v₀) × (vᵢ₊₁ − v₀)‖
    n̂     = normalize(Σᵢ (vᵢ − v₀) × (vᵢ₊₁ − v₀))
    c     = Σᵢ ‖·‖ᵢ (v₀ + vᵢ + vᵢ₊₁)/3 / Σᵢ ‖·‖ᵢ    (the vertex mean when the area is zero)
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.geometry.collision._util import TINY_SQ, safe_norm, safe_normalize

# Drake's RemoveNearlyDuplicateVertices distance (m).
DUPLICATE_DISTANCE = 1e-14


class ContactPolygons(NamedTuple):
    """F contact polygons of one geometry pair (M, N), in World (Drake's ``ContactSurface``
    faces, kPolygon representation).

    Attributes:
        area: (F,) m². centroid: (F, 3). normal: (F, 3) unit, out of N into M.
        pressure: (F,) the pressure at the centroid (Pa).
        grad_M: (F, 3) ∇p of M's field (Pa/m) in World, zero when M is rigid;
        grad_N: (F, 3) likewise for N.
        vertices: (F, V, 3) the polygon (padded by repeating its last vertex);
        num_vertices: (F,) int32.
        valid: (F,) bool: the slot holds a face of the surface.
    """

    area: jax.Array
    centroid: jax.Array
    normal: jax.Array
    pressure: jax.Array
    grad_M: jax.Array
    grad_N: jax.Array
    vertices: jax.Array
    num_vertices: jax.Array
    valid: jax.Array


def area_normal_centroid(poly):
    """(area, unit normal, centroid) of polygons ``poly`` (..., N, 3), padded as above."""
    v0 = poly[..., :1, :]
    cross = jnp.cross(poly[..., 1:-1, :] - v0, poly[..., 2:, :] - v0)  # (..., N-2, 3)
    mag = safe_norm(cross)
    double_area = jnp.sum(mag, -1)
    normal, _ = safe_normalize(jnp.sum(cross, -2), jnp.array([0.0, 0.0, 1.0]))
    tri_sum = v0 + poly[..., 1:-1, :] + poly[..., 2:, :]
    ok = double_area > 0
    weighted = jnp.sum(mag[..., None] * tri_sum, -2) / (3.0 * jnp.where(ok, double_area, 1.0)[
        ..., None])
    centroid = jnp.where(ok[..., None], weighted, jnp.mean(poly, -2))
    return 0.5 * double_area, normal, centroid


def clip_by_half_space(poly, count, normal, point):
    """Clips a convex polygon by the half space {x : n·(x − p) ≤ 0} (Drake's
    ``ClipPolygonByHalfSpace``: a vertex on the plane is kept).

    Args:
        poly: (N, 3) vertices, the first ``count`` real; count: () int.
        normal: (3,) the half space's outward normal (any length > 0); point: (3,) on its plane.

    Returns:
        (poly (N, 3), count): the clipped polygon, padded by repeating its last vertex (N must
        be at least count + 1 for a convex polygon clipped by a plane).
    """
    N = poly.shape[0]
    n_hat = normal / safe_norm(normal)
    s = (poly - point) @ n_hat
    idx = jnp.arange(N)
    live = idx < count
    prev = jnp.where(idx == 0, count - 1, idx - 1)
    s_prev, p_prev = s[prev], poly[prev]
    inside, inside_prev = s <= 0, s_prev <= 0
    crosses = live & (inside != inside_prev)
    den = s_prev - s
    w_cur = s_prev / jnp.where(crosses, den, 1.0)  # weight of the current vertex
    x = w_cur[:, None] * poly + (1.0 - w_cur[:, None]) * p_prev
    # Each input edge (prev -> cur) emits [intersection if it crosses] then [cur if inside].
    out = jnp.stack([x, poly], 1).reshape(2 * N, 3)
    emit = jnp.stack([crosses, live & inside], 1).reshape(2 * N)
    return _compact(out, emit, N)


def _compact(points, keep, N):
    """The kept rows of ``points`` in order, in an (N, 3) array padded with the last kept row,
    and their count."""
    pos = jnp.cumsum(keep) - 1
    count = jnp.sum(keep)
    target = jnp.where(keep, pos, N)  # dropped rows go out of range
    out = jnp.zeros((N + 1, 3), points.dtype).at[target].set(points, mode="drop")[:N]
    last = out[jnp.maximum(count - 1, 0)]
    out = jnp.where((jnp.arange(N) < count)[:, None], out, last)
    return out, count.astype(jnp.int32)


def remove_duplicates(poly, count):
    """Drake's ``RemoveNearlyDuplicateVertices``: drops a vertex within `DUPLICATE_DISTANCE` of
    its predecessor, then the last vertex if it is near the first (3 or more left)."""
    N = poly.shape[0]
    idx = jnp.arange(N)
    d_prev = jnp.sum((poly - jnp.roll(poly, 1, 0)) ** 2, -1)
    keep = (idx < count) & ((idx == 0) | (d_prev >= DUPLICATE_DISTANCE ** 2))
    out, n = _compact(poly, keep, N)
    close = jnp.sum((out[0] - out[jnp.maximum(n - 1, 0)]) ** 2) < DUPLICATE_DISTANCE ** 2
    n = jnp.where((n >= 3) & close, n - 1, n)
    last = out[jnp.maximum(n - 1, 0)]
    return jnp.where((idx < n)[:, None], out, last), n


def is_degenerate_vector(v):
    """True where ``v`` is (numerically) the zero vector."""
    return jnp.sum(v * v, -1) <= TINY_SQ


def unit_rows(v):
    """Rows of ``v`` (..., 3) normalized (zero rows stay zero): Drake re-normalizes a face
    normal after rotating it into World."""
    n = safe_norm(v)
    return v / jnp.where(n > 0, n, 1.0)[..., None]
