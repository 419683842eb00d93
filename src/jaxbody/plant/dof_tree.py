"""The dof tree: every multi-dof joint expanded into a chain of single-dof nodes.

A joint with m velocities becomes m nodes in a chain, each with one column of the joint's
motion subspace; the body's inertia (and that of every body welded to it) hangs from the last
node of the chain; the joint's velocity-product acceleration enters at the first. The
articulated-body recursion over this tree equals the recursion over the original tree with
m × m joint blocks [Featherstone 2008, §7.3: a multi-dof joint is equivalent to single-dof
joints joined by massless bodies], but every step is a scalar division, never a matrix inverse,
and every level has the same uniform shape. Weld joints add no node; bodies welded to the world
are dropped (they cannot move).
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True, eq=False)
class DofLevel:
    """One depth of the dof tree.

    Attributes:
        dofs: (k,) velocity indices of the nodes at this depth.
        parent_pos: (k,) position of each node's parent within the previous level (0 for the
            first level, whose parent is the world).
        to_parent: (k, k_prev) 0/1 matrix summing children into their parents (None at the
            first level).
    """

    dofs: np.ndarray
    parent_pos: np.ndarray
    to_parent: np.ndarray | None


@dataclasses.dataclass(frozen=True, eq=False)
class DofTree:
    """Attributes:
        levels: tuple of `DofLevel`, base to tip.
        order: (nv,) the dofs in level order (concatenation of ``levels[i].dofs``).
        attach: (num_nodes, nv) 0/1: body node b hangs from dof d (its joint's last dof, or
            that of the nearest movable ancestor joint if b is welded).
        first: (num_nodes, nv) 0/1: the first dof of each node's joint (for its bias term).
    """

    levels: tuple
    order: np.ndarray
    attach: np.ndarray
    first: np.ndarray


def compile_dof_tree(num_nodes, parent, node_v_start, node_nv) -> DofTree:
    nv = int(node_nv.sum())
    dof_parent = np.full(nv, -1, dtype=np.int64)
    last_dof = np.full(num_nodes, -1, dtype=np.int64)  # dof that node's body hangs from
    attach = np.zeros((num_nodes, nv))
    first = np.zeros((num_nodes, nv))
    for node in range(1, num_nodes):
        up = last_dof[parent[node]]
        s, m = int(node_v_start[node]), int(node_nv[node])
        for k in range(m):
            dof_parent[s + k] = up if k == 0 else s + k - 1
        if m:
            first[node, s] = 1.0
            last_dof[node] = s + m - 1
        else:
            last_dof[node] = up
        if last_dof[node] >= 0:
            attach[node, last_dof[node]] = 1.0
    depth = np.zeros(nv, dtype=np.int64)
    for d in range(nv):  # parents precede children in v order (depth-first numbering)
        depth[d] = 0 if dof_parent[d] < 0 else depth[dof_parent[d]] + 1
    levels, pos = [], np.zeros(nv, dtype=np.int64)
    for lv in range(int(depth.max(initial=-1)) + 1):
        dofs = np.flatnonzero(depth == lv)
        pos[dofs] = np.arange(len(dofs))
        if lv == 0:
            levels.append(DofLevel(dofs, np.zeros(len(dofs), np.int64), None))
        else:
            pp = pos[dof_parent[dofs]]
            to_parent = np.zeros((len(dofs), len(levels[-1].dofs)))
            to_parent[np.arange(len(dofs)), pp] = 1.0
            levels.append(DofLevel(dofs, pp, to_parent))
    order = np.concatenate([lv.dofs for lv in levels]) if levels else np.zeros(0, np.int64)
    return DofTree(tuple(levels), order, attach, first)
