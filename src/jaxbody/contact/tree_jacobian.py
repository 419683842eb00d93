"""Constraint Jacobians stored by kinematic tree: the sparsity SAP's Newton step exploits.

A plant's velocities split by tree (the subtree under each child of the world), and the dynamics
matrix A is block diagonal by tree. A point contact involves at most two trees, so its (m × nv)
Jacobian row block is zero outside the dofs of those two trees. `TreeJacobian` keeps only them:

    J_c v = Σ_{s ∈ {0, 1}} B[c, s] v[dofs(tree[c, s])],     B: (n, 2, m, d),

with d the most dofs of any tree (smaller trees padded with a dof that is always zero) and a
virtual empty tree (index T, the world) for a side without dofs. The two sides are always
different trees (a constraint within one tree keeps its whole block on side 0), so the sums
below never double count. With n constraints on T trees of d dofs, J v and Jᵀγ cost O(n·m·d)
instead of O(n·m·nv), and Jᵀ G J, assembled block by block into the (T+1)² tree-pair blocks and
gathered into the dense (nv × nv) Hessian, costs O(n·m²·d²) instead of O(n·m²·nv²).

A plant with one tree (a robot on the ground) gains nothing from the tree split and would pay
its gathers and scatters: its Jacobian is kept dense, as one side holding every dof in order
(``blocks`` (n, 1, m, nv), `TreeJacobian.from_dense`), and the products are plain dense ones.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class TreeJacobian:
    """Per-tree Jacobian blocks of n constraints of m equations each.

    Attributes:
        blocks: (n, 2, m, d) the two sides' blocks, columns in the order of ``dof_map`` rows;
            or (n, 1, m, nv): the dense Jacobian (then ``trees`` and the maps are unused).
        trees: (n, 2) int tree index of each side (T: the empty tree).
        dof_map: (T + 1, d) int velocity index of each tree's local dof; nv for padding (and the
            whole empty row T).
        dof_slot: (nv,) int position of velocity i in ``dof_map.ravel()``.
        pair_slot: (nv, nv) int position of H[i, j] in the flattened (T+1, T+1, d, d) tree-pair
            block storage.
    """

    blocks: jax.Array
    trees: jax.Array
    dof_map: jax.Array
    dof_slot: jax.Array
    pair_slot: jax.Array

    @property
    def num_velocities(self):
        return self.dof_slot.shape[-1]

    @staticmethod
    def layout(dof_tree, num_trees):
        """(dof_map, dof_slot, pair_slot) as NumPy arrays for velocities whose tree indices are
        ``dof_tree`` (nv,) in [0, num_trees)."""
        dof_tree = np.asarray(dof_tree, np.int64)
        nv, T = dof_tree.size, int(num_trees)
        counts = np.bincount(dof_tree, minlength=T)
        d = int(counts.max(initial=0))
        dof_map = np.full((T + 1, d), nv, np.int64)
        local, seen = np.zeros(nv, np.int64), np.zeros(T, np.int64)
        for i, t in enumerate(dof_tree):
            local[i], seen[t] = seen[t], seen[t] + 1
            dof_map[t, local[i]] = i
        dof_slot = dof_tree * d + local
        pair = (dof_tree[:, None] * (T + 1) + dof_tree[None, :]) * d * d
        pair_slot = pair + local[:, None] * d + local[None, :]
        return dof_map, dof_slot, pair_slot

    @classmethod
    def from_dense(cls, J):
        """The `TreeJacobian` of a dense (n, m, nv) Jacobian (dense products)."""
        J = jnp.asarray(J)
        if J.ndim != 3:
            raise ValueError(f"TreeJacobian.from_dense: J must have shape (n, m, nv), got "
                             f"{J.shape}")
        n, m, nv = J.shape
        dof_map, dof_slot, pair_slot = cls.layout(np.zeros(nv, np.int64), 1)
        trees = np.tile(np.array([0, 1], np.int64), (n, 1))
        return cls(J[:, None], jnp.asarray(trees), jnp.asarray(dof_map), jnp.asarray(dof_slot),
                   jnp.asarray(pair_slot))

    @property
    def is_dense(self):
        return self.blocks.shape[1] == 1

    @property
    def dense(self):
        """(n, m, nv) when `is_dense`."""
        return self.blocks[:, 0]

    # --- Tree layout: x_tree (T+1, d), row t the dofs of tree t (pads and row T zero) --------
    def to_tree(self, x):
        """(T+1, d) tree-blocked copy of ``x`` (nv,)."""
        return jnp.concatenate([x, jnp.zeros((1,), x.dtype)])[self.dof_map]

    def from_tree(self, x_tree):
        """(nv,) the velocities of the tree-blocked ``x_tree`` (T+1, d)."""
        return x_tree.reshape(-1)[self.dof_slot]

    # Small contractions below are written out as sums of element-wise products over the m
    # equations and d dofs: XLA:CPU fuses each into one loop, 3-6x faster than einsum's
    # batched dot products for these 3 × d blocks under vmap.
    def apply_tree(self, x_tree):
        """J x for tree-blocked x (T+1, d): (n, m). Tree form only."""
        Bk = self.blocks
        xs = x_tree[self.trees]  # (n, 2, d)
        return sum(Bk[:, s, :, k] * xs[:, s, None, k]
                   for s in range(Bk.shape[1]) for k in range(Bk.shape[3]))

    def apply_transpose_tree(self, g):
        """Jᵀ g for g (n, m), tree-blocked: (T+1, d). Tree form only."""
        Bk = self.blocks
        per_side = sum(Bk[:, :, k, :] * g[:, None, k, None] for k in range(Bk.shape[2]))
        return jnp.zeros(self.dof_map.shape, per_side.dtype).at[self.trees].add(per_side)

    def apply(self, v):
        """J v: (n, m)."""
        if self.is_dense:
            return jnp.einsum("cmn,n->cm", self.dense, v)
        return self.apply_tree(self.to_tree(v))

    def apply_transpose(self, g):
        """Jᵀ g for g (n, m): (nv,)."""
        if self.is_dense:
            return jnp.einsum("cmn,cm->n", self.dense, g)
        return self.from_tree(self.apply_transpose_tree(g))

    def _g_blocks(self, G):
        """(n, 2, m, d): G_c B_cs per constraint and side."""
        Bk = self.blocks
        return sum(G[:, None, :, k, None] * Bk[:, :, None, k, :] for k in range(G.shape[-1]))

    def congruence(self, G, tree_blocks=None):
        """Jᵀ G J for G (n, m, m): (nv, nv); plus the block-diagonal matrix whose tree blocks
        are ``tree_blocks`` (T+1, d, d) if given (tree form only)."""
        if self.is_dense:
            if tree_blocks is not None:
                raise ValueError("TreeJacobian.congruence: tree_blocks needs the tree form")
            return jnp.einsum("cin,cij,cjm->nm", self.dense, G, self.dense)
        T1, d = self.dof_map.shape
        Bk, GJ = self.blocks, self._g_blocks(G)
        B = sum(Bk[:, :, None, k, :, None] * GJ[:, None, :, k, None, :]
                for k in range(G.shape[-1]))
        pair = self.trees[:, :, None] * T1 + self.trees[:, None, :]
        return self._pair_blocks_to_dense(tree_blocks, B.dtype, pair, B)

    def dense_from_tree_blocks(self, tree_blocks):
        """(nv, nv) the block-diagonal matrix with tree blocks (T+1, d, d). Tree form only."""
        if self.is_dense:
            raise ValueError("TreeJacobian.dense_from_tree_blocks needs the tree form")
        return self._pair_blocks_to_dense(tree_blocks, tree_blocks.dtype)

    def _pair_blocks_to_dense(self, tree_blocks, dtype, pair=None, B=None):
        """(nv, nv) from blocks by (tree, tree) pair: ``tree_blocks`` on the diagonal pairs (or
        None), plus the blocks ``B`` added at the pairs ``pair`` (or none)."""
        T1, d = self.dof_map.shape
        acc = jnp.zeros((T1 * T1, d, d), dtype)
        if tree_blocks is not None:
            acc = acc.at[np.arange(T1) * (T1 + 1)].set(tree_blocks)
        if B is not None:
            acc = acc.at[pair].add(B)
        return acc.reshape(-1)[self.pair_slot]

    def tree_congruence(self, G):
        """The diagonal tree blocks of Jᵀ G J: (T+1, d, d), Σ over constraints c and sides s on
        tree t of B_csᵀ G_c B_cs. Tree form only."""
        Bk, GJ = self.blocks, self._g_blocks(G)
        side = sum(Bk[:, :, k, :, None] * GJ[:, :, k, None, :] for k in range(G.shape[-1]))
        T1, d = self.dof_map.shape
        return jnp.zeros((T1, d, d), side.dtype).at[self.trees].add(side)

    def weighted_gram(self, w):
        """J diag(w) Jᵀ per constraint for w (nv,): (n, m, m)."""
        if self.is_dense:
            return jnp.einsum("cin,n,cjn->cij", self.dense, w, self.dense)
        # A gather by the (traced) tree indices, slow batched under vmap on a CPU (6 µs per
        # member on 12 spheres), but O(n·d): a one-hot sum over the trees was 3 µs faster there
        # and O(n·T·d), too much for a plant of a hundred trees.
        w_sides = self.to_tree(w)[self.trees]
        Bw = self.blocks * w_sides[:, :, None, :]  # (n, 2, m, d)
        # Σ over sides and dofs as broadcast products (no small batched contraction).
        Bk = self.blocks
        return sum(Bw[:, s, :, None, k] * Bk[:, s, None, :, k]
                   for s in range(Bk.shape[1]) for k in range(Bk.shape[3]))

    def to_dense(self):
        """The dense (n, m, nv) Jacobian."""
        if self.is_dense:
            return self.dense
        n, _, m, d = self.blocks.shape
        nv = self.num_velocities
        cols = self.dof_map[self.trees]  # (n, 2, d)
        out = jnp.zeros((n, m, nv + 1), self.blocks.dtype)
        rows = jnp.arange(n)[:, None, None, None]
        eqs = jnp.arange(m)[None, None, :, None]
        out = out.at[rows, eqs, cols[:, :, None, :]].add(self.blocks)
        return out[..., :nv]
