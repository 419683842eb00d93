"""The tree passes of `kinematics.py` without a loop over levels (pointer-jumping poses, path
sums of Plücker velocities and acceleration increments) against a body-by-body recursion written
here in NumPy (Drake's ``ComposeWithMovingFrame``), on deep chains and branched trees of every
joint kind; and their operation count, which must not grow with the depth."""

import collections
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbody.algorithms import kinematics as kin
from tests.helpers.random_trees import build_jaxbody, random_state, random_tree

TOL = 1e-12


def _chain(rng, n):
    spec = random_tree(rng, n, free_fraction=0.0, world_fraction=0.0)
    for js in spec.joints:
        js.parent = js.child - 1  # body i hangs from body i - 1
    return spec


def _passes(plant, q, v, vdot):
    topo, params = plant._topology, plant.CreateDefaultContext().parameters
    jk = kin.joint_kinematics(topo, q, v)
    pk = kin.position_kinematics(topo, q, params, jk)
    vk = kin.velocity_kinematics(topo, pk, v)
    A = kin.acceleration_kinematics(topo, pk, vk, jk, vdot)
    return topo, params, jk, pk, vk, A


def _reference(topo, params, jk, pk, v, vdot):
    """The same quantities by the parent-to-child recursion (joint stage taken from ``jk``)."""
    fp, fc = topo.frame_on_parent, topo.frame_on_child
    R_PF, p_PF = np.asarray(params.frame_R)[fp], np.asarray(params.frame_p)[fp]
    R_BM, p_BM = np.asarray(params.frame_R)[fc], np.asarray(params.frame_p)[fc]
    R_FM, p_FM = np.asarray(jk.R_FM), np.asarray(jk.p_FM)
    H_F, Hd_F = np.asarray(jk.H_FM_F), np.asarray(jk.Hdot_v_F)
    n = topo.num_nodes
    R, p = np.zeros((n, 3, 3)), np.zeros((n, 3))
    V, A = np.zeros((n, 6)), np.zeros((n, 6))
    R[0] = np.eye(3)
    for i in range(1, n):
        P = topo.parent[i]
        R_FB = R_FM[i] @ R_BM[i].T
        R_PB = R_PF[i] @ R_FB
        p_PB = p_PF[i] + R_PF[i] @ (p_FM[i] - R_FB @ p_BM[i])
        R[i], p[i] = R[P] @ R_PB, p[P] + R[P] @ p_PB
        R_WF = R[P] @ R_PF[i]
        p_MoBo = -R[i] @ p_BM[i]
        dofs = np.flatnonzero(topo.dof_node == i)
        Vpb, Apb = np.zeros(6), np.zeros(6)
        for k in dofs:
            hw = R_WF @ H_F[k, :3]
            hv = R_WF @ H_F[k, 3:] + np.cross(hw, p_MoBo)
            Vpb += np.concatenate([hw, hv]) * v[k]
            Apb += np.concatenate([hw, hv]) * vdot[k]
        hdw = R_WF @ Hd_F[i, :3]
        Apb += np.concatenate([hdw, R_WF @ Hd_F[i, 3:] + np.cross(hdw, p_MoBo)])
        Apb[3:] += np.cross(Vpb[:3], np.cross(Vpb[:3], p_MoBo))
        wP, vP, alP, aP = V[P, :3], V[P, 3:], A[P, :3], A[P, 3:]
        r = p[i] - p[P]
        V[i] = np.concatenate([wP + Vpb[:3], vP + np.cross(wP, r) + Vpb[3:]])
        A[i] = np.concatenate([
            alP + Apb[:3] + np.cross(wP, Vpb[:3]),
            aP + np.cross(alP, r) + np.cross(wP, np.cross(wP, r)) + Apb[3:]
            + 2.0 * np.cross(wP, Vpb[3:])])
    return R, p, V, A


@pytest.mark.parametrize("shape", ["chain", "tree"])
def test_passes_equal_the_recursion(shape):
    rng = np.random.default_rng(11)
    spec = _chain(rng, 24) if shape == "chain" else random_tree(rng, 16, free_fraction=0.2)
    plant = build_jaxbody(spec)
    for _ in range(2):
        q, v = random_state(rng, plant)
        vdot = rng.normal(size=plant.num_velocities())
        topo, params, jk, pk, vk, A = _passes(plant, jnp.asarray(q), jnp.asarray(v),
                                              jnp.asarray(vdot))
        R, p, V, A_ref = _reference(topo, params, jk, pk, v, vdot)
        scale = max(1.0, np.abs(A_ref).max())
        np.testing.assert_allclose(pk.R_WB, R, atol=TOL)
        np.testing.assert_allclose(pk.p_WB, p, atol=TOL * max(1.0, np.abs(p).max()))
        np.testing.assert_allclose(vk.V_WB, V, atol=TOL * max(1.0, np.abs(V).max()))
        np.testing.assert_allclose(A, A_ref, atol=TOL * scale)


def test_jump_rounds_are_logarithmic_in_depth():
    for n in (1, 2, 3, 8, 9, 33):
        plant = build_jaxbody(_chain(np.random.default_rng(n), n))
        assert len(kin._jump_rounds(plant._topology)) == int(np.ceil(np.log2(n)))


def _op_count(plant):
    topo, params = plant._topology, plant.CreateDefaultContext().parameters

    def f(q, v, vdot):
        jk = kin.joint_kinematics(topo, q, v)
        pk = kin.position_kinematics(topo, q, params, jk)
        vk = kin.velocity_kinematics(topo, pk, v)
        return pk.R_WB, vk.V_WB, kin.acceleration_kinematics(topo, pk, vk, jk, vdot)

    z = jnp.zeros(plant.num_velocities())
    text = jax.jit(f).lower(jnp.zeros(plant.num_positions()), z, z).compile().as_text()
    entry = text[text.index("ENTRY"):]
    ops = collections.Counter(re.findall(r"= \S+ ([\w-]+)\(", entry))
    return sum(c for op, c in ops.items()
               if op not in ("parameter", "constant", "get-tuple-element", "tuple", "bitcast"))


def test_operation_count_does_not_grow_with_depth():
    """A chain 8 times deeper adds only its 3 extra pointer-jumping rounds (each a gather and a
    composition), where a level-by-level pass would add a level's operations per body."""
    kinds = ("revolute",)
    counts = {}
    for n in (8, 64):
        spec = random_tree(np.random.default_rng(0), n, kinds=kinds, free_fraction=0.0,
                           world_fraction=0.0)
        for js in spec.joints:
            js.parent = js.child - 1
        counts[n] = _op_count(build_jaxbody(spec))
    assert counts[64] <= counts[8] + 3 * 6, counts
