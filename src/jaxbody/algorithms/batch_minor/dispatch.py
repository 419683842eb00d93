"""Per-sample functions whose `jax.vmap` runs the batch-minor kernels.

``forward_dynamics``, ``inverse_dynamics``, ``mass_matrix``, ``mass_matrix_inverse`` and
``inverse_dynamics_derivatives`` take one sample (Drake's per-sample shapes) and return v̇ (nv,),
τ (nv,), M (nv, nv), M⁻¹ (nv, nv) and (∂τ/∂q (nv, nq), ∂τ/∂v (nv, nv));
``forward_dynamics_derivatives`` returns v̇ with the last two at it, and ``state_derivatives``
the last two at a given v̇, from shared kinematics.
Called plainly they run the per-sample reference (`dynamics_kinematics` + `aba` / `rnea` /
`crba` (+ a Cholesky inverse) / `rnea_derivatives`). Under `jax.vmap` a
`jax.custom_batching.custom_vmap` rule takes over: the batch is moved to the last axis
(components first, see `algebra.py`) and, on a CPU, cut into chunks of `CHUNKS` ``["cpu"]``
members that stay in cache and run one after the other (`lax.map`); each chunk runs the
batch-minor kernel. A batch of fewer than `MIN_BATCH` members runs the per-sample reference
under `jax.vmap` instead: it compiles 3-4x faster than the kernel (go1's M, ID and v̇: 6.6 s
against 22 s) and runs within 1.2-1.6x of it there (faster at one member). On a GPU the whole
batch is one chunk (a loop of small chunks would leave the device idle between them);
`chunk_size` says which. Unbatched parameters are shared by all members, not copied.
Derivatives come from a `jax.custom_jvp` around it whose rule differentiates the per-sample
reference, so `jax.jvp`, `jax.grad` and their vmaps never differentiate the batched rule;
nested `vmap`s run the rule at the innermost level and batch it at the outer ones.

Arguments: the per-member ones first (the state and inputs, broadcast to every member when
unbatched), then optional ones (None when absent), then the parameters
(mass, com, unit_inertia, frame_R, frame_p[, gravity]).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import aba, crba, rnea, rnea_derivatives
from jaxbody.algorithms.batch_minor import forward_derivatives as bm_fdd
from jaxbody.algorithms.batch_minor import forward_dynamics as bm_fd
from jaxbody.algorithms.batch_minor import inverse_dynamics as bm_id
from jaxbody.algorithms.batch_minor import mass_inverse as bm_minv
from jaxbody.algorithms.batch_minor import rnea_derivatives as bm_rd
from jaxbody.algorithms.dynamics_kinematics import dynamics_kinematics
from jaxbody.algorithms.spatial import wrench_about_origin
from jaxbody.math.cholesky import spd_solve

CHUNKS = {"cpu": 32}  # members per batch-minor chunk by platform (absent: the whole batch). CPU:
# one core, float64, measured best or tied for ABA, CRBA and the RNEA derivatives on panda (ABA
# 3.5 against 6.1 µs per sample at 64), go1 and G1


MIN_BATCH = 8  # members from which `jax.vmap` runs the batch-minor kernel; below, the reference.
# go1, float64, one core (µs per call, kernel / vmapped reference): B = 1 M 125/92, v̇ 221/152;
# B = 4 M 208/302, v̇ 245/286; B = 8 M 228/378, v̇ 273/444; B = 32 M 547/1169, v̇ 399/1291


def set_min_batch(members):
    """Sets `MIN_BATCH` (1: every vmap runs the batch-minor kernel) for the functions traced
    from now on; returns the previous value."""
    global MIN_BATCH
    if not isinstance(members, (int, np.integer)) or isinstance(members, bool) or members < 1:
        raise ValueError(f"set_min_batch: members must be an int >= 1; got {members!r}")
    old, MIN_BATCH = MIN_BATCH, int(members)
    _function.cache_clear()
    return old


def chunk_size():
    """Members per chunk (None: the whole batch) on the platform being traced for: the default
    device's (``jax.default_device``), else the default backend's."""
    device = jax.config.jax_default_device
    if isinstance(device, str):
        platform = device
    elif device is not None:
        platform = device.platform
    else:
        platform = jax.default_backend()
    return CHUNKS.get(platform)


def set_chunk(platform, members):
    """Sets the chunk on ``platform`` ("cpu", "gpu", ...) to ``members`` (0 or None: the whole
    batch) for the functions traced from now on; returns the previous value."""
    if members is not None and (not isinstance(members, (int, np.integer)) or members < 0):
        raise ValueError(f"set_chunk: members must be a positive int, or 0 or None for the "
                         f"whole batch; got {members!r}")
    old = CHUNKS.pop(platform, None)
    if members:
        CHUNKS[platform] = int(members)
    _function.cache_clear()
    return old


class _ParamView(NamedTuple):
    """The subset of `Parameters` that `dynamics_kinematics` reads (a pytree)."""

    mass: jax.Array
    com: jax.Array
    unit_inertia: jax.Array
    frame_R: jax.Array
    frame_p: jax.Array


def _applied(topo, dk, F_Bo_W):
    return None if F_Bo_W is None else wrench_about_origin(F_Bo_W[topo.node_body],
                                                           dk.pk.p_WB)


# ---- per-sample references ------------------------------------------------------------------
def _fd_reference(topo, q, v, tau, refl, F_Bo_W, mass, com, unit_inertia, frame_R, frame_p,
                  gravity):
    dk = dynamics_kinematics(topo, q, v, _ParamView(mass, com, unit_inertia, frame_R, frame_p))
    return aba.forward_dynamics(topo, dk, tau, gravity, _applied(topo, dk, F_Bo_W), refl)


def _id_reference(topo, q, v, vdot, F_Bo_W, mass, com, unit_inertia, frame_R, frame_p):
    dk = dynamics_kinematics(topo, q, v, _ParamView(mass, com, unit_inertia, frame_R, frame_p))
    return rnea.inverse_dynamics(topo, dk, vdot, _applied(topo, dk, F_Bo_W))


def _crba_reference(topo, q, mass, com, unit_inertia, frame_R, frame_p):
    v = jnp.zeros(topo.nv, q.dtype)
    dk = dynamics_kinematics(topo, q, v, _ParamView(mass, com, unit_inertia, frame_R, frame_p))
    return crba.mass_matrix(topo, dk)


def _minv_reference(topo, q, refl, mass, com, unit_inertia, frame_R, frame_p):
    M = _crba_reference(topo, q, mass, com, unit_inertia, frame_R, frame_p)
    M = M if refl is None else M + jnp.diag(refl)
    return spd_solve(M, jnp.eye(topo.nv, dtype=M.dtype))


def _idd_reference(topo, q, v, vdot, F_Bo_W, mass, com, unit_inertia, frame_R, frame_p,
                   gravity):
    dk = dynamics_kinematics(topo, q, v, _ParamView(mass, com, unit_inertia, frame_R, frame_p))
    F = None if F_Bo_W is None else F_Bo_W[topo.node_body]
    Dd, Dv = rnea_derivatives.inverse_dynamics_derivatives(topo, dk, v, vdot, gravity, None, F)
    return Dd @ rnea_derivatives.joint_delta_map(topo, q, Dd.dtype), Dv


def _fdd_reference(topo, q, v, tau, refl, F_Bo_W, mass, com, unit_inertia, frame_R, frame_p,
                   gravity):
    params = (mass, com, unit_inertia, frame_R, frame_p)
    vdot = _fd_reference(topo, q, v, tau, refl, F_Bo_W, *params, gravity)
    Dq, Dv = _idd_reference(topo, q, v, vdot, F_Bo_W, *params, gravity)
    return vdot, Dq, Dv, _minv_reference(topo, q, refl, *params)


def _sd_reference(topo, q, v, vdot, refl, F_Bo_W, mass, com, unit_inertia, frame_R, frame_p,
                  gravity):
    params = (mass, com, unit_inertia, frame_R, frame_p)
    Dq, Dv = _idd_reference(topo, q, v, vdot, F_Bo_W, *params, gravity)
    return Dq, Dv, _minv_reference(topo, q, refl, *params)


# ---- batch-minor kernels, in per-sample argument order ------------------------------------
def _fd_kernel(topo, q, v, tau, refl, F, mass, com, unit_inertia, frame_R, frame_p, gravity):
    return bm_fd.forward_dynamics(topo, q, v, tau, mass, com, unit_inertia, frame_R, frame_p,
                                  gravity, refl, F)


def _id_kernel(topo, q, v, vdot, F, mass, com, unit_inertia, frame_R, frame_p):
    return bm_id.inverse_dynamics(topo, q, v, vdot, mass, com, unit_inertia, frame_R, frame_p,
                                  F)


def _crba_kernel(topo, q, mass, com, unit_inertia, frame_R, frame_p):
    return bm_id.mass_matrix(topo, q, mass, com, unit_inertia, frame_R, frame_p)


def _minv_kernel(topo, q, refl, mass, com, unit_inertia, frame_R, frame_p):
    M = bm_id.mass_matrix(topo, q, mass, com, unit_inertia, frame_R, frame_p)
    if refl is not None:  # (nv, B or 1)
        M = M + jnp.asarray(np.eye(topo.nv)[:, :, None], M.dtype) * refl[None]
    return bm_minv.inverse(topo, M)


def _fdd_kernel(topo, q, v, tau, refl, F, mass, com, unit_inertia, frame_R, frame_p, gravity):
    return bm_fdd.forward_dynamics_derivatives(topo, q, v, tau, mass, com, unit_inertia,
                                               frame_R, frame_p, gravity, refl, F)


def _sd_kernel(topo, q, v, vdot, refl, F, mass, com, unit_inertia, frame_R, frame_p, gravity):
    return bm_fdd.state_derivatives(topo, q, v, vdot, mass, com, unit_inertia, frame_R,
                                    frame_p, gravity, refl, F)


def _idd_kernel(topo, q, v, vdot, F, mass, com, unit_inertia, frame_R, frame_p, gravity):
    return bm_rd.inverse_dynamics_derivatives(topo, q, v, vdot, mass, com, unit_inertia,
                                              frame_R, frame_p, gravity, F)


_FUNCTIONS = {  # name -> (reference, kernel, number of per-member arguments)
    "forward_dynamics": (_fd_reference, _fd_kernel, 3),
    "inverse_dynamics": (_id_reference, _id_kernel, 3),
    "mass_matrix": (_crba_reference, _crba_kernel, 1),
    "mass_matrix_inverse": (_minv_reference, _minv_kernel, 1),
    "inverse_dynamics_derivatives": (_idd_reference, _idd_kernel, 3),
    "forward_dynamics_derivatives": (_fdd_reference, _fdd_kernel, 3),
    "state_derivatives": (_sd_reference, _sd_kernel, 3),
}


# ---- the vmap rule --------------------------------------------------------------------------
def _to_batch_minor(x, batched):
    """One argument in batch-minor layout: per-sample (n, c...) -> (c..., n, B) (B = 1 for an
    unbatched argument); per-sample (n,) -> (n, B)."""
    if not batched:
        x = x[None]
    x = jnp.moveaxis(x, 0, -1)  # batch last
    if x.ndim >= 3:
        x = jnp.moveaxis(x, 0, -2)  # node axis just before the batch
    return x


def _from_batch_minor(out):
    """(..., B) -> (B, ...), for an array or a tuple of arrays."""
    return jax.tree_util.tree_map(lambda x: jnp.moveaxis(x, -1, 0), out)


def _chunked(kernel, args, batched, size):
    """``kernel`` on ``args`` (per-sample layout, batched ones with a leading axis of ``size``),
    in chunks of `chunk_size()` members; returns (size, ...)."""
    chunk = chunk_size()
    if chunk is None or size <= chunk:
        return _from_batch_minor(kernel(*[None if a is None else _to_batch_minor(a, b)
                                          for a, b in zip(args, batched)]))
    chunks = -(-size // chunk)
    padded = chunks * chunk

    def split(a):
        a = jnp.concatenate([a, jnp.broadcast_to(a[:1], (padded - size,) + a.shape[1:])])
        return a.reshape((chunks, chunk) + a.shape[1:])

    stacked = [split(a) for a, b in zip(args, batched) if a is not None and b]

    def one(xs):
        it = iter(xs)
        return kernel(*[None if a is None else _to_batch_minor(next(it) if b else a, b)
                        for a, b in zip(args, batched)])

    def unchunk(out):  # (chunks, ..., CHUNK) -> (size, ...)
        out = jnp.moveaxis(out, -1, 1)
        return out.reshape((padded,) + out.shape[2:])[:size]

    return jax.tree_util.tree_map(unchunk, jax.lax.map(one, stacked))


@functools.lru_cache(maxsize=128)
def _function(name, topo, present):
    """The custom_jvp(custom_vmap) function of ``name`` for ``topo``; ``present[i]`` says
    whether argument i is given (absent ones are None and not passed)."""
    reference, kernel, num_member = _FUNCTIONS[name]

    def full(args):
        it = iter(args)
        return [next(it) if p else None for p in present]

    def ref(*args):
        return reference(topo, *full(args))

    @jax.custom_batching.custom_vmap
    def f(*args):
        return ref(*args)

    @f.def_vmap
    def f_vmap(axis_size, in_batched, *args):
        if axis_size < MIN_BATCH:  # a small batch: the reference, vmapped
            out = jax.vmap(ref, in_axes=[0 if b else None for b in in_batched])(*args)
            return out, jax.tree_util.tree_map(lambda _: True, out)
        args, batched = full(args), full(in_batched)
        for i in range(num_member):  # every member needs its own state and inputs
            if args[i] is not None and not batched[i]:
                args[i] = jnp.broadcast_to(args[i], (axis_size,) + args[i].shape)
                batched[i] = True
        out = _chunked(functools.partial(kernel, topo), args, batched, axis_size)
        return out, jax.tree_util.tree_map(lambda _: True, out)

    @jax.custom_jvp
    def f_jvp(*args):
        return f(*args)

    @f_jvp.defjvp
    def _(primals, tangents):
        return jax.jvp(ref, primals, tangents)

    return f_jvp


def _call(name, topo, *args):
    present = tuple(a is not None for a in args)
    return _function(name, topo, present)(*[a for a in args if a is not None])


def forward_dynamics(topo, q, v, tau, refl, F_Bo_W, mass, com, unit_inertia, frame_R,
                     frame_p, gravity):
    """v̇ (nv,) of one sample by ABA. F_Bo_W: (num_bodies, 6) applied forces, or None."""
    return _call("forward_dynamics", topo, q, v, tau, refl, F_Bo_W, mass, com, unit_inertia,
                 frame_R, frame_p, gravity)


def inverse_dynamics(topo, q, v, vdot, F_Bo_W, mass, com, unit_inertia, frame_R, frame_p):
    """M v̇ + C v − Σ Jᵀ F_app (nv,) of one sample by RNEA (no gravity, no reflected
    inertia). F_Bo_W: (num_bodies, 6) applied forces, or None."""
    return _call("inverse_dynamics", topo, q, v, vdot, F_Bo_W, mass, com, unit_inertia,
                 frame_R, frame_p)


def mass_matrix(topo, q, mass, com, unit_inertia, frame_R, frame_p):
    """M(q) (nv, nv) of one sample by CRBA (no reflected inertia)."""
    return _call("mass_matrix", topo, q, mass, com, unit_inertia, frame_R, frame_p)


def mass_matrix_inverse(topo, q, refl, mass, com, unit_inertia, frame_R, frame_p):
    """(M(q) + diag(refl))⁻¹ (nv, nv) of one sample (refl: (nv,) reflected inertia, or
    None); under `jax.vmap` by the tree's sparse LᵀDL factorization (`mass_inverse.py`)."""
    return _call("mass_matrix_inverse", topo, q, refl, mass, com, unit_inertia, frame_R,
                 frame_p)


