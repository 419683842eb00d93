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
from jaxbody.algorithms.batch_minor.welds import (
    WeldPlan,
    WeldPoses,
    folded_inertias,
    pose_in_rep,
    weld_plan,
    welded_poses,
)
from jaxbody.joints.kinds import Revolute
from jaxbody.math.fusion import materialize


class BatchKinematics(NamedTuple):
    """Level-ordered node and dof-ordered arrays, components first, batch last."""

    R_WB: jax.Array  # (3, 3, n, B)
    p_WB: jax.Array  # (3, n, B)
    S_O: jax.Array  # (6, nv, B): joint subspace columns about Wo, in W
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
    return LevelOrder(nodes, parent, slices, parent_pos, dof_node, node_dofs, plan)


def _nodes_last(x):
    """(k, c..., B) as the per-sample kernels give it -> (c..., k, B)."""
    return jnp.moveaxis(x, 0, -2)


def _joint_stage(topo, lo, q, v):
    """Per-kind joint kernels over the batch: R_FM (3, 3, n, B), p_FM (3, n, B) and Ḣv
    (6, n, B) in level order, H_FM_F (6, nv, B) in dof order."""
    B, dtype = q.shape[-1], q.dtype
    Rs, ps, Hds, Hs, nodes, dofs = [], [], [], [], [], []
    for g in topo.groups:
        if not g.kind.nv:  # welded bodies are folded into their representatives
            continue
        kind, consts, k = g.kind, g.constants, len(g.nodes)
        qg = take(q, g.qidx.reshape(-1), 0).reshape(k, kind.nq, B) if kind.nq else \
            jnp.zeros((k, 0, B), dtype)
        vg = take(v, g.vidx.reshape(-1), 0).reshape(k, kind.nv, B) if kind.nv else \
            jnp.zeros((k, 0, B), dtype)
        if kind is Revolute:
            Rs.append(_revolute_rotation(consts["axis"], qg[:, 0]))
            ps.append(jnp.zeros((3, k, B), dtype))
            Hds.append(jnp.zeros((6, k, B), dtype))
        else:
            Rg, pg = jax.vmap(functools.partial(kind.transform, c=consts), -1, -1)(qg)
            Hdg = jax.vmap(functools.partial(kind.subspace_dot_v, c=consts), -1, -1)(qg, vg)
            Rs.append(_nodes_last(jnp.broadcast_to(Rg.astype(dtype), (k, 3, 3, B))))
            ps.append(_nodes_last(jnp.broadcast_to(pg.astype(dtype), (k, 3, B))))
            Hds.append(_nodes_last(jnp.broadcast_to(Hdg.astype(dtype), (k, 6, B))))
        nodes.append(g.nodes)
        if kind.nv:
            Hg = jax.vmap(functools.partial(kind.subspace, c=consts), -1, -1)(qg)  # (k, 6, m, B)
            Hg = jnp.broadcast_to(Hg.astype(dtype), Hg.shape[:3] + (B,))
            Hs.append(jnp.moveaxis(Hg, 1, 2).reshape(-1, 6, B).swapaxes(0, 1))
            dofs.append(g.vidx.reshape(-1))
    # the world (and any node in no group) holds the identity
    covered = np.concatenate(nodes + [np.zeros(0, np.int64)])
    rest = np.setdiff1d(lo.nodes, covered)
    eye = jnp.eye(3, dtype=dtype)[:, :, None, None]
    Rs.append(jnp.broadcast_to(eye, (3, 3, len(rest), B)))
    ps.append(jnp.zeros((3, len(rest), B), dtype))
    Hds.append(jnp.zeros((6, len(rest), B), dtype))
    row = {int(x): i for i, x in enumerate(np.concatenate([covered, rest]))}
    where = np.asarray([row[int(x)] for x in lo.nodes], np.int64)  # level order -> row
    R, p, Hd = (take(jnp.concatenate(x, -2), where) for x in (Rs, ps, Hds))
    if Hs:
        H = take(jnp.concatenate(Hs, -2), np.argsort(np.concatenate(dofs)))
    else:
        H = jnp.zeros((6, 0, B), dtype)
    return R, p, H, Hd


def _revolute_rotation(axis, angle):
    """Rodrigues' R = 1 + sin θ [k]× + (1 − cos θ) [k]×² (3, 3, k, B) for axes (k, 3) and
    angles (k, B), with sin θ and cos θ evaluated once per joint: fused into the nine entries
    they would be evaluated nine times each, and a float64 sine costs about 9 ns on XLA:CPU."""
    K = np.cross(np.asarray(axis, float)[:, None, :], -np.eye(3)[None])  # (k, 3, 3): [k]×
    K2 = K @ K
    s, c = materialize((jnp.sin(angle), 1.0 - jnp.cos(angle)))
    dtype = angle.dtype
    K = jnp.asarray(np.moveaxis(K, 0, -1)[..., None], dtype)  # (3, 3, k, 1)
    K2 = jnp.asarray(np.moveaxis(K2, 0, -1)[..., None], dtype)
    return jnp.eye(3, dtype=dtype)[:, :, None, None] + K * s + K2 * c


