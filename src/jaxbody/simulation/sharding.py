"""Batched rollouts across devices with JAX's own sharding (``Mesh``, ``NamedSharding``).

One machine: ``jax.vmap`` over the batch. Several devices (GPUs, or CPU devices forced with
``XLA_FLAGS=--xla_force_host_platform_device_count=N``): the batch axis of every input is
placed on a 1-D device mesh with ``NamedSharding(mesh, P("batch"))`` and ``jax.shard_map`` runs
the same program on every device's shard (no communication is needed, the environments are
independent). Several hosts: call ``jax.distributed.initialize()`` on every host first;
``jax.devices()`` then lists every host's devices and the same code shards the global batch
over all of them (every host passes the same global batch, or a global array of its own rows
built with ``jax.make_array_from_process_local_data``; see the README and
tests/simulation/test_multiprocess.py).

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


def _local_map(fn, chunk_size):
    """``fn`` over the leading axis of its arguments: one ``vmap``, or ``lax.map`` over chunks of
    ``chunk_size`` vmapped members (the last chunk may be shorter)."""
    if chunk_size is None:
        return jax.vmap(fn)
    return lambda *args: jax.lax.map(lambda a: fn(*a), args, batch_size=chunk_size)


def sharded_vmap(fn, mesh: Mesh | None = None, *, chunk_size: int | None = None):
    """``fn`` mapped over the leading (batch) axis of its arguments, jitted, with the batch
    split over the devices of ``mesh`` (default: all of ``jax.devices()``).

    One device: ``jit(vmap(fn))``. Several: ``jax.shard_map`` over the 1-D mesh with
    ``P("batch")`` (scalars replicated): every device runs the same program on its own slice of
    the batch, with no communication (the environments are independent). Outputs keep the batch
    sharding.

    ``chunk_size``: each device then runs its slice as a sequential ``lax.map`` over chunks of
    ``chunk_size`` vmapped members instead of one ``vmap`` of the whole slice. Same results; on
    CPU it is much faster for contact rollouts: a vmapped ``while_loop`` (SAP's Newton
    iterations) runs every member until the slowest one is done, so small chunks waste fewer
    iterations, and their working set stays in cache (measured on the A1, 2 CPU cores: 3.1k
    env-steps/s as one vmap of 4096, 9.8k in chunks of 16, 15k in chunks of 16 on 2 forced host
    devices). On a GPU leave it None.
    """
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(
            chunk_size, (int, np.integer)) or chunk_size < 1):
        raise ValueError(f"sharded_vmap: chunk_size must be a positive int or None, "
                         f"got {chunk_size!r}")
    local = _local_map(fn, None if chunk_size is None else int(chunk_size))
    single = jax.jit(local)
    compiled = {}

    def run(*args):
        m = batch_mesh() if mesh is None else mesh
        if m.devices.size == 1:
            return single(*args)
        args = shard_batch(args, m)
        specs = jax.tree_util.tree_map(lambda x: P() if x.ndim == 0 else P(BATCH_AXIS), args)
        key = (jax.tree_util.tree_structure(args), tuple(jax.tree_util.tree_leaves(specs)), m)
        if key not in compiled:
            compiled[key] = jax.jit(jax.shard_map(
                local, mesh=m, in_specs=specs, out_specs=P(BATCH_AXIS), check_vma=False))
        return compiled[key](*args)

    return run
