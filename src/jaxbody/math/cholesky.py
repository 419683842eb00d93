"""Cholesky factorization and SPD solves that stay safe under ``vmap`` on XLA:CPU.

Why not plain ``jax.scipy.linalg.cho_factor`` under ``vmap``: on CPU, jaxlib 0.10's batched
LAPACK kernels (``lapack_dpotrf_ffi`` and friends) split the batch over XLA:CPU's intra-op thread
pool and then block the pool thread they run on (``jax::ParallelBatchMap`` →
``absl::BlockingCounter::Wait``) until the pieces finish. When every pool thread is such a waiting
kernel — two independent factorizations scheduled at once, or two host devices, on a 2-core
machine — nothing is left to run the pieces and the process hangs forever at 0 % CPU. Native
stacks (gdb) of a hung batched A1 rollout showed exactly that on every worker. (jax 0.11.2 builds
that parallel path out.)

Here, on CPU, a batched factorization or solve runs one LAPACK call per matrix in a loop
(``jax.custom_batching.sequential_vmap``; other platforms keep the native batched kernels,
chosen by ``jax.lax.platform_dependent`` when lowering): nothing blocks a pool thread, and for
the small matrices of multibody dynamics it is as fast (measured on 2 CPU cores, 18×18: 7.2 µs
per matrix in a batch of 256 against 6.6 µs batched; an element-wise JAX Cholesky vectorized over
the batch was 3× slower still). Unbatched calls are plain LAPACK calls.

    L = cholesky(A)                 A = L Lᵀ, L lower triangular (NaN where A is not SPD, as LAPACK)
    x = cholesky_solve(L, b)        (L Lᵀ) x = b   (b: (n,) or (n, k))
    x = spd_solve(A, b)             differentiable in A and b, forward and reverse mode:
                                    dx = A⁻¹(db − dA x)  (``lax.custom_linear_solve``)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_batching import sequential_vmap

from jaxbody.math.small_spd import block_matvec, gather_blocks, spd_block_inverse


def _factor_native(A):
    return jax.scipy.linalg.cho_factor(A, lower=True)[0]


def _solve_native(L, b):
    return jax.scipy.linalg.cho_solve((L, True), b)


_factor_cpu = sequential_vmap(_factor_native)
_solve_cpu = sequential_vmap(_solve_native)


def _factor(A):
    """One LAPACK call per matrix under vmap on CPU; the native batched kernel elsewhere (a GPU
    factors a batch in one cuSOLVER call). The branch is picked when lowering."""
    return jax.lax.platform_dependent(A, cpu=_factor_cpu, default=_factor_native)


def _solve(L, b):
    return jax.lax.platform_dependent(L, b, cpu=_solve_cpu, default=_solve_native)


def _check_rhs(fn, n, b):
    if b.shape[:1] != (n,) or b.ndim > 2:
        raise ValueError(f"{fn}: b must have shape ({n},) or ({n}, k), got {b.shape}")


def cholesky(A):
    """Lower-triangular L with A = L Lᵀ for a symmetric positive definite A (n, n); not
    differentiable (see `spd_solve`). Only the lower triangle of A is read."""
    A = jnp.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"cholesky: A must be a square matrix (n, n), got shape {A.shape}")
    L = _factor(jax.lax.stop_gradient(A))
    return jnp.tril(L)


def cholesky_solve(L, b):
    """x with (L Lᵀ) x = b for the factor ``L`` of `cholesky`; ``b`` is (n,) or (n, k).
    Linear in b (differentiable in b only)."""
    L, b = jnp.asarray(L), jnp.asarray(b)
    if L.ndim != 2 or L.shape[0] != L.shape[1]:
        raise ValueError(f"cholesky_solve: L must be a square matrix (n, n), got shape {L.shape}")
    _check_rhs("cholesky_solve", L.shape[0], b)
    L = jax.lax.stop_gradient(L)
    return jax.lax.custom_linear_solve(lambda x: L @ (L.T @ x), b,
                                       solve=lambda _, r: _solve(L, r), symmetric=True)


def spd_solve(A, b, L=None):
    """x = A⁻¹ b for a symmetric positive definite A (n, n), b (n,) or (n, k); differentiable in
    A and b (forward and reverse mode). ``L``: A's factor from `cholesky`, if already known."""
    A, b = jnp.asarray(A), jnp.asarray(b)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"spd_solve: A must be a square matrix (n, n), got shape {A.shape}")
    _check_rhs("spd_solve", A.shape[0], b)
    L = cholesky(A) if L is None else jax.lax.stop_gradient(L)
    return jax.lax.custom_linear_solve(lambda x: A @ x, b,
                                       solve=lambda _, r: _solve(L, r), symmetric=True)


def block_diagonal_spd_solve(A, b, blocks):
    """x = A⁻¹ b for an SPD A (n, n) that is block diagonal up to a permutation (a multibody
    mass matrix: no coupling between kinematic trees), b (n,); differentiable like `spd_solve`.

    ``blocks``: (T, d) NumPy int array, row t the indices of block t, padded with n (each index
    in exactly one row). Costs T inversions of d × d blocks instead of a factorization of n × n;
    the blocks are inverted element-wise, vectorized over the blocks and any ``vmap`` batch
    (`small_spd.spd_block_inverse`), so no LAPACK call is made per block.
    """
    A, b = jnp.asarray(A), jnp.asarray(b)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("block_diagonal_spd_solve: A must be a square matrix (n, n), got shape "
                         f"{A.shape}")
    n = A.shape[0]
    if b.shape != (n,):
        raise ValueError(f"block_diagonal_spd_solve: b must have shape ({n},), got {b.shape}")
    blocks = np.asarray(blocks)
    if (blocks.ndim != 2 or not np.issubdtype(blocks.dtype, np.integer)
            or sorted(blocks[blocks < n].tolist()) != list(range(n)) or blocks.max() > n):
        raise ValueError("block_diagonal_spd_solve: blocks must be a (T, d) int array holding "
                         f"each of 0..{n - 1} once, padded with {n}")
    return spd_solve_by_blocks(gather_blocks(A, jnp.asarray(blocks)), b, blocks)


def spd_solve_by_blocks(A_blocks, b, blocks):
    """`block_diagonal_spd_solve` from the diagonal blocks themselves: ``A_blocks`` (T, d, d) as
    `small_spd.gather_blocks` makes them (identity on pad entries), b (n,), ``blocks`` (T, d)
    as there (not checked here)."""
    n = b.shape[0]
    blocks = jnp.asarray(blocks)
    xb = block_matvec(spd_block_inverse(A_blocks), jnp.pad(b, (0, 1))[blocks])
    return jnp.zeros(n + 1, xb.dtype).at[blocks].set(xb)[:n]
