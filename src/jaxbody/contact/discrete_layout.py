"""The static (NumPy) data of a plant's discrete contact problems, built once per plant: the
kinematic trees, the `TreeJacobian` layout, the limited joints, and the constraints' dofs,
bodies, points and frames (`discrete_problem` reads them; the Context supplies the parameters).
"""

from __future__ import annotations

import numpy as np

from jaxbody.contact.tree_jacobian import TreeJacobian


def _limits(joints):
    dofs, lo, hi, qi = [], [], [], []
    for j in joints:
        if j.num_positions() == 1 and j.num_velocities() == 1:
            ql = float(np.asarray(j.position_lower_limits())[0])
            qu = float(np.asarray(j.position_upper_limits())[0])
            if np.isfinite(ql) or np.isfinite(qu):
                dofs.append(j.velocity_start())
                qi.append(j.position_start())
                lo.append(ql)
                hi.append(qu)
    return dict(limit_dof=np.asarray(dofs, np.int64), limit_q=np.asarray(qi, np.int64),
                limit_lo=np.asarray(lo), limit_hi=np.asarray(hi))


def _vectors(items, k, shape):
    return np.array([x[k] for x in items], float).reshape((-1,) + shape)


def discrete_layout(topo, joints, couplers=(), balls=(), distances=(), welds=(), pd=()) -> dict:
    """The layout dict of a plant.

    Keys: the kinematic tree of every node (``tree``: its depth-1 ancestor, 0 the world;
    ``tree_index``; ``dof_tree``), the `TreeJacobian` layout (``dof_map``, ``dof_slot``,
    ``pair_slot``), the limited 1-dof joints (``limit_dof``, ``limit_q``, ``limit_lo``,
    ``limit_hi``), and per constraint kind:
    - ``couplers``: pairs of 1-dof joints (joint0, joint1) → ``coupler_dof``, ``coupler_q``
      (C, 2);
    - ``balls`` / ``distances``: tuples (BodyIndex A, p_AP, BodyIndex B, p_BQ) →
      ``ball_nodes`` (B, 2), ``ball_p_AP``, ``ball_p_BQ`` (B, 3), likewise ``distance_*``;
    - ``welds``: tuples (A, R_AP, p_AP, B, R_BQ, p_BQ) → ``weld_nodes``, ``weld_R_AP``,
      ``weld_p_AP``, ``weld_R_BQ``, ``weld_p_BQ``;
    - ``pd``: tuples (actuator index, joint, effort limit) of the PD-controlled actuators →
      ``pd_actuator``, ``pd_dof``, ``pd_q``, ``pd_effort`` (P,).
    """
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
    body_node = np.asarray(topo.body_node)

    def nodes(items, a, b):
        return body_node[np.array([[x[a], x[b]] for x in items], np.int64).reshape(-1, 2)
                         ].reshape(-1, 2)

    out = dict(tree=tree, dof_tree=tree[topo.dof_node], tree_index=tree_index,
               dof_map=dof_map, dof_slot=dof_slot, pair_slot=pair_slot, **_limits(joints))
    out.update(
        coupler_dof=np.array([[j0.velocity_start(), j1.velocity_start()] for j0, j1 in couplers],
                             np.int64).reshape(-1, 2),
        coupler_q=np.array([[j0.position_start(), j1.position_start()] for j0, j1 in couplers],
                           np.int64).reshape(-1, 2),
        ball_nodes=nodes(balls, 0, 2), ball_p_AP=_vectors(balls, 1, (3,)),
        ball_p_BQ=_vectors(balls, 3, (3,)),
        distance_nodes=nodes(distances, 0, 2), distance_p_AP=_vectors(distances, 1, (3,)),
        distance_p_BQ=_vectors(distances, 3, (3,)),
        weld_nodes=nodes(welds, 0, 3), weld_R_AP=_vectors(welds, 1, (3, 3)),
        weld_p_AP=_vectors(welds, 2, (3,)), weld_R_BQ=_vectors(welds, 4, (3, 3)),
        weld_p_BQ=_vectors(welds, 5, (3,)),
        pd_actuator=np.array([x[0] for x in pd], np.int64),
        pd_dof=np.array([x[1].velocity_start() for x in pd], np.int64),
        pd_q=np.array([x[1].position_start() for x in pd], np.int64),
        pd_effort=np.array([x[2] for x in pd], float))
    return out
