"""The batched SAP step and a batched contact rollout lower for a GPU (CUDA) with no host
callbacks and no CPU-only custom calls (no GPU is needed to lower): on 8 free spheres with the
Newton systems solved by conjugate gradients (``linear_solver="pcg"``, no factorization at all;
"auto" factors so small a plant densely) and on the quadruped ("auto": a dense Cholesky,
cuSOLVER's on the GPU, LAPACK's on the CPU)."""

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


@pytest.mark.parametrize("name,linear_solver", [("spheres8", "pcg"), ("quadruped", "auto")])
def test_batched_step_and_rollout_lower_for_cuda(name, linear_solver):
    scene = SCENES[name]()
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx0 = plant.CreateDefaultContext()

    u = np.zeros(plant.num_actuators())
    solver = jb.SapSolverParameters(linear_solver=linear_solver)

    def step(q, v):
        ctx = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        return plant.CalcDiscreteStep(ctx, u, solver_parameters=solver).context.v

    def rollout(q, v):
        ctx = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        controls = jnp.zeros((3, plant.num_actuators()))
        return jb.discrete_rollout(plant, ctx, None, 3, controls=controls,
                                   save_trajectory=False, solver_parameters=solver).final_state

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
            # A dense Cholesky, or none (conjugate gradients).
            assert any(c.startswith(factor) for c in calls) == (linear_solver != "pcg"), calls
