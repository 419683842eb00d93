"""Spatial vectors: closed forms, shift/power identities, batching, gradients, pydrake."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from jaxbody.math import (
    RollPitchYaw,
    RotationMatrix,
    SpatialAcceleration,
    SpatialForce,
    SpatialMomentum,
    SpatialVelocity,
    rotate,
)

TOL = 1e-12
GRAD_TOL = 1e-6
CLASSES = (SpatialVelocity, SpatialAcceleration, SpatialForce, SpatialMomentum)


def rand_vec(rng, cls, *batch):
    return cls(rng.normal(size=batch + (3,)), rng.normal(size=batch + (3,)))


# ------------------------------------------------------------------ construction and algebra
@pytest.mark.parametrize("cls", CLASSES)
def test_construction_and_linear_algebra(cls):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=3), rng.normal(size=3)
    V = cls(a, b)
    np.testing.assert_allclose(V.rotational(), a, atol=0)
    np.testing.assert_allclose(V.translational(), b, atol=0)
    np.testing.assert_allclose(V.get_coeffs(), np.concatenate([a, b]), atol=0)
    for W in (cls(np.concatenate([a, b])), cls.from_coeffs(np.concatenate([a, b]))):
        np.testing.assert_allclose(W.get_coeffs(), V.get_coeffs(), atol=0)
    name = {"SpatialVelocity": "V", "SpatialAcceleration": "A", "SpatialForce": "F",
            "SpatialMomentum": "L"}[cls.__name__]
    np.testing.assert_allclose(cls(**{name: V.get_coeffs()}).get_coeffs(), V.get_coeffs(), atol=0)
    U = rand_vec(rng, cls)
    np.testing.assert_allclose((V + U).get_coeffs(), V.get_coeffs() + U.get_coeffs(), atol=TOL)
    np.testing.assert_allclose((V - U).get_coeffs(), V.get_coeffs() - U.get_coeffs(), atol=TOL)
    np.testing.assert_allclose((-V).get_coeffs(), -V.get_coeffs(), atol=0)
    np.testing.assert_allclose((2.0 * V).get_coeffs(), 2 * V.get_coeffs(), atol=0)
    np.testing.assert_allclose((V * 3.0).get_coeffs(), 3 * V.get_coeffs(), atol=0)
    np.testing.assert_allclose((np.float64(2.0) * V).get_coeffs(), 2 * V.get_coeffs(), atol=0)
    assert np.all(np.isnan(cls().get_coeffs()))  # pydrake default-constructs to NaN
    np.testing.assert_allclose(cls.Zero().get_coeffs(), np.zeros(6), atol=0)


def test_mixing_types_is_an_error():
    V = SpatialVelocity(np.ones(3), np.ones(3))
    F = SpatialForce(np.ones(3), np.ones(3))
    with pytest.raises(TypeError):
        V + F
    with pytest.raises(TypeError):
        V - F
    with pytest.raises(TypeError):
        V * F
    with pytest.raises(TypeError, match="dot"):
        V.dot(V)
    with pytest.raises(TypeError, match="dot"):
        F.dot(F)
    with pytest.raises(TypeError, match="both"):
        SpatialVelocity(np.ones(3))
    with pytest.raises(TypeError, match=r"\(w, v\) or V"):
        SpatialVelocity(np.ones(3), V=np.ones(6))
    with pytest.raises(ValueError, match="v must have shape"):
        SpatialVelocity(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="R_FE"):
        rotate(np.eye(4), V)
    with pytest.raises(TypeError):
        np.eye(3) @ V
    with pytest.raises(TypeError):
        "R" @ V
    with pytest.raises(AttributeError, match="immutable"):
        V._rot = np.zeros(3)


# ------------------------------------------------------------------ closed form and identities
def test_velocity_shift_closed_form():
    V = SpatialVelocity(jnp.array([0.0, 0.0, 2.0]), jnp.array([1.0, 0.0, 0.0]))
    np.testing.assert_allclose(V.Shift(jnp.array([1.0, 0.0, 0.0])).translational(), [1, 2, 0])
    F = SpatialForce(jnp.zeros(3), jnp.array([0.0, 0.0, -10.0]))
    # A weight at x = 1 seen about the origin: tau_O = p_OQ x f, i.e. Shift(p_QO) with p_QO = -x.
    np.testing.assert_allclose(F.Shift(jnp.array([-1.0, 0.0, 0.0])).rotational(), [0, 10, 0])


def test_shift_twice_and_power_invariance():
    rng = np.random.default_rng(1)
    p1, p2 = rng.normal(size=3), rng.normal(size=3)
    w = rng.normal(size=3)
    for cls in CLASSES:
        X = rand_vec(rng, cls)
        args = (w,) if cls is SpatialAcceleration else ()
        np.testing.assert_allclose(X.Shift(p1, *args).Shift(p2, *args).get_coeffs(),
                                   X.Shift(p1 + p2, *args).get_coeffs(), atol=TOL)
    V, F, L = (rand_vec(rng, c) for c in (SpatialVelocity, SpatialForce, SpatialMomentum))
    # Power and 2 KE do not depend on the point, when both are shifted together.
    np.testing.assert_allclose(V.Shift(p1).dot(F.Shift(p1)), V.dot(F), atol=TOL)
    np.testing.assert_allclose(F.Shift(p1).dot(V.Shift(p1)), F.dot(V), atol=TOL)
    np.testing.assert_allclose(V.Shift(p1).dot(L.Shift(p1)), L.dot(V), atol=TOL)


def test_acceleration_shift_is_derivative_of_velocity_shift():
    """d/dt of V_MC = V_MB.Shift(p_BoCo) with p rotating with B gives A_MB.Shift(p, w)."""
    rng = np.random.default_rng(2)
    w, v, alpha, a = (jnp.asarray(rng.normal(size=3)) for _ in range(4))
    p = jnp.asarray(rng.normal(size=3))

    def v_C(t):
        wt = w + t * alpha
        pt = p + t * jnp.cross(w, p)  # DtM(p) = w x p for p fixed in B
        return SpatialVelocity(wt, v + t * a).Shift(pt).get_coeffs()

    dV = jax.jvp(v_C, (0.0,), (1.0,))[1]
    A_C = SpatialAcceleration(alpha, a).Shift(p, w)
    np.testing.assert_allclose(A_C.get_coeffs(), dV, atol=TOL)


def test_rotate_and_batching():
    rng = np.random.default_rng(3)
    R = RollPitchYaw(rng.normal(size=(4, 3))).ToRotationMatrix()
    V = rand_vec(rng, SpatialVelocity, 4)
    F = rand_vec(rng, SpatialForce, 4)
    for RV in (rotate(R, V), R @ V, V.Rotate(R), rotate(R.matrix(), V)):
        assert isinstance(RV, SpatialVelocity) and RV.get_coeffs().shape == (4, 6)
        np.testing.assert_allclose(RV.translational(),
                                   np.einsum("nij,nj->ni", R.matrix(), V.translational()),
                                   atol=TOL)
    np.testing.assert_allclose((R @ V).dot(R @ F), V.dot(F), atol=TOL)  # frame independent
    assert V.dot(F).shape == (4,)
    scaled = V * jnp.arange(4.0)
    np.testing.assert_allclose(scaled.get_coeffs()[2], 2 * V.get_coeffs()[2], atol=TOL)
    shifted = SpatialVelocity(np.ones(3), np.ones(3)).Shift(rng.normal(size=(4, 3)))
    assert shifted.rotational().shape == (4, 3)


def test_vmap_equals_loop_and_jit():
    rng = np.random.default_rng(4)
    V = rand_vec(rng, SpatialVelocity, 5)
    A = rand_vec(rng, SpatialAcceleration, 5)
    p = jnp.asarray(rng.normal(size=(5, 3)))

    def f(V, A, p):
        return A.ComposeWithMovingFrameAcceleration(p, V.rotational(), V, A).get_coeffs()

    batched = jax.vmap(f)(V, A, p)
    loop = [f(*jax.tree.map(lambda x, i=i: x[i], (V, A, p))) for i in range(5)]
    np.testing.assert_allclose(batched, np.stack(loop), atol=TOL)
    np.testing.assert_allclose(jax.jit(f)(V, A, p), batched, atol=TOL)
    out = jax.jit(lambda V: -V)(V)
    assert isinstance(out, SpatialVelocity)


def test_float32_is_preserved():
    V = SpatialVelocity(jnp.ones(3, jnp.float32), jnp.ones(3, jnp.float32))
    assert V.Shift(jnp.ones(3, jnp.float32)).get_coeffs().dtype == jnp.float32
    assert (2.0 * V).get_coeffs().dtype == jnp.float32


def test_gradients():
    rng = np.random.default_rng(5)
    x0 = jnp.asarray(rng.normal(size=15))

    def f(x):
        V = SpatialVelocity(x[:3], x[3:6])
        A = SpatialAcceleration(x[6:9], x[9:12])
        R = RotationMatrix(RollPitchYaw(x[12:15]))
        return (R @ A.ComposeWithMovingFrameAcceleration(x[:3], x[6:9], V, A)).get_coeffs()

    check_grads(jax.jit(f), (x0,), order=1, modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)
    g = jax.grad(lambda x: jnp.sum(f(x)))(jnp.zeros(15))
    assert np.all(np.isfinite(g))


# ------------------------------------------------------------------ pydrake
def test_matches_pydrake():
    pytest.importorskip("pydrake")
    from pydrake.math import RotationMatrix as DrakeR
    from pydrake.multibody import math as dm

    rng = np.random.default_rng(6)
    drake_cls = {SpatialVelocity: dm.SpatialVelocity, SpatialAcceleration: dm.SpatialAcceleration,
                 SpatialForce: dm.SpatialForce, SpatialMomentum: dm.SpatialMomentum}
    for _ in range(5):
        p, w = rng.normal(size=3), rng.normal(size=3)
        R = RollPitchYaw(rng.uniform(-3, 3, 3)).ToRotationMatrix()
        ours = {c: rand_vec(rng, c) for c in CLASSES}
        theirs = {c: drake_cls[c](ours[c].get_coeffs()) for c in CLASSES}
        for c in CLASSES:
            args = (w,) if c is SpatialAcceleration else ()
            np.testing.assert_allclose(ours[c].Shift(p, *args).get_coeffs(),
                                       theirs[c].Shift(p, *args).get_coeffs(), atol=TOL)
            np.testing.assert_allclose(ours[c].Rotate(R).get_coeffs(),
                                       theirs[c].Rotate(DrakeR(R.matrix())).get_coeffs(), atol=TOL)
        V, A = ours[SpatialVelocity], ours[SpatialAcceleration]
        dV, dA = theirs[SpatialVelocity], theirs[SpatialAcceleration]
        V2, A2 = rand_vec(rng, SpatialVelocity), rand_vec(rng, SpatialAcceleration)
        dV2, dA2 = dm.SpatialVelocity(V2.get_coeffs()), dm.SpatialAcceleration(A2.get_coeffs())
        np.testing.assert_allclose(V.ComposeWithMovingFrameVelocity(p, V2).get_coeffs(),
                                   dV.ComposeWithMovingFrameVelocity(p, dV2).get_coeffs(), atol=TOL)
        np.testing.assert_allclose(
            A.ComposeWithMovingFrameAcceleration(p, w, V2, A2).get_coeffs(),
            dA.ComposeWithMovingFrameAcceleration(p, w, dV2, dA2).get_coeffs(), atol=TOL)
        np.testing.assert_allclose(A.ShiftWithZeroAngularVelocity(p).get_coeffs(),
                                   dA.ShiftWithZeroAngularVelocity(p).get_coeffs(), atol=TOL)
        F, L = ours[SpatialForce], ours[SpatialMomentum]
        np.testing.assert_allclose(V.dot(F), dV.dot(theirs[SpatialForce]), atol=TOL)
        np.testing.assert_allclose(V.dot(L), dV.dot(theirs[SpatialMomentum]), atol=TOL)
        np.testing.assert_allclose(F.dot(V), theirs[SpatialForce].dot(dV), atol=TOL)


def test_motion_cross_matrix_is_the_cross_products():
    """[V×] x = V × x, and −[V×]ᵀ x = V ×* x (the force cross product)."""
    from jaxbody.algorithms.spatial import force_cross, motion_cross, motion_cross_matrix

    rng = np.random.default_rng(4)
    V, x = (jnp.asarray(rng.normal(size=(5, 6))) for _ in range(2))
    X = motion_cross_matrix(V)
    np.testing.assert_allclose(jnp.einsum("nij,nj->ni", X, x), motion_cross(V, x), atol=1e-14)
    np.testing.assert_allclose(-jnp.einsum("nji,nj->ni", X, x), force_cross(V, x), atol=1e-14)
