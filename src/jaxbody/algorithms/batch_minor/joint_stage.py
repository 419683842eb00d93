"""The joint stage of the batch-minor kinematics: each moving node's pose in its parent,
X_PB = X_PF X_FM(q) X_MB, and what its joint's motion subspace needs, by joint kind.

A revolute or prismatic joint ("axial": one axis k, fixed in both F and M, and Ḣ = 0) takes a
closed form. With θ its coordinate, s = sin θ, c = 1 − cos θ and K = [k]×, Rodrigues'
R_FM = 1 + s K + c K² gives
    R_PB = A + s B + c C,        A = R_PF R_BMᵀ,  B = R_PF K R_BMᵀ,  C = R_PF K² R_BMᵀ,
    p_PB = p_PF − R_PB p_BM = a + s b + c c',   a = p_PF − A p_BM,  b = −B p_BM,  c' = −C p_BM,
and a prismatic joint R_PB = A, p_PB = a + θ R_PF k. A, B, C, a, b, c' depend on the parameters
only (computed once per call, per member only when the parameters are batched), so a member
pays 12 products per revolute joint where Rodrigues' rotation and two 3 × 3 products cost 99.
Its subspace column is k_B = R_BM k, fixed in B: h = R_WB k_B and S^O = [h; p_Mo × h]
(revolute) or [0; h] (prismatic), p_Mo its joint origin in W. Every other kind goes through its
`JointKind` functions, per member, as the per-sample path does.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.batch_minor.algebra import cross, mm, mv, spatial, take, transpose
from jaxbody.joints.kinds import JointKind, Prismatic, Revolute
from jaxbody.math.fusion import materialize


class Axial(NamedTuple):
    """The revolute (or prismatic) joints, sorted by level-order position."""

    positions: np.ndarray  # (m,) level-order positions of their nodes
    dofs: np.ndarray  # (m,) their dofs
    k_B: jax.Array  # (3, m, b): the axis in the child body's frame


class AxialPlan(NamedTuple):
    """Static: the revolute (or prismatic) joints, sorted by level-order position."""

    positions: np.ndarray  # (m,) level-order positions of their nodes
    dofs: np.ndarray  # (m,) their dofs
    q_index: np.ndarray  # (m,) their coordinates
    axes: np.ndarray  # (m, 3) their axes in F (and M)


class General(NamedTuple):
    """The joints of every other kind (and the world, first, which has none)."""

    positions: np.ndarray  # (k,) level-order positions, the world's (0) first
    dofs: np.ndarray  # (d,) their dofs, node by node
    dof_row: np.ndarray  # (d,) each dof's node, as a row of `positions`
    H_F: jax.Array  # (6, d, B): subspace columns in F
    Hdot_v: jax.Array | None  # (6, k, B): Ḣ v in F, or None where every kind's is zero


class JointStage(NamedTuple):
    R_PB: jax.Array  # (3, 3, n, B), level order
    p_PB: jax.Array  # (3, n, B)
    revolute: Axial
    prismatic: Axial
    general: General


def _nodes_last(x):
    """(k, c..., B) as the per-sample kernels give it -> (c..., k, B)."""
    return jnp.moveaxis(x, 0, -2)


def _has_bias(kind):
    own = getattr(kind.subspace_dot_v, "__func__", kind.subspace_dot_v)
    return own is not JointKind.subspace_dot_v.__func__


@functools.lru_cache(maxsize=64)
def _plan(topo, nodes):
    """Static, for the level-ordered ``nodes`` (a tuple): the revolute and the prismatic
    `AxialPlan`, and the general groups with their nodes' positions."""
    position = {int(x): i for i, x in enumerate(nodes)}
    axial = {Revolute: [], Prismatic: []}
    general = []
    for g in topo.groups:
        if not g.kind.nv:  # welded bodies are folded into their representatives
            continue
        pos = [position[int(n)] for n in g.nodes]
        if g.kind in axial and "axis" in g.constants:
            axes = np.asarray(g.constants["axis"], float).reshape(len(pos), 3)
            axial[g.kind] += [(p, int(g.vidx[i, 0]), int(g.qidx[i, 0]), axes[i])
                              for i, p in enumerate(pos)]
        else:
            general.append((g, pos))

    def table(rows):
        rows = sorted(rows, key=lambda r: r[0])
        pos, dofs, qi, axes = zip(*rows) if rows else ((), (), (), ())
        return AxialPlan(np.asarray(pos, np.int64), np.asarray(dofs, np.int64),
                         np.asarray(qi, np.int64), np.asarray(axes, float).reshape(len(rows), 3))

    return table(axial[Revolute]), table(axial[Prismatic]), general


