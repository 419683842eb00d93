"""Argument checks shared by every layer: shapes named in the error."""

from __future__ import annotations

import jax.numpy as jnp


def check_shape(name, x, shape):
    """``x`` as an array, or ValueError naming the argument, the expected and the actual shape.

    Example:
        >>> check_shape("q", [1.0, 2.0], (2,)).shape
        (2,)
    """
    x = jnp.asarray(x)
    if x.shape != tuple(shape):
        raise ValueError(f"{name}: expected shape {tuple(shape)}, got {x.shape}")
    return x
