"""The batch-minor forward-dynamics kernel that `jax.vmap` of the public API runs
(`src/jaxbody/algorithms/batch_minor/`) against the per-sample reference, to 1e-12 (float64), on
random trees of every joint kind, fixed and floating, under jit, vmap, nested vmap, vmap of
grad and grad of vmap; batched and shared parameters; batches larger than a chunk."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.algorithms.batch_minor import dispatch
from jaxbody.algorithms.batch_minor.algebra import gather_sum, mm, mv, take
from jaxbody.math.fusion import materialize
from tests.helpers.batch_minor_cases import case as _case
from tests.helpers.batch_minor_cases import rel as _rel
from tests.helpers.batch_minor_cases import small_chunks

TOL = 1e-12
small_chunks = pytest.fixture(scope="module", autouse=True)(small_chunks)


@pytest.fixture(scope="module", params=[("drake", 0), ("simbody", 1)],
                ids=lambda p: f"{p[0]}-{p[1]}")
def case(request, small_chunks):
    return _case(*request.param)


@pytest.fixture(scope="module")
def drake_case(small_chunks):
    """One case (all of Drake's joint kinds) for the costlier checks."""
    return _case("drake", 0)


def test_vmap_takes_the_batch_minor_rule_and_matches(case):
    c = case
    fn = jax.jit(jax.vmap(c["fast"]))
    text = fn.lower(c["Q"], c["V"], c["T"], c["F"]).as_text()
    assert "while" in text  # the chunked lax.map of the batch-minor rule
    assert _rel(fn(c["Q"], c["V"], c["T"], c["F"]), c["expected"]) < TOL


def test_whole_batch_layout_of_a_gpu_matches(drake_case):
    """With no chunk for the platform (a GPU's default) the batch runs in one call, with no
    loop, and equals the chunked run; the chunk is read per platform."""
    c = drake_case
    platform = jax.default_backend()
    old = dispatch.set_chunk(platform, None)
    try:
        assert dispatch.chunk_size() is None
        fn = jax.jit(jax.vmap(c["fast"]))
        assert "while" not in fn.lower(c["Q"], c["V"], c["T"], c["F"]).as_text()
        assert _rel(fn(c["Q"], c["V"], c["T"], c["F"]), c["expected"]) < TOL
    finally:
        dispatch.set_chunk(platform, old)
    assert dispatch.chunk_size() == old == 3  # the module's small chunks again
    with jax.default_device(jax.devices("cpu")[0]):
        assert dispatch.chunk_size() == dispatch.CHUNKS["cpu"]
    for bad in (-1, 2.5, "32"):
        with pytest.raises(ValueError, match="set_chunk: members must be a positive int"):
            dispatch.set_chunk(platform, bad)
    assert dispatch.chunk_size() == 3


def test_a_batch_under_min_batch_runs_the_vmapped_reference(drake_case):
    """Below `dispatch.MIN_BATCH` members `jax.vmap` runs the per-sample reference (no chunk
    loop even with chunks of 3), from it the kernel; both equal the reference."""
    c = drake_case
    old = dispatch.set_min_batch(8)
    try:
        fn = jax.jit(jax.vmap(c["fast"]))
        small = [x[:7] for x in (c["Q"], c["V"], c["T"], c["F"])]
        assert "while" not in fn.lower(*small).as_text()
        assert _rel(fn(*small), c["expected"][:7]) < TOL
        assert "while" in fn.lower(c["Q"], c["V"], c["T"], c["F"]).as_text()  # 8: the kernel
    finally:
        assert dispatch.set_min_batch(old) == 8
    for bad in (0, 2.5, "8", True):
        with pytest.raises(ValueError, match="set_min_batch: members must be an int >= 1"):
            dispatch.set_min_batch(bad)
    assert dispatch.MIN_BATCH == 1  # the module's setting again


def test_unbatched_call_is_the_reference(case):
    c = case
    args = (c["Q"][0], c["V"][0], c["T"][0], c["F"][0])
    assert _rel(jax.jit(c["fast"])(*args), c["expected"][0]) < TOL  # the reference, sample 0


def test_shared_and_batched_parameters(drake_case):
    c = drake_case
    topo, refl = c["topo"], c["refl"]
    mass0, others = c["rest"][0], c["rest"][1:]
    scale = 1.0 + 0.2 * jnp.asarray(np.random.default_rng(0).random((len(c["Q"]),
                                                                       mass0.shape[0])))
    M = mass0[None] * scale

    def fast(q, v, m):
        return dispatch.forward_dynamics(topo, q, v, v, refl, None, m, *others)

    def ref(q, v, m):
        return dispatch._fd_reference(topo, q, v, v, refl, None, m, *others)

    ref_b = jax.jit(jax.vmap(ref))
    got = jax.jit(jax.vmap(fast))(c["Q"], c["V"], M)
    assert _rel(got, ref_b(c["Q"], c["V"], M)) < TOL
    # an unbatched state with batched masses: the state is broadcast inside the rule (the
    # reference gets it broadcast beforehand, so that its compiled function is reused)
    got = jax.jit(jax.vmap(fast, in_axes=(None, None, 0)))(c["Q"][0], c["V"][0], M)
    want = ref_b(*(jnp.broadcast_to(x[0], x.shape) for x in (c["Q"], c["V"])), M)
    assert _rel(got, want) < TOL


def test_nested_vmap(case):
    c = case
    n = (len(c["Q"]) // 2) * 2
    shape = (2, n // 2)
    args = [x[:n].reshape(shape + x.shape[1:]) for x in (c["Q"], c["V"], c["T"], c["F"])]
    got = jax.jit(jax.vmap(jax.vmap(c["fast"])))(*args)
    assert _rel(got.reshape(n, -1), c["expected"][:n]) < TOL


def test_gradients_vmap_of_grad_and_grad_of_vmap():
    """The composition (custom_vmap inside custom_jvp) under vmap of grad and grad of vmap, on
    a small tree (reverse mode through the per-sample reference compiles in about 10 s per
    body)."""
    c = _case("drake", 5, num_bodies=3)
    Q, V, T, F = (x[:4] for x in (c["Q"], c["V"], c["T"], c["F"]))

    def loss(fn):
        return lambda q, v, t, f: jnp.sum(jnp.sin(fn(q, v, t, f)))

    want = jax.jit(jax.vmap(jax.grad(loss(c["ref"]), argnums=(0, 1))))(Q, V, T, F)
    got = jax.jit(jax.vmap(jax.grad(loss(c["fast"]), argnums=(0, 1))))(Q, V, T, F)
    for a, b in zip(got, want):
        assert _rel(a, b) < TOL

    def total(q, v, t, f):
        return jnp.sum(jnp.sin(jax.vmap(c["fast"])(q, v, t, f)))

    got = jax.jit(jax.grad(total, argnums=(0, 1)))(Q, V, T, F)
    for a, b in zip(got, want):
        assert _rel(a, b) < TOL


def test_public_api_vmap_uses_the_batch_minor_path(case):
    """`jax.vmap` of `CalcGeneralizedAccelerations` (ABA, applied body and generalized forces)
    runs the batch-minor rule and equals per-sample CRBA + Cholesky."""
    c = case
    plant, ctx = c["plant"], c["ctx"]

    def accel(q, v, t, f, method="aba"):
        return plant.CalcGeneralizedAccelerations(
            plant.SetVelocities(plant.SetPositions(ctx, q), v),
            applied_forces=jb.MultibodyForces(plant, t, f), method=method)

    Q, V, T, F = c["Q"], c["V"], c["T"], c["F"]
    fn = jax.jit(jax.vmap(accel))
    assert "while" in fn.lower(Q, V, T, F).as_text()
    got = fn(Q, V, T, F)
    want = jax.jit(jax.vmap(lambda *a: accel(*a, method="crba")))(Q, V, T, F)
    assert _rel(got, want) < 1e-10


def test_float32_runs_with_measured_error(case):
    c = case
    args = [x.astype(jnp.float32) for x in (c["Q"], c["V"], c["T"], c["F"])]
    rest = [x.astype(jnp.float32) for x in c["rest"]]
    topo, refl = c["topo"], c["refl"].astype(jnp.float32)
    got = jax.jit(jax.vmap(lambda q, v, t, f: dispatch.forward_dynamics(
        topo, q, v, t, refl, f, *rest)))(*args)
    assert got.dtype == jnp.float32
    assert _rel(got.astype(jnp.float64), c["expected"]) < 1e-2


def test_algebra_helpers_match_numpy():
    rng = np.random.default_rng(1)
    A, B, x = rng.random((3, 3, 4, 5)), rng.random((3, 3, 4, 5)), rng.random((3, 4, 5))
    np.testing.assert_allclose(mm(jnp.asarray(A), jnp.asarray(B)),
                               np.einsum("ijnb,jknb->iknb", A, B), rtol=1e-14)
    np.testing.assert_allclose(mv(jnp.asarray(A), jnp.asarray(x)),
                               np.einsum("ijnb,jnb->inb", A, x), rtol=1e-14)
    y = jnp.asarray(x)
    np.testing.assert_array_equal(take(y, [2, 3, 0, 1]), x[:, [2, 3, 0, 1]])
    np.testing.assert_array_equal(take(y, [3, 1, 0, 2, 3, 1]), x[:, [3, 1, 0, 2, 3, 1]])
    np.testing.assert_array_equal(take(y, [1, 1, 1, 2, 3]), x[:, [1, 1, 1, 2, 3]])  # repeats
    for members in ([[0, 2], [], [1]],  # pieces: a sum, zeros, a slice
                    [[1], [2], [], [], [0, 3], [3], [3], [0]],
                    [[j] if j % 2 else [j, 3 - j % 4] for j in range(4)] * 3 + [[]] * 3):
        want = np.stack([sum((x[:, j] for j in m), 0 * x[:, 0]) for m in members], 1)
        np.testing.assert_allclose(gather_sum(y, members), want, rtol=1e-15)  # and padded


def test_materialize_computes_a_value_once():
    """A sine passed through `materialize` is evaluated once per element, in its own fused
    computation, not again inside a consumer that broadcasts it over nine rotation entries
    (what XLA:CPU does without it, and did with the earlier `reduce_precision` barrier)."""
    K = jnp.asarray(np.random.default_rng(0).random((3, 3, 5, 1)))
    x = jnp.linspace(0.0, 1.0, 20).reshape(5, 4)

    def f(x):
        return 1.0 + K * materialize(jnp.sin(x))

    text = jax.jit(f).lower(x).compile().as_text()
    with_sine = [c for c in text.split("\n\n") if "sine(" in c]
    assert with_sine and not any("[3,3,5,4]" in c for c in with_sine)
    np.testing.assert_allclose(jax.jit(f)(x), 1.0 + K * np.sin(np.asarray(x)), rtol=1e-15)


def test_inverse_dynamics_and_mass_matrix_kernels(case):
    """vmap of the RNEA and CRBA dispatchers (chunked, forces given) equals the references."""
    c = case
    topo, rest = c["topo"], c["rest"][:5]
    Q, V, T, F = c["Q"], c["V"], c["T"], c["F"]

    def both(id_fn, crba_fn):  # one compiled function for the two kernels
        return jax.jit(jax.vmap(lambda q, v, a, f: (id_fn(topo, q, v, a, f, *rest),
                                                    crba_fn(topo, q, *rest))))

    got = both(dispatch.inverse_dynamics, dispatch.mass_matrix)(Q, V, T, F)
    want = both(dispatch._id_reference, dispatch._crba_reference)(Q, V, T, F)
    assert _rel(got[0], want[0]) < TOL
    assert _rel(got[1], want[1]) < TOL


def test_public_inverse_dynamics_and_mass_matrix_under_vmap(drake_case):
    """`jax.vmap` of `CalcInverseDynamics` and `CalcMassMatrix` (batch-minor kernels) equal the
    per-sample calls (the reference kernels) and `CalcMassMatrixViaInverseDynamics`."""
    c = drake_case
    plant, ctx = c["plant"], c["ctx"]
    Q, V, T, F = (x[:4] for x in (c["Q"], c["V"], c["T"], c["F"]))

    def state(q, v):
        return plant.SetVelocities(plant.SetPositions(ctx, q), v)

    def tau(q, v, a, t, f):
        return plant.CalcInverseDynamics(state(q, v), a, jb.MultibodyForces(plant, t, f))

    def mass(q):
        return plant.CalcMassMatrix(plant.SetPositions(ctx, q))

    M = jax.jit(jax.vmap(mass))(Q)
    tau_b = jax.jit(jax.vmap(tau))(Q, V, T, T, F)
    via_id = jax.jit(lambda q, v: plant.CalcMassMatrixViaInverseDynamics(state(q, v)))
    tau_1 = jax.jit(tau)  # per sample (unbatched): compiled once, called for each
    for i in range(len(Q)):
        assert _rel(M[i], via_id(Q[i], V[i])) < TOL
        assert _rel(tau_b[i], tau_1(Q[i], V[i], T[i], T[i], F[i])) < TOL
