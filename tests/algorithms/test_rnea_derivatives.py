"""Analytic inverse-dynamics derivatives (`algorithms/rnea_derivatives.py`).

Four ways: the joint kinds' ``moves`` relations reproduce the kinematics' bias accelerations (an
identity), the q-to-δ map equals N⁺(q) (an identity), ∂τ/∂q and ∂τ/∂v equal forward-mode autodiff
through the per-sample RNEA on random trees of every joint kind with gravity (some bodies
excluded) and applied body forces, and on fixed-base robots they equal Pinocchio's
``computeRNEADerivatives``.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tests.helpers.random_trees as rt
from jaxbody.algorithms import energy, rnea
from jaxbody.algorithms import rnea_derivatives as rd
from jaxbody.algorithms.dynamics_kinematics import dynamics_kinematics, path_sum, per_node
from jaxbody.algorithms.spatial import wrench_about_origin
from jaxbody.engine import forces as fo

KIND_SETS = {
    "drake": rt.DRAKE_KINDS,
    "simbody": ("ball", "cylindrical", "translational", "revolute", "quaternion_floating",
                "gimbal", "bend_stretch"),
}
CASES = [(k, seed) for k in KIND_SETS for seed in range(2)]
TOL = 1e-12  # relative to the largest entry


def _case(kinds, seed):
    rng = np.random.default_rng(100 + seed)
    plant = rt.build_jaxbody(rt.random_tree(rng, 7, kinds=KIND_SETS[kinds], free_fraction=0.2))
    q, v = (jnp.asarray(x) for x in rt.random_state(rng, plant))
    topo = plant._topology
    return plant, topo, q, v, rng


def _rel(a, b):
    return float(jnp.abs(a - b).max()) / max(1.0, float(jnp.abs(b).max()))


@pytest.mark.parametrize("kinds, seed", CASES)
def test_column_rates_reproduce_bias_accelerations(kinds, seed):
    """Σ_{k ⪯ b} Ṡ_k v_k with Ṡ_k = W_k × S_k (from ``moves``) is the kinematics' Ab_b."""
    plant, topo, q, v, _ = _case(kinds, seed)
    P = plant.CreateDefaultContext().parameters

    @jax.jit  # compiled: faster than running the small operations one by one
    def both(q, v):
        dk = dynamics_kinematics(topo, q, v, P)
        _, Sdot = rd.column_rates(topo, dk, v)
        return path_sum(topo, per_node(topo, Sdot * v[:, None])), dk.Ab_O

    Ab, Ab_O = both(q, v)
    assert _rel(Ab, Ab_O) < TOL