def _axis_planes(axes, dtype):
    return jnp.asarray(axes.T[:, :, None], dtype)  # (3, m, 1)


def _revolute(plan, q, R_PF, p_PF, R_BM, p_BM):
    pos, qi, axes = plan.positions, plan.q_index, plan.axes
    dtype = q.dtype
    K = np.cross(axes[:, None, :], -np.eye(3)[None])  # (m, 3, 3): [k]×
    K, K2 = (jnp.asarray(np.moveaxis(x, 0, -1)[..., None], dtype) for x in (K, K @ K))
    R_PF, p_PF, R_MB = take(R_PF, pos), take(p_PF, pos), transpose(take(R_BM, pos))
    p_BM = take(p_BM, pos)
    A, Bs, C = mm(R_PF, R_MB), mm(mm(R_PF, K), R_MB), mm(mm(R_PF, K2), R_MB)
    a, b, c = p_PF - mv(A, p_BM), -mv(Bs, p_BM), -mv(C, p_BM)
    angle = take(q, qi, 0)
    s, cc = materialize((jnp.sin(angle), 1.0 - jnp.cos(angle)))
    return A + s * Bs + cc * C, a + s * b + cc * c


def _prismatic(plan, q, R_PF, p_PF, R_BM, p_BM):
    pos, qi, axes = plan.positions, plan.q_index, plan.axes
    R_PF, p_PF, p_BM = take(R_PF, pos), take(p_PF, pos), take(p_BM, pos)
    A = mm(R_PF, transpose(take(R_BM, pos)))
    d = mv(R_PF, _axis_planes(axes, q.dtype))
    x = take(q, qi, 0)
    B = q.shape[-1]
    return (jnp.broadcast_to(A, A.shape[:3] + (B,)), p_PF - mv(A, p_BM) + x * d)


def _general(groups, lo, q, v, R_PF, p_PF, R_BM, p_BM):
    """(R_PB (3, 3, k, B), p_PB, `General`) of the world and the general groups' nodes."""
    B, dtype = q.shape[-1], q.dtype
    Rs = [jnp.broadcast_to(jnp.eye(3, dtype=dtype)[:, :, None, None], (3, 3, 1, B))]
    ps, Hs, Hds = [jnp.zeros((3, 1, B), dtype)], [], [jnp.zeros((6, 1, B), dtype)]
    positions, dofs, rows = [0], [], []
    any_bias = False
    for g, pos in groups:
        kind, consts, k = g.kind, g.constants, len(g.nodes)
        qg = take(q, g.qidx.reshape(-1), 0).reshape(k, kind.nq, B) if kind.nq else \
            jnp.zeros((k, 0, B), dtype)
        vg = take(v, g.vidx.reshape(-1), 0).reshape(k, kind.nv, B)
        Rg, pg = jax.vmap(functools.partial(kind.transform, c=consts), -1, -1)(qg)
        R_FM = _nodes_last(jnp.broadcast_to(Rg.astype(dtype), (k, 3, 3, B)))
        p_FM = _nodes_last(jnp.broadcast_to(pg.astype(dtype), (k, 3, B)))
        R_pf, R_fb = take(R_PF, pos), mm(R_FM, transpose(take(R_BM, pos)))
        Rs.append(mm(R_pf, R_fb))
        ps.append(take(p_PF, pos) + mv(R_pf, p_FM - mv(R_fb, take(p_BM, pos))))
        if _has_bias(kind):
            any_bias = True
            Hdg = jax.vmap(functools.partial(kind.subspace_dot_v, c=consts), -1, -1)(qg, vg)
            Hds.append(_nodes_last(jnp.broadcast_to(Hdg.astype(dtype), (k, 6, B))))
        else:
            Hds.append(jnp.zeros((6, k, B), dtype))
        Hg = jax.vmap(functools.partial(kind.subspace, c=consts), -1, -1)(qg)  # (k, 6, m, B)
        Hg = jnp.broadcast_to(Hg.astype(dtype), Hg.shape[:3] + (B,))
        Hs.append(jnp.moveaxis(Hg, 1, 2).reshape(-1, 6, B).swapaxes(0, 1))
        rows += [len(positions) + i for i in range(k) for _ in range(kind.nv)]
        positions += pos
        dofs += list(g.vidx.reshape(-1))
    H_F = jnp.concatenate(Hs, -2) if Hs else jnp.zeros((6, 0, B), dtype)
    general = General(np.asarray(positions, np.int64), np.asarray(dofs, np.int64),
                      np.asarray(rows, np.int64), H_F,
                      jnp.concatenate(Hds, -2) if any_bias else None)
    return jnp.concatenate(Rs, -2), jnp.concatenate(ps, -2), general


