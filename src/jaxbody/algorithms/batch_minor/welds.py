"""Welded bodies folded into the moving body they are welded to, before the batch-minor passes.

A body on a weld joint moves rigidly with its nearest moving ancestor r (its representative),
so the tree passes need only the moving bodies, each carrying the spatial inertia of itself and
everything welded to it, in its own frame about its origin:
    m = Σ m_w,   h = Σ m_w c_w^r,   Ī = Σ (R I_cm,w Rᵀ + m_w (|c_w^r|² 1 − c_w^r c_w^rᵀ))
with X_rw = (R, p) the constant pose of w in r (a product of weld and frame poses, evaluated
once per call on the parameters, not per member) and c_w^r = p + R c_w its center of mass in r.
A moving body whose parent P is welded gets its joint frame F expressed in r(P): X_rF = X_rP X_PF.
Bodies welded to the world are dropped (they cannot move: they add nothing to the dynamics).
Pinocchio's URDF parser merges fixed links the same way; on go1 it leaves 14 of 47 bodies.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.batch_minor.algebra import dot, gather_sum, mm, mv, take, transpose


class WeldPlan(NamedTuple):
    """Static: the moving nodes and how the welded ones hang from them."""

    moving: np.ndarray  # (n,) bool: the world and every node with a dof
    rep: np.ndarray  # (n,) nearest moving ancestor-or-self of each node
    levels: list  # welded nodes by weld depth
    R_FM: dict  # welded node -> its weld's constant (R_FM, p_FM)


def weld_plan(topo) -> WeldPlan:
    n = topo.num_nodes
    weld = {}
    for g in topo.groups:
        if g.kind.nv == 0:
            for i, node in enumerate(g.nodes):
                R = np.asarray(g.constants["R_FM"][i], float)
                p = np.asarray(g.constants["p_FM"][i], float)
                if getattr(g.kind, "forward", None) is not None:  # a reversed weld: X_MF
                    R, p = R.T, -R.T @ p
                weld[int(node)] = (R, p)
    rep, depth = np.arange(n), np.zeros(n, np.int64)
    for i in range(1, n):  # parents precede children
        if i in weld:
            p = topo.parent[i]
            rep[i] = rep[p]
            depth[i] = depth[p] + 1 if p in weld else 1
    levels = [np.asarray(sorted(i for i in weld if depth[i] == d), np.int64)
              for d in range(1, int(depth.max(initial=0)) + 1)]
    moving = np.ones(n, bool)
    moving[list(weld)] = False
    return WeldPlan(moving, rep, [lv for lv in levels if len(lv)], weld)


class WeldPoses(NamedTuple):
    """X_rw of every welded node w (r = rep(w); the world for bodies welded to it)."""

    column: dict  # static: welded node -> its column in R and p
    R: jax.Array  # (3, 3, nw, b)
    p: jax.Array  # (3, nw, b)


def welded_poses(topo, plan, frame_R, frame_p) -> WeldPoses:
    """The weld chains composed level by level: X_rw = X_rP X_Pw, X_Pw = X_PF X_FM X_MB."""
    column, Rs, ps = {}, [], []
    eye = jnp.broadcast_to(jnp.eye(3, dtype=frame_R.dtype)[:, :, None, None],
                           (3, 3, 1) + frame_R.shape[3:])
    zero = jnp.zeros((3, 1) + frame_p.shape[2:], frame_p.dtype)
    for nodes in plan.levels:
        fp, fc = topo.frame_on_parent[nodes], topo.frame_on_child[nodes]
        R_PF, p_PF, R_BM, p_BM = (take(frame_R, fp), take(frame_p, fp), take(frame_R, fc),
                                  take(frame_p, fc))
        dtype = R_PF.dtype
        R_FM = jnp.asarray(np.stack([plan.R_FM[i][0] for i in nodes], -1)[..., None], dtype)
        p_FM = jnp.asarray(np.stack([plan.R_FM[i][1] for i in nodes], -1)[..., None], dtype)
        R_FB = mm(R_FM, transpose(R_BM))
        R_Pw = mm(R_PF, R_FB)
        p_Pw = p_PF + mv(R_PF, p_FM - mv(R_FB, p_BM))
        so_far = WeldPoses(column, jnp.concatenate([eye] + Rs, -2)[:, :, 1:],
                           jnp.concatenate([zero] + ps, -2)[:, 1:])
        R_rP, p_rP = pose_in_rep(so_far, topo.parent[nodes], R_Pw)
        Rs.append(mm(R_rP, R_Pw))
        ps.append(p_rP + mv(R_rP, p_Pw))
        column = {**column, **{int(n): len(column) + j for j, n in enumerate(nodes)}}
    return WeldPoses(column, jnp.concatenate([eye] + Rs, -2)[:, :, 1:],
                     jnp.concatenate([zero] + ps, -2)[:, 1:])


def pose_in_rep(poses, nodes, like):
    """X_r(P)P (R (3, 3, k, b), p (3, k, b)) for nodes P: their weld pose, or the identity for
    moving nodes (one gather from the weld poses with an identity column in front)."""
    eye = jnp.broadcast_to(jnp.eye(3, dtype=like.dtype)[:, :, None, None],
                           (3, 3, 1) + poses.R.shape[3:])
    zero = jnp.zeros((3, 1) + poses.p.shape[2:], like.dtype)
    idx = [poses.column[int(n)] + 1 if int(n) in poses.column else 0 for n in nodes]
    return (take(jnp.concatenate([eye, poses.R], -2), idx),
            take(jnp.concatenate([zero, poses.p], -2), idx))


def folded_inertias(topo, plan, poses, mass, com, unit_inertia, nodes):
    """(m (k, b), h (3, k, b), Ī (3, 3, k, b)) of the moving ``nodes`` with their welded
    bodies folded in, in each node's frame about its origin."""
    eye = jnp.eye(3, dtype=mass.dtype)[:, :, None, None]

    def own(ns):
        body = topo.node_body[ns]
        m, c, G = take(mass, body), take(com, body), take(unit_inertia, body)
        return m, c, m * G

    m, c, Ibar = own(nodes)
    h = m * c
    position = {int(r): i for i, r in enumerate(nodes)}
    ws = [w for w in poses.column if plan.rep[w] != 0 and int(plan.rep[w]) in position]
    if not ws:
        return m, h, Ibar
    mw, cw, Iw = own(np.asarray(ws, np.int64))
    cols = [poses.column[w] for w in ws]
    R, p = take(poses.R, cols), take(poses.p, cols)
    I_cm = Iw - mw * (dot(cw, cw) * eye - cw[:, None] * cw[None])
    c_r = p + mv(R, cw)
    I_r = mm(R, mm(I_cm, transpose(R))) + mw * (dot(c_r, c_r) * eye - c_r[:, None] * c_r[None])
    rep = np.asarray([position[int(plan.rep[w])] for w in ws], np.int64)
    groups = [list(np.flatnonzero(rep == i)) for i in range(len(nodes))]
    return (m + gather_sum(mw, groups), h + gather_sum(mw * c_r, groups),
            Ibar + gather_sum(I_r, groups))
