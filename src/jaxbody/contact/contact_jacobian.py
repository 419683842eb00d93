"""Contact frames and the per-tree contact Jacobians of point contacts (see `tree_jacobian`).

For a point C shared by bodies A and B, the contact velocity of A relative to B in the contact
frame C (columns t₁, t₂, n) is  vc = R_WCᵀ (v_WAc − v_WBc),  with the velocity of a point Q fixed
on body P  v_WQ = Σ_{k ⪯ P} (h_v,k + h_w,k × (p_WQ − p_WPk)) v_k  (dofs k supporting P, their
world-frame columns about their own body origins Pk: `jacobians.point_jacobian_in_world`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.algorithms.jacobians import point_jacobian_in_world
from jaxbody.contact.tree_jacobian import TreeJacobian


def contact_frames(n):
    """R_WC (..., 3, 3) with columns (t₁, t₂, n) for unit normals ``n`` (..., 3)."""
    a = jnp.abs(n)
    e = jnp.where((a[..., 0] <= a[..., 1]) & (a[..., 0] <= a[..., 2]), 0,
                  jnp.where(a[..., 1] <= a[..., 2], 1, 2))
    axis = jax.nn.one_hot(e, 3, dtype=n.dtype)
    t1 = jnp.cross(n, axis)
    t1 = t1 / jnp.linalg.norm(t1, axis=-1, keepdims=True)
    t2 = jnp.cross(n, t1)
    return jnp.stack([t1, t2, n], -1)


def _translational(topo, pk, node, p_WC, dofs):
    """(m, 3, d): the translational rows of `point_jacobian_in_world` at columns ``dofs``
    (every dof if None)."""
    return point_jacobian_in_world(topo, pk, node, p_WC, dofs)[:, 3:]


def contact_jacobian(topo, pk, layout, node_a, node_b, p_WC, R_WC):
    """The `TreeJacobian` of the contact velocities vc = R_WCᵀ(v_WAc − v_WBc) of m points.

    Args:
        layout: dict with ``tree_index`` (n,) NumPy tree of each node (T: the world and trees
            without dofs) and ``dof_map``, ``dof_slot``, ``pair_slot`` (`TreeJacobian.layout`).
        node_a, node_b: (m,) int tree nodes of A and B; p_WC (m, 3); R_WC (m, 3, 3).
    """
    if layout.trees.dof_map.shape[0] <= 2:  # one tree: dense columns over every dof
        J = (_translational(topo, pk, node_a, p_WC, None)
             - _translational(topo, pk, node_b, p_WC, None))
        # R_WCᵀ J as three broadcast products (see below).
        return TreeJacobian.from_dense(sum(R_WC[:, j, :, None] * J[:, j, None, :]
                                           for j in range(3)))
    tree_index = jnp.asarray(layout.trees.tree_index)
    dof_map = jnp.asarray(layout.trees.dof_map)
    T = dof_map.shape[0] - 1
    ta, tb = tree_index[node_a], tree_index[node_b]
    same = ta == tb
    dofs_a, dofs_b = dof_map[ta], dof_map[tb]
    # Side 0: tree A, with B's part when B is in the same tree (zero otherwise by the masks);
    # side 1: tree B when it is another tree.
    side0 = (_translational(topo, pk, node_a, p_WC, dofs_a)
             - _translational(topo, pk, node_b, p_WC, dofs_a))
    side1 = -jnp.where(same[:, None, None], 0.0,
                       _translational(topo, pk, node_b, p_WC, dofs_b))
    # R_WCᵀ per side, as three broadcast products (a batched 3×3 contraction is one slow
    # small-matrix call per contact under vmap on a CPU).
    sides = jnp.stack([side0, side1], 1)  # (m, 2, 3, d)
    blocks = sum(R_WC[:, None, j, :, None] * sides[:, :, j, None, :] for j in range(3))
    trees = jnp.stack([ta, jnp.where(same, T, tb)], 1)
    return TreeJacobian(blocks, trees, dof_map, jnp.asarray(layout.trees.dof_slot),
                        jnp.asarray(layout.trees.pair_slot))


def empty_contact_jacobian(topo, layout, dtype):
    """The `TreeJacobian` of no contacts, in the form `contact_jacobian` gives the plant (dense
    on one tree, tree form on several)."""
    trees = layout.trees
    if trees.dof_map.shape[0] <= 2:
        return TreeJacobian.from_dense(jnp.zeros((0, 3, topo.nv), dtype))
    return TreeJacobian(jnp.zeros((0, 2, 3, trees.dof_map.shape[1]), dtype),
                        jnp.zeros((0, 2), jnp.asarray(trees.tree_index).dtype),
                        jnp.asarray(trees.dof_map), jnp.asarray(trees.dof_slot),
                        jnp.asarray(trees.pair_slot))