def joint_stage(topo, lo, q, v, R_PF, p_PF, R_BM, p_BM):
    """`JointStage` of q (nq, B), v (nv, B) and the joint frames of the level-ordered nodes
    (R_PF expressed in the parent's representative, see `welds.py`)."""
    rev, pri, groups = _plan(topo, tuple(int(x) for x in lo.nodes))
    frames = (R_PF, p_PF, R_BM, p_BM)
    R_g, p_g, general = _general(groups, lo, q, v, *frames)
    Rs, ps, positions = [R_g], [p_g], [general.positions]
    for plan, fn in ((rev, _revolute), (pri, _prismatic)):
        if len(plan.positions):
            R, p = fn(plan, q, *frames)
            Rs.append(R)
            ps.append(p)
            positions.append(plan.positions)
    where = np.argsort(np.concatenate(positions))  # level order -> row
    # computed once into memory: XLA would otherwise recompute these cheap entries inside each
    # level's pose product, and each level's inside the next (G1: 25k FLOPs per sample)
    R_PB, p_PB = materialize((take(jnp.concatenate(Rs, -2), where),
                              take(jnp.concatenate(ps, -2), where)))

    def axial(plan):
        pos = plan.positions
        k_B = mv(take(R_BM, pos), _axis_planes(plan.axes, q.dtype)) if len(pos) else \
            jnp.zeros((3, 0, 1), q.dtype)
        return Axial(pos, plan.dofs, k_B)

    return JointStage(R_PB, p_PB, axial(rev), axial(pri), general)


def subspaces(lo, js, R_WB, p_WB, p_MoBo_W, R_PF):
    """(S^O (6, nv, B) in the dofs' level order ``lo.dofs``, R_WF (3, 3, k, B) of the general
    nodes)."""
    g = js.general
    R_WF = mm(take(R_WB, lo.parent[g.positions]), take(R_PF, g.positions))
    cols, dofs = [], []
    if len(g.dofs):
        R = take(R_WF, g.dof_row)
        own = g.positions[g.dof_row]
        h_w = mv(R, g.H_F[:3])
        h_v = mv(R, g.H_F[3:]) + cross(h_w, take(p_MoBo_W, own))
        cols.append(spatial(h_w, h_v + cross(take(p_WB, own), h_w)))
        dofs.append(g.dofs)
    for ax, revolute in ((js.revolute, True), (js.prismatic, False)):
        if not len(ax.positions):
            continue
        h = mv(take(R_WB, ax.positions), ax.k_B)
        if revolute:
            p_Mo = take(p_WB, ax.positions) - take(p_MoBo_W, ax.positions)
            cols.append(spatial(h, cross(p_Mo, h)))
        else:
            cols.append(spatial(jnp.zeros_like(h), h))
        dofs.append(ax.dofs)
    if not cols:
        return jnp.zeros((6, 0, R_WB.shape[-1]), R_WB.dtype), R_WF
    row = np.empty(len(lo.dofs), np.int64)
    row[np.concatenate(dofs)] = np.arange(len(lo.dofs))  # dof -> row of the columns
    return take(jnp.concatenate(cols, -2), row[lo.dofs]), R_WF


def bias_of_joints(lo, js, R_WF, p_MoBo_W, p_WB):
    """The part of c_b (6, n, B) that the joints' Ḣ v adds (rotated to W, about Wo), or None
    where every joint's Ḣ is zero."""
    g = js.general
    if g.Hdot_v is None:
        return None
    hd_w = mv(R_WF, g.Hdot_v[:3])
    hd_v = mv(R_WF, g.Hdot_v[3:]) + cross(hd_w, take(p_MoBo_W, g.positions))
    part = spatial(hd_w, hd_v + cross(take(p_WB, g.positions), hd_w))
    row = np.zeros(len(lo.nodes), np.int64)  # 0: a zero column (the world's row is zeroed)
    row[g.positions[1:]] = np.arange(1, len(g.positions))
    part = jnp.concatenate([jnp.zeros_like(part[:, :1]), part[:, 1:]], -2)
    return take(part, row)