@pytest.mark.parametrize("kinds, seed", CASES)
def test_delta_map_is_Nplus(kinds, seed):
    plant, topo, q, _, _ = _case(kinds, seed)
    ctx = plant.SetPositions(plant.CreateDefaultContext(), q)
    got = jax.jit(lambda q: rd.joint_delta_map(topo, q, q.dtype))(q)  # compiled: faster than eager
    np.testing.assert_allclose(got, plant.MakeQDotToVelocityMap(ctx), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kinds, seed", CASES)
def test_derivatives_equal_autodiff(kinds, seed):
    plant, topo, q, v, rng = _case(kinds, seed)
    P = plant.CreateDefaultContext().parameters
    vdot = jnp.asarray(rng.normal(size=topo.nv))
    F_Bo = jnp.asarray(rng.normal(size=(topo.num_nodes, 6)))
    mask = (rng.uniform(size=topo.num_nodes) > 0.3).astype(float)  # gravity off for some bodies
    gP = dataclasses.replace(P, mass=P.mass * jnp.asarray(mask[topo.body_node]))

    @jax.jit
    def tau(q, v):
        dk = dynamics_kinematics(topo, q, v, P)
        gk = dynamics_kinematics(topo, q, v, gP)
        return (rnea.inverse_dynamics(topo, dk, vdot, wrench_about_origin(F_Bo, dk.pk.p_WB))
                - energy.gravity_generalized_forces(topo, gk, gP))

    @jax.jit
    def analytic(q, v):
        dk = dynamics_kinematics(topo, q, v, P)
        Dd, Dv = rd.inverse_dynamics_derivatives(topo, dk, v, vdot, P.gravity, mask, F_Bo)
        return Dd @ rd.joint_delta_map(topo, q, q.dtype), Dv

    want_q, want_v = jax.jacfwd(tau, argnums=(0, 1))(q, v)
    got_q, got_v = analytic(q, v)
    assert _rel(got_q, want_q) < TOL
    assert _rel(got_v, want_v) < TOL


def test_without_gravity_or_forces_is_plain_inverse_dynamics():
    plant, topo, q, v, rng = _case("drake", 0)
    P = plant.CreateDefaultContext().parameters
    vdot = jnp.asarray(rng.normal(size=topo.nv))

    def tau(q, v):
        return rnea.inverse_dynamics(topo, dynamics_kinematics(topo, q, v, P), vdot)

    @jax.jit  # both in one compiled function: faster than eager
    def both(q, v):
        Dd, Dv = rd.inverse_dynamics_derivatives(topo, dynamics_kinematics(topo, q, v, P), v, vdot)
        return (Dd @ rd.joint_delta_map(topo, q, q.dtype), Dv), jax.jacfwd(tau, argnums=(0, 1))(q, v)

    (got_q, got_v), (want_q, want_v) = both(q, v)
    assert _rel(got_q, want_q) < TOL
    assert _rel(got_v, want_v) < TOL


@pytest.fixture(scope="module")
def plant_case():
    return _case("drake", 1)


def test_public_inverse_dynamics_jacobians_match_plain_autodiff(plant_case):
    """`CalcInverseDynamics` differentiates with the analytic (q, v) rule: every input, both
    modes, against autodiff through the RNEA."""
    import jaxbody as jb

    plant, topo, q, v, rng = plant_case
    ctx0 = plant.CreateDefaultContext()
    nv, nb = topo.nv, plant.num_bodies()
    vdot, tau = (jnp.asarray(rng.normal(size=nv)) for _ in range(2))
    Fb = jnp.asarray(rng.normal(size=(nb, 6)))

    def plain(ctx, vd, forces):
        dk = dynamics_kinematics(topo, ctx.q, ctx.v, ctx.parameters)
        model = plant.compiled_model()
        F_O, t = fo.applied(model, dk, forces)
        return rnea.inverse_dynamics(topo, dk, vd, F_O, t) + fo.reflected_inertia(model, ctx) * vd

    def run(f):
        def g(q, v, vd, tau, Fb, P):
            c = plant.SetVelocities(plant.SetPositions(ctx0, q), v).replace(parameters=P)
            return f(c, vd, jb.MultibodyForces(plant, tau, Fb))
        return g

    args = (q, v, vdot, tau, Fb, ctx0.parameters)
    for jac in (jax.jacfwd, jax.jacrev):
        got = jax.jit(jac(run(plant.CalcInverseDynamics), argnums=tuple(range(6))))(*args)
        want = jax.jit(jac(run(plain), argnums=tuple(range(6))))(*args)
        for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            assert _rel(a, b) < 1e-11
    np.testing.assert_allclose(jax.jit(run(plant.CalcInverseDynamics))(*args),
                               jax.jit(run(plain))(*args), rtol=0, atol=1e-12)


def test_numpy_constants_vmapped_inside_jit(plant_case):
    """A NumPy batch vmapped inside jit reaches the custom rules as a batch tracer holding a NumPy
    array (JAX rejects those in custom_jvp unless converted)."""
    plant, topo, q, v, rng = plant_case
    ctx0 = plant.CreateDefaultContext()
    Q, V, A = (np.stack([np.asarray(x)] * 2) for x in (q, v, rng.normal(size=topo.nv)))

    def both(s, q, v, a):
        c = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
        return s * plant.CalcInverseDynamics(c, a), plant.CalcGeneralizedAccelerations(c)

    out = jax.jit(lambda s: jax.vmap(lambda q, v, a: both(s, q, v, a))(Q, V, A))(1.0)
    assert all(np.isfinite(np.asarray(x)).all() for x in out)
