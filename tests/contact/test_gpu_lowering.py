"""The batched SAP step and a batched contact rollout lower for a GPU (CUDA) with no host
callbacks and no CPU-only custom calls (no GPU is needed to lower): on 8 free spheres (several
trees: the Newton systems are solved by conjugate gradients, with no factorization at all) and
on the quadruped (one tree: a dense Cholesky, cuSOLVER's on the GPU, LAPACK's on the CPU)."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export

import jaxbody as jb
from benchmarks.contact_scenes import SCENES, build, initial_state


def _custom_calls(text):
    return set(re.findall(r"custom_call @([\w.]+)", text))


@pytest.mark.parametrize("name", ["spheres8", "quadruped"])
def test_batched_step_and_rollout_lower_for_cuda(name):
    scene = SCENES[name]()
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx0 = plant.CreateDefaultContext()

    u = np.zeros(plant.num_actuators())

    def step(q, v):
        ctx = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        return plant.CalcDiscreteStep(ctx, u).context.v

    def rollout(q, v):
        ctx = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        controls = jnp.zeros((3, plant.num_actuators()))
        return jb.discrete_rollout(plant, ctx, None, 3, controls=controls,
                                   save_trajectory=False).final_state

    q = jax.ShapeDtypeStruct((4, np.size(q0)), jnp.float64)
    v = jax.ShapeDtypeStruct((4, np.size(v0)), jnp.float64)
    for fn in (step, rollout):
        for platforms in (("cuda",), ("cpu",)):
            text = export.export(jax.jit(jax.vmap(fn)), platforms=platforms)(q, v).mlir_module()
            calls = _custom_calls(text)
            assert not any("callback" in c for c in calls), calls
            factor = "cusolver_potrf" if platforms == ("cuda",) else "lapack_dpotrf"
            if platforms == ("cuda",):
                assert not any(c.startswith("lapack") for c in calls), calls
            # One tree: a dense Cholesky; several trees: none (conjugate gradients).
            assert any(c.startswith(factor) for c in calls) == (name == "quadruped"), calls
