"""Half space A against Box, Convex, Capsule, Cylinder and Ellipsoid B: the points of B that
can lie deepest below the plane.

The half space is z <= 0 of its frame H: the plane through Ho with outward normal ẑ_H. For a
point Q of B "swept" by a radius ρ (ρ = 0 for a vertex, the radius for a capsule end):

    φ       = ẑ_H·(Q - Ho) - ρ
    n̂_BA_W  = -ẑ_H                               (from B into the half space A)
    p_WCa   = Q - (ẑ_H·(Q - Ho)) ẑ_H             (Q projected on the plane)
    p_WCb   = Q - ρ ẑ_H

Points per pair (K): Box 8 corners, Convex its hull vertices (padded, masked), Capsule its 2
end-sphere centers, Ellipsoid 1 support point, Cylinder 2 × `CYLINDER_RIM_POINTS` rim points (a
ring per cap, rotated so that its first point is the rim's exact deepest point; a cylinder on
its side gets 2 exact points, standing on a cap a polygon of support). With ``single=True`` the
deepest point alone (Drake's single point per pair). Drake answers these pairs with FCL, which
reports one point.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.geometry.collision._util import (
    BIG,
    ContactPoints,
    deepest,
    first_max,
    safe_normalize,
    to_world,
)
from jaxbody.geometry.collision.ellipsoid import ellipsoid_support

CYLINDER_RIM_POINTS = 6


def _plane_points(X_WH, p_WQ, rho, valid, single_point):
    z = X_WH[0][:, 2]
    height = (p_WQ - X_WH[1]) @ z
    points = ContactPoints(
        phi=height - rho, p_WCa=p_WQ - height[:, None] * z,
        p_WCb=p_WQ - jnp.asarray(rho)[..., None] * z,
        nhat_BA_W=jnp.broadcast_to(-z, p_WQ.shape), valid=valid)
    return deepest(points) if single_point else points


def halfspace_polytope(params_a, X_WA, params_b, X_WB, single=False) -> ContactPoints:
    """Half space A against a Box or Convex B: one point per vertex of B; with ``single`` the
    deepest vertex, found in B's frame (the plane's normal taken into B, one multiply-add per
    vertex coordinate) so that only that vertex goes to the world."""
    del params_a
    V, mask = params_b["vertices"], params_b["vertex_mask"]
    if not single:
        return _plane_points(X_WA, to_world(X_WB, V), 0.0, mask, False)
    z_B = X_WB[0].T @ X_WA[0][:, 2]
    height = V[:, 0] * z_B[0] + V[:, 1] * z_B[1] + V[:, 2] * z_B[2]  # + a constant
    i = first_max(jnp.where(mask, -height, -BIG))
    return _plane_points(X_WA, to_world(X_WB, V[i][None]), 0.0, jnp.any(mask)[None], False)


def halfspace_capsule(params_a, X_WA, params_b, X_WB, single=False) -> ContactPoints:
    """Half space A against a Capsule B: its two end spheres."""
    del params_a
    hl = params_b["half_length"]
    ends = jnp.stack([jnp.zeros(3).at[2].set(-hl), jnp.zeros(3).at[2].set(hl)])
    return _plane_points(X_WA, to_world(X_WB, ends), params_b["radius"], jnp.ones(2, bool),
                         single)


def halfspace_cylinder(params_a, X_WA, params_b, X_WB, single=False) -> ContactPoints:
    """Half space A against a Cylinder B: a ring of rim points on each cap."""
    del params_a
    r, h = params_b["radius"], params_b["half_length"]
    down_B = -(X_WB[0].T @ X_WA[0][:, 2])  # deepest direction, in B
    e1, _ = safe_normalize(down_B[:2], (1.0, 0.0))
    e2 = jnp.stack([-e1[1], e1[0]])
    a = 2 * jnp.pi * jnp.arange(CYLINDER_RIM_POINTS) / CYLINDER_RIM_POINTS
    ring = r * (jnp.cos(a)[:, None] * e1 + jnp.sin(a)[:, None] * e2)  # (N, 2)
    caps = [jnp.concatenate([ring, jnp.full((CYLINDER_RIM_POINTS, 1), z)], 1) for z in (-h, h)]
    p_WQ = to_world(X_WB, jnp.concatenate(caps, 0))
    return _plane_points(X_WA, p_WQ, 0.0, jnp.ones(2 * CYLINDER_RIM_POINTS, bool), single)


def halfspace_ellipsoid(params_a, X_WA, params_b, X_WB, single=False) -> ContactPoints:
    """Half space A against an Ellipsoid B: its support point in -ẑ_H."""
    del params_a
    down_B = -(X_WB[0].T @ X_WA[0][:, 2])
    p_WQ = to_world(X_WB, ellipsoid_support(params_b, down_B))[None]
    return _plane_points(X_WA, p_WQ, 0.0, jnp.ones(1, bool), single)
