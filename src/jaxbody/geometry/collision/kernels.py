"""The narrow-phase dispatch table: which kernel answers which pair of shape kinds.

Kernels are pure JAX functions ``kernel(params_a, X_WA, params_b, X_WB, single) ->
ContactPoints`` with a fixed number K of points for a given pair of kinds and parameter
shapes, so a group of same-kind pairs is one ``jax.vmap``. They are registered for the
canonical order of `shape_data.KINDS` (A's kind first); `get_kernel` returns, for any order, a
kernel with A and B exchanged where needed (φ unchanged, witness points exchanged, normal
negated), so that results always follow the caller's (A, B), as Drake's ``id_A < id_B``.

Supported pairs (K in multi-point mode; K = 1 with ``single=True``):

============  =======================================================================
Sphere        with every kind: 1 (Drake's sphere-shape algorithm)
HalfSpace     Box 8, Convex V (hull vertices), Capsule 2, Cylinder 12, Ellipsoid 1
Capsule       Capsule, Box, Cylinder, Ellipsoid, Convex: 3 (ends + interior minimizer)
Box/Convex    Box, Convex, Cylinder (prism): V_A + V_B + 1 (SAT vertices + edge point)
============  =======================================================================

The plant's query keeps at most ``ContactQueryOptions.max_points_per_pair`` (16) of them, the
deepest valid ones. Not supported (a `ValueError` names the geometries): HalfSpace-HalfSpace,
and Ellipsoid with Box, Cylinder, Ellipsoid or Convex.

Example:
    >>> import numpy as np
    >>> from jaxbody.geometry import Box, HalfSpace
    >>> c = compute_pair(HalfSpace(), (np.eye(3), np.zeros(3)), Box(1, 1, 1),
    ...                  (np.eye(3), np.array([0.0, 0.0, 0.4])))
    >>> [round(float(x), 6) for x in c.phi]  # 4 corners 0.1 m deep, 4 corners 0.9 m above
    [-0.1, 0.9, -0.1, 0.9, -0.1, 0.9, -0.1, 0.9]
"""

from __future__ import annotations

import functools

import jax.numpy as jnp

from jaxbody.geometry.collision._util import ContactPoints, swap
from jaxbody.geometry.collision.capsule_pairs import capsule_shape
from jaxbody.geometry.collision.halfspace_pairs import (
    halfspace_capsule,
    halfspace_cylinder,
    halfspace_ellipsoid,
    halfspace_polytope,
)
from jaxbody.geometry.collision.polytope_pairs import polytope_polytope
from jaxbody.geometry.collision.shape_data import KINDS, encode_shape, shape_kind
from jaxbody.geometry.collision.sphere_pairs import sphere_shape

_KERNELS = {("Sphere", k): functools.partial(sphere_shape, k) for k in KINDS}
_KERNELS.update({
    ("HalfSpace", "Box"): halfspace_polytope,
    ("HalfSpace", "Convex"): halfspace_polytope,
    ("HalfSpace", "Capsule"): halfspace_capsule,
    ("HalfSpace", "Cylinder"): halfspace_cylinder,
    ("HalfSpace", "Ellipsoid"): halfspace_ellipsoid,
})
_KERNELS.update({("Capsule", k): functools.partial(capsule_shape, k)
                 for k in ("Capsule", "Cylinder", "Ellipsoid", "Convex")})
_KERNELS.update({(a, b): polytope_polytope for a, b in (
    ("Box", "Box"), ("Box", "Cylinder"), ("Box", "Convex"), ("Cylinder", "Cylinder"),
    ("Cylinder", "Convex"), ("Convex", "Convex"))})


def _capsule_first(kernel):
    """A kernel for (X, Capsule) built from the (Capsule, X) one."""
    def fn(params_a, X_WA, params_b, X_WB, single=False):
        return swap(kernel(params_b, X_WB, params_a, X_WA, single), True)
    return fn


_KERNELS[("Box", "Capsule")] = _capsule_first(functools.partial(capsule_shape, "Box"))


def is_supported(kind_a, kind_b) -> bool:
    """Whether a kernel exists for the kinds (in either order)."""
    return (kind_a, kind_b) in _KERNELS or (kind_b, kind_a) in _KERNELS


def canonical(kind_a, kind_b) -> tuple:
    """The kinds in the order the registered kernel takes them."""
    return (kind_a, kind_b) if (kind_a, kind_b) in _KERNELS else (kind_b, kind_a)


def get_kernel(kind_a, kind_b):
    """The kernel for A of ``kind_a`` and B of ``kind_b`` (either order), or ValueError."""
    if (kind_a, kind_b) in _KERNELS:
        return _KERNELS[(kind_a, kind_b)]
    if (kind_b, kind_a) in _KERNELS:
        kernel = _KERNELS[(kind_b, kind_a)]

        def reversed_kernel(params_a, X_WA, params_b, X_WB, single=False):
            return swap(kernel(params_b, X_WB, params_a, X_WA, single), True)
        return reversed_kernel
    raise ValueError(f"point contact between a {kind_a} and a {kind_b} is not supported")


def compute_pair(shape_a, X_WA, shape_b, X_WB, single=False) -> ContactPoints:
    """Contact points of two `Shape` objects at poses ``X = (R_WG (3, 3), p_WG (3,))``
    (arrays, or a `RigidTransform`). A convenience for one pair; the plant batches pairs."""
    kernel = get_kernel(shape_kind(shape_a), shape_kind(shape_b))
    params_a = {k: jnp.asarray(v) for k, v in encode_shape(shape_a).items()}
    params_b = {k: jnp.asarray(v) for k, v in encode_shape(shape_b).items()}
    return kernel(params_a, _pose(X_WA), params_b, _pose(X_WB), single)


def _pose(X):
    if hasattr(X, "rotation") and hasattr(X, "translation"):
        return jnp.asarray(X.rotation().matrix()), jnp.asarray(X.translation())
    R, p = X
    return jnp.asarray(R), jnp.asarray(p)
