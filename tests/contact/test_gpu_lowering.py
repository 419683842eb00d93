"""The batched SAP step and a batched contact rollout lower for a GPU (CUDA) with no host
callbacks and no CPU-only custom calls (no GPU is needed to lower)."""

import re

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

import jaxbody as jb
from benchmarks.contact_scenes import SCENES, build, initial_state


def _custom_calls(text):
    return set(re.findall(r"custom_call @([\w.]+)", text))


def test_batched_step_and_rollout_lower_for_cuda():
    scene = SCENES["spheres8"]()
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx0 = plant.CreateDefaultContext()

    def step(q, v):
        ctx = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        return plant.CalcDiscreteStep(ctx).context.v

    def rollout(q, v):
        ctx = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        return jb.discrete_rollout(plant, ctx, None, 3, save_trajectory=False).final_state

    q = jax.ShapeDtypeStruct((4, np.size(q0)), jnp.float64)
    v = jax.ShapeDtypeStruct((4, np.size(v0)), jnp.float64)
    for fn in (step, rollout):
        for platforms in (("cuda",), ("cpu",)):
            text = export.export(jax.jit(jax.vmap(fn)), platforms=platforms)(q, v).mlir_module()
            calls = _custom_calls(text)
            assert not any("callback" in c for c in calls), calls
            if platforms == ("cuda",):
                assert not any(c.startswith("lapack") for c in calls), calls
                assert any(c.startswith("cusolver_potrf") for c in calls), calls
            else:
                assert any(c.startswith("lapack_dpotrf") for c in calls), calls
