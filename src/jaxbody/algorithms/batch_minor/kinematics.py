"""The dynamics kinematics of `dynamics_kinematics.py` for a batch, with the batch last.

Same quantities, same formulas, laid out for element-wise code over the batch (see
`algebra.py`): arrays are components first, then the nodes, then the batch on the last axis,
e.g. (3, 3, n, B). The nodes are the moving ones (bodies on welds are folded into them, see
`welds.py`) in *level order*: the world first, then depth by depth, so that each tree level is
a contiguous slice. Parameters may carry a batch axis of B members or of 1 (shared by all).

Two passes run over the tree's levels (poses; Plücker velocities about Wo, which add without
shifting: V^O_b = V^O_parent + Σ_{k ∈ b} S^O_k v_k). Everything else is per node, with no
recursion; in particular the velocity-product term of ABA, c_b = Ab^O_b − Ab^O_parent, needs
only the parent's velocity: the parent's acceleration cancels from the difference (its angular
part α_P enters as α_P × r + p_B × α_P − p_P × α_P = 0, r = p_B − p_P).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.batch_minor.algebra import (
    cross,
    dot,
    gather_sum,
    mm,
    mv,
    skew,
    spatial,
    take,
    transpose,
)
from jaxbody.algorithms.batch_minor.joint_stage import bias_of_joints, joint_stage, subspaces
from jaxbody.algorithms.batch_minor.welds import (
    WeldPlan,
    WeldPoses,
    folded_inertias,
    pose_in_rep,
    weld_plan,
    welded_poses,
)


class BatchKinematics(NamedTuple):
    """Level-ordered node and dof-ordered arrays, components first, batch last."""

    R_WB: jax.Array  # (3, 3, n, B)
    p_WB: jax.Array  # (3, n, B)
    S_L: jax.Array  # (6, nv, B): joint subspace columns about Wo, in W, in the level order of
    # the dofs (`LevelOrder.dofs`)
    V_O: jax.Array  # (6, n, B): body twists about Wo
    c_O: jax.Array  # (6, n, B): Ab^O_b − Ab^O_parent(b)
    M_O: jax.Array  # (6, 6, n, B): spatial inertias about Wo (welded bodies folded in)
    welded: WeldPoses  # the welded bodies' poses in their representatives (`welds.py`)


class LevelOrder(NamedTuple):
    """Static level-order bookkeeping of a topology (NumPy, built once per trace)."""

    nodes: np.ndarray  # (n,) node at each level-order position (world first)
    parent: np.ndarray  # (n,) level-order position of each position's parent (world: 0)
    slices: list  # (start, stop) of each level (after the world)
    parent_pos: list  # per level: parent's index within the previous level's slice
    dof_node: np.ndarray  # (nv,) level-order position of each dof's node
    node_dofs: list  # per level-order position: its dofs
    welds: WeldPlan  # how welded bodies hang from the moving ones
    dofs: np.ndarray  # (nv,) the dofs in the dof tree's level order (``dof_tree.order``, what
    # ABA runs in): the dof at each level-order dof position
    dof_node_L: np.ndarray  # (nv,) level-order node position of each level-ordered dof
    node_dofs_L: list  # per level-order node position: its dofs' level-order positions


@functools.lru_cache(maxsize=64)
def level_order(topo) -> LevelOrder:
    """The moving nodes (`welds.weld_plan`) in level order; a node's parent is its parent's
    representative (welded bodies are folded into it)."""
    plan = weld_plan(topo)
    reduced_depth = np.zeros(topo.num_nodes, np.int64)
    for i in range(1, topo.num_nodes):
        up = plan.rep[topo.parent[i]]
        reduced_depth[i] = reduced_depth[up] + 1 if plan.moving[i] else reduced_depth[up]
    moving = np.flatnonzero(plan.moving[1:]) + 1
    by_level = [moving[reduced_depth[moving] == d]
                for d in range(1, int(reduced_depth.max(initial=0)) + 1)]
    by_level = [lv for lv in by_level if len(lv)]
    nodes = np.concatenate([np.zeros(1, np.int64)] + by_level)
    position = np.full(topo.num_nodes, -1, np.int64)
    position[nodes] = np.arange(len(nodes))
    parent = position[plan.rep[np.maximum(topo.parent[nodes], 0)]]
    parent[0] = 0
    slices, parent_pos, start, prev = [], [], 1, 0
    for idx in by_level:
        stop = start + len(idx)
        slices.append((start, stop))
        parent_pos.append(parent[start:stop] - prev)
        prev, start = start, stop
    dof_node = position[topo.dof_node]
    node_dofs = [list(np.flatnonzero(dof_node == i)) for i in range(len(nodes))]
    dofs = np.asarray(topo.dof_tree.order, np.int64)
    dof_node_L = dof_node[dofs]
    node_dofs_L = [list(np.flatnonzero(dof_node_L == i)) for i in range(len(nodes))]
    return LevelOrder(nodes, parent, slices, parent_pos, dof_node, node_dofs, plan, dofs,
                      dof_node_L, node_dofs_L)


def dof_ordered(lo, x, axis=-2):
    """``x`` with its level-ordered dof axis (`LevelOrder.dofs`) put in dof order."""
    return take(x, np.argsort(lo.dofs), axis)


def dynamics_kinematics(topo, q, v, mass, com, unit_inertia, frame_R, frame_p):
    """`BatchKinematics` of q (nq, B), v (nv, B); parameters with a last axis of B or 1:
    mass (nb, b), com (3, nb, b), unit_inertia (3, 3, nb, b), frame_R (3, 3, nf, b),
    frame_p (3, nf, b)."""
    lo = level_order(topo)
    B, dtype = q.shape[-1], q.dtype
    fp, fc = topo.frame_on_parent[lo.nodes], topo.frame_on_child[lo.nodes]
    R_PF, p_PF, R_BM, p_BM = take(frame_R, fp), take(frame_p, fp), take(frame_R, fc), \
        take(frame_p, fc)
    poses = welded_poses(topo, lo.welds, frame_R, frame_p)
    if poses.column:  # joint frames on welded parents, expressed in their representatives
        R_rP, p_rP = pose_in_rep(poses, np.maximum(topo.parent[lo.nodes], 0), R_PF)
        R_PF, p_PF = mm(R_rP, R_PF), p_rP + mv(R_rP, p_PF)
    # ---- X_PB = X_PF X_FM X_MB, by joint kind (`joint_stage.py`) -------------------------
    js = joint_stage(topo, lo, q, v, R_PF, p_PF, R_BM, p_BM)
    R_PB, p_PB = js.R_PB, js.p_PB
    # ---- base to tip: X_WB = X_WP X_PB ----------------------------------------------------
    R_lv = [jnp.broadcast_to(jnp.eye(3, dtype=dtype)[:, :, None, None], (3, 3, 1, B))]
    p_lv = [jnp.zeros((3, 1, B), dtype)]
    for (a, b), pos in zip(lo.slices, lo.parent_pos):
        R_WP, p_WP = take(R_lv[-1], pos), take(p_lv[-1], pos)
        R_lv.append(mm(R_WP, R_PB[:, :, a:b]))
        p_lv.append(p_WP + mv(R_WP, p_PB[:, a:b]))
    R_WB, p_WB = jnp.concatenate(R_lv, -2), jnp.concatenate(p_lv, -2)
    # ---- joint subspace about Wo ------------------------------------------------------------
    p_MoBo_W = -mv(R_WB, p_BM)
    S_L, R_WF = subspaces(lo, js, R_WB, p_WB, p_MoBo_W, R_PF)
    # ---- base to tip: V^O = V^O_parent + S^O v ------------------------------------------
    VJ_O = gather_sum(S_L * take(v, lo.dofs, 0), lo.node_dofs_L)  # (6, n, B)
    V_lv = [jnp.zeros((6, 1, B), dtype)]
    for (a, b), pos in zip(lo.slices, lo.parent_pos):
        V_lv.append(take(V_lv[-1], pos) + VJ_O[:, a:b])
    V_O = jnp.concatenate(V_lv, -2)
    c_O = _bias_difference(lo, p_MoBo_W, p_WB, V_O)
    joints = bias_of_joints(lo, js, R_WF, p_MoBo_W, p_WB)
    c_O = c_O if joints is None else c_O + joints
    m, h, Ibar = folded_inertias(topo, lo.welds, poses, mass, com, unit_inertia, lo.nodes)
    M_O = _inertia_about_origin(m, h, Ibar, R_WB, p_WB)
    return BatchKinematics(R_WB, p_WB, S_L, V_O, c_O, M_O, poses)


def _bias_difference(lo, p_MoBo_W, p_WB, V_O):
    """c_b = Ab^O_b − Ab^O_parent (6, n, B), per node (see the module docstring), without the
    joints' Ḣ v (`joint_stage.bias_of_joints` adds it where a kind has one)."""
    w = V_O[:3]
    v_Bo = V_O[3:] - cross(p_WB, w)
    # across-joint velocity about Bo, in W: V_PB = V_B − V_P shifted to Bo
    w_P, v_P, p_P = take(w, lo.parent), take(v_Bo, lo.parent), take(p_WB, lo.parent)
    r = p_WB - p_P
    w_PB = w - w_P
    v_PB = v_Bo - v_P - cross(w_P, r)
    # across-joint bias acceleration (v̇ = 0, Ḣ = 0), about Bo, in W
    a_PB = cross(w_PB, cross(w_PB, p_MoBo_W))
    # ComposeWithMovingFrame with the parent's acceleration left out (it cancels)
    alpha = cross(w_P, w_PB)
    a = cross(w_P, cross(w_P, r)) + a_PB + 2.0 * cross(w_P, v_PB)
    lin = a + cross(v_Bo, w) + cross(p_WB, alpha) - cross(v_P, w_P)
    c = spatial(alpha, lin)
    return jnp.concatenate([jnp.zeros_like(c[:, :1]), c[:, 1:]], -2)