def inverse_dynamics_derivatives(topo, q, v, vdot, F_Bo_W, mass, com, unit_inertia, frame_R,
                                 frame_p, gravity):
    """(∂τ/∂q (nv, nq), ∂τ/∂v (nv, nv)) of one sample, τ = ID(q, v, v̇) − τ_g(q) − Σ Jᵀ F
    (`rnea_derivatives.py`); gravity: (3,) acting on every body, or None (no gravity term).
    F_Bo_W: (num_bodies, 6) applied forces, or None."""
    return _call("inverse_dynamics_derivatives", topo, q, v, vdot, F_Bo_W, mass, com,
                 unit_inertia, frame_R, frame_p, gravity)


def forward_dynamics_derivatives(topo, q, v, tau, refl, F_Bo_W, mass, com, unit_inertia,
                                 frame_R, frame_p, gravity):
    """(v̇ (nv,), ∂τ/∂q (nv, nq), ∂τ/∂v (nv, nv), (M + diag(refl))⁻¹ (nv, nv)) of one sample:
    `forward_dynamics`, then `inverse_dynamics_derivatives` at the v̇ found and
    `mass_matrix_inverse`; under `jax.vmap` one batch-minor kernel whose three parts share
    the kinematics (`forward_derivatives.py`)."""
    return _call("forward_dynamics_derivatives", topo, q, v, tau, refl, F_Bo_W, mass, com,
                 unit_inertia, frame_R, frame_p, gravity)


def state_derivatives(topo, q, v, vdot, refl, F_Bo_W, mass, com, unit_inertia, frame_R,
                      frame_p, gravity):
    """(∂τ/∂q (nv, nq), ∂τ/∂v (nv, nv), (M + diag(refl))⁻¹ (nv, nv)) of one sample at a known
    v̇: `inverse_dynamics_derivatives` and `mass_matrix_inverse`, sharing the kinematics under
    `jax.vmap`."""
    return _call("state_derivatives", topo, q, v, vdot, refl, F_Bo_W, mass, com, unit_inertia,
                 frame_R, frame_p, gravity)
