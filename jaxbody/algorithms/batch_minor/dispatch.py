"""Per-sample functions whose `jax.vmap` runs the batch-minor kernels.

``forward_dynamics(topo, q, v, tau, refl, F_Bo_W, mass, com, unit_inertia, frame_R, frame_p,
gravity)`` takes one sample (Drake's per-sample shapes) and returns v̇ (nv,). Called plainly it
runs the per-sample reference (`dynamics_kinematics` + `aba.forward_dynamics`). Under
`jax.vmap` a `jax.custom_batching.custom_vmap` rule takes over: the batch is moved to the last
axis (components first, see `algebra.py`), cut into chunks of `CHUNK` members that stay in cache
and run one after the other (`lax.map`), and each chunk runs the batch-minor kernel. Unbatched
arguments (typically the parameters) are shared by all members, not copied. Derivatives come
from a `jax.custom_jvp` around it whose rule differentiates the per-sample reference, so
`jax.jvp`, `jax.grad` and their vmaps never differentiate the batched rule; nested `vmap`s run
the rule at the innermost level and batch it at the outer ones.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbody.algorithms import aba
from jaxbody.algorithms.batch_minor import forward_dynamics as bm_fd
from jaxbody.algorithms.dynamics_kinematics import dynamics_kinematics
from jaxbody.algorithms.spatial import wrench_about_origin

CHUNK = 64  # members per batch-minor chunk (measured on the 35-dof G1, 2-core CPU, float64)


def _reference(topo, q, v, tau, refl, F_Bo_W, mass, com, unit_inertia, frame_R, frame_p,
               gravity):
    params = _ParamView(mass, com, unit_inertia, frame_R, frame_p)
    dk = dynamics_kinematics(topo, q, v, params)
    F_O = None
    if F_Bo_W is not None:
        F_O = wrench_about_origin(F_Bo_W[topo.node_body], dk.pk.p_WB)
    return aba.forward_dynamics(topo, dk, tau, gravity, F_O, refl)


class _ParamView(NamedTuple):
    """The subset of `Parameters` that `dynamics_kinematics` reads (a pytree)."""

    mass: jax.Array
    com: jax.Array
    unit_inertia: jax.Array
    frame_R: jax.Array
    frame_p: jax.Array


def _to_batch_minor(x, batched, size):
    """One argument in batch-minor layout: per-sample (n, c...) -> (c..., n, B) (or 1 for an
    unbatched argument); per-sample (n,) -> (n, B)."""
    if not batched:
        x = x[None]
    x = jnp.moveaxis(x, 0, -1)  # batch last
    if x.ndim >= 3:
        x = jnp.moveaxis(x, 0, -2)  # node axis just before the batch
    return x


def _chunked(kernel, args, batched, size):
    """``kernel`` on batch-minor ``args`` of ``size`` members, in chunks of `CHUNK`."""
    if size <= CHUNK:
        return kernel(*[None if a is None else _to_batch_minor(a, b, size)
                        for a, b in zip(args, batched)])
    chunks = -(-size // CHUNK)
    padded = chunks * CHUNK

    def split(a, b):
        if a is None or not b:
            return None
        a = jnp.concatenate([a, jnp.broadcast_to(a[:1], (padded - size,) + a.shape[1:])])
        return a.reshape((chunks, CHUNK) + a.shape[1:])

    stacked = [split(a, b) for a, b in zip(args, batched)]

    def one(xs):
        it = iter(xs)
        full = [None if a is None else (_to_batch_minor(next(it), True, CHUNK) if b else
                                        _to_batch_minor(a, False, CHUNK))
                for a, b in zip(args, batched)]
        return kernel(*full)

    out = jax.lax.map(one, [s for s in stacked if s is not None])  # (chunks, nv, CHUNK)
    out = jnp.moveaxis(out, 0, 1).reshape(out.shape[1], padded)
    return out[:, :size]


@functools.lru_cache(maxsize=64)
def _forward_dynamics_fn(topo, has_forces):
    def kernel(q, v, tau, refl, F, mass, com, unit_inertia, frame_R, frame_p, gravity):
        return bm_fd.forward_dynamics(topo, q, v, tau, mass, com, unit_inertia, frame_R,
                                      frame_p, gravity, refl, F)

    @jax.custom_batching.custom_vmap
    def fd(*args):
        return _reference(topo, *_with_forces(args, has_forces))

    @fd.def_vmap
    def fd_vmap(axis_size, in_batched, *args):
        args, batched = list(_with_forces(args, has_forces)), list(
            _with_forces(in_batched, has_forces))
        for i in range(3):  # the state and τ: every member needs its own
            if not batched[i]:
                args[i] = jnp.broadcast_to(args[i], (axis_size,) + args[i].shape)
                batched[i] = True
        out = _chunked(kernel, args, batched, axis_size)  # (nv, B)
        return out.T, True

    @jax.custom_jvp
    def fd_jvp(*args):
        return fd(*args)

    @fd_jvp.defjvp
    def _(primals, tangents):
        return jax.jvp(lambda *a: _reference(topo, *_with_forces(a, has_forces)), primals,
                       tangents)

    return fd_jvp


def _with_forces(args, has_forces):
    """The argument tuple with the optional forces slot filled (None when absent)."""
    args = tuple(args)
    return args if has_forces else args[:4] + (None,) + args[4:]


def forward_dynamics(topo, q, v, tau, refl, F_Bo_W, mass, com, unit_inertia, frame_R,
                     frame_p, gravity):
    """v̇ (nv,) of one sample; see the module docstring. F_Bo_W: (num_bodies, 6) or None."""
    fn = _forward_dynamics_fn(topo, F_Bo_W is not None)
    rest = (mass, com, unit_inertia, frame_R, frame_p, gravity)
    if F_Bo_W is None:
        return fn(q, v, tau, refl, *rest)
    return fn(q, v, tau, refl, F_Bo_W, *rest)