def _inertia_about_origin(m, h_B, Ibar_B, R_WB, p_WB):
    """Spatial inertias about Wo (6, 6, n, B) of bodies with mass m, first moment h = m c and
    rotational inertia Ī about Bo, in B: with h = R h_B (W),
        Ī_O = R Ī_B Rᵀ + m (|p|² 1 − p pᵀ) + 2 (p · h) 1 − p hᵀ − h pᵀ,
        M_O = [[Ī_O, [m p + h]×], [[m p + h]×ᵀ, m 1]]."""
    eye = jnp.eye(3, dtype=m.dtype)[:, :, None, None]
    h = mv(R_WB, h_B)
    p = p_WB
    I_O = (mm(R_WB, mm(Ibar_B, transpose(R_WB))) + m * (dot(p, p) * eye - p[:, None] * p[None])
           + 2.0 * dot(p, h) * eye - p[:, None] * h[None] - h[:, None] * p[None])
    mC = skew(m * p + h)
    shape = jnp.broadcast_shapes(I_O.shape, mC.shape)
    top = jnp.concatenate([jnp.broadcast_to(I_O, shape), mC], 1)
    bottom = jnp.concatenate([transpose(mC), jnp.broadcast_to(m * eye, shape)], 1)
    return jnp.concatenate([top, bottom], 0)


