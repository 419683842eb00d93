"""Control over XLA's fusion: a value computed once into memory.

XLA:CPU fuses a producer into each consumer that reads it, recomputing it per element read: a
sine read by the nine entries of a rotation is evaluated nine times (measured on the 35-dof G1,
batch 256: the batch-minor joint stage took 3.2 µs per sample with it, 1.2 without). Neither
`jax.lax.optimization_barrier` nor a `reduce_precision` to the dtype's own precision stops that
on jaxlib 0.10 (both are removed or fused through). A reduction is never fused into its
consumers, so `materialize` passes a value through a sum over a two-entry axis, the value and
zeros: exact (x + 0 = x, up to the sign of a zero), one read and one write, linear (any
transformation differentiates and batches it as a sum).
"""

from __future__ import annotations

import jax.numpy as jnp


def materialize(x):
    """``x`` (an array or a tuple of arrays) computed once into memory (see the module)."""
    def one(a):
        return jnp.sum(jnp.stack([a, jnp.zeros_like(a)]), 0)
    return tuple(one(a) for a in x) if isinstance(x, tuple) else one(x)
