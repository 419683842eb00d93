"""Forward kinematics: poses, spatial velocities and spatial accelerations of every body.

Level-sorted tree passes over a static `Topology` [Featherstone 2008, §4; Jain 2010, §2].
Everything is expressed in World (W) and taken about each body's origin Bo.

Joint stage (vectorized per joint kind, once, before the tree pass):
    X_PB = X_PF · X_FM(q) · X_MB            (F fixed in parent P, M fixed in child B)
    H_PB_W[:, k] = [R_WF h_w; R_WF h_v + (R_WF h_w) × p_MoBo_W]    for each dof k of the joint

Base-to-tip passes (one Python loop over static tree depths):
    X_WB  = X_WP · X_PB
    w_WB  = w_WP + w_PB_W,     v_WBo = v_WPo + w_WP × p_PoBo_W + v_PBo_W
    α_WB  = α_WP + α_PB_W + w_WP × w_PB_W
    a_WBo = a_WPo + α_WP × r + w_WP × (w_WP × r) + a_PBo_W + 2 w_WP × v_PBo_W,   r = p_PoBo_W
(Drake's ``SpatialAcceleration::ComposeWithMovingFrame``), where the across-joint terms are
    V_PB_W = H_PB_W v_B
    A_PB_W = H_PB_W v̇_B + R_WF [Ḣ v]_(shifted to Bo) + [0; w_PB × (w_PB × p_MoBo)].
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np


class JointKinematics(NamedTuple):
    """Per-node across-joint quantities (node 0, the world, holds identities)."""

    R_FM: jax.Array  # (n, 3, 3)
    p_FM: jax.Array  # (n, 3)
    H_FM_F: jax.Array  # (nv, 6): column of each dof, about Mo, expressed in F
    Hdot_v_F: jax.Array  # (n, 6): Ḣ_FM_F v of each node's joint (zero if v is None)


class PositionKinematics(NamedTuple):
    """Node-indexed poses and world-frame motion subspaces."""

    R_WB: jax.Array  # (n, 3, 3)
    p_WB: jax.Array  # (n, 3)
    R_WF: jax.Array  # (n, 3, 3): orientation of each node's joint frame F in W
    p_MoBo_W: jax.Array  # (n, 3)
    H_W: jax.Array  # (nv, 6): H_PB_W columns, about Bo of the owning body, in W


class VelocityKinematics(NamedTuple):
    V_WB: jax.Array  # (n, 6) [w_WB; v_WBo] in W
    V_PB_W: jax.Array  # (n, 6) across-joint velocity about Bo, in W


def _rt(R):
    return jnp.swapaxes(R, -1, -2)


def _assemble(parts, index_sets, total, fill):
    """Concatenates per-group rows and puts them in index order (a static gather, no scatter).

    ``parts[i]`` holds the rows for indices ``index_sets[i]``; rows of indices in no set get
    ``fill`` (one row broadcast).
    """
    covered = np.concatenate([np.asarray(i).reshape(-1) for i in index_sets] + [np.zeros(0, int)])
    missing = np.setdiff1d(np.arange(total), covered)
    rows = list(parts)
    if len(missing):
        rows.append(jnp.broadcast_to(fill, (len(missing),) + fill.shape))
    order = np.concatenate([covered, missing]).astype(np.int64)
    stacked = jnp.concatenate(rows, 0) if len(rows) > 1 else rows[0]
    return stacked[np.argsort(order)]


@partial(jax.jit, static_argnums=0)
def joint_kinematics(topo, q, v=None) -> JointKinematics:
    """Evaluates every joint's kernel, grouped by kind (see `jaxbody.joints.kinds`)."""
    n, dtype = topo.num_nodes, q.dtype
    Rs, ps, Hs, Hds, node_sets, dof_sets = [], [], [], [], [], []
    for g in topo.groups:
        qg = q[g.qidx] if g.kind.nq else jnp.zeros((len(g.nodes), 0), dtype)
        R, p = g.kind.transform(qg, g.constants)
        Rs.append(R.astype(dtype))
        ps.append(p.astype(dtype))
        node_sets.append(g.nodes)
        if v is not None:
            Hds.append(g.kind.subspace_dot_v(qg, v[g.vidx], g.constants).astype(dtype))
        if g.kind.nv:
            Hg = g.kind.subspace(qg, g.constants)  # (k, 6, nv)
            Hs.append(jnp.swapaxes(Hg, 1, 2).reshape(-1, 6).astype(dtype))
            dof_sets.append(g.vidx.reshape(-1))
    R_FM = _assemble(Rs, node_sets, n, jnp.eye(3, dtype=dtype))
    p_FM = _assemble(ps, node_sets, n, jnp.zeros(3, dtype))
    H = _assemble(Hs, dof_sets, topo.nv, jnp.zeros(6, dtype)) if Hs else jnp.zeros((0, 6), dtype)
    Hdot_v = (_assemble(Hds, node_sets, n, jnp.zeros(6, dtype)) if v is not None
              else jnp.zeros((n, 6), dtype))
    return JointKinematics(R_FM, p_FM, H, Hdot_v)


