"""Sphere A against any shape B that has a point query: one contact point (K = 1).

Drake's algorithm for sphere-shape penetration (``PenetrationPairFunctor::SphereShapePenetration``
in ``geometry/proximity/penetration_as_point_pair_callback.cc``), with φ_B the signed distance
to B (`point_distance.py`) evaluated at the sphere's center Ao:

    φ       = φ_B(Ao) - r                  (Drake reports depth = -φ)
    p_WCb   = η_B(Ao)                      nearest point on ∂B
    n̂_BA_W  = ∇φ_B(Ao)                     from B into A
    p_WCa   = Ao - r n̂_BA_W

Example:
    >>> import jax.numpy as jnp
    >>> X_WA = (jnp.eye(3), jnp.array([0.0, 0.0, 0.15]))
    >>> X_WB = (jnp.eye(3), jnp.zeros(3))
    >>> c = sphere_shape("Sphere", {"radius": 0.1}, X_WA, {"radius": 0.1}, X_WB)
    >>> round(float(c.phi[0]), 6)
    -0.05
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.geometry.collision._util import ContactPoints, to_frame, to_world
from jaxbody.geometry.collision.convex_point import convex_point
from jaxbody.geometry.collision.ellipsoid import ellipsoid_point
from jaxbody.geometry.collision.point_distance import (
    box_point,
    capsule_point,
    cylinder_point,
    halfspace_point,
    sphere_point,
)

# Drake's SignedDistanceToPoint per shape kind: (params, p_GQ) -> (φ, p_GN, ∇φ_G).
POINT_QUERIES = {
    "Sphere": sphere_point, "HalfSpace": halfspace_point, "Box": box_point,
    "Capsule": capsule_point, "Cylinder": cylinder_point, "Ellipsoid": ellipsoid_point,
    "Convex": convex_point,
}


def sphere_shape(kind_b, params_a, X_WA, params_b, X_WB, single=False) -> ContactPoints:
    """Sphere A (``params_a["radius"]``) against a shape B of kind ``kind_b``.

    Args:
        kind_b: B's kind (a key of `POINT_QUERIES`).
        params_a, params_b: parameter dicts (`shape_data.encode_shape`).
        X_WA, X_WB: poses ``(R_WG (3, 3), p_WG (3,))`` of the geometry frames.
        single: unused (one point either way).
    """
    del single
    r = params_a["radius"]
    p_WAo = X_WA[1]
    phi_B, p_BN, grad_B = POINT_QUERIES[kind_b](params_b, to_frame(X_WB, p_WAo))
    n_W = X_WB[0] @ grad_B
    return ContactPoints(phi=(phi_B - r)[None], p_WCa=(p_WAo - r * n_W)[None],
                         p_WCb=to_world(X_WB, p_BN)[None], nhat_BA_W=n_W[None],
                         valid=jnp.ones(1, bool))
