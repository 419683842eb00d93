"""Forward kinematics: poses, spatial velocities and spatial accelerations of every body.

Tree passes over a static `Topology` [Featherstone 2008, §4; Jain 2010, §2], with no loop over
tree levels, so that the number of operations (what a ``lax.scan`` body pays for on XLA:CPU,
about 0.1–0.2 µs each) and the compile time do not grow with the tree's depth.
Everything is expressed in World (W) and taken about each body's origin Bo.

Joint stage (vectorized per joint kind, once):
    X_PB = X_PF · X_FM(q) · X_MB            (F fixed in parent P, M fixed in child B)
    H_PB_W[:, k] = [R_WF h_w; R_WF h_v + (R_WF h_w) × p_MoBo_W]    for each dof k of the joint

Poses by pointer jumping [Hillis & Steele 1986]: every node holds X_{A(i) i} for an ancestor
A(i), first its parent; each round composes X_{A(A(i)) i} = X_{A(A(i)) A(i)} X_{A(i) i} for all
nodes at once, so ⌈log₂ depth⌉ rounds reach the world.

Velocities and accelerations as path sums of Plücker vectors about Wo (which add without
shifting, see `spatial.py`): V^O_b = Σ_{j ⪯ b} S^O_j v_j, and A^O_b = Σ_{j ⪯ b} a_j with the
per-joint increment a_b = A^O_b − A^O_P (P the parent), which needs only the two bodies'
conventional velocities (the parent's acceleration cancels; derived from Drake's
``SpatialAcceleration::ComposeWithMovingFrame``,
    α_B = α_P + α_PB + w_P × w_PB,
    a_B = a_P + α_P × r + w_P × (w_P × r) + a_PB + 2 w_P × v_PB,     r = p_PoBo_W):
    a_b = [α_PB + w_P × w_PB;
           w_P × (w_P × r) + a_PB + 2 w_P × v_PB + v_B × w_B − v_P × w_P + p_WBo × (angular part)]
where the across-joint terms are
    V_PB_W = H_PB_W v_B
    A_PB_W = H_PB_W v̇_B + R_WF [Ḣ v]_(shifted to Bo) + [0; w_PB × (w_PB × p_MoBo)].
"""

from __future__ import annotations

import functools
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.spatial import (
    acceleration_about_body,
    twist_about_body,
    twist_about_origin,
)


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

    # ---- X_WB by pointer jumping (the world's entries hold the identity) -------------------
    R_WB = jnp.where(_is_world(topo)[:, :, None], jnp.eye(3, dtype=dtype), R_PB)
    p_WB = jnp.where(_is_world(topo), 0.0, p_PB)
    for up in _jump_rounds(topo):
        R_up = R_WB[up]
        R_WB, p_WB = R_up @ R_WB, p_WB[up] + jnp.einsum("kij,kj->ki", R_up, p_WB)

    R_WP_all = R_WB[jnp.maximum(topo.parent, 0)]
    R_WF = R_WP_all @ R_PF
    p_MoBo_W = -jnp.einsum("nij,nj->ni", R_WB, p_BM)
    # ---- joint subspace in W about Bo -------------------------------------------------------
    own = topo.dof_node
    h_w = jnp.einsum("kij,kj->ki", R_WF[own], jk.H_FM_F[:, :3])
    h_v = jnp.einsum("kij,kj->ki", R_WF[own], jk.H_FM_F[:, 3:]) + jnp.cross(h_w, p_MoBo_W[own])
    H_W = jnp.concatenate([h_w, h_v], -1)
    return PositionKinematics(R_WB, p_WB, R_WF, p_MoBo_W, H_W)


@functools.lru_cache(maxsize=256)
def _jump_rounds(topo):
    """The pointer-jumping rounds, as the ``up`` array of each: after a round node i holds
    X_{up[i] i}, with ``up`` the parent in the first round and ``up[up]`` in each next one
    (each round doubles the path covered); the world points to itself."""
    up = np.maximum(topo.parent, 0)
    rounds = []
    while np.any(up != 0):
        rounds.append(up.copy())
        up = up[up]
    return tuple(rounds)


