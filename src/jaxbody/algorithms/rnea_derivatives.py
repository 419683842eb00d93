"""Analytic derivatives of inverse dynamics w.r.t. configuration and velocity.

The RNEA derivatives of Carpentier & Mansard (RSS 2018), generalized from joints whose columns are
fixed in the child body to Drake's joints, whose columns may be fixed in F (floating, ball, planar
joints). Everything is about the world origin (see `spatial.py`); S_k is the column of dof k.

Configuration is perturbed in Drake's velocity coordinates: a perturbation δ_j moves every body
that dof j carries rigidly by the twist S_j δ_j, and with them every column dof j "moves":
    P[j, k] = node(j) is a strict ancestor of node(k), or j, k in one joint and the joint kind
              lists (j, k) in ``moves``;  ∂S_k/∂δ_j = P[j, k] S_j × S_k,  Ṡ_k = W_k × S_k,
    W_k = Σ_i P[i, k] S_i v_i.
For τ = ID(q, v, v̇) − τ_g(q) (F_b = M_b (A_b − γ_b g) + V_b ×* M_b V_b, τ_k = S_k · Σ_{b⪰k} F_b):
    ∂F_b/∂δ_j = S_j ×* F_b + M_b α_j + γ_b M_b (S_j × g) + B_b ΔV_j        (b carried by j)
    ∂F_b/∂v_j = M_b (Ṡ_j + ΔV_j) + B_b S_j
with ΔV_j = −S_j × U_j, U_j the velocity of the columns supporting node(j) that j does not move,
α_j = −S_j × Anm_j − ΔV_j × V_node(j) − E_j (Anm_j: the acceleration of those columns; E_j: the
in-joint velocity products), and B_b x = M_b (x × V_b) + x ×* (M_b V_b) + V_b ×* (M_b x). The sums
over subtrees are composite inertias Ic, Icγ, Bc (as in CRBA), so every entry of ∂τ/∂δ and ∂τ/∂v
comes from a few dense (nv × 6) @ (6 × nv) products masked by the static tree relations; the
column derivative ∂S_k cancels S_j ×* Fsub except where j does not move column k.
∂τ/∂q = ∂τ/∂δ · ∂δ/∂q, with ∂δ/∂q per joint from the tangent of X_FM(q) (`joint_delta_map`).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.dynamics_kinematics import path_sum, per_node, subtree_sum
from jaxbody.algorithms.spatial import (
    force_cross,
    matvec,
    motion_cross,
    motion_cross_matrix,
    wrench_about_origin,
)
from jaxbody.math.so3 import skew, unskew


class _Relations:
    """Static dof relations of one topology (NumPy)."""

    def __init__(self, topo):
        own = np.asarray(topo.dof_node)
        sup = np.asarray(topo.ancestor)[own][:, own]  # sup[k, j]: node(j) ⪯ node(k)
        same = own[:, None] == own[None, :]
        P = sup.T & ~same
        pairs = []
        for g in topo.groups:
            if g.kind.moves is None:
                raise ValueError(
                    f"analytic RNEA derivatives: joint kind '{g.kind.name}' does not carry its "
                    "columns rigidly (moves = None); differentiate it by autodiff instead")
            for a, b in g.kind.moves:
                P[g.vidx[:, a], g.vidx[:, b]] = True
                pairs += list(zip(g.vidx[:, a], g.vidx[:, b]))
        self.case_a = sup  # [k, j]: j carries dof k's body
        self.case_b = sup.T & ~same  # [k, j]: node(k) strictly above node(j)
        self.not_moved = (~P).T.astype(float)  # [k, j]: j does not move column k
        self.Mu = (sup & ~P).astype(float)  # [j, i]: i supports node(j), j does not move it
        self.Pt = P.T.astype(float)  # [k, i]: i moves column k
        self.pair_j = np.asarray([p[0] for p in pairs], np.int64)
        self.pair_k = np.asarray([p[1] for p in pairs], np.int64)
        Q = np.zeros((len(pairs), len(own)))
        for n, (j, k) in enumerate(pairs):
            Q[n] = P[:, k] & ~P[j, :]  # movers of column k that j does not move
        self.Q = Q
        E = np.zeros((len(own), len(pairs)))
        E[self.pair_j, np.arange(len(pairs))] = 1.0
        self.to_j = E


@functools.lru_cache(maxsize=64)
def relations(topo) -> _Relations:
    return _Relations(topo)


def column_rates(topo, dk, v):
    """(W (nv, 6), Ṡ (nv, 6)): the velocity carrying each column and Ṡ_k = W_k × S_k."""
    rel = relations(topo)
    Sv = dk.S_O * v[:, None]
    W = jnp.asarray(rel.Pt, Sv.dtype) @ Sv
    return W, motion_cross(W, dk.S_O)


def _coriolis_matrices(M, V):
    """B_b (n, 6, 6) with B_b x = M_b (x × V_b) + x ×* (M_b V_b) + V_b ×* (M_b x)."""
    X = motion_cross_matrix(V)
    h = matvec(M, V)
    hn, hf = skew(h[:, :3]), skew(h[:, 3:])
    z = jnp.zeros_like(hn)
    Hbar = -jnp.concatenate([jnp.concatenate([hn, hf], -1), jnp.concatenate([hf, z], -1)], -2)
    Xstar = -jnp.swapaxes(X, -1, -2)
    return -M @ X + Hbar + Xstar @ M


def _applied_force_matrices(F_Bo, p):
    """C_b (n, 6, 6): the change of the wrench about Wo of a world-fixed force F_Bo = [τ; f]
    applied at Bo, beyond S ×* F, when Bo is carried by twist S = [w; u]:
    C_b S = [w × n_b + ((p_b · f_b) 1 − p_b f_bᵀ) w; w × f_b], n_b = τ_b + p_b × f_b."""
    f = F_Bo[:, 3:]
    n = F_Bo[:, :3] + jnp.cross(p, f)
    eye = jnp.eye(3, dtype=f.dtype)
    K = jnp.sum(p * f, -1)[:, None, None] * eye - jnp.einsum("ni,nj->nij", p, f)
    z = jnp.zeros_like(K)
    top = jnp.concatenate([-skew(n) + K, z], -1)
    bot = jnp.concatenate([-skew(f), z], -1)
    return jnp.concatenate([top, bot], -2)


def inverse_dynamics_derivatives(topo, dk, v, vdot, gravity=None, gravity_mask=None,
                                 F_Bo_W=None):
    """(∂τ/∂δ, ∂τ/∂v), each (nv, nv), of τ = ID(q, v, v̇) − τ_g(q) − Σ_b J_bᵀ F_b, δ in
    velocity coordinates.

    Args:
        dk: `DynamicsKinematics` at (q, v); v, vdot: (nv,);
        gravity: (3,) or None (no gravity term); gravity_mask: (n,) 0/1 per node (1: gravity acts);
        F_Bo_W: (n, 6) or None: applied spatial forces [τ; f] on each node's body at Bo, in W
            (fixed in W as the body moves: `MultibodyForces`' body forces).
    """
    rel = relations(topo)
    dt = dk.V_O.dtype
    S, V, M, own = dk.S_O, dk.V_O, dk.M_O, topo.dof_node
    Sv = S * v[:, None]
    W, Sdot = column_rates(topo, dk, v)
    U = jnp.asarray(rel.Mu, dt) @ Sv
    dV = -motion_cross(S, U)
    Anm = jnp.asarray(rel.Mu, dt) @ (S * vdot[:, None] + Sdot * v[:, None])
    E = jnp.zeros_like(S)
    if rel.pair_j.size:
        Wp = jnp.asarray(rel.Q, dt) @ Sv
        Ep = motion_cross(motion_cross(S[rel.pair_j], Wp), S[rel.pair_k]) * v[rel.pair_k, None]
        E = jnp.asarray(rel.to_j, dt) @ Ep
    alpha = -motion_cross(S, Anm) - motion_cross(dV, V[own]) - E

    A = dk.Ab_O + path_sum(topo, per_node(topo, S * vdot[:, None]))
    Mg = None
    if gravity is not None:
        g0 = jnp.concatenate([jnp.zeros(3, dt), gravity.astype(dt)])
        gm = jnp.ones(V.shape[0], dt) if gravity_mask is None else jnp.asarray(gravity_mask, dt)
        A = A - gm[:, None] * g0
        Mg = gm[:, None, None] * M
    F = matvec(M, A) + force_cross(V, matvec(M, V))
    if F_Bo_W is not None:
        F = F - wrench_about_origin(F_Bo_W, dk.pk.p_WB)
    F = F.at[0].set(0.0)
    Fsub = subtree_sum(topo, F)[own]  # (nv, 6) at each dof's node
    Ic = subtree_sum(topo, M)[own]
    Bc = subtree_sum(topo, _coriolis_matrices(M, V))[own]
    IcS = matvec(Ic, S)  # Ic symmetric: S_k · Ic x = (Ic S_k) · x
    BcTS = matvec(jnp.swapaxes(Bc, -1, -2), S)
    if F_Bo_W is not None:  # the applied forces' own change, acting on S_j
        Cc = subtree_sum(topo, _applied_force_matrices(F_Bo_W, dk.pk.p_WB).at[0].set(0.0))[own]
        CcTS = matvec(jnp.swapaxes(Cc, -1, -2), S)
    # S_k · (S_j ×* f_k) = Y_k · S_j
    a, b, n, f = S[:, :3], S[:, 3:], Fsub[:, :3], Fsub[:, 3:]
    Y = jnp.concatenate([jnp.cross(n, a) + jnp.cross(f, b), jnp.cross(f, a)], -1)

    # ∂τ/∂δ. Case A: j carries node(k); case B: node(k) strictly above node(j), evaluated at j.
    DA = IcS @ alpha.T + BcTS @ dV.T + jnp.asarray(rel.not_moved, dt) * (Y @ S.T)
    Zq = matvec(Ic, alpha) + matvec(Bc, dV) + force_cross(S, Fsub)
    if Mg is not None:
        gS = motion_cross(S, jnp.broadcast_to(g0, S.shape))
        Icg = subtree_sum(topo, Mg)[own]
        DA = DA + matvec(Icg, S) @ gS.T
        Zq = Zq + matvec(Icg, gS)
    if F_Bo_W is not None:
        DA = DA + CcTS @ S.T
        Zq = Zq + matvec(Cc, S)
    Dq = jnp.where(rel.case_a, DA, jnp.where(rel.case_b, S @ Zq.T, 0.0))

    # ∂τ/∂v.
    R = Sdot + dV
    DvA = IcS @ R.T + BcTS @ S.T
    Zv = matvec(Ic, R) + matvec(Bc, S)
    Dv = jnp.where(rel.case_a, DvA, jnp.where(rel.case_b, S @ Zv.T, 0.0))
    return Dq, Dv


def _joint_delta(kind, x, c):
    """(nv, nq) of one joint: δ = H⁺ [ω; dp] for each q direction (see `joint_delta_map`)."""
    c1 = {k: cv[None] for k, cv in c.items()}

    def pose(y):
        R, p = kind.transform(y[None], c1)
        return R[0], p[0]

    R, _ = pose(x)
    jR, jp = jax.jacfwd(pose)(x)  # (3, 3, nq), (3, nq)
    w = unskew(jnp.einsum("ikq,jk->qij", jR, R)).T  # ω of dR Rᵀ per q direction: (3, nq)
    H = kind.subspace(x[None], c1)[0]  # (6, nv)
    tw = jnp.concatenate([w, jp], 0)  # (6, nq)
    return jnp.linalg.solve(H.T @ H, H.T @ tw)


def joint_delta_map(topo, q, dtype):
    """∂δ/∂q (nv, nq): per joint, the velocity-coordinate perturbation H⁺ [ω; dp] of a change dq
    (ω, dp: the twist of X_FM(q) about Mo in F). Equals N⁺(q) for every kind; for quaternions
    the radial direction maps to 0, as X_FM(q) depends only on q/|q|."""
    out = jnp.zeros((topo.nv, topo.nq), dtype)
    for g in topo.groups:
        if not g.kind.nv:
            continue
        consts = {k: np.asarray(c) for k, c in g.constants.items()}
        blocks = jax.vmap(functools.partial(_joint_delta, g.kind))(q[g.qidx].astype(dtype), consts)
        rows = np.asarray(g.vidx)[:, :, None]
        cols = np.asarray(g.qidx)[:, None, :]
        out = out.at[rows, cols].set(blocks.astype(dtype))
    return out
