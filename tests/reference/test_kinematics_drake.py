"""Cross-check of kinematics, Jacobians, bias accelerations, N(q) and momentum against pydrake.

The same random trees (every Drake joint kind, random inertias and joint frames, fixed and
floating base) are built in both engines and evaluated at random states.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("pydrake")

from pydrake.multibody.tree import JacobianWrtVariable as DJW  # noqa: E402

import jaxbody as jb  # noqa: E402
from tests.helpers.random_trees import (  # noqa: E402
    build_drake,
    build_jaxbody,
    random_state,
    random_tree,
)

REL_TOL = 1e-10  # relative error, float64
NUM_STATES = 3


def _close(a, b, tol=REL_TOL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    scale = max(1.0, np.abs(b).max(initial=0.0))
    err = np.abs(a - b).max(initial=0.0) / scale
    assert err < tol, f"relative error {err:.3e} >= {tol:.1e}"


def _wrt(w):
    return jb.JacobianWrtVariable.kV if w == DJW.kV else jb.JacobianWrtVariable.kQDot


@pytest.fixture(scope="module", params=[("fixed", 0), ("floating", 1)], ids=lambda p: p[0])
def case(request):
    kind, seed = request.param
    rng = np.random.default_rng(100 + seed)
    if kind == "fixed":
        spec = random_tree(rng, 22, free_fraction=0.0)
        for js in spec.joints:  # a fixed base: nothing floats on the world
            if js.parent == 0 and js.kind in ("rpy_floating", "quaternion_floating"):
                js.kind = "revolute"
    else:
        spec = random_tree(rng, 24, free_fraction=0.15)
    pj, pd = build_jaxbody(spec), build_drake(spec)
    states = [random_state(rng, pj) for _ in range(NUM_STATES)]
    return pj, pd, states, rng


def _contexts(pj, pd, q, v):
    cj = pj.SetVelocities(pj.SetPositions(pj.CreateDefaultContext(), jnp.asarray(q)),
                          jnp.asarray(v))
    cd = pd.CreateDefaultContext()
    pd.SetPositions(cd, q)
    pd.SetVelocities(cd, v)
    return cj, cd


def _frame_pairs(pj, pd, rng, n=4):
    names = [f.name() for f in pj._frames]
    picks = rng.choice(len(names), size=n, replace=True)
    return [(pj.GetFrameByName(names[i]), pd.GetFrameByName(names[i])) for i in picks]


def test_layout_matches_drake(case):
    pj, pd, _, _ = case
    assert pj.num_positions() == pd.num_positions()
    assert pj.num_velocities() == pd.num_velocities()
    assert pj.num_joints() == pd.num_joints()
    for j in pj._joints:
        jd = pd.GetJointByName(j.name())
        assert (j.position_start(), j.velocity_start()) == (jd.position_start(), jd.velocity_start())
        assert j.num_positions() == jd.num_positions()


def test_poses_velocities_accelerations(case):
    pj, pd, states, rng = case
    for q, v in states:
        cj, cd = _contexts(pj, pd, q, v)
        vdot = rng.normal(size=pj.num_velocities())
        Aj = pj.CalcSpatialAccelerationsFromVdot(cj, jnp.asarray(vdot))
        Ad = pd.CalcSpatialAccelerationsFromVdot(cd, vdot)
        for b in pj._bodies:
            bd = pd.GetBodyByName(b.name())
            _close(pj.EvalBodyPoseInWorld(cj, b).GetAsMatrix4(),
                   pd.EvalBodyPoseInWorld(cd, bd).GetAsMatrix4())
            _close(pj.EvalBodySpatialVelocityInWorld(cj, b).get_coeffs(),
                   pd.EvalBodySpatialVelocityInWorld(cd, bd).get_coeffs())
            _close(Aj[int(b.index())].get_coeffs(), Ad[int(bd.index())].get_coeffs())


def test_relative_frames(case):
    pj, pd, states, rng = case
    q, v = states[0]
    cj, cd = _contexts(pj, pd, q, v)
    pts = rng.normal(size=(3, 4))
    frames = _frame_pairs(pj, pd, rng, 6)
    for (Aj, Ad), (Bj, Bd), (Ej, Ed) in zip(frames[0::3], frames[1::3], frames[2::3]):
        _close(pj.CalcRelativeTransform(cj, Aj, Bj).GetAsMatrix4(),
               pd.CalcRelativeTransform(cd, Ad, Bd).GetAsMatrix4())
        _close(pj.CalcRelativeRotationMatrix(cj, Aj, Bj).matrix(),
               pd.CalcRelativeRotationMatrix(cd, Ad, Bd).matrix())
        _close(pj.CalcPointsPositions(cj, Bj, pts, Aj), pd.CalcPointsPositions(cd, Bd, pts, Ad))
        _close(pj.CalcSpatialVelocity(cj, Bj, Aj, Ej).get_coeffs(),
               Bd.CalcSpatialVelocity(cd, Ad, Ed).get_coeffs())


@pytest.mark.parametrize("wrt", [DJW.kV, DJW.kQDot], ids=["kV", "kQDot"])
def test_jacobians(case, wrt):
    pj, pd, states, rng = case
    for q, v in states[:2]:
        cj, cd = _contexts(pj, pd, q, v)
        p = rng.normal(size=3)
        pts = rng.normal(size=(3, 3))
        frames = _frame_pairs(pj, pd, rng, 6)
        Wj, Wd = pj.world_frame(), pd.world_frame()
        triples = [(frames[0], frames[1], frames[2]), (frames[3], (Wj, Wd), frames[4]),
                   (frames[5], (Wj, Wd), (Wj, Wd))]
        for (Bj, Bd), (Aj, Ad), (Ej, Ed) in triples:
            _close(pj.CalcJacobianSpatialVelocity(cj, _wrt(wrt), Bj, p, Aj, Ej),
                   pd.CalcJacobianSpatialVelocity(cd, wrt, Bd, p, Ad, Ed))
            _close(pj.CalcJacobianAngularVelocity(cj, _wrt(wrt), Bj, Aj, Ej),
                   pd.CalcJacobianAngularVelocity(cd, wrt, Bd, Ad, Ed))
            _close(pj.CalcJacobianTranslationalVelocity(cj, _wrt(wrt), Bj, pts, Aj, Ej),
                   pd.CalcJacobianTranslationalVelocity(cd, wrt, Bd, pts, Ad, Ed))
        Ej, Ed = frames[2]
        _close(pj.CalcJacobianCenterOfMassTranslationalVelocity(cj, _wrt(wrt), Wj, Ej),
               pd.CalcJacobianCenterOfMassTranslationalVelocity(cd, wrt, Wd, Ed))


def test_bias_accelerations(case):
    pj, pd, states, rng = case
    q, v = states[1]
    cj, cd = _contexts(pj, pd, q, v)
    kV = jb.JacobianWrtVariable.kV
    p = rng.normal(size=3)
    pts = rng.normal(size=(3, 2))
    frames = _frame_pairs(pj, pd, rng, 6)
    Wj, Wd = pj.world_frame(), pd.world_frame()
    for (Bj, Bd), (Aj, Ad), (Ej, Ed) in [(frames[0], frames[1], frames[2]),
                                         (frames[3], (Wj, Wd), frames[4])]:
        _close(pj.CalcBiasSpatialAcceleration(cj, kV, Bj, p, Aj, Ej).get_coeffs(),
               pd.CalcBiasSpatialAcceleration(cd, DJW.kV, Bd, p, Ad, Ed).get_coeffs())
        _close(pj.CalcBiasTranslationalAcceleration(cj, kV, Bj, pts, Aj, Ej),
               pd.CalcBiasTranslationalAcceleration(cd, DJW.kV, Bd, pts, Ad, Ed))
    Ej, Ed = frames[5]
    _close(pj.CalcBiasCenterOfMassTranslationalAcceleration(cj, kV, Wj, Ej),
           pd.CalcBiasCenterOfMassTranslationalAcceleration(cd, DJW.kV, Wd, Ed))


def test_qdot_maps(case):
    pj, pd, states, _ = case
    for q, v in states:
        cj, cd = _contexts(pj, pd, q, v)
        _close(pj.MakeVelocityToQDotMap(cj), pd.MakeVelocityToQDotMap(cd).toarray())
        _close(pj.MakeQDotToVelocityMap(cj), pd.MakeQDotToVelocityMap(cd).toarray())
        _close(pj.MapVelocityToQDot(cj, jnp.asarray(v)), pd.MapVelocityToQDot(cd, v))


def test_com_and_momentum(case):
    pj, pd, states, rng = case
    q, v = states[2]
    cj, cd = _contexts(pj, pd, q, v)
    _close(pj.CalcCenterOfMassPositionInWorld(cj), pd.CalcCenterOfMassPositionInWorld(cd))
    _close(pj.CalcCenterOfMassTranslationalVelocityInWorld(cj),
           pd.CalcCenterOfMassTranslationalVelocityInWorld(cd))
    _close(pj.CalcTotalMass(cj), pd.CalcTotalMass(cd))
    P = rng.normal(size=3)
    _close(pj.CalcSpatialMomentumInWorldAboutPoint(cj, P).get_coeffs(),
           pd.CalcSpatialMomentumInWorldAboutPoint(cd, P).get_coeffs())


def test_position_jacobian_and_spatial_inertia(case):
    """CalcJacobianPositionVector (∂p/∂q, quaternion entries included) and CalcSpatialInertia
    of a random body set about a random frame equal Drake's."""
    pj, pd, states, rng = case
    q, v = states[1]
    cj, cd = _contexts(pj, pd, q, v)
    pts = rng.normal(size=(3, 2))
    for (fF, dF), (fA, dA), (fE, dE) in zip(*[_frame_pairs(pj, pd, rng, 2)] * 3):
        _close(pj.CalcJacobianPositionVector(cj, fF, jnp.asarray(pts), fA, fE),
               pd.CalcJacobianPositionVector(cd, dF, pts, dA, dE))
    (fF, dF), = _frame_pairs(pj, pd, rng, 1)
    names = [b.name() for b in pj._bodies[1:]]
    chosen = rng.choice(names, size=5, replace=False)
    Mj = pj.CalcSpatialInertia(cj, fF, [pj.GetBodyByName(n).index() for n in chosen])
    Md = pd.CalcSpatialInertia(cd, dF, [pd.GetBodyByName(n).index() for n in chosen])
    _close(Mj.CopyToFullMatrix6(), Md.CopyToFullMatrix6())
    _close(pj.CalcSpatialInertia(cj, fF, []).CopyToFullMatrix6(), np.zeros((6, 6)))


def test_under_jit_matches_eager(case):
    """The same Jacobian through jit equals the eager result (and hence Drake's)."""
    pj, _, states, _ = case
    q, v = states[0]
    cj = pj.SetVelocities(pj.SetPositions(pj.CreateDefaultContext(), jnp.asarray(q)),
                          jnp.asarray(v))
    B = pj._frames[-1]
    W = pj.world_frame()

    def J(c):
        return pj.CalcJacobianSpatialVelocity(c, jb.JacobianWrtVariable.kV, B, jnp.ones(3), W, W)

    _close(jax.jit(J)(cj), J(cj), 1e-13)
