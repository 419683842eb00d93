"""Signed distance from a point to an ellipsoid (semi-axes a, b, c along Gx, Gy, Gz).

[Eberly, "Distance from a Point to an Ellipse, an Ellipsoid, or a Hyperellipsoid", 2013]: with
sᵢ = aᵢ², the nearest surface point is xᵢ = sᵢ Qᵢ / (t + sᵢ) where t is the root of

    g(t) = Σᵢ sᵢ Qᵢ² / (t + sᵢ)² - 1,      decreasing on t > -min(sᵢ),

positive outside the ellipsoid, in (-min sᵢ, 0) inside. The root is bracketed in
[-min sᵢ, max(aᵢ)‖Q‖] and found by a fixed number of bisection steps (`BISECTION_STEPS`, on
stop-gradient inputs), then one Newton step carries the derivative of the implicit function,
dt/dQ = -g_Q / g_t, so that reverse and forward mode are exact without differentiating the loop.
Drake answers sphere-ellipsoid queries with FCL's iterative solver instead.

Limitations: at the center (Q = 0) the nearest point is taken on the smallest axis; inside
points on the plane through the smallest axis that are farther from the surface than the
medial surface (deep penetrations) get an approximate nearest point.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.geometry.collision._util import TINY_SQ, safe_normalize

BISECTION_STEPS = 90


def _g(t, s, q2):
    return jnp.sum(s * q2 / (t + s) ** 2) - 1.0


def ellipsoid_point(params, p):
    """(φ, p_GN, ∇φ_G) of the point ``p`` (3,) in G for the ellipsoid ``params["abc"]``."""
    abc = params["abc"]
    s = abc * abc
    p_sg = jax.lax.stop_gradient(p)
    q2 = p_sg * p_sg
    lo = -jnp.min(s) * (1.0 - 1e-15)
    hi = jnp.max(abc) * jnp.sqrt(jnp.sum(q2)) + 1e-300

    def body(_, bracket):
        a, b = bracket
        m = 0.5 * (a + b)
        pos = _g(m, s, q2) > 0
        return jnp.where(pos, m, a), jnp.where(pos, b, m)

    a, b = jax.lax.fori_loop(0, BISECTION_STEPS, body, (lo, hi))
    t_star = jax.lax.stop_gradient(0.5 * (a + b))
    # One Newton step in Q (value ~unchanged, derivative = implicit-function derivative).
    g = jnp.sum(s * p * p / (t_star + s) ** 2) - 1.0
    g_t = jax.lax.stop_gradient(-2.0 * jnp.sum(s * q2 / (t_star + s) ** 3))
    g_t = jnp.where(jnp.abs(g_t) > 1e-300, g_t, -1.0)
    t = t_star - g / g_t
    x = s * p / (t + s)
    # At (or extremely near) the center: the nearest point is on the smallest axis.
    center = jnp.sum(q2) < TINY_SQ
    i_min = jnp.argmin(abc)
    x_c = jnp.zeros(3, p.dtype).at[i_min].set(abc[i_min])
    x = jnp.where(center, x_c, x)
    n, _ = safe_normalize(x / s, (1.0, 0.0, 0.0))
    phi = jnp.dot(p - x, n)
    return phi, x, n


def ellipsoid_support(params, u):
    """The point of the ellipsoid farthest along the unit direction ``u`` (in G):
    D² u / ‖D u‖ with D = diag(a, b, c)."""
    abc = params["abc"]
    du = abc * u
    n = jnp.sqrt(jnp.sum(du * du))
    return abc * du / n
