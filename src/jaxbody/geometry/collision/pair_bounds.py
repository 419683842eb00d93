"""Lower bounds on the distance of candidate pairs, for culling: the query's broad phase.

A pair's bound is the larger of its bounding spheres' gap ``‖c_A - c_B‖ - r_A - r_B`` and the
largest gap between its oriented bounding boxes over the 15 separating axes (both are lower
bounds on the distance); against a half space, the height of the other's sphere above it. The
spheres and boxes are `shape_data.bounding_sphere` and `shape_data.bounding_box_half`, in the
geometry's frame (the box centred at the sphere's centre).
"""

from __future__ import annotations

import jax.numpy as jnp


def bound_distance(group, X_a, X_b):
    """(n,) a lower bound on the distance of every pair of a group (`query.PairGroup`: its
    ``kinds``, ``bound_a``, ``bound_b``) at the poses ``X_a``, ``X_b`` ((n, 3, 3), (n, 3))."""
    (ca, ra, ha), (cb, rb, hb) = group.bound_a, group.bound_b
    c_a = jnp.einsum("nij,nj->ni", X_a[0], ca) + X_a[1]
    c_b = jnp.einsum("nij,nj->ni", X_b[0], cb) + X_b[1]
    if group.kinds[0] == "HalfSpace":
        return jnp.sum((c_b - X_a[1]) * X_a[0][:, :, 2], -1) - rb
    if group.kinds[1] == "HalfSpace":
        return jnp.sum((c_a - X_b[1]) * X_b[0][:, :, 2], -1) - ra
    gap = c_a - c_b
    spheres = jnp.sqrt(jnp.sum(gap * gap, -1) + 1e-300) - ra - rb
    boxes = box_gap(X_a[0], jnp.asarray(ha), X_b[0], jnp.asarray(hb), gap)
    return jnp.maximum(spheres, boxes)  # both are lower bounds on the distance


def box_gap(R_a, ha, R_b, hb, gap):
    """(n,) the largest gap between two oriented boxes (axes R's columns, half extents h,
    centres ``gap`` apart) over the 15 separating axes: a lower bound on their distance."""
    cross = jnp.cross(R_a[:, :, :, None], R_b[:, :, None, :], axis=1).reshape(-1, 3, 9)
    U = jnp.concatenate([R_a, R_b, cross], -1)  # (n, 3, 15) axes as columns
    norm = jnp.sqrt(jnp.sum(U * U, 1))
    ok = norm > 1e-6
    U = U / jnp.where(ok, norm, 1.0)[:, None]
    reach = (jnp.einsum("nia,ni->na", jnp.abs(jnp.einsum("nij,nia->nja", R_a, U)), ha)
             + jnp.einsum("nia,ni->na", jnp.abs(jnp.einsum("nij,nia->nja", R_b, U)), hb))
    sep = jnp.abs(jnp.einsum("ni,nia->na", gap, U)) - reach
    return jnp.max(jnp.where(ok, sep, -jnp.inf), -1)