def _frame_poses(topo, params):
    """X_PF and X_BM for every node's joint, from the frame parameters."""
    fp, fc = topo.frame_on_parent, topo.frame_on_child
    return (params.frame_R[fp], params.frame_p[fp], params.frame_R[fc], params.frame_p[fc])


@partial(jax.jit, static_argnums=0)
def position_kinematics(topo, q, params, jk=None) -> PositionKinematics:
    """Poses X_WB of all nodes and the world-frame motion subspace H_PB_W."""
    jk = joint_kinematics(topo, q) if jk is None else jk
    dtype = q.dtype
    R_PF, p_PF, R_BM, p_BM = _frame_poses(topo, params)
    # X_PB = X_PF X_FM X_MB, with X_MB = X_BM⁻¹.
    R_MB = _rt(R_BM)
    p_MB = -jnp.einsum("nij,nj->ni", R_MB, p_BM)
    R_FB = jk.R_FM @ R_MB
    p_FB = jk.p_FM + jnp.einsum("nij,nj->ni", jk.R_FM, p_MB)
    R_PB = R_PF @ R_FB
    p_PB = p_PF + jnp.einsum("nij,nj->ni", R_PF, p_FB)

    # ---- base-to-tip: X_WB = X_WP X_PB ---------------------------------------------------------
    R_lv, p_lv = [jnp.eye(3, dtype=dtype)[None]], [jnp.zeros((1, 3), dtype)]
    for idx, pos in zip(topo.levels, _parent_positions(topo)):
        R_WP = R_lv[-1][pos]
        R_lv.append(R_WP @ R_PB[idx])
        p_lv.append(p_lv[-1][pos] + jnp.einsum("kij,kj->ki", R_WP, p_PB[idx]))
    R_WB = _from_levels(topo, R_lv)
    p_WB = _from_levels(topo, p_lv)

    R_WP_all = R_WB[jnp.maximum(topo.parent, 0)]
    R_WF = R_WP_all @ R_PF
    p_MoBo_W = -jnp.einsum("nij,nj->ni", R_WB, p_BM)
    # ---- joint subspace in W about Bo -------------------------------------------------------
    own = topo.dof_node
    h_w = jnp.einsum("kij,kj->ki", R_WF[own], jk.H_FM_F[:, :3])
    h_v = jnp.einsum("kij,kj->ki", R_WF[own], jk.H_FM_F[:, 3:]) + jnp.cross(h_w, p_MoBo_W[own])
    H_W = jnp.concatenate([h_w, h_v], -1)
    return PositionKinematics(R_WB, p_WB, R_WF, p_MoBo_W, H_W)


def _parent_positions(topo):
    """For each level, the position of each node's parent within the previous level."""
    pos = np.zeros(topo.num_nodes, dtype=np.int64)
    out = []
    for idx in topo.levels:
        out.append(pos[topo.parent[idx]])
        pos[idx] = np.arange(len(idx))
    return out