def welded_sum(topo, lo, bk, F_Bo_W, fn):
    """Σ over each moving body and the bodies welded to it of ``fn(F, p)`` (..., n, B), for
    applied forces F_Bo_W (6, num_bodies, b) at each body's origin p, in W: F (6, m, B) and
    p (3, m, B) of the bodies taken together."""
    F = fn(take(F_Bo_W, topo.node_body[lo.nodes]), bk.p_WB)
    position = {int(x): i for i, x in enumerate(lo.nodes)}
    poses = bk.welded
    ws = [w for w in poses.column if lo.welds.rep[w] != 0 and int(lo.welds.rep[w]) in position]
    if not ws:
        return F
    r = np.asarray([position[int(lo.welds.rep[w])] for w in ws], np.int64)
    p_rw = take(poses.p, [poses.column[w] for w in ws])
    p_w = take(bk.p_WB, r) + mv(take(bk.R_WB, r), p_rw)
    Fw = fn(take(F_Bo_W, topo.node_body[np.asarray(ws, np.int64)]), p_w)
    groups = [list(np.flatnonzero(r == i)) for i in range(len(lo.nodes))]
    return F + gather_sum(Fw, groups)


def applied_about_origin(topo, lo, bk, F_Bo_W):
    """Σ over each moving body and the bodies welded to it of [τ + p_w × f; f] (6, n, B) for
    applied forces F_Bo_W (6, num_bodies, b) at each body's origin, in W."""
    return welded_sum(topo, lo, bk, F_Bo_W,
                      lambda F, p: spatial(F[:3] + cross(p, F[3:]), F[3:]))
