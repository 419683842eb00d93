"""jaxbody's analytic inverse-dynamics derivatives against Pinocchio's
``computeRNEADerivatives``, and the (q, v) Jacobian of forward dynamics against
``computeABADerivatives``, on fixed-base robots from example-robot-data (for fixed-base revolute
robots Drake's velocity coordinates and Pinocchio's tangent coincide up to a permutation), per
sample and under `jax.vmap` (the batch-minor kernels)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.engine.dynamics import inverse_dynamics_state_jacobians

pin = pytest.importorskip("pinocchio")
pytest.importorskip("pydrake")

from benchmarks import models, urdf_models  # noqa: E402
from tests.helpers.batch_minor_cases import kernel_at_every_batch  # noqa: E402

REL_TOL = 1e-10
# Batches of 2 and 3 run the batch-minor kernels here, as large batches do (not the vmapped
# reference that small batches take by default).
kernel_at_every_batch = pytest.fixture(scope="module", autouse=True)(kernel_at_every_batch)


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_rnea_derivatives_equal_pinocchio(name):
    try:
        engines, _ = urdf_models.build(name)
    except urdf_models.Unavailable as e:
        pytest.skip(str(e))
    plant, model = engines.jaxbody[0], engines.pinocchio
    rng = np.random.default_rng(7)
    q = models.random_q(engines, rng, 2)
    v, vdot = (rng.normal(size=(2, engines.nv)) for _ in range(2))
    ctx0 = plant.CreateDefaultContext(jnp.float64)

    def ours(q, v, vd):
        ctx = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        return inverse_dynamics_state_jacobians(plant.compiled_model(), ctx, vd, True)

    args = [jnp.asarray(a) for a in (q, v, vdot)]
    batched = jax.jit(jax.vmap(ours))(*args)
    conv = models.PinocchioCoordinates(engines, q)
    data = model.createData()
    for k in range(2):
        T = conv.T[k]
        pin.computeRNEADerivatives(model, data, conv.q[k], conv.v(v)[k], conv.v(vdot)[k])
        for Dq, Dv in (jax.jit(ours)(*(a[k] for a in args)), (batched[0][k], batched[1][k])):
            Dq, Dv = np.asarray(Dq), np.asarray(Dv)
            for got, want in ((T @ Dq @ T.T, data.dtau_dq), (T @ Dv @ T.T, data.dtau_dv)):
                err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
                assert err < REL_TOL, f"{name}: relative error {err:.2e}"


def test_forward_dynamics_jacobian_under_vmap_equals_pinocchio_aba_derivatives():
    """`jax.vmap(jax.jacfwd(CalcGeneralizedAccelerations))` on the panda (gravity, joint
    torques) against ``computeABADerivatives`` (whose ABA leaves out the URDF's joint damping:
    set to 0 here)."""
    engines, _ = urdf_models.build("panda")
    plant, model = engines.jaxbody[0], engines.pinocchio
    rng = np.random.default_rng(8)
    q = models.random_q(engines, rng, 3)
    v, tau = (rng.normal(size=(3, engines.nv)) for _ in range(2))
    ctx0 = plant.CreateDefaultContext(jnp.float64)
    for j in plant.GetJointIndices():
        joint = plant.get_joint(j)
        if joint.num_velocities():
            ctx0 = joint.SetDampingVector(ctx0, np.zeros(joint.num_velocities()))

    def accel(q, v, tau):
        ctx = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        return plant.CalcGeneralizedAccelerations(ctx, applied_forces=jb.MultibodyForces(plant, tau))

    dq, dv = jax.jit(jax.vmap(jax.jacfwd(accel, argnums=(0, 1))))(
        *(jnp.asarray(a) for a in (q, v, tau)))
    conv = models.PinocchioCoordinates(engines, q)
    data = model.createData()
    for k in range(3):
        T = conv.T[k]
        pin.computeABADerivatives(model, data, conv.q[k], conv.v(v)[k], conv.v(tau)[k])
        for got, want in ((T @ np.asarray(dq[k]) @ T.T, data.ddq_dq),
                          (T @ np.asarray(dv[k]) @ T.T, data.ddq_dv)):
            err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
            assert err < REL_TOL, f"relative error {err:.2e}"
