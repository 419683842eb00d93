"""The batch-minor RNEA derivatives (`src/jaxbody/algorithms/batch_minor/rnea_derivatives.py`) that
`jax.vmap` of the (q, v) derivative rules runs, against the per-sample analytic reference
(`algorithms/rnea_derivatives.py`, itself checked against autodiff and Pinocchio), to 1e-12 in
float64: random trees of every joint kind, fixed and floating bodies, with and without gravity
and applied forces, batches larger than a chunk; and `jax.jacfwd`/`jax.jacrev` of the public
forward dynamics under `jax.vmap`, which reach them through the implicit-function rule."""

from __future__ import annotations

import jax
import pytest

import jaxbody as jb
from jaxbody.algorithms.batch_minor import dispatch
from tests.helpers.batch_minor_cases import case as _case
from tests.helpers.batch_minor_cases import rel as _rel
from tests.helpers.batch_minor_cases import small_chunks

TOL = 1e-12
small_chunks = pytest.fixture(scope="module", autouse=True)(small_chunks)


# (kinds, seed, gravity and applied forces): every combination's compile costs about 10 s,
# so each kind set gets one of the two configurations.
CONFIGS = [("drake", 0, True), ("simbody", 1, False)]


@pytest.mark.parametrize("kinds,seed,loaded", CONFIGS, ids=lambda p: str(p))
def test_kernel_equals_the_per_sample_reference(kinds, seed, loaded):
    c = _case(kinds, seed)
    topo, rest = c["topo"], c["rest"][:5]
    gravity = c["rest"][5] if loaded else None

    def fast(q, v, a, f):
        return dispatch.inverse_dynamics_derivatives(topo, q, v, a, f if loaded else None,
                                                     *rest, gravity)

    def ref(q, v, a, f):
        return dispatch._idd_reference(topo, q, v, a, f if loaded else None, *rest, gravity)

    args = (c["Q"], c["V"], c["T"], c["F"])
    fn = jax.jit(jax.vmap(fast))
    assert "while" in fn.lower(*args).as_text()  # the chunked lax.map of the batch-minor rule
    got, want = fn(*args), jax.jit(jax.vmap(ref))(*args)
    assert got[0].shape == (8, topo.nv, topo.nq) and got[1].shape == (8, topo.nv, topo.nv)
    for a, b in zip(got, want):
        assert _rel(a, b) < TOL
    # unbatched: the per-sample reference itself
    one = jax.jit(fast)(*(x[0] for x in args))
    for a, b in zip(one, want):
        assert _rel(a, b[0]) < TOL


def test_public_forward_dynamics_jacobians_under_vmap():
    """`jax.vmap` of `jax.jacfwd` and of `jax.jacrev` of `CalcGeneralizedAccelerations` w.r.t.
    (q, v) (the implicit rule, whose ∂ID comes from the batch-minor kernel under vmap) equal
    the per-sample Jacobians (the per-sample analytic path), on a 3-body tree."""
    c = _case("drake", 5, num_bodies=3)
    plant, ctx = c["plant"], c["ctx"]
    Q, V, T, F = (x[:4] for x in (c["Q"], c["V"], c["T"], c["F"]))

    def accel(q, v, t, f):
        return plant.CalcGeneralizedAccelerations(
            plant.SetVelocities(plant.SetPositions(ctx, q), v),
            applied_forces=jb.MultibodyForces(plant, t, f), method="aba")

    fwd = jax.jit(jax.jacfwd(accel, argnums=(0, 1)))
    want = [fwd(Q[i], V[i], T[i], F[i]) for i in range(len(Q))]
    batched_fwd = jax.jit(jax.vmap(jax.jacfwd(accel, argnums=(0, 1))))
    assert "while" in batched_fwd.lower(Q, V, T, F).as_text()
    for jac in (batched_fwd, jax.jit(jax.vmap(jax.jacrev(accel, argnums=(0, 1))))):
        got = jac(Q, V, T, F)
        for i in range(len(Q)):
            for a, b in zip(got, want[i]):
                assert _rel(a[i], b) < 1e-10


def test_fused_forward_derivatives_equal_their_parts():
    """`dispatch.forward_dynamics_derivatives` (one batch-minor kernel: ABA, the RNEA
    derivatives at its v̇ and the LᵀDL inverse, sharing the kinematics) equals its per-sample
    reference, v̇, ∂τ/∂q, ∂τ/∂v and (M + diag(refl))⁻¹, with gravity, applied forces and
    reflected inertia, over a batch of three chunks; so does `dispatch.state_derivatives`
    (the last three at a given v̇)."""
    c = _case("drake", 0)
    topo, rest = c["topo"], c["rest"]
    refl = c["refl"] + 0.3

    def fast(q, v, t, f):
        return dispatch.forward_dynamics_derivatives(topo, q, v, t, refl, f, *rest)

    def ref(q, v, t, f):
        return dispatch._fdd_reference(topo, q, v, t, refl, f, *rest)

    args = (c["Q"], c["V"], c["T"], c["F"])
    fn = jax.jit(jax.vmap(fast))
    assert "while" in fn.lower(*args).as_text()
    got, want = fn(*args), jax.jit(jax.vmap(ref))(*args)
    nv, nq = topo.nv, topo.nq
    assert [x.shape for x in got] == [(8, nv), (8, nv, nq), (8, nv, nv), (8, nv, nv)]
    for a, b in zip(got, want):
        assert _rel(a, b) < TOL
    fd = jax.vmap(lambda q, v, t, f: dispatch._fd_reference(topo, q, v, t, refl, f, *rest))
    assert _rel(want[0], fd(*args)) < TOL  # v̇ is forward dynamics'

    def at_vdot(q, v, vd, f):
        return dispatch.state_derivatives(topo, q, v, vd, refl, f, *rest)

    sd = jax.jit(jax.vmap(at_vdot))
    assert "while" in sd.lower(c["Q"], c["V"], want[0], c["F"]).as_text()
    for a, b in zip(sd(c["Q"], c["V"], want[0], c["F"]), want[1:]):
        assert _rel(a, b) < TOL
