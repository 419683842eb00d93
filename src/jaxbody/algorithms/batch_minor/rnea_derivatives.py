"""The RNEA derivatives of `algorithms/rnea_derivatives.py` for a batch, with the batch last.

Same math (Carpentier & Mansard 2018, generalized to Drake's joints; see that module's
docstring for the formulas and the dof relations P, case A, case B), on the level-ordered,
batch-minor arrays of `kinematics.py`. The sums over the dof relations are tree recursions
(the parent's twist, path sums) plus small gathers for the joints' own dof pairs, the subtree
sums run level by level (`inverse_dynamics.subtree_sum`), composite inertias and Coriolis
matrices keep only their non-zero structure (13 and 12 numbers instead of 36), and the (nv, nv)
results are dot products of a few component rows computed only on the (k, j) pairs of case A
and case B, then laid out densely by one gather.

Welded bodies are folded into their moving representatives (`welds.py`): every quantity here
(F_b, the composite inertias, the Coriolis matrices B_b, the applied-force matrices C_b) is
linear in the bodies' inertias or forces at a shared twist, so the folded sums are exact.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.batch_minor.algebra import (
    cross,
    dot,
    force_cross,
    gather_sum,
    inertia_parts,
    inertia_times,
    mm,
    motion_cross,
    mv,
    skew,
    spatial,
    take,
    transpose,
)
from jaxbody.algorithms.batch_minor.inverse_dynamics import path_sum, subtree_sum
from jaxbody.algorithms.batch_minor.kinematics import (
    applied_about_origin,
    dynamics_kinematics,
    level_order,
    welded_sum,
)
from jaxbody.algorithms.rnea_derivatives import _joint_delta, relations
from jaxbody.joints.kinds import Prismatic, QuaternionFloating, Revolute
from jaxbody.joints.simbody_kinds import Ball
from jaxbody.math.fusion import materialize

_IDENTITY_DELTA = (Revolute, Prismatic)  # kinds whose δ = dq (∂δ/∂q = 1)


def _coriolis_parts(M, V):
    """(T (3, 3, n, B), s (3, n, B)) with B_b x = [T x_w; s × x_w] for
    B_b x = M_b (x × V_b) + x ×* (M_b V_b) + V_b ×* (M_b x), M_b = [[Ī, [k]×], [[k]×ᵀ, m 1]]
    (`algebra.inertia_parts`), V_b = [w; u], h = M_b V_b = [h_n; h_f].

    With X = [[w]×, 0; [u]×, [w]×] (X x = V × x), B = H̄ − M X − (M X)ᵀ, H̄ = −[[h_n]×,
    [h_f]×; [h_f]×, 0]; the right half of B vanishes (its blocks are [w]× m − m [w]× = 0 and
    [−h_f − k × w + m u]× = 0), and the left half is
        T = [w]× Ī − Ī [w]× + 2 (k · u) 1 − u kᵀ − k uᵀ − [h_n]×,   lower-left [−2 h_f]×,
    so 12 numbers per body instead of 36, and their subtree sums keep the form."""
    I, k, m = M
    w, u = V[:3], V[3:]
    hn, hf = mv(I, w) + cross(k, u), cross(w, k) + m * u
    W = skew(w)
    eye = jnp.eye(3, dtype=w.dtype)[:, :, None, None]
    T = (mm(W, I) - mm(I, W) + 2.0 * dot(k, u) * eye - u[:, None] * k[None]
         - k[:, None] * u[None] - skew(hn))
    return T, -2.0 * hf


class _Plan:
    """Static gathers of one topology, in the level order of the dofs (`LevelOrder.dofs`):
    the relation matrices as member lists, the in-joint (j, k) pairs, the (k, j) pairs of case
    A and case B, and where each pair lands in the dense (nv, nv) result, in dof order."""

    def __init__(self, topo):
        rel, lo = relations(topo), level_order(topo)
        at = np.argsort(lo.dofs)  # dof -> level-order position

        def members(mat, rows=None, cols=None):
            lists = [np.flatnonzero(row) for row in np.asarray(mat) > 0]
            lists = lists if rows is None else [lists[r] for r in rows]
            return [list(m if cols is None else cols[m]) for m in lists]

        self.Q = members(rel.Q, cols=at)  # per pair: the positions of the dofs it sums
        self.to_j = members(rel.to_j, rows=lo.dofs)  # per position: its pairs
        self.pair_j, self.pair_k = at[rel.pair_j], at[rel.pair_k]
        # within a joint: the dofs that move column k, and the dofs that j moves
        nv = len(topo.dof_node)
        movers = [rel.pair_j[rel.pair_k == k] for k in range(nv)]
        moved = [rel.pair_k[rel.pair_j == j] for j in range(nv)]
        self.movers = [list(at[movers[d]]) for d in lo.dofs]
        self.moved = [list(at[moved[d]]) for d in lo.dofs]
        # the (k, j) entries that case A and case B fill (disjoint; A wins where both would),
        # and where each lands in the dense (nv, nv): a packed entry, or the zero after them
        case_a = np.asarray(rel.case_a) > 0
        case_b = (np.asarray(rel.case_b) > 0) & ~case_a
        a_k, a_j = np.nonzero(case_a)
        b_k, b_j = np.nonzero(case_b)
        self.a_not_moved = (np.asarray(rel.not_moved) > 0)[a_k, a_j]
        self.a_k, self.a_j, self.b_k, self.b_j = at[a_k], at[a_j], at[b_k], at[b_j]
        n_a, n_b = len(a_k), len(b_k)
        where = np.full(case_a.shape, n_a + n_b, np.int64)
        where[a_k, a_j] = np.arange(n_a)
        where[b_k, b_j] = n_a + np.arange(n_b)
        self.where = where.reshape(-1)


@functools.lru_cache(maxsize=64)
def plan(topo) -> _Plan:
    return _Plan(topo)


def _pair_dots(L, R, k, j):
    """Σ_c L[c, k_p] R[c, j_p] (P, B) over the static pairs (k_p, j_p) of (m, nv, B) arrays,
    L and R computed once into memory first (else XLA recomputes them per pair)."""
    L, R = materialize((L, R))
    return dot(take(L, k), take(R, j))


def _dense(pl, L, R, S, Z, Y=None):
    """(nv, nv, B), in dof order, of (m, nv, B) rows in level order: L_k · R_j (+ Y_k · S_j
    where j does not move column k) where case A holds, S_k · Z_j where case B holds, 0
    elsewhere. Only the pairs of the two cases are computed
    (on the 35-dof G1: 647 of 1,225 entries, the Y term on 56 of them) and one gather lays
    them out densely."""
    vals_a = _pair_dots(L, R, pl.a_k, pl.a_j)
    if Y is not None and pl.a_not_moved.any():
        mask = jnp.asarray(pl.a_not_moved[:, None], vals_a.dtype)
        vals_a = vals_a + mask * _pair_dots(Y, S, pl.a_k, pl.a_j)
    vals_b = _pair_dots(S, Z, pl.b_k, pl.b_j)
    B = jnp.broadcast_shapes(vals_a.shape[1:], vals_b.shape[1:])
    packed = jnp.concatenate([jnp.broadcast_to(vals_a, vals_a.shape[:1] + B),
                              jnp.broadcast_to(vals_b, vals_b.shape[:1] + B),
                              jnp.zeros((1,) + B, vals_a.dtype)])
    nv = L.shape[1]
    return take(packed, pl.where, 0).reshape((nv, nv) + B)


def _applied_matrices(topo, lo, bk, F_Bo_W):
    """(G (3, 3, n, B), f (3, n, B)): the applied forces' own change beyond S ×* F, summed over
    each moving body and the bodies welded to it, C_b S = [G_b w; −f_b × w] for a twist
    S = [w; u] (see `rnea_derivatives._applied_force_matrices`: G = K − [n]×)."""
    eye = jnp.eye(3, dtype=bk.p_WB.dtype)[:, :, None, None]

    def K(F, p):  # (p · f) 1 − p fᵀ
        f = F[3:]
        return dot(p, f) * eye - p[:, None] * f[None]

    Fo = applied_about_origin(topo, lo, bk, F_Bo_W)
    G = welded_sum(topo, lo, bk, F_Bo_W, K) - skew(Fo[:3])
    return G, Fo[3:]


def _quaternion_delta(qg):
    """∂δ/∂q (k, 3, 4, B) of quaternions qg = (w, x, y, z) (k, 4, B) whose rotation is that of
    q/|q|, δ the angular velocity in F: ω = (2/|q|) (ŵ dv − dw v̂ + v̂ × dv), v the vector part
    (the radial direction maps to 0)."""
    norm = jnp.sqrt(dot(qg.swapaxes(0, 1), qg.swapaxes(0, 1)))  # (k, B)
    w, x, y, z = (qg[:, i] / norm for i in range(4))
    rows = [[-x, w, -z, y], [-y, z, w, -x], [-z, -y, x, w]]  # columns: dw, then dv
    return jnp.stack([jnp.stack(r, 1) for r in rows], 1) * (2.0 / norm)[:, None, None]


def _delta_map(topo, q, Dd):
    """Dd (nv, nv, B) · ∂δ/∂q -> (nv, nq, B) (see `rnea_derivatives.joint_delta_map`)."""
    nv, B = Dd.shape[0], Dd.shape[-1]

    def times(Ddg, delta):  # Σ_a Ddg[n, k, a] delta[k, a, q]: (nv, k, nq_g, B)
        return sum(Ddg[:, :, a, None] * delta[None, :, a] for a in range(Ddg.shape[2]))

    cols, where = [], []
    for g in topo.groups:
        kind, k = g.kind, len(g.nodes)
        if not kind.nv:
            continue
        Ddg = take(Dd, g.vidx.reshape(-1), 1).reshape(nv, k, kind.nv, Dd.shape[-1])
        if kind in _IDENTITY_DELTA:
            out = Ddg
        elif kind in (QuaternionFloating, Ball):  # [quaternion, identity]
            qg = take(q, g.qidx[:, :4].reshape(-1), 0).reshape(k, 4, q.shape[-1])
            out = jnp.concatenate([times(Ddg[:, :, :3], _quaternion_delta(qg).astype(Dd.dtype)),
                                   Ddg[:, :, 3:]], 2)
        else:
            qg = take(q, g.qidx.reshape(-1), 0).reshape(k, kind.nq, q.shape[-1])
            consts = {n: np.asarray(c) for n, c in g.constants.items()}
            per_joint = jax.vmap(functools.partial(_joint_delta, kind), (0, 0))
            delta = jax.vmap(per_joint, (-1, None), -1)(qg, consts)  # (k, nv_g, nq_g, B)
            out = times(Ddg, delta.astype(Dd.dtype))
        cols.append(out.reshape(nv, -1, out.shape[-1]))
        where.append(g.qidx.reshape(-1))
    if not cols:
        return jnp.zeros((nv, topo.nq, B), Dd.dtype)
    return take(jnp.concatenate(cols, 1), np.argsort(np.concatenate(where)), 1)


def inverse_dynamics_derivatives(topo, q, v, vdot, mass, com, unit_inertia, frame_R, frame_p,
                                 gravity=None, F_Bo_W=None):
    """(∂τ/∂q (nv, nq, B), ∂τ/∂v (nv, nv, B)) of τ = ID(q, v, v̇) − τ_g(q) − Σ_b J_bᵀ F_b.

    q (nq, B), v and vdot (nv, B); parameters as in `kinematics.dynamics_kinematics`; gravity
    (3, b) or None (no gravity term; every body feels it otherwise); F_Bo_W: applied spatial
    forces (6, num_bodies, b) on each body at Bo in W (fixed in W), or None."""
    bk = dynamics_kinematics(topo, q, v, mass, com, unit_inertia, frame_R, frame_p)
    return inverse_dynamics_derivatives_of(topo, bk, q, v, vdot, gravity, F_Bo_W)


def inverse_dynamics_derivatives_of(topo, bk, q, v, vdot, gravity=None, F_Bo_W=None):
    """`inverse_dynamics_derivatives` from the batch's kinematics ``bk`` at (q, v)."""
    lo, pl = level_order(topo), plan(topo)
    S, own = bk.S_L, lo.dof_node_L  # dofs in level order from here to the dense results
    v, vdot = take(v, lo.dofs, 0), take(vdot, lo.dofs, 0)
    Sv = S * v
    # the relation sums as tree recursions (O(n), not O(n · depth) gathers): the velocity
    # carrying column k is the parent's twist plus the joint's own movers of k; the sum over
    # the dofs that support node(j) and that j does not move is a path sum less j's own. The
    # three path sums (velocities, accelerations of the supporting columns, A) run as one.
    W = take(bk.V_O, lo.parent[own])
    if len(pl.pair_j):
        W = W + gather_sum(Sv, pl.movers)
    Sdot = motion_cross(W, S)
    own_rates = jnp.concatenate([Sv, S * vdot + Sdot * v])
    paths = path_sum(lo, gather_sum(jnp.concatenate([own_rates, S * vdot]), lo.node_dofs_L)
                     + jnp.concatenate([jnp.zeros((12,) + bk.c_O.shape[1:], S.dtype), bk.c_O]))
    supporting = take(paths[:12], own)
    if len(pl.pair_j):
        supporting = supporting - gather_sum(own_rates, pl.moved)
    dV = -motion_cross(S, supporting[:6])
    alpha = -motion_cross(S, supporting[6:]) - motion_cross(dV, take(bk.V_O, own))
    if len(pl.pair_j):
        Wp = gather_sum(Sv, pl.Q)
        Ep = motion_cross(motion_cross(take(S, pl.pair_j), Wp), take(S, pl.pair_k))
        alpha = alpha - gather_sum(Ep * take(v, pl.pair_k, 0), pl.to_j)

    A = paths[12:]
    if gravity is not None:
        g = gravity.astype(S.dtype)[:, None]
        A = A - spatial(jnp.zeros_like(g), g)
        alpha = alpha + spatial(jnp.zeros_like(S[:3]), cross(S[:3], g))  # + S × [0; g]
    M = inertia_parts(bk.M_O)
    F = inertia_times(M, A) + force_cross(bk.V_O, inertia_times(M, bk.V_O))
    if F_Bo_W is not None:
        F = F - applied_about_origin(topo, lo, bk, F_Bo_W)
    # the subtree sums (F, the composite inertias as `inertia_parts`, the Coriolis parts and
    # the applied forces' matrices) run as one
    rows = [F, *M, *_coriolis_parts(M, bk.V_O)]
    if F_Bo_W is not None:
        rows += list(_applied_matrices(topo, lo, bk, F_Bo_W))
    sums = take(subtree_sum(lo, _stack_rows(rows, S.shape[-1])), own)
    Fsub, I_c, k_c, m_c, Tc, sc, rest = _unstack_rows(
        sums, [(6,), (3, 3), (3,), (1,), (3, 3), (3,)])
    Ic = (I_c, k_c, m_c)  # composite inertias, as `inertia_parts`
    a, b, n, f = S[:3], S[3:], Fsub[:3], Fsub[3:]

    def Bc(x):  # Bc x: (6, nv, B) of angular parts x (3, nv, B)
        return spatial(mv(Tc, x), cross(sc, x))

    IcS = inertia_times(Ic, S)  # Ic symmetric: S_k · Ic x = (Ic S_k) · x
    BcTS = mv(transpose(Tc), a) + cross(b, sc)  # Bcᵀ S_k = [this; 0]
    Y = spatial(cross(n, a) + cross(f, b), cross(f, a))  # S_k · (S_j ×* Fsub_k) = Y_k · S_j

    # ∂τ/∂δ: case A pairs from the dof's own composite quantities, case B from Zq at j.
    Lq, Rq = jnp.concatenate([IcS, BcTS]), jnp.concatenate([alpha, dV[:3]])
    Zq = inertia_times(Ic, alpha) + Bc(dV[:3]) + force_cross(S, Fsub)
    if F_Bo_W is not None:
        Gc, fc, _ = _unstack_rows(rest, [(3, 3), (3,)])
        CcTS = mv(transpose(Gc), a) + cross(fc, b)  # the angular half of Ccᵀ S (the rest is 0)
        Lq, Rq = jnp.concatenate([Lq, CcTS]), jnp.concatenate([Rq, a])
        Zq = Zq + spatial(mv(Gc, a), -cross(fc, a))
    Dd = _dense(pl, Lq, Rq, S, Zq, Y)

    # ∂τ/∂v.
    R = Sdot + dV
    Zv = inertia_times(Ic, R) + Bc(a)
    Dv = _dense(pl, jnp.concatenate([IcS, BcTS]), jnp.concatenate([R, a]), S, Zv)
    return _delta_map(topo, q, Dd), Dv


def _stack_rows(rows, B):
    """(m, n, B): the component rows of (..., n, B or 1) arrays, one after another."""
    flat = [r.reshape((-1,) + r.shape[-2:]) for r in rows]
    return jnp.concatenate([jnp.broadcast_to(r, r.shape[:2] + (B,)) for r in flat])


def _unstack_rows(x, shapes):
    """The arrays of component shapes ``shapes`` stacked by `_stack_rows`, then the rest."""
    out, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(x[start:start + size].reshape(shape + x.shape[1:]))
        start += size
    return out + [x[start:]]
