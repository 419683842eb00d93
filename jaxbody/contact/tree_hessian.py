"""SAP's Newton matrix H = A + JᵀGJ as an operator on tree-blocked velocities, and its
block-Jacobi preconditioner: the structure that `pcg` exploits on plants with several trees.

Velocities are stored by kinematic tree (`TreeJacobian`'s layout): x_tree (T+1, d), row t the
dofs of tree t (padded; row T the empty tree), x_tree = x[dof_map], x = x_tree.ravel()[dof_slot].
A is block diagonal by tree, so

    H x = A_t x_t (per tree)  +  Jcᵀ (Gc (Jc x))  +  Jlᵀ (Gl (Jl x))

costs O(T·d² + n·m·d + nl·nv) (n contacts of m = 3 equations on trees of d dofs, nl limit rows),
never O(nv²). The preconditioner is H's own diagonal tree blocks,

    P_t = A_t + Σ_{contacts c, sides s on tree t} B_csᵀ G_c B_cs + (JlᵀGlJl)_tt,

inverted block by block (`spd_block_inverse`): exact for trees that touch nothing, and it takes
each body's mass and its own contacts' stiffness out of the conditioning, so conjugate gradients
need only resolve the coupling between trees. Pad entries carry an identity block (and stay zero).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from jaxbody.contact.tree_jacobian import TreeJacobian
from jaxbody.math.small_spd import block_matvec, spd_block_inverse


def to_tree(J: TreeJacobian, x):
    """(T+1, d) tree-blocked copy of ``x`` (nv,) (pads zero)."""
    return jnp.concatenate([x, jnp.zeros((1,), x.dtype)])[J.dof_map]


def from_tree(J: TreeJacobian, x_tree):
    """(nv,) velocities of the tree-blocked ``x_tree`` (T+1, d)."""
    return x_tree.reshape(-1)[J.dof_slot]


def tree_blocks(J: TreeJacobian, A):
    """(T+1, d, d) the diagonal tree blocks of A (nv, nv), identity on pad entries."""
    nv = A.shape[0]
    Ap = jnp.pad(A, ((0, 1), (0, 1)))
    blocks = Ap[J.dof_map[:, :, None], J.dof_map[:, None, :]]
    pad = J.dof_map == nv
    eye = jnp.eye(J.dof_map.shape[1], dtype=A.dtype)
    return jnp.where(pad[:, :, None] | pad[:, None, :], eye, blocks)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class TreeHessian:
    """H = A + JcᵀGcJc + JlᵀGlJl on tree-blocked vectors.

    Attributes:
        A: (T+1, d, d) tree blocks of A (`tree_blocks`).
        Jc: the contacts' `TreeJacobian` (tree form, not dense); Gc: (n, 3, 3) their G blocks.
        Jl: (nl, T+1, d) limit rows in tree layout; Gl: (nl,) their G.
    """

    A: jax.Array
    Jc: TreeJacobian
    Gc: jax.Array
    Jl: jax.Array
    Gl: jax.Array

    def matvec(self, x):
        """H x for x (T+1, d)."""
        Jc = self.Jc
        Bk = Jc.blocks  # (n, 2, m, d)
        xs = x[Jc.trees]  # (n, 2, d)
        n_sides, m, d = Bk.shape[1], Bk.shape[2], Bk.shape[3]
        # Small contractions written out as sums of element-wise products: XLA:CPU fuses each
        # into one loop (3-6x faster than einsum's batched dots for these sizes under vmap).
        vc = sum(Bk[:, s, :, k] * xs[:, s, None, k] for s in range(n_sides) for k in range(d))
        g = sum(self.Gc[:, :, k] * vc[:, None, k] for k in range(m))
        per_side = sum(Bk[:, :, k, :] * g[:, None, k, None] for k in range(m))
        Hx = block_matvec(self.A, x).at[Jc.trees].add(per_side)
        if self.Jl.shape[0]:
            vl = jnp.einsum("ltd,td->l", self.Jl, x)
            Hx = Hx + jnp.einsum("ltd,l->td", self.Jl, self.Gl * vl)
        return Hx

    def block_jacobi_inverse(self):
        """(T+1, d, d) inverses of H's diagonal tree blocks."""
        Jc, m = self.Jc, self.Gc.shape[-1]
        Bk = Jc.blocks
        # B_csᵀ G_c B_cs with the sums over the m equations written out (fused by XLA:CPU).
        GB = sum(self.Gc[:, None, :, k, None] * Bk[:, :, None, k, :] for k in range(m))
        side = sum(Bk[:, :, k, :, None] * GB[:, :, k, None, :] for k in range(m))
        P = self.A.at[Jc.trees].add(side)
        P = P + jnp.einsum("ltd,l,lte->tde", self.Jl, self.Gl, self.Jl)
        return spd_block_inverse(P)


def limit_rows(J: TreeJacobian, Jl):
    """(nl, T+1, d) the limit rows Jl (nl, nv) in tree layout."""
    Jl_ext = jnp.pad(Jl, ((0, 0), (0, 1)))
    return Jl_ext[:, J.dof_map]