def dynamics_kinematics(topo, q, v, mass, com, unit_inertia, frame_R, frame_p):
    """`BatchKinematics` of q (nq, B), v (nv, B); parameters with a last axis of B or 1:
    mass (nb, b), com (3, nb, b), unit_inertia (3, 3, nb, b), frame_R (3, 3, nf, b),
    frame_p (3, nf, b)."""
    lo = level_order(topo)
    B, dtype = q.shape[-1], q.dtype
    R_FM, p_FM, H_F, Hdot_v_F = _joint_stage(topo, lo, q, v)
    fp, fc = topo.frame_on_parent[lo.nodes], topo.frame_on_child[lo.nodes]
    R_PF, p_PF, R_BM, p_BM = take(frame_R, fp), take(frame_p, fp), take(frame_R, fc), \
        take(frame_p, fc)
    poses = welded_poses(topo, lo.welds, frame_R, frame_p)
    if poses.column:  # joint frames on welded parents, expressed in their representatives
        R_rP, p_rP = pose_in_rep(poses, np.maximum(topo.parent[lo.nodes], 0), R_PF)
        R_PF, p_PF = mm(R_rP, R_PF), p_rP + mv(R_rP, p_PF)
    # ---- X_PB = X_PF X_FM X_MB, with X_MB = X_BM⁻¹ -------------------------------------
    R_FB = mm(R_FM, transpose(R_BM))
    R_PB = mm(R_PF, R_FB)
    p_PB = p_PF + mv(R_PF, p_FM - mv(R_FB, p_BM))
    # ---- base to tip: X_WB = X_WP X_PB ----------------------------------------------------
    R_lv = [jnp.broadcast_to(jnp.eye(3, dtype=dtype)[:, :, None, None], (3, 3, 1, B))]
    p_lv = [jnp.zeros((3, 1, B), dtype)]
    for (a, b), pos in zip(lo.slices, lo.parent_pos):
        R_WP, p_WP = take(R_lv[-1], pos), take(p_lv[-1], pos)
        R_lv.append(mm(R_WP, R_PB[:, :, a:b]))
        p_lv.append(p_WP + mv(R_WP, p_PB[:, a:b]))
    R_WB, p_WB = jnp.concatenate(R_lv, -2), jnp.concatenate(p_lv, -2)
    # ---- joint subspace about Wo ------------------------------------------------------------
    R_WF = mm(take(R_WB, lo.parent), R_PF)
    p_MoBo_W = -mv(R_WB, p_BM)
    own = lo.dof_node
    R_WF_own = take(R_WF, own)
    h_w = mv(R_WF_own, H_F[:3])
    h_v = mv(R_WF_own, H_F[3:]) + cross(h_w, take(p_MoBo_W, own))
    S_O = spatial(h_w, h_v + cross(take(p_WB, own), h_w))
    # ---- base to tip: V^O = V^O_parent + S^O v ------------------------------------------
    VJ_O = gather_sum(S_O * v, lo.node_dofs)  # (6, n, B)
    V_lv = [jnp.zeros((6, 1, B), dtype)]
    for (a, b), pos in zip(lo.slices, lo.parent_pos):
        V_lv.append(take(V_lv[-1], pos) + VJ_O[:, a:b])
    V_O = jnp.concatenate(V_lv, -2)
    c_O = _bias_difference(lo, Hdot_v_F, R_WF, p_MoBo_W, p_WB, V_O)
    m, h, Ibar = folded_inertias(topo, lo.welds, poses, mass, com, unit_inertia, lo.nodes)
    M_O = _inertia_about_origin(m, h, Ibar, R_WB, p_WB)
    return BatchKinematics(R_WB, p_WB, S_O, V_O, c_O, M_O, poses)


def _bias_difference(lo, Hdot_v_F, R_WF, p_MoBo_W, p_WB, V_O):
    """c_b = Ab^O_b − Ab^O_parent (6, n, B), per node (see the module docstring)."""
    w = V_O[:3]
    v_Bo = V_O[3:] - cross(p_WB, w)
    # across-joint velocity about Bo, in W: V_PB = V_B − V_P shifted to Bo
    w_P, v_P, p_P = take(w, lo.parent), take(v_Bo, lo.parent), take(p_WB, lo.parent)
    r = p_WB - p_P
    w_PB = w - w_P
    v_PB = v_Bo - v_P - cross(w_P, r)
    # across-joint bias acceleration (v̇ = 0), about Bo, in W
    hd_w = mv(R_WF, Hdot_v_F[:3])
    hd_v = mv(R_WF, Hdot_v_F[3:]) + cross(hd_w, p_MoBo_W)
    a_PB = hd_v + cross(w_PB, cross(w_PB, p_MoBo_W))
    # ComposeWithMovingFrame with the parent's acceleration left out (it cancels)
    alpha = hd_w + cross(w_P, w_PB)
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
