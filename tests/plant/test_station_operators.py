"""Simbody's station and mass-center operators (`plant/_station_api.py`).

Against pydrake on random trees (locations, velocities and accelerations of stations measured in
another body, spatial inertia about another body's station: 1e-10); identities (round trips of
the inverse operators, the bodies' momenta summing to the plant's); the distance's first and
second time derivatives equal autodiff of the distance along the motion; vmap and gradients.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxbody as jb
from tests.helpers import random_trees as rt

TOL = 1e-10


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(77)
    spec = rt.random_tree(rng, 6, kinds=("revolute", "prismatic", "ball_rpy", "universal"),
                          free_fraction=0.0)
    spec.actuated = []
    plant = rt.build_jaxbody(spec)
    q, v = rt.random_state(rng, plant)
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), jnp.asarray(q)),
                              jnp.asarray(v))
    return spec, plant, ctx, q, v, rng


def _bodies(plant, i, j):
    return plant.get_body(jb.BodyIndex(i)), plant.get_body(jb.BodyIndex(j))


def test_against_pydrake(case):
    pytest.importorskip("pydrake")
    spec, plant, ctx, q, v, rng = case
    d = rt.build_drake(spec)
    dctx = d.CreateDefaultContext()
    d.SetPositions(dctx, q)
    d.SetVelocities(dctx, v)
    for i, j in ((3, 5), (6, 1), (2, 0)):
        B, A = _bodies(plant, i, j)
        dB = d.GetBodyByName(B.name()) if i else d.world_body()
        dA = d.GetBodyByName(A.name()) if j else d.world_body()
        p_BS = rng.normal(size=3)
        fB, fA = dB.body_frame(), dA.body_frame()
        want_p = d.CalcPointsPositions(dctx, fB, p_BS, fA)[:, 0]
        np.testing.assert_allclose(plant.CalcStationLocationInBody(ctx, B, p_BS, A), want_p,
                                   atol=TOL)
        np.testing.assert_allclose(plant.CalcStationLocationInWorld(ctx, B, p_BS),
                                   d.CalcPointsPositions(dctx, fB, p_BS, d.world_frame())[:, 0],
                                   atol=TOL)
        R_AB = fB.CalcRotationMatrix(dctx, fA).matrix()
        V = fB.CalcSpatialVelocity(dctx, fA, fA)
        np.testing.assert_allclose(plant.CalcStationVelocityInBody(ctx, B, p_BS, A),
                                   V.Shift(R_AB @ p_BS).translational(), atol=TOL)
        Acc = fB.CalcSpatialAcceleration(dctx, fA, fA)
        want_a = Acc.Shift(R_AB @ p_BS, V.rotational()).translational()
        np.testing.assert_allclose(plant.CalcStationAccelerationInBody(ctx, B, p_BS, A), want_a,
                                   atol=TOL * max(1.0, np.abs(want_a).max()))
        # spatial inertia of B about station S of A, in A
        p_AS = rng.normal(size=3)
        M = d.CalcSpatialInertia(dctx, fA, [dB.index()]) if i else None
        if M is not None:
            want = M.Shift(p_AS).CopyToFullMatrix6()
            got = plant.CalcBodySpatialInertiaAboutBodyStation(ctx, B, A, p_AS)
            np.testing.assert_allclose(got.CopyToFullMatrix6(), want, atol=TOL)


def test_inverse_operators_round_trip(case):
    _, plant, ctx, _, _, rng = case
    B, A = _bodies(plant, 4, 2)
    p_BS = rng.normal(size=3)
    p_W = plant.CalcStationLocationInWorld(ctx, B, p_BS)
    np.testing.assert_allclose(plant.CalcStationAtWorldPoint(ctx, B, p_W), p_BS, atol=1e-12)
    p_AS = plant.CalcStationLocationInBody(ctx, B, p_BS, A)
    np.testing.assert_allclose(plant.CalcStationAtBodyStation(ctx, B, A, p_AS), p_BS, atol=1e-12)
    com = B.CalcCenterOfMassInBodyFrame(ctx)
    np.testing.assert_allclose(plant.CalcMassCenterLocationInBody(ctx, B, A),
                               plant.CalcStationLocationInBody(ctx, B, com, A), atol=0)


def test_body_momenta_sum_to_the_plants(case):
    _, plant, ctx, _, _, _ = case
    p_WP = jnp.asarray([0.3, -0.2, 0.5])
    total = np.zeros(6)
    for b in range(1, plant.num_bodies()):
        body = plant.get_body(jb.BodyIndex(b))
        L = plant.CalcBodySpatialMomentumAboutMassCenterInWorld(ctx, body)
        p_WBcm = plant.CalcStationLocationInWorld(ctx, body, body.CalcCenterOfMassInBodyFrame(ctx))
        total += np.asarray(L.Shift(p_WP - p_WBcm).get_coeffs())
    want = plant.CalcSpatialMomentumInWorldAboutPoint(ctx, p_WP).get_coeffs()
    np.testing.assert_allclose(total, want, atol=1e-10)


def test_distance_derivatives_equal_autodiff_along_the_motion(case):
    _, plant, ctx, q, v, rng = case
    B, A = _bodies(plant, 5, 3)
    p_BS, p_AQ = rng.normal(size=(2, 3))
    vdot = jnp.asarray(rng.normal(size=plant.num_velocities()))

    def dist(q):
        return plant.CalcStationToStationDistance(plant.SetPositions(ctx, q), B, p_BS, A, p_AQ)

    def qdot(q, v):
        return plant.MapVelocityToQDot(plant.SetPositions(ctx, q), v)

    def rate(q, v):
        return jax.jvp(dist, (q,), (qdot(q, v),))[1]

    q, v = jnp.asarray(q), jnp.asarray(v)
    np.testing.assert_allclose(plant.CalcStationToStationDistanceTimeDerivative(
        ctx, B, p_BS, A, p_AQ), rate(q, v), atol=1e-12)
    want = jax.jvp(rate, (q, v), (qdot(q, v), vdot))[1]
    got = plant.CalcStationToStationDistanceSecondTimeDerivative(ctx, B, p_BS, A, p_AQ, vdot)
    np.testing.assert_allclose(got, want, atol=1e-10)
    # coincident stations (the same station twice): 0, 0, 0, and no NaN in the gradient
    for f in (plant.CalcStationToStationDistance,
              plant.CalcStationToStationDistanceTimeDerivative):
        assert float(f(ctx, B, p_BS, B, p_BS)) == 0.0
    assert float(plant.CalcStationToStationDistanceSecondTimeDerivative(
        ctx, B, p_BS, B, p_BS, vdot)) == 0.0
    g = jax.grad(lambda q: plant.CalcStationToStationDistanceTimeDerivative(
        plant.SetPositions(ctx, q), B, p_BS, B, p_BS))(q)
    assert np.all(np.isfinite(g))


def test_station_acceleration_defaults_to_forward_dynamics(case):
    _, plant, ctx, _, _, rng = case
    B = plant.get_body(jb.BodyIndex(4))
    p = rng.normal(size=3)
    vdot = plant.CalcGeneralizedAccelerations(ctx)
    np.testing.assert_allclose(plant.CalcStationAccelerationInWorld(ctx, B, p),
                               plant.CalcStationAccelerationInWorld(ctx, B, p, vdot), atol=1e-12)
    with pytest.raises(ValueError, match="CalcStationVelocityInWorld: station"):
        plant.CalcStationVelocityInWorld(ctx, B, [1.0, 2.0])


def test_vmap_and_gradients(case):
    _, plant, ctx, _, _, rng = case
    B, A = _bodies(plant, 6, 2)
    p_BS, p_AQ = rng.normal(size=(2, 3))
    qs = jnp.asarray(rng.normal(size=(4, plant.num_positions())))

    def f(q):
        c = plant.SetPositions(ctx, q)
        return plant.CalcStationToStationDistanceSecondTimeDerivative(c, B, p_BS, A, p_AQ)

    batched = jax.jit(jax.vmap(f))(qs)
    np.testing.assert_allclose(batched, [f(q) for q in qs], atol=1e-11)
    check_grads(jax.jit(f), (qs[0],), order=1, modes=["fwd", "rev"], eps=1e-6)
