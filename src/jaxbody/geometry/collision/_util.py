"""Gradient-safe vector helpers and the `ContactPoints` record shared by the narrow-phase kernels.

Every norm and normalization here is "double-where" safe: at the singular point (a zero vector)
the value falls back to a constant and the derivative is finite (zero), never NaN, so
``jax.grad`` through a kernel evaluated at a degenerate configuration (concentric spheres, a point
on a box face or on a cylinder axis) stays finite.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

# Squared norms below this are treated as zero by the safe helpers (m²).
TINY_SQ = 1e-30
# A finite stand-in for +inf in masked minima (m); never reaches a returned value.
BIG = 1e30


class ContactPoints(NamedTuple):
    """K contact points of one geometry pair (A, B), Drake's ``PenetrationAsPointPair`` fields.

    Attributes:
        phi: (K,) signed distance (m), < 0 when penetrating (Drake's ``-depth``).
        p_WCa: (K, 3) point on A's surface that lies deepest in B, in World (m).
        p_WCb: (K, 3) point on B's surface that lies deepest in A, in World (m).
        nhat_BA_W: (K, 3) unit normal pointing from B into A, in World.
        valid: (K,) bool; False marks a slot that holds no contact candidate (padding, a
            polytope vertex outside the other body, an unused edge-edge slot).
    """

    phi: jax.Array
    p_WCa: jax.Array
    p_WCb: jax.Array
    nhat_BA_W: jax.Array
    valid: jax.Array


def safe_norm(x, axis=-1):
    """‖x‖ along ``axis`` with a finite (zero) derivative at x = 0."""
    sq = jnp.sum(x * x, axis=axis)
    ok = sq > TINY_SQ
    return jnp.where(ok, jnp.sqrt(jnp.where(ok, sq, 1.0)), 0.0)


def safe_normalize(x, fallback):
    """(x / ‖x‖, ‖x‖) along the last axis; ``fallback`` (a unit vector) where x = 0."""
    sq = jnp.sum(x * x, axis=-1, keepdims=True)
    ok = sq > TINY_SQ
    norm = jnp.sqrt(jnp.where(ok, sq, 1.0))
    n = jnp.where(ok, x / norm, jnp.broadcast_to(jnp.asarray(fallback, x.dtype), x.shape))
    return n, jnp.where(ok[..., 0], norm[..., 0], 0.0)


def to_world(X, p_G):
    """p_W = R_WG p_G + p_WG for ``X = (R_WG, p_WG)``; ``p_G`` (..., 3)."""
    R, p = X
    return p_G @ R.T + p


def to_frame(X, p_W):
    """p_G = R_WGᵀ (p_W - p_WG) for ``X = (R_WG, p_WG)``; ``p_W`` (..., 3)."""
    R, p = X
    return (p_W - p) @ R


def relative(X_WA, X_WB):
    """X_BA = X_WB⁻¹ X_WA as (R_BA, p_BA)."""
    R_WA, p_WA = X_WA
    R_WB, p_WB = X_WB
    return R_WB.T @ R_WA, R_WB.T @ (p_WA - p_WB)


def first_max(x):
    """The first index of the largest entry of ``x`` along its last axis, as ``jnp.argmax``
    (int32): a max and a min-reduction, which XLA:CPU runs about 4× faster than argmax's
    variadic reduce."""
    x = jnp.asarray(x)
    if x.dtype == bool:
        x = x.astype(jnp.int32)
    iota = jnp.arange(x.shape[-1], dtype=jnp.int32)
    top = jnp.max(x, -1, keepdims=True)
    return jnp.min(jnp.where(x == top, iota, x.shape[-1] - 1), -1)


def first_min(x):
    """The first index of the smallest entry of ``x`` along its last axis, as ``jnp.argmin``
    (`first_max`)."""
    x = jnp.asarray(x)
    return first_max(~x if x.dtype == bool else -x)


def deepest(points: ContactPoints) -> ContactPoints:
    """The deepest valid point of K (Drake's one point per pair), as a K = 1 record."""
    i = first_min(jnp.where(points.valid, points.phi, BIG))
    return ContactPoints(points.phi[i][None],
                         points.p_WCa[i][None], points.p_WCb[i][None],
                         points.nhat_BA_W[i][None], jnp.any(points.valid)[None])


def deepest_k(points: ContactPoints, k: int) -> ContactPoints:
    """The ``k`` deepest valid points of K > k (valid ones first, by φ), as a K = k record."""
    _, i = jax.lax.top_k(-jnp.where(points.valid, points.phi, BIG), k)
    return ContactPoints(*(x[i] for x in points))


def swap(points: ContactPoints, flag) -> ContactPoints:
    """Exchanges the roles of A and B where ``flag`` (broadcast scalar) is True."""
    f = jnp.asarray(flag)[..., None]
    return ContactPoints(
        points.phi,
        jnp.where(f[..., None], points.p_WCb, points.p_WCa),
        jnp.where(f[..., None], points.p_WCa, points.p_WCb),
        jnp.where(f[..., None], -points.nhat_BA_W, points.nhat_BA_W),
        points.valid)


def stack(*parts: ContactPoints) -> ContactPoints:
    """Concatenates point records along K."""
    return ContactPoints(*(jnp.concatenate(x, 0) for x in zip(*parts)))
