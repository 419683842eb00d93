"""The static (NumPy) layout of a model's discrete contact problems, built once per model: the
kinematic trees and the `TreeJacobian` layout, the limited joints, the constraints' dofs, nodes,
points and frames, the PD-controlled actuators, and the contact approximation. Typed records
(`discrete_problem` reads them by field); the Context supplies the parameters.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jaxbody.contact.tree_jacobian import TreeJacobian


class TreeLayout(NamedTuple):
    """The kinematic trees (subtrees of the world) and the `TreeJacobian` layout.

    Attributes:
        tree: (n,) each node's depth-1 ancestor (0: the world).
        tree_index: (n,) each node's tree among those owning dofs, 0..T-1; T for the world and
            dof-less trees.
        dof_tree: (nv,) the ``tree`` of each dof.
        dof_map, dof_slot, pair_slot: `TreeJacobian.layout` of the dofs' trees.
    """

    tree: np.ndarray
    tree_index: np.ndarray
    dof_tree: np.ndarray
    dof_map: np.ndarray
    dof_slot: np.ndarray
    pair_slot: np.ndarray

    @property
    def num_trees(self) -> int:
        """T, the number of trees that own dofs."""
        return self.dof_map.shape[0] - 1


class LimitRows(NamedTuple):
    """The 1-dof joints with a finite position limit: (L,) dof, q index, lower, upper."""

    dof: np.ndarray
    q: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


class CouplerRows(NamedTuple):
    """Coupler constraints: (C, 2) dofs and q indices of (joint0, joint1)."""

    dof: np.ndarray
    q: np.ndarray


class PointPairRows(NamedTuple):
    """Ball or distance constraints: (B, 2) nodes of (A, B), (B, 3) ``p_AP`` and ``p_BQ``."""

    nodes: np.ndarray
    p_AP: np.ndarray
    p_BQ: np.ndarray


class WeldRows(NamedTuple):
    """Weld constraints: (W, 2) nodes of (A, B), frames P in A and Q in B as (W, 3, 3)
    rotations and (W, 3) positions."""

    nodes: np.ndarray
    R_AP: np.ndarray
    p_AP: np.ndarray
    R_BQ: np.ndarray
    p_BQ: np.ndarray


class PdRows(NamedTuple):
    """PD-controlled actuators, in actuator order: (P,) actuator index, dof, q index and
    effort limit."""

    actuator: np.ndarray
    dof: np.ndarray
    q: np.ndarray
    effort: np.ndarray


class DiscreteLayout(NamedTuple):
    """Everything static the discrete step reads (`discrete_problem`), one record per part.

    Attributes:
        trees: `TreeLayout`.
        limits: `LimitRows`.
        couplers: `CouplerRows`.
        balls, distances: `PointPairRows`.
        welds: `WeldRows`.
        pd: `PdRows`.
        hunt_crossley: None (kSap's compliant cones), "similar" or "lagged" (Drake's convex
            Hunt & Crossley approximations).
        stiction_tolerance: v_s (m/s), the Hunt & Crossley approximations' regularization.
    """

    trees: TreeLayout
    limits: LimitRows
    couplers: CouplerRows
    balls: PointPairRows
    distances: PointPairRows
    welds: WeldRows
    pd: PdRows
    hunt_crossley: str | None
    stiction_tolerance: float

    @property
    def constraint_sizes(self) -> tuple:
        """Rows of each constraint block after the limits, in assembly order: PD, coupler,
        distance, ball (3 each), weld (6 each)."""
        return (self.pd.dof.shape[0], self.couplers.dof.shape[0],
                self.distances.nodes.shape[0], 3 * self.balls.nodes.shape[0],
                6 * self.welds.nodes.shape[0])


def tree_layout(topo) -> TreeLayout:
    """The `TreeLayout` of a `Topology`."""
    tree = np.zeros(topo.num_nodes, np.int64)
    for node in range(1, topo.num_nodes):
        n = node
        while topo.parent[n] != 0:
            n = topo.parent[n]
        tree[node] = n
    # Trees that own dofs, numbered 0..T-1; T stands for the world and dof-less trees.
    owners = np.unique(tree[topo.dof_node])
    tree_index = np.full(topo.num_nodes, owners.size, np.int64)
    tree_index[np.isin(tree, owners)] = np.searchsorted(owners, tree[np.isin(tree, owners)])
    dof_map, dof_slot, pair_slot = TreeJacobian.layout(tree_index[topo.dof_node], owners.size)
    return TreeLayout(tree, tree_index, tree[topo.dof_node], dof_map, dof_slot, pair_slot)


def limit_rows(q_start, nq, v_start, nv, q_lower, q_upper) -> LimitRows:
    """`LimitRows` of the 1-dof joints (per-joint ``q_start, nq, v_start, nv``; q-ordered
    ``q_lower, q_upper``) with a finite lower or upper limit."""
    one = np.flatnonzero((np.asarray(nq) == 1) & (np.asarray(nv) == 1))
    qi = np.asarray(q_start, np.int64)[one]
    lo, hi = np.asarray(q_lower, float)[qi], np.asarray(q_upper, float)[qi]
    keep = np.isfinite(lo) | np.isfinite(hi)
    return LimitRows(np.asarray(v_start, np.int64)[one][keep], qi[keep], lo[keep], hi[keep])


def _points(x, shape):
    return np.asarray(x, float).reshape((-1,) + shape)


def point_pair_rows(body_node, body_A, p_AP, body_B, p_BQ) -> PointPairRows:
    """`PointPairRows` from (k,) BodyIndex A and B and (k, 3) points."""
    nodes = np.stack([np.asarray(body_node)[np.asarray(body_A, np.int64)],
                      np.asarray(body_node)[np.asarray(body_B, np.int64)]], -1).reshape(-1, 2)
    return PointPairRows(nodes, _points(p_AP, (3,)), _points(p_BQ, (3,)))


def weld_rows(body_node, body_A, R_AP, p_AP, body_B, R_BQ, p_BQ) -> WeldRows:
    """`WeldRows` from (k,) BodyIndex A and B, (k, 3, 3) rotations and (k, 3) positions."""
    pairs = point_pair_rows(body_node, body_A, p_AP, body_B, p_BQ)
    return WeldRows(pairs.nodes, _points(R_AP, (3, 3)), pairs.p_AP, _points(R_BQ, (3, 3)),
                    pairs.p_BQ)
