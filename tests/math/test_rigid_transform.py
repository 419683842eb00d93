"""RigidTransform: constructors, composition identities, batching, gradients, pydrake."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from jaxbody.math import RigidTransform, RollPitchYaw, RotationMatrix

TOL = 1e-12
GRAD_TOL = 1e-6


def random_pose(rng, n=None):
    shape = (3,) if n is None else (n, 3)
    rpy = rng.uniform(-1.5, 1.5, shape)
    return RigidTransform(RollPitchYaw(rpy=rpy), rng.normal(size=shape))


# ------------------------------------------------------------------ constructors
def test_constructor_forms():
    rpy = RollPitchYaw(0.1, -0.2, 0.3)
    R = rpy.ToRotationMatrix()
    p = jnp.array([1.0, 2.0, 3.0])
    ref = RigidTransform(R=R, p=p)
    M4 = ref.GetAsMatrix4()
    for X in (RigidTransform(R, p), RigidTransform(rpy, p), RigidTransform(R.matrix(), p),
              RigidTransform(R.ToQuaternion(), p), RigidTransform(rpy=rpy, p=p),
              RigidTransform(quaternion=R.ToQuaternion(), p=p), RigidTransform(M4),
              RigidTransform(ref.GetAsMatrix34()), RigidTransform(pose=M4), RigidTransform(ref)):
        np.testing.assert_allclose(X.GetAsMatrix4(), M4, atol=TOL)
    np.testing.assert_allclose(M4[3], [0, 0, 0, 1], atol=0)
    np.testing.assert_allclose(RigidTransform().GetAsMatrix4(), np.eye(4), atol=0)
    np.testing.assert_allclose(RigidTransform.Identity().GetAsMatrix4(), np.eye(4), atol=0)
    only_p = RigidTransform(p=p)
    np.testing.assert_allclose(only_p.rotation().matrix(), np.eye(3), atol=0)
    np.testing.assert_allclose(RigidTransform(p).translation(), p, atol=0)
    only_R = RigidTransform(R)
    np.testing.assert_allclose(only_R.translation(), np.zeros(3), atol=0)
    np.testing.assert_allclose(only_R.rotation().matrix(), R.matrix(), atol=0)


def test_immutable_setters_return_new_objects():
    X = RigidTransform(p=jnp.array([1.0, 2.0, 3.0]))
    R = RotationMatrix.MakeXRotation(0.4)
    for Y in (X.set_rotation(R), X.with_rotation(R)):
        np.testing.assert_allclose(Y.rotation().matrix(), R.matrix(), atol=0)
        np.testing.assert_allclose(Y.translation(), X.translation(), atol=0)
    for Y in (X.set_translation(jnp.zeros(3)), X.with_translation(jnp.zeros(3))):
        np.testing.assert_allclose(Y.translation(), np.zeros(3), atol=0)
    np.testing.assert_allclose(X.translation(), [1, 2, 3], atol=0)  # unchanged
    with pytest.raises(AttributeError):
        X._p = jnp.zeros(3)


# ------------------------------------------------------------------ identities
def test_composition_identities():
    rng = np.random.default_rng(0)
    X_AB, X_BC, X_AC = random_pose(rng), random_pose(rng), random_pose(rng)
    np.testing.assert_allclose((X_AB @ X_AB.inverse()).GetAsMatrix4(), np.eye(4), atol=TOL)
    np.testing.assert_allclose((X_AB @ X_BC).GetAsMatrix4(),
                               X_AB.GetAsMatrix4() @ X_BC.GetAsMatrix4(), atol=TOL)
    np.testing.assert_allclose(X_AB.InvertAndCompose(X_AC).GetAsMatrix4(),
                               np.linalg.inv(X_AB.GetAsMatrix4()) @ X_AC.GetAsMatrix4(), atol=TOL)
    p_BQ = rng.normal(size=3)
    np.testing.assert_allclose(X_AB @ p_BQ, (X_AB.GetAsMatrix4() @ np.append(p_BQ, 1))[:3],
                               atol=TOL)
    np.testing.assert_allclose(X_AB.inverse() @ (X_AB @ p_BQ), p_BQ, atol=TOL)
    cols = rng.normal(size=(3, 4))
    np.testing.assert_allclose(X_AB.multiply(cols), X_AB.GetAsMatrix34() @ np.vstack(
        [cols, np.ones((1, 4))]), atol=TOL)


def test_batched_poses_broadcast():
    rng = np.random.default_rng(1)
    X = random_pose(rng, 5)
    assert X.rotation().matrix().shape == (5, 3, 3) and X.translation().shape == (5, 3)
    Xmixed = RigidTransform(R=RotationMatrix.MakeZRotation(0.2), p=rng.normal(size=(5, 3)))
    assert Xmixed.rotation().matrix().shape == (5, 3, 3)
    pts = rng.normal(size=(5, 3))
    expected = np.einsum("nij,nj->ni", X.rotation().matrix(), pts) + X.translation()
    np.testing.assert_allclose(X @ pts, expected, atol=TOL)
    np.testing.assert_allclose((X @ X.inverse()).GetAsMatrix4(),
                               np.broadcast_to(np.eye(4), (5, 4, 4)), atol=TOL)
    single = random_pose(rng)
    assert (single @ X).translation().shape == (5, 3)


def test_vmap_equals_loop_and_jit():
    rng = np.random.default_rng(2)
    X = random_pose(rng, 4)
    Y = random_pose(rng, 4)

    def f(X, Y):
        return X.InvertAndCompose(Y).GetAsMatrix4()

    batched = jax.vmap(f)(X, Y)
    loop = np.stack([f(jax.tree.map(lambda a, i=i: a[i], X), jax.tree.map(lambda a, i=i: a[i], Y))
                     for i in range(4)])
    np.testing.assert_allclose(batched, loop, atol=TOL)
    out = jax.jit(lambda X: X.inverse())(X)
    assert isinstance(out, RigidTransform)
    np.testing.assert_allclose(out.GetAsMatrix4(), X.inverse().GetAsMatrix4(), atol=TOL)


def test_float32_is_preserved():
    p = jnp.ones(3, jnp.float32)
    X = RigidTransform(p=p)
    assert X.rotation().matrix().dtype == jnp.float32
    assert (X @ X).GetAsMatrix4().dtype == jnp.float32
    assert (X @ p).dtype == jnp.float32


# ------------------------------------------------------------------ gradients
def test_gradients():
    p_BQ = jnp.array([0.2, -0.1, 0.4])

    def f(x):
        X = RigidTransform(RollPitchYaw(x[:3]), x[3:])
        return X.inverse() @ (X @ X @ p_BQ)

    x0 = jnp.array([0.3, -0.2, 0.5, 1.0, 2.0, 3.0])
    check_grads(jax.jit(f), (x0,), order=1, modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)
    g = jax.grad(lambda x: jnp.sum(f(x)))(jnp.zeros(6))
    assert np.all(np.isfinite(g))


# ------------------------------------------------------------------ errors
def test_errors():
    R, p = RotationMatrix(), jnp.zeros(3)
    with pytest.raises(ValueError, match="ambiguous"):
        RigidTransform(jnp.eye(3))
    with pytest.raises(ValueError, match="needs p"):
        RigidTransform(jnp.ones(5))
    with pytest.raises(ValueError, match="pose"):
        RigidTransform(pose=jnp.ones((2, 4)))
    with pytest.raises(ValueError, match="RotationMatrix, RollPitchYaw"):
        RigidTransform(R=jnp.ones(5), p=p)
    with pytest.raises(ValueError, match="p must have shape"):
        RigidTransform(R=R, p=jnp.ones(4))
    with pytest.raises(TypeError, match="incompatible"):
        RigidTransform(R, p, p)
    with pytest.raises(TypeError, match="incompatible"):
        RigidTransform(R=R, rpy=RollPitchYaw(0.0, 0.0, 0.0))
    with pytest.raises(TypeError, match="both by position"):
        RigidTransform(R, p, p=p)
    with pytest.raises(ValueError, match=r"\(3, n\)"):
        RigidTransform().multiply(jnp.ones((4, 2)))
    with pytest.raises(TypeError):
        RigidTransform() @ object()


# ------------------------------------------------------------------ pydrake
def test_matches_pydrake():
    pytest.importorskip("pydrake")
    from pydrake.math import RigidTransform as DrakeX
    from pydrake.math import RollPitchYaw as DrakeRpy

    rng = np.random.default_rng(3)
    for _ in range(10):
        rpy1, rpy2 = rng.uniform(-3, 3, 3), rng.uniform(-3, 3, 3)
        p1, p2, q = rng.normal(size=3), rng.normal(size=3), rng.normal(size=(3, 4))
        d1, d2 = DrakeX(DrakeRpy(rpy1), p1), DrakeX(DrakeRpy(rpy2), p2)
        X1, X2 = RigidTransform(RollPitchYaw(rpy1), p1), RigidTransform(RollPitchYaw(rpy2), p2)
        np.testing.assert_allclose(X1.GetAsMatrix4(), d1.GetAsMatrix4(), atol=TOL)
        np.testing.assert_allclose(X1.GetAsMatrix34(), d1.GetAsMatrix34(), atol=TOL)
        np.testing.assert_allclose((X1 @ X2).GetAsMatrix4(), (d1 @ d2).GetAsMatrix4(), atol=TOL)
        np.testing.assert_allclose(X1.inverse().GetAsMatrix4(), d1.inverse().GetAsMatrix4(),
                                   atol=TOL)
        np.testing.assert_allclose(X1.InvertAndCompose(X2).GetAsMatrix4(),
                                   d1.InvertAndCompose(d2).GetAsMatrix4(), atol=TOL)
        np.testing.assert_allclose(X1 @ q, d1 @ q, atol=TOL)
        np.testing.assert_allclose(X1 @ q[:, 0], d1 @ q[:, 0], atol=TOL)
        np.testing.assert_allclose(RigidTransform(d1.GetAsMatrix4()).GetAsMatrix4(),
                                   DrakeX(d1.GetAsMatrix4()).GetAsMatrix4(), atol=TOL)
