"""Inverses of many small symmetric positive definite blocks, written element-wise.

A stack of SPD blocks A (..., d, d) (the per-tree diagonal blocks of SAP's Newton matrix, d ≤ a
few dozen) is inverted by Gauss–Jordan pivoting on the diagonal, one pivot k = 0..d−1 after the
other (no row exchanges: every pivot of an SPD matrix is positive):

    p = M[k, k],   M[k, k] ← 1/p,   M[k, j] ← M[k, j]/p,   M[i, k] ← −M[i, k]/p,
    M[i, j] ← M[i, j] − M[i, k] M[k, j]/p          (i, j ≠ k),

which leaves M = A⁻¹ after the last pivot (the principal pivot transform over every index).
Each pivot is a handful of element-wise operations over the whole stack, so the work is
vectorized over the blocks and over any ``vmap`` batch (no LAPACK call per block, nothing that
`jaxbody.math.cholesky` has to serialize on CPU), and the traced program has O(d) operations.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np


def spd_block_inverse(A):
    """A⁻¹ for a stack of SPD blocks ``A`` (..., d, d); not checked for definiteness (a
    non-positive pivot gives inf/NaN, as a failed Cholesky would)."""
    A = jnp.asarray(A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"spd_block_inverse: A must have shape (..., d, d), got {A.shape}")
    d = A.shape[-1]
    M = A
    idx = np.arange(d)
    for k in range(d):
        on_row = (idx == k)[:, None]
        on_col = (idx == k)[None, :]
        inv_p = 1.0 / M[..., k, k][..., None, None]
        col = M[..., :, k][..., :, None]
        row = M[..., k, :][..., None, :]
        M = jnp.where(on_row & on_col, inv_p,
                      jnp.where(on_row, row * inv_p,
                                jnp.where(on_col, -col * inv_p, M - col * row * inv_p)))
    return M


def gather_blocks(A, index):
    """(T, d, d) the diagonal blocks A[index[t]][:, index[t]] of A (n, n), for ``index`` (T, d)
    int rows padded with n; pad entries hold an identity block (so each block stays SPD)."""
    n = A.shape[0]
    Ap = jnp.pad(A, ((0, 1), (0, 1)))
    blocks = Ap[index[:, :, None], index[:, None, :]]
    pad = index == n
    eye = jnp.eye(index.shape[1], dtype=A.dtype)
    return jnp.where(pad[:, :, None] | pad[:, None, :], eye, blocks)


def block_matvec(Minv, x):
    """Σⱼ Minv[..., i, j] x[..., j] for blocks (..., d, d) and vectors (..., d), written as one
    fused element-wise product and sum (fast for tiny d under ``vmap``)."""
    return jnp.sum(Minv * x[..., None, :], axis=-1)
