"""Cholesky and SPD solves: against numpy, differentiable, and never a batched LAPACK call under
vmap (jaxlib 0.10's batched potrf can deadlock XLA:CPU's thread pool)."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from jaxbody.math.cholesky import block_diagonal_spd_solve, cholesky, cholesky_solve, spd_solve


def _spd(rng, n, batch=()):
    X = rng.normal(size=(*batch, n, n))
    return X @ np.swapaxes(X, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("n", [1, 3, 18, 40])
def test_factor_and_solves_match_numpy(n):
    rng = np.random.default_rng(n)
    A, b, B = _spd(rng, n), rng.normal(size=n), rng.normal(size=(n, 3))
    L = cholesky(A)
    np.testing.assert_allclose(L, np.linalg.cholesky(A), atol=1e-12)
    np.testing.assert_allclose(cholesky_solve(L, b), np.linalg.solve(A, b), atol=1e-12)
    np.testing.assert_allclose(cholesky_solve(L, B), np.linalg.solve(A, B), atol=1e-12)
    np.testing.assert_allclose(spd_solve(A, b), np.linalg.solve(A, b), atol=1e-12)


def test_only_the_lower_triangle_is_read():
    rng = np.random.default_rng(0)
    A = _spd(rng, 5)
    np.testing.assert_allclose(cholesky(np.tril(A) + 7.0 * np.triu(np.ones((5, 5)), 1)),
                               np.linalg.cholesky(A), atol=1e-12)


def test_not_positive_definite_gives_nan_as_lapack():
    assert np.isnan(np.asarray(cholesky(-np.eye(3)))).any()


def test_spd_solve_gradients_forward_and_reverse():
    rng = np.random.default_rng(1)
    X, b = rng.normal(size=(4, 4)), rng.normal(size=4)
    check_grads(lambda X, b: spd_solve(X @ X.T + 4 * jnp.eye(4), b), (X, b), order=2,
                modes=("fwd", "rev"))


def test_vmap_and_its_gradients_match_the_unbatched_calls():
    rng = np.random.default_rng(2)
    A, b = _spd(rng, 6, (5,)), rng.normal(size=(5, 6))
    x = jax.jit(jax.vmap(spd_solve))(A, b)
    np.testing.assert_allclose(x, np.linalg.solve(A, b[..., None])[..., 0], atol=1e-12)
    # batched matrix, shared right-hand side; nested vmap; gradient of a batched loss
    np.testing.assert_allclose(jax.vmap(spd_solve, (0, None))(A, b[0]),
                               np.linalg.solve(A, np.broadcast_to(b[0], (5, 6))[..., None])[..., 0],
                               atol=1e-12)
    nested = jax.vmap(jax.vmap(spd_solve))(A.reshape(1, 5, 6, 6), b.reshape(1, 5, 6))
    np.testing.assert_allclose(nested[0], x, atol=1e-12)
    g = jax.grad(lambda A: jnp.sum(jax.vmap(spd_solve)(A, b) ** 2))(A)
    loss = jax.grad(lambda a, bi: jnp.sum(spd_solve(a, bi) ** 2))
    g1 = jnp.stack([loss(a, bi) for a, bi in zip(A, b)])
    np.testing.assert_allclose(g, g1, atol=1e-12)


def test_vmap_lowers_to_one_unbatched_lapack_call_per_matrix():
    A = np.tile(np.eye(4), (8, 1, 1))
    text = jax.jit(jax.vmap(lambda A: cholesky_solve(cholesky(A), A[0]))).lower(A).as_text()
    calls = [ln for ln in text.splitlines() if re.search(r"custom_call @lapack_\w+", ln)]
    assert calls, "expected LAPACK calls"
    for ln in calls:
        assert 'num_batch_dims = "0"' in ln, ln


def test_shape_errors_name_the_argument():
    with pytest.raises(ValueError, match="square"):
        cholesky(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"cholesky_solve: b must have shape \(3,\)"):
        cholesky_solve(np.eye(3), np.ones(4))
    with pytest.raises(ValueError, match="cholesky_solve: L must be a square"):
        cholesky_solve(np.ones((3, 2)), np.ones(3))
    with pytest.raises(ValueError, match=r"spd_solve: b must have shape \(3,\)"):
        spd_solve(np.eye(3), np.ones((2, 3)))
    with pytest.raises(ValueError, match="spd_solve: A must be a square"):
        spd_solve(np.ones(3), np.ones(3))


def test_gpu_lowering_keeps_the_native_batched_factorization():
    """Lowered for CUDA (no GPU needed), a vmapped factorization is one batched cuSOLVER call:
    the per-matrix loop is XLA:CPU's workaround only."""
    from jax import export

    A = jax.ShapeDtypeStruct((8, 4, 4), jnp.float64)
    exp = export.export(jax.jit(jax.vmap(lambda A: cholesky_solve(cholesky(A), A[0]))),
                        platforms=("cuda",))(A)
    text = exp.mlir_module()
    assert "cusolver_potrf" in text and "lapack_" not in text
    assert "while" not in text  # no sequential loop over the batch


def test_block_diagonal_solve_matches_the_dense_one_and_differentiates():
    """Blocks of sizes 3, 1 and 2 interleaved over 6 indices (padded with n = 6)."""
    rng = np.random.default_rng(5)
    blocks = np.array([[4, 0, 2], [5, 6, 6], [1, 3, 6]])
    A = np.zeros((6, 6))
    for row in blocks:
        idx = row[row < 6]
        A[np.ix_(idx, idx)] = _spd(rng, idx.size)
    b = rng.normal(size=6)
    np.testing.assert_allclose(block_diagonal_spd_solve(A, b, blocks), np.linalg.solve(A, b),
                               atol=1e-13)
    # A's sparsity is part of the contract: differentiate along block-diagonal directions.
    mask = jnp.asarray(A != 0, float)
    check_grads(lambda A, b: block_diagonal_spd_solve(A * mask + A.T * mask, b, blocks),
                (jnp.asarray(A) / 2, jnp.asarray(b)), order=2, modes=["fwd", "rev"])
    got = jax.vmap(block_diagonal_spd_solve, (0, 0, None))(jnp.stack([A, 2 * A]),
                                                            jnp.stack([b, b]), blocks)
    np.testing.assert_allclose(got[1], np.linalg.solve(2 * A, b), atol=1e-13)


def test_block_diagonal_solve_rejects_bad_blocks():
    A, b = np.eye(3), np.ones(3)
    for bad in (np.array([[0, 1], [1, 3]]), np.array([[0, 1], [2, 5]]), np.array([0, 1, 2])):
        with pytest.raises(ValueError, match="blocks must be a"):
            block_diagonal_spd_solve(A, b, bad)
    with pytest.raises(ValueError, match=r"b must have shape \(3,\)"):
        block_diagonal_spd_solve(A, np.ones(2), np.array([[0, 1, 2]]))
