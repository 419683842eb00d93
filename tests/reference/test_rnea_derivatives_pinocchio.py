"""jaxbody's analytic inverse-dynamics derivatives against Pinocchio's
``computeRNEADerivatives`` on fixed-base robots from example-robot-data (for fixed-base revolute
robots Drake's velocity coordinates and Pinocchio's tangent coincide up to a permutation)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
pytest.importorskip("pydrake")

from benchmarks import models, urdf_models  # noqa: E402

REL_TOL = 1e-10


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

    @jax.jit
    def ours(q, v, vd):
        ctx = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        return plant._inverse_dynamics_state_jacobians(ctx, vd, "test", True)

    conv = models.PinocchioCoordinates(engines, q)
    data = model.createData()
    for k in range(2):
        Dq, Dv = (np.asarray(x) for x in ours(*(jnp.asarray(a[k]) for a in (q, v, vdot))))
        T = conv.T[k]
        pin.computeRNEADerivatives(model, data, conv.q[k], conv.v(v)[k], conv.v(vdot)[k])
        for got, want in ((T @ Dq @ T.T, data.dtau_dq), (T @ Dv @ T.T, data.dtau_dv)):
            err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
            assert err < REL_TOL, f"{name}: relative error {err:.2e}"
