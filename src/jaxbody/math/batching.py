"""`batch_all`: a predicate that stays unbatched under ``jax.vmap``, so that a ``lax.cond`` on
it runs one branch for the whole batch (the exact fast paths of the SAP capacity and of the
hydroelastic element pairs)."""

from __future__ import annotations

import jax.numpy as jnp
from jax.custom_batching import custom_vmap


@custom_vmap
def batch_all(flag):
    """``flag`` (a boolean scalar) for one problem; under ``jax.vmap``, whether it holds for every
    member, returned *unbatched*, so that a ``lax.cond`` on it stays one branch for the whole
    batch instead of becoming a select that runs both. Not differentiable (a boolean)."""
    return flag


@batch_all.def_vmap
def _batch_all_rule(axis_size, in_batched, flag):
    (batched,) = in_batched
    return (jnp.all(flag) if batched else flag), False
