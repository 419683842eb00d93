"""Cross-check of the dynamics against pydrake: M, C v, τ_g, inverse dynamics with applied
forces, forward dynamics (ABA and CRBA), the implicit residual, energies and power, on random
trees of 6 to 40 bodies mixing every Drake joint kind, with actuators' reflected inertia."""

import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("pydrake")

from pydrake.multibody.math import SpatialForce as DrakeSpatialForce  # noqa: E402
from pydrake.multibody.tree import MultibodyForces as DrakeMultibodyForces  # noqa: E402

import jaxbody as jb  # noqa: E402
from tests.helpers.random_trees import (  # noqa: E402
    build_drake,
    build_jaxbody,
    random_state,
    random_tree,
)

REL_TOL = 1e-10


def _close(a, b, tol=REL_TOL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    err = np.abs(a - b).max(initial=0.0) / max(1.0, np.abs(b).max(initial=0.0))
    assert err < tol, f"relative error {err:.3e} >= {tol:.1e}"


@pytest.fixture(scope="module", params=[(6, 0.0, 0), (20, 0.1, 1), (40, 0.1, 2)],
                ids=["6-fixed", "20-mixed", "40-mixed"])
def case(request):
    n, free, seed = request.param
    rng = np.random.default_rng(200 + seed)
    spec = random_tree(rng, n, free_fraction=free)
    if free == 0.0:
        for js in spec.joints:
            if js.parent == 0 and js.kind in ("rpy_floating", "quaternion_floating"):
                js.kind = "revolute"
    pj, pd = build_jaxbody(spec), build_drake(spec)
    q, v = random_state(rng, pj)
    cj = pj.SetVelocities(pj.SetPositions(pj.CreateDefaultContext(), jnp.asarray(q)),
                          jnp.asarray(v))
    cd = pd.CreateDefaultContext()
    pd.SetPositions(cd, q)
    pd.SetVelocities(cd, v)
    return pj, pd, cj, cd, rng


def _forces(pj, pd, cd, rng):
    tau = rng.normal(size=pj.num_velocities())
    F = rng.normal(size=(pj.num_bodies(), 6))
    fd = DrakeMultibodyForces(pd)
    fd.mutable_generalized_forces()[:] = tau
    fj = jb.MultibodyForces(pj, jnp.asarray(tau))
    for b in pj._bodies[1:]:
        i = int(b.index())
        pd.GetBodyByName(b.name()).AddInForceInWorld(cd, DrakeSpatialForce(F[i, :3], F[i, 3:]), fd)
        fj = fj.AddInForceInWorld(b, jb.SpatialForce(F[i, :3], F[i, 3:]))
    return fj, fd


def test_mass_matrix_bias_gravity(case):
    pj, pd, cj, cd, _ = case
    M = pd.CalcMassMatrix(cd)
    _close(pj.CalcMassMatrix(cj), M)
    _close(pj.CalcMassMatrixViaInverseDynamics(cj), M)
    _close(pj.CalcBiasTerm(cj), pd.CalcBiasTerm(cd))
    _close(pj.CalcGravityGeneralizedForces(cj), pd.CalcGravityGeneralizedForces(cd))


def test_inverse_dynamics_and_generalized_forces(case):
    pj, pd, cj, cd, rng = case
    fj, fd = _forces(pj, pd, cd, rng)
    vdot = rng.normal(size=pj.num_velocities())
    _close(pj.CalcInverseDynamics(cj, jnp.asarray(vdot), fj), pd.CalcInverseDynamics(cd, vdot, fd))
    _close(pj.CalcGeneralizedForces(cj, fj), pd.CalcGeneralizedForces(cd, fd))


def test_forward_dynamics_and_residual(case):
    pj, pd, cj, cd, rng = case
    u = rng.normal(size=pj.num_actuators())
    pd.get_actuation_input_port().FixValue(cd, u)
    xd = pd.AllocateTimeDerivatives()
    pd.CalcTimeDerivatives(cd, xd)
    xdot = xd.CopyToVector()
    nq = pj.num_positions()
    for method in ("aba", "crba"):
        _close(pj.CalcGeneralizedAccelerations(cj, jnp.asarray(u), method=method), xdot[nq:])
    _close(pj.CalcTimeDerivatives(cj, jnp.asarray(u)), xdot)
    proposed = xdot + rng.normal(size=xdot.shape)
    xs = pd.AllocateTimeDerivatives()
    xs.SetFromVector(proposed)
    r = pd.AllocateImplicitTimeDerivativesResidual()
    pd.CalcImplicitTimeDerivativesResidual(cd, xs, r)
    _close(pj.CalcImplicitTimeDerivativesResidual(cj, jnp.asarray(proposed), jnp.asarray(u)), r)


def test_body_spatial_accelerations(case):
    """EvalBodySpatialAccelerationInWorld under an actuation input equals Drake's."""
    pj, pd, cj, cd, rng = case
    u = rng.normal(size=pj.num_actuators())
    pd.get_actuation_input_port().FixValue(cd, u)
    b = pj._bodies[-1]  # the deepest body: every joint's acceleration reaches it
    A = pj.EvalBodySpatialAccelerationInWorld(cj, b, jnp.asarray(u))
    Ad = pd.EvalBodySpatialAccelerationInWorld(cd, pd.GetBodyByName(b.name()))
    _close(A.get_coeffs(), Ad.get_coeffs())


def test_energy_and_power(case):
    pj, pd, cj, cd, _ = case
    _close(pj.CalcKineticEnergy(cj), pd.CalcKineticEnergy(cd))
    _close(pj.CalcPotentialEnergy(cj), pd.CalcPotentialEnergy(cd))
    _close(pj.CalcConservativePower(cj), pd.CalcConservativePower(cd))
    _close(pj.CalcNonConservativePower(cj), pd.CalcNonConservativePower(cd))


def test_actuation_matrices(case):
    pj, pd, _, _, _ = case
    _close(pj.MakeActuationMatrix(), pd.MakeActuationMatrix())
    joints = [j.index() for j in pj._joints[:3]]
    from pydrake.multibody.tree import JointIndex as DJ
    _close(pj.MakeStateSelectorMatrix(joints), pd.MakeStateSelectorMatrix([DJ(int(j)) for j in joints]))
    if pj.num_actuators() >= 2:
        from pydrake.multibody.tree import JointActuatorIndex as DA
        sel = [jb.JointActuatorIndex(1), jb.JointActuatorIndex(0)]
        _close(pj.MakeActuatorSelectorMatrix(sel),
               pd.MakeActuatorSelectorMatrix([DA(1), DA(0)]))
