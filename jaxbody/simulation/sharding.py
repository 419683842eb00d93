"""Batched rollouts across devices with JAX's own sharding (``Mesh``, ``NamedSharding``).

One machine: ``jax.vmap`` over the batch. Several devices (GPUs, or CPU devices forced with
``XLA_FLAGS=--xla_force_host_platform_device_count=N``): the batch axis of every input is
placed on a 1-D device mesh with ``NamedSharding(mesh, P("batch"))`` and the same jitted, vmapped
function runs on its shard on every device; XLA partitions it (no communication is needed, the
environments are independent). Several hosts: call ``jax.distributed.initialize()`` on every
host first; ``jax.devices()`` then lists every host's devices and the same code shards the
global batch over all of them (each host feeds its addressable part; see the README).

Example:
    >>> import jax, jax.numpy as jnp
    >>> from jaxbody.simulation.sharding import batch_mesh, shard_batch
    >>> mesh = batch_mesh()
    >>> x = shard_batch(jnp.arange(8.0).reshape(8, 1), mesh)
    >>> float(jax.jit(jax.vmap(lambda a: 2 * a))(x).sum())
    56.0
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

BATCH_AXIS = "batch"


def batch_mesh(devices=None) -> Mesh:
    """A 1-D `Mesh` named "batch" over ``devices`` (default: all of ``jax.devices()``)."""
    devices = jax.devices() if devices is None else list(devices)
    return Mesh(np.asarray(devices), (BATCH_AXIS,))


def shard_batch(tree, mesh: Mesh | None = None):
    """Places every array leaf of ``tree`` with its leading (batch) axis split over ``mesh``.

    The batch size must be a multiple of the number of devices (an error says which leaf is
    not). Leaves without a leading axis (scalars) are replicated.
    """
    mesh = batch_mesh() if mesh is None else mesh
    n = mesh.devices.size
    split, replicated = NamedSharding(mesh, P(BATCH_AXIS)), NamedSharding(mesh, P())

    def put(path, x):
        x = jax.numpy.asarray(x)
        if x.ndim == 0:
            return jax.device_put(x, replicated)
        if x.shape[0] % n:
            raise ValueError(f"shard_batch: leaf {jax.tree_util.keystr(path)} has batch size "
                             f"{x.shape[0]}, not a multiple of the {n} devices of the mesh")
        return jax.device_put(x, split)

    return jax.tree_util.tree_map_with_path(put, tree)


def sharded_vmap(fn, mesh: Mesh | None = None):
    """``jax.jit(jax.vmap(fn))`` whose batched inputs are sharded over ``mesh`` first (a plain
    ``jit(vmap)`` on one device). Outputs keep the batch sharding."""
    batched = jax.jit(jax.vmap(fn))

    def run(*args):
        m = batch_mesh() if mesh is None else mesh
        if m.devices.size == 1:
            return batched(*args)
        return batched(*shard_batch(args, m))

    return run
