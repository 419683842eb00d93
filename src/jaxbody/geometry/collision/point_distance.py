"""Signed distance from a point Q to a shape G, with the nearest boundary point and the gradient.

Drake's ``SignedDistanceToPoint`` (``geometry/proximity/distance_to_point_callback.cc``): for a
point Q given in the shape's frame G,

    φ_G(Q)   signed distance (m): > 0 outside, 0 on the surface, < 0 inside,
    p_GN     a nearest point N on the boundary ∂G, in G,
    ∇φ_G(Q)  the unit gradient of φ_G at Q, in G (the outward normal at N).

Closed forms for Sphere, HalfSpace, Box, Capsule and Cylinder live here; the Ellipsoid and the
Convex hull are in `ellipsoid.py` and `convex_point.py`. Each function takes the shape's
parameter dict (see `shape_data.encode_shape`) and ``p_GQ`` (3,), and returns
``(phi, p_GN, grad_G)``. Degenerate points (a sphere's center, a point on a capsule or cylinder
axis) pick a fixed gradient direction (+x, or the face normal inside a box, ties to the lowest
axis), with finite derivatives.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.geometry.collision._util import safe_normalize

_EX = (1.0, 0.0, 0.0)


def sphere_point(params, p):
    """φ = ‖Q‖ - r; N = r Q/‖Q‖ (Go is the center)."""
    r = params["radius"]
    n, d = safe_normalize(p, _EX)
    return d - r, r * n, n


def halfspace_point(params, p):
    """The half space z <= 0: φ = z, N = (x, y, 0), ∇φ = +z."""
    del params
    return p[2], p.at[2].set(0.0), jnp.array([0.0, 0.0, 1.0], p.dtype)


def box_point(params, p):
    """Box of half sizes h centered at Go.

    Outside (some |Q_i| > h_i): N = clamp(Q, -h, h), φ = ‖Q - N‖. Inside or on the surface:
    the nearest face i = argmax(|Q_i| - h_i), φ = |Q_i| - h_i (<= 0), N = Q with N_i = ±h_i,
    ∇φ = ±e_i (sign of Q_i, + at 0).
    """
    h = params["half"]
    q = jnp.abs(p) - h
    outside = jnp.any(q > 0)
    # Outside branch.
    p_out = jnp.clip(p, -h, h)
    g_out, d_out = safe_normalize(p - p_out, _EX)
    # Inside branch: push the coordinate of the nearest face onto the face.
    i = jnp.argmax(q)
    e = jnp.zeros(3, p.dtype).at[i].set(1.0)
    s = jnp.where(p[i] >= 0, 1.0, -1.0)
    p_in = p + e * (s * h[i] - p[i])
    return (jnp.where(outside, d_out, q[i]), jnp.where(outside, p_out, p_in),
            jnp.where(outside, g_out, s * e))


def capsule_point(params, p):
    """Capsule of radius r about the segment z ∈ [-l/2, l/2]: a sphere about the nearest axis
    point C = (0, 0, clamp(z))."""
    r, hl = params["radius"], params["half_length"]
    c = jnp.zeros(3, p.dtype).at[2].set(jnp.clip(p[2], -hl, hl))
    n, d = safe_normalize(p - c, _EX)
    return d - r, c + r * n, n


def cylinder_point(params, p):
    """Cylinder of radius r and half length h about Gz.

    With ρ = ‖(x, y)‖, u = (x, y)/ρ (+x on the axis): outside, N clamps ρ to r and z to ±h;
    inside, N is on the barrel (φ = ρ - r) or on the nearer cap (φ = |z| - h), whichever is
    nearer (the barrel on ties).
    """
    r, h = params["radius"], params["half_length"]
    u, rho = safe_normalize(p[:2], (1.0, 0.0))
    dr, dz = rho - r, jnp.abs(p[2]) - h
    outside = (dr > 0) | (dz > 0)
    s = jnp.where(p[2] >= 0, 1.0, -1.0)
    p_out = jnp.concatenate([u * jnp.minimum(rho, r), jnp.clip(p[2], -h, h)[None]])
    g_out, d_out = safe_normalize(p - p_out, _EX)
    barrel = dr >= dz
    p_in = jnp.where(barrel, jnp.concatenate([u * r, p[2:]]),
                     jnp.concatenate([p[:2], (s * h)[None]]))
    g_in = jnp.where(barrel, jnp.concatenate([u, jnp.zeros(1, p.dtype)]),
                     jnp.array([0.0, 0.0, 1.0], p.dtype) * s)
    return (jnp.where(outside, d_out, jnp.maximum(dr, dz)), jnp.where(outside, p_out, p_in),
            jnp.where(outside, g_out, g_in))
