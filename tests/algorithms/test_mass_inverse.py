"""M⁻¹ by the tree's sparse LᵀDL factorization (`algorithms/batch_minor/mass_inverse.py`), the
kernel `jax.vmap` of `dispatch.mass_matrix_inverse` runs: against LAPACK's inverse of the
per-sample CRBA on random trees of every joint kind (fixed and floating, branched, reflected
inertia on), to 1e-12; the factor reproduces M; the derivative is the reference's."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbody.algorithms.batch_minor import dispatch, mass_inverse
from tests.helpers.batch_minor_cases import case as _case
from tests.helpers.batch_minor_cases import rel as _rel
from tests.helpers.batch_minor_cases import small_chunks

TOL = 1e-12
small_chunks = pytest.fixture(scope="module", autouse=True)(small_chunks)


@pytest.fixture(scope="module", params=[("drake", 0), ("simbody", 1)],
                ids=lambda p: f"{p[0]}-{p[1]}")
def case(request, small_chunks):
    c = _case(*request.param)
    P = c["ctx"].parameters
    params = (P.mass, P.com, P.unit_inertia, P.frame_R, P.frame_p)
    refl = c["refl"] + 0.01 * jnp.arange(1, c["topo"].nv + 1)  # reflected inertia on

    def M_of(q):
        return dispatch._crba_reference(c["topo"], q, *params) + jnp.diag(refl)

    def inv(q):
        return dispatch.mass_matrix_inverse(c["topo"], q, refl, *params)

    return dict(c, M_of=M_of, inv=inv)


def test_batched_inverse_equals_lapacks(case):
    Ms = jax.jit(jax.vmap(case["M_of"]))(case["Q"])
    fast = jax.jit(jax.vmap(case["inv"]))
    assert "while" in fast.lower(case["Q"]).as_text()  # the chunked batch-minor kernel
    X = fast(case["Q"])
    assert _rel(X, np.linalg.inv(np.asarray(Ms))) < TOL
    assert _rel(jnp.einsum("bij,bjk->bik", Ms, X), np.broadcast_to(np.eye(Ms.shape[1]),
                                                                    Ms.shape)) < TOL
    assert _rel(X, jnp.swapaxes(X, 1, 2)) < TOL  # symmetric
    assert _rel(jax.jit(case["inv"])(case["Q"][0]), X[0]) < TOL  # unbatched: the reference


def test_factor_reproduces_the_mass_matrix(case):
    """Lᵀ D L = M, with L's entries only at each dof's ancestors."""
    topo = case["topo"]
    Ms = np.asarray(jax.vmap(case["M_of"])(case["Q"]))
    F = mass_inverse.factor(topo, jnp.moveaxis(jnp.asarray(Ms), 0, -1))
    levels, order = mass_inverse.depths(topo), topo.dof_tree.order
    nv, B = topo.nv, Ms.shape[0]
    L, D = np.zeros((B, nv, nv)), np.zeros((B, nv))
    for d, lv in enumerate(levels):
        D[:, lv.dofs] = np.asarray(F.D[d]).T
        L[:, lv.dofs, lv.dofs] = 1.0
        for t in range(lv.ancestors.shape[1]):
            anc = order[levels[t].start + lv.ancestors[:, t]]
            L[:, lv.dofs, anc] = np.asarray(F.L[d][:, t]).T
    rebuilt = np.einsum("bki,bk,bkj->bij", L, D, L)
    assert _rel(rebuilt, Ms) < TOL
    assert np.all(D > 0)


def test_derivative_is_the_references(case, request):
    """d(M⁻¹) = −M⁻¹ dM M⁻¹, forward and reverse, batched (the custom_jvp differentiates the
    per-sample reference, never the kernel)."""
    if "simbody" in request.node.callspec.id:
        pytest.skip("one tree suffices: the rule is the reference's whatever the joints")
    q, dq = case["Q"][:4], jnp.asarray(np.random.default_rng(5).normal(size=case["Q"][:4].shape))

    def expected(q, dq):
        M, dM = jax.jvp(case["M_of"], (q,), (dq,))
        Mi = jnp.linalg.inv(M)
        return -Mi @ dM @ Mi

    _, got = jax.jit(jax.vmap(lambda q, dq: jax.jvp(case["inv"], (q,), (dq,))))(q, dq)
    assert _rel(got, jax.vmap(expected)(q, dq)) < 1e-10
    w = jnp.asarray(np.random.default_rng(6).normal(size=(case["topo"].nv,) * 2))
    g = jax.jit(jax.vmap(jax.grad(lambda q: jnp.sum(w * case["inv"](q)))))(q)
    g_ref = jax.vmap(jax.grad(lambda q: jnp.sum(w * jnp.linalg.inv(case["M_of"](q)))))(q)
    assert _rel(g, g_ref) < 1e-10


def test_float32_error_is_lapacks(case, request):
    """In float32 the inverse's error is within a few times that of LAPACK's float32 inverse
    (measured on go1 and G1: 7.7e-7 and 6.6e-6 relative, against LAPACK's 3.9e-7 and 2.9e-6)."""
    if "simbody" in request.node.callspec.id:
        pytest.skip("one tree suffices")
    Ms = np.asarray(jax.vmap(case["M_of"])(case["Q"]))
    exact = np.linalg.inv(Ms)
    M32 = jnp.moveaxis(jnp.asarray(Ms, jnp.float32), 0, -1)
    X32 = jax.jit(lambda M: mass_inverse.inverse(case["topo"], M))(M32)
    assert X32.dtype == jnp.float32
    err = _rel(jnp.moveaxis(X32, -1, 0).astype(jnp.float64), exact)
    lapack = _rel(np.linalg.inv(Ms.astype(np.float32)).astype(np.float64), exact)
    assert err < max(10 * lapack, 1e-6), (err, lapack)