def _is_world(topo):
    mask = np.zeros((topo.num_nodes, 1), bool)
    mask[0] = True
    return mask


def path_sum(topo, x):
    """Σ over each node's path to the world (itself and its ancestors): (n, ...) -> (n, ...)."""
    anc = jnp.asarray(topo.ancestor, x.dtype)  # anc[i, j]: j is i or an ancestor of i
    return (anc @ x.reshape(x.shape[0], -1)).reshape(x.shape)


def subtree_sum(topo, x):
    """Σ over each node's subtree (itself and its descendants): (n, ...) -> (n, ...)."""
    anc = jnp.asarray(topo.ancestor, x.dtype)
    return (anc.T @ x.reshape(x.shape[0], -1)).reshape(x.shape)


def _sum_by_node(topo, per_dof):
    """Sums (nv, k) per-dof rows into (n, k) per-node rows (a static 0/1 matrix product)."""
    owner = np.zeros((topo.num_nodes, topo.nv))
    owner[topo.dof_node, np.arange(topo.nv)] = 1.0
    return jnp.asarray(owner, per_dof.dtype) @ per_dof


@partial(jax.jit, static_argnums=0)
def velocity_kinematics(topo, pk: PositionKinematics, v) -> VelocityKinematics:
    """Spatial velocities V_WB of all nodes (about Bo, in W)."""
    V_PB_W = _sum_by_node(topo, pk.H_W * v[:, None])
    # ---- V^O_b = Σ_{j ⪯ b} V^O_PB(j): a path sum about Wo ----------------------------------
    V_WB = twist_about_body(path_sum(topo, twist_about_origin(V_PB_W, pk.p_WB)), pk.p_WB)
    return VelocityKinematics(V_WB, V_PB_W)


def acceleration_increments(topo, pk, vk, jk, vdot):
    """a_b = A^O_b − A^O_parent(b) (n, 6): the Plücker acceleration each joint adds about Wo at
    ``vdot`` (module docstring); zero for the world."""
    A_PB_W = _sum_by_node(topo, pk.H_W * vdot[:, None])
    hd_w = jnp.einsum("nij,nj->ni", pk.R_WF, jk.Hdot_v_F[:, :3])
    hd_v = jnp.einsum("nij,nj->ni", pk.R_WF, jk.Hdot_v_F[:, 3:]) + jnp.cross(hd_w, pk.p_MoBo_W)
    w_PB, v_PB = vk.V_PB_W[:, :3], vk.V_PB_W[:, 3:]
    centripetal = jnp.cross(w_PB, jnp.cross(w_PB, pk.p_MoBo_W))
    al_PB = A_PB_W[:, :3] + hd_w
    a_PB = A_PB_W[:, 3:] + hd_v + centripetal
    up = np.maximum(topo.parent, 0)
    w_B, v_B, p_B = vk.V_WB[:, :3], vk.V_WB[:, 3:], pk.p_WB
    w_P, v_P = w_B[up], v_B[up]
    r = p_B - p_B[up]
    ang = al_PB + jnp.cross(w_P, w_PB)
    lin = (jnp.cross(w_P, jnp.cross(w_P, r)) + a_PB + 2.0 * jnp.cross(w_P, v_PB)
           + jnp.cross(v_B, w_B) - jnp.cross(v_P, w_P) + jnp.cross(p_B, ang))
    return jnp.where(_is_world(topo), 0.0, jnp.concatenate([ang, lin], -1))


@partial(jax.jit, static_argnums=0)
def acceleration_kinematics(topo, pk, vk, jk, vdot):
    """Spatial accelerations A_WB (n, 6) [α_WB; a_WBo] in W, given v̇ (``vdot``: (nv,))."""
    A_O = path_sum(topo, acceleration_increments(topo, pk, vk, jk, vdot))
    return acceleration_about_body(A_O, vk.V_WB, pk.p_WB)
