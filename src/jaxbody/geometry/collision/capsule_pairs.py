"""Capsule A against a shape B with a point query (Box, Capsule, Cylinder, Ellipsoid, Convex).

A capsule is the set of points within r of its axis segment z ∈ [-l/2, l/2] of frame A. Its
signed distance to a convex B is ``min_z φ_B(c(z)) - r`` with c(z) the axis point; φ_B of a
convex set is convex along the segment, so its derivative dφ_B/dz = ∇φ_B(c(z))·ẑ_A is
nondecreasing and the minimizer z* is found by a fixed number of bisection steps on the sign of
the derivative (`BISECTION_STEPS`, on stop-gradient inputs; comparing values instead, as
golden-section search does, would resolve z* only to about √ε). By the envelope theorem
the derivative of φ at z* is the partial derivative with z* held fixed, so φ's gradients are
exact; the witness points' gradients treat z* as constant.

Points (K = 3): the two end spheres (z = ±l/2), always valid (their φ is meaningful, also when
positive), and the interior minimizer z*, valid only when it is deeper than both ends by more
than `INTERIOR_POINT_TOLERANCE` (a capsule across an edge), so that a capsule lying flat on a
face gets its two end points and no third. ``single=True`` keeps the deepest (Drake's single
point; Drake evaluates these pairs with FCL, except capsule-sphere).

For each axis point c (in B):  φ = φ_B(c) - r,  n̂_BA_W = R_WB ∇φ_B(c),  p_WCb = η_B(c),
p_WCa = c - r n̂_BA_W.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.geometry.collision._util import ContactPoints, deepest, relative, to_world
from jaxbody.geometry.collision.sphere_pairs import POINT_QUERIES

BISECTION_STEPS = 64
INTERIOR_POINT_TOLERANCE = 1e-6  # m


def _bisect_slope(slope, lo, hi):
    """argmin on [lo, hi] of a convex function given its (nondecreasing) derivative."""
    def body(_, s):
        a, b = s
        m = 0.5 * (a + b)
        right = slope(m) < 0
        return jnp.where(right, m, a), jnp.where(right, b, m)

    a, b = jax.lax.fori_loop(0, BISECTION_STEPS, body, (lo, hi))
    return 0.5 * (a + b)


def capsule_shape(kind_b, params_a, X_WA, params_b, X_WB, single=False) -> ContactPoints:
    """Capsule A against a shape B of kind ``kind_b`` (see the module docstring)."""
    query = POINT_QUERIES[kind_b]
    r, hl = params_a["radius"], params_a["half_length"]
    R_BA, p_BA = relative(X_WA, X_WB)
    axis_B = R_BA[:, 2]
    p_sg, a_sg = jax.lax.stop_gradient(p_BA), jax.lax.stop_gradient(axis_B)
    b_sg = jax.lax.stop_gradient(params_b)
    z_star = _bisect_slope(lambda z: query(b_sg, p_sg + z * a_sg)[2] @ a_sg,
                           jax.lax.stop_gradient(-hl), jax.lax.stop_gradient(hl))
    z = jnp.stack([-hl, hl, jax.lax.stop_gradient(z_star)])
    c_B = p_BA + z[:, None] * axis_B
    phi_B, p_BN, grad_B = jax.vmap(query, in_axes=(None, 0))(params_b, c_B)
    n_W = grad_B @ X_WB[0].T
    phi = phi_B - r
    interior = phi[2] < jnp.minimum(phi[0], phi[1]) - INTERIOR_POINT_TOLERANCE
    points = ContactPoints(phi=phi, p_WCa=to_world(X_WB, c_B) - r * n_W,
                           p_WCb=to_world(X_WB, p_BN), nhat_BA_W=n_W,
                           valid=jnp.stack([True, True, interior]))
    return deepest(points) if single else points