def _from_levels(topo, per_level):
    """Level-ordered rows (world first) -> node order, by one static gather."""
    order = np.concatenate([np.zeros(1, np.int64)] + list(topo.levels))
    return jnp.concatenate(per_level, 0)[np.argsort(order)]


def _sum_by_node(topo, per_dof):
    """Sums (nv, k) per-dof rows into (n, k) per-node rows (a static 0/1 matrix product)."""
    owner = np.zeros((topo.num_nodes, topo.nv))
    owner[topo.dof_node, np.arange(topo.nv)] = 1.0
    return jnp.asarray(owner, per_dof.dtype) @ per_dof


@partial(jax.jit, static_argnums=0)
def velocity_kinematics(topo, pk: PositionKinematics, v) -> VelocityKinematics:
    """Spatial velocities V_WB of all nodes (about Bo, in W)."""
    V_PB_W = _sum_by_node(topo, pk.H_W * v[:, None])
    # ---- base-to-tip: V_WB = V_WP shifted to Bo + V_PB -------------------------------------
    V_lv = [jnp.zeros((1, 6), V_PB_W.dtype)]
    for idx, pos in zip(topo.levels, _parent_positions(topo)):
        par = topo.parent[idx]
        w_WP, v_WP = V_lv[-1][pos, :3], V_lv[-1][pos, 3:]
        r = pk.p_WB[idx] - pk.p_WB[par]
        w = w_WP + V_PB_W[idx, :3]
        vv = v_WP + jnp.cross(w_WP, r) + V_PB_W[idx, 3:]
        V_lv.append(jnp.concatenate([w, vv], -1))
    V_WB = _from_levels(topo, V_lv)
    return VelocityKinematics(V_WB, V_PB_W)


@partial(jax.jit, static_argnums=0)
def acceleration_kinematics(topo, pk, vk, jk, vdot):
    """Spatial accelerations A_WB (n, 6) [α_WB; a_WBo] in W, given v̇ (``vdot``: (nv,))."""
    # ---- across-joint accelerations --------------------------------------------------------
    A_PB_W = _sum_by_node(topo, pk.H_W * vdot[:, None])
    hd_w = jnp.einsum("nij,nj->ni", pk.R_WF, jk.Hdot_v_F[:, :3])
    hd_v = jnp.einsum("nij,nj->ni", pk.R_WF, jk.Hdot_v_F[:, 3:]) + jnp.cross(hd_w, pk.p_MoBo_W)
    w_PB = vk.V_PB_W[:, :3]
    centripetal = jnp.cross(w_PB, jnp.cross(w_PB, pk.p_MoBo_W))
    A_PB_W = A_PB_W + jnp.concatenate([hd_w, hd_v + centripetal], -1)

    # ---- base-to-tip: ComposeWithMovingFrame ------------------------------------------------
    A_lv = [jnp.zeros((1, 6), A_PB_W.dtype)]
    for idx, pos in zip(topo.levels, _parent_positions(topo)):
        par = topo.parent[idx]
        w_WP = vk.V_WB[par, :3]
        al_WP, a_WP = A_lv[-1][pos, :3], A_lv[-1][pos, 3:]
        r = pk.p_WB[idx] - pk.p_WB[par]
        w_PB_i, v_PB_i = vk.V_PB_W[idx, :3], vk.V_PB_W[idx, 3:]
        alpha = al_WP + A_PB_W[idx, :3] + jnp.cross(w_WP, w_PB_i)
        a = (a_WP + jnp.cross(al_WP, r) + jnp.cross(w_WP, jnp.cross(w_WP, r))
             + A_PB_W[idx, 3:] + 2.0 * jnp.cross(w_WP, v_PB_i))
        A_lv.append(jnp.concatenate([alpha, a], -1))
    A_WB = _from_levels(topo, A_lv)
    return A_WB
