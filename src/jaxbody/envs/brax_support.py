"""Running Brax's trainers on JAX 0.10 and later.

Brax 0.14.2 (the newest release) puts its training state on devices with
``jax.device_put_replicated`` and ``jax.device_put_sharded``, which JAX 0.10 removed. Nothing
else in its PPO, APG and SAC trainers needs changing for a jaxbody environment: call
`patch_jax_for_brax` once before ``brax.training.agents.*.train``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec


def _leading_axis_sharding(devices) -> NamedSharding:
    return NamedSharding(Mesh(np.array(list(devices)), ("devices",)),
                         PartitionSpec("devices"))


def device_put_replicated(x, devices):
    """Every leaf of ``x`` stacked once per device along a new leading axis, that axis
    sharded over ``devices`` (what ``jax.pmap`` takes): JAX's removed function, by
    ``jax.device_put``."""
    devices = list(devices)
    sharding = _leading_axis_sharding(devices)
    return jax.tree.map(
        lambda a: jax.device_put(jnp.stack([jnp.asarray(a)] * len(devices)), sharding), x)


def device_put_sharded(shards, devices):
    """The trees ``shards`` (one per device) stacked leaf by leaf along a new leading axis,
    sharded over ``devices``: JAX's removed function, by ``jax.device_put``."""
    devices = list(devices)
    if len(shards) != len(devices):
        raise ValueError(f"device_put_sharded: {len(shards)} shards for {len(devices)} devices")
    sharding = _leading_axis_sharding(devices)
    return jax.tree.map(lambda *a: jax.device_put(jnp.stack(a), sharding), *shards)


def patch_jax_for_brax() -> list[str]:
    """Puts `device_put_replicated` and `device_put_sharded` back on the ``jax`` module where
    this JAX removed them (0.10 and later); a no-op on a JAX that still has them. Returns
    the names it added."""
    added = []
    for name, fn in (("device_put_replicated", device_put_replicated),
                     ("device_put_sharded", device_put_sharded)):
        try:
            getattr(jax, name)
        except AttributeError:
            setattr(jax, name, fn)
            added.append(name)
    return added
