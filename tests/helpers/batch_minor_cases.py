"""Random-tree cases shared by the batch-minor tests: a plant, a batch of 8 random states,
inputs and applied forces, the parameters and the per-sample forward-dynamics reference."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import tests.helpers.random_trees as rt
from jaxbody.algorithms.batch_minor import dispatch
from jaxbody.engine.forces import reflected_inertia

KIND_SETS = {
    "drake": rt.DRAKE_KINDS,
    "simbody": ("ball", "cylindrical", "translational", "revolute", "quaternion_floating",
                "gimbal", "bend_stretch"),
}


def rel(a, b):
    """max |a − b| relative to max(1, max |b|)."""
    return float(jnp.abs(a - b).max()) / max(1.0, float(jnp.abs(b).max()))


def small_chunks():
    """(A fixture body.) Chunks of 3 members, so that a batch of 8 runs three chunks, the last
    one padded, and the kernel at every batch size (`dispatch.MIN_BATCH` = 1); the dispatcher's
    compiled functions are rebuilt before and after."""
    old = dispatch.set_chunk(jax.default_backend(), 3)
    old_min = dispatch.set_min_batch(1)
    yield
    dispatch.set_chunk(jax.default_backend(), old)
    dispatch.set_min_batch(old_min)


def kernel_at_every_batch():
    """(A fixture body.) `jax.vmap` runs the batch-minor kernel whatever the batch's size."""
    old = dispatch.set_min_batch(1)
    yield
    dispatch.set_min_batch(old)


@functools.cache
def case(kinds, seed, num_bodies=6):
    rng = np.random.default_rng(300 + seed)
    plant = rt.build_jaxbody(rt.random_tree(rng, num_bodies, kinds=KIND_SETS[kinds],
                                            free_fraction=0.2))
    B = 8
    states = [rt.random_state(rng, plant) for _ in range(B)]
    Q = jnp.asarray(np.stack([s[0] for s in states]))
    V = jnp.asarray(np.stack([s[1] for s in states]))
    T = jnp.asarray(rng.standard_normal(V.shape))
    F = jnp.asarray(rng.standard_normal((B, plant.num_bodies(), 6)))
    ctx = plant.CreateDefaultContext(jnp.float64)
    P = ctx.parameters
    topo = plant._topology
    rest = (P.mass, P.com, P.unit_inertia, P.frame_R, P.frame_p, P.gravity)
    refl = reflected_inertia(plant.compiled_model(), ctx)

    def fast(q, v, t, f):
        return dispatch.forward_dynamics(topo, q, v, t, refl, f, *rest)

    def ref(q, v, t, f):
        return dispatch._fd_reference(topo, q, v, t, refl, f, *rest)

    expected = jax.jit(jax.vmap(ref))(Q, V, T, F)
    return dict(plant=plant, ctx=ctx, Q=Q, V=V, T=T, F=F, fast=fast, ref=ref,
                expected=expected, rest=rest, refl=refl, topo=topo)
