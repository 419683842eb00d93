"""RotationMatrix and RollPitchYaw: closed forms, identities, transforms, gradients, pydrake."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from jaxbody.math import RollPitchYaw, RotationMatrix

TOL = 1e-12  # float64 agreement
GIMBAL_TOL = 1e-9  # rotation-matrix agreement for angles recovered near gimbal lock
F32_TOL = 1e-5
GRAD_TOL = 1e-6
HALF_PI = np.pi / 2


def random_rpy(rng, n=None):
    shape = (3,) if n is None else (n, 3)
    rpy = rng.uniform(-np.pi, np.pi, shape)
    rpy[..., 1] = rng.uniform(-HALF_PI, HALF_PI, shape[:-1])
    return rpy


def random_unit(rng, n=None):
    v = rng.normal(size=(3,) if n is None else (n, 3))
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


# ------------------------------------------------------------------ closed form
def test_elementary_rotations_closed_form():
    R = RotationMatrix.MakeZRotation(HALF_PI)
    np.testing.assert_allclose(R @ jnp.array([1.0, 0.0, 0.0]), [0, 1, 0], atol=TOL)
    np.testing.assert_allclose(RotationMatrix.MakeXRotation(HALF_PI) @ jnp.array([0.0, 1, 0]),
                               [0, 0, 1], atol=TOL)
    np.testing.assert_allclose(RotationMatrix.MakeYRotation(HALF_PI) @ jnp.array([0.0, 0, 1]),
                               [1, 0, 0], atol=TOL)
    np.testing.assert_allclose(RotationMatrix().matrix(), np.eye(3), atol=0)
    np.testing.assert_allclose(RotationMatrix.Identity().matrix(), np.eye(3), atol=0)


def test_rpy_is_space_fixed_xyz():
    r, p, y = 0.3, -0.7, 1.9
    expected = (RotationMatrix.MakeZRotation(y) @ RotationMatrix.MakeYRotation(p)
                @ RotationMatrix.MakeXRotation(r))
    for R in (RotationMatrix(RollPitchYaw(r, p, y)), RollPitchYaw([r, p, y]).ToRotationMatrix()):
        np.testing.assert_allclose(R.matrix(), expected.matrix(), atol=TOL)


def test_constructor_forms_agree():
    rpy = RollPitchYaw(0.1, 0.2, 0.3)
    R = rpy.ToRotationMatrix()
    q = rpy.ToQuaternion()
    for other in (RotationMatrix(R), RotationMatrix(R.matrix()), RotationMatrix(q),
                  RotationMatrix(2.0 * q), RotationMatrix.FromQuaternion(q),
                  RotationMatrix.FromAngleAxis(*_angle_axis(R))):
        np.testing.assert_allclose(other.matrix(), R.matrix(), atol=TOL)
    for other in (RollPitchYaw(rpy), RollPitchYaw(R), RollPitchYaw(R.matrix()), RollPitchYaw(q),
                  RollPitchYaw(rpy=rpy.vector()), RollPitchYaw(roll=0.1, pitch=0.2, yaw=0.3),
                  RollPitchYaw(R=R), R.ToRollPitchYaw()):
        np.testing.assert_allclose(other.vector(), rpy.vector(), atol=TOL)
    assert float(rpy.roll_angle()) == 0.1 and float(rpy.yaw_angle()) == 0.3
    assert float(rpy.pitch_angle()) == 0.2


def _angle_axis(R):
    q = np.asarray(R.ToQuaternion())
    angle = 2 * np.arctan2(np.linalg.norm(q[1:]), q[0])
    return angle, 5.0 * q[1:]  # non-unit axis is normalized


# ------------------------------------------------------------------ identities
def test_orthonormal_inverse_compose():
    rng = np.random.default_rng(0)
    R_AB = RollPitchYaw(random_rpy(rng)).ToRotationMatrix()
    R_AC = RollPitchYaw(random_rpy(rng)).ToRotationMatrix()
    np.testing.assert_allclose((R_AB @ R_AB.transpose()).matrix(), np.eye(3), atol=TOL)
    np.testing.assert_allclose((R_AB.inverse() @ R_AB).matrix(), np.eye(3), atol=TOL)
    np.testing.assert_allclose(R_AB.InvertAndCompose(R_AC).matrix(),
                               (R_AB.inverse() @ R_AC).matrix(), atol=TOL)
    np.testing.assert_allclose(R_AB.col(1), R_AB.matrix()[:, 1], atol=0)
    np.testing.assert_allclose(R_AB.row(2), R_AB.matrix()[2], atol=0)


@pytest.mark.parametrize("pitch", [0.4, HALF_PI - 1e-7, -HALF_PI + 1e-7, HALF_PI, -HALF_PI])
def test_rpy_round_trip_including_gimbal_lock(pitch):
    rng = np.random.default_rng(1)
    for _ in range(5):
        rpy = random_rpy(rng)
        rpy[1] = pitch
        R = RollPitchYaw(rpy).ToRotationMatrix()
        back = RollPitchYaw(R)
        np.testing.assert_allclose(back.ToRotationMatrix().matrix(), R.matrix(), atol=GIMBAL_TOL)
        if abs(abs(pitch) - HALF_PI) > 1e-3:
            np.testing.assert_allclose(back.vector(), rpy, atol=TOL)


@pytest.mark.parametrize("angle", [0.0, 1.0, np.pi - 1e-9, np.pi])
def test_quaternion_round_trip_including_half_turn(angle):
    rng = np.random.default_rng(2)
    for axis in [*random_unit(rng, 4), np.eye(3)[0], np.eye(3)[1], np.eye(3)[2]]:
        R = RotationMatrix.FromAngleAxis(angle, axis)
        q = R.ToQuaternion()
        assert float(q[0]) >= 0.0
        np.testing.assert_allclose(jnp.linalg.norm(q), 1.0, atol=TOL)
        np.testing.assert_allclose(RotationMatrix(q).matrix(), R.matrix(), atol=TOL)
        np.testing.assert_allclose(RollPitchYaw(q).ToRotationMatrix().matrix(), R.matrix(),
                                   atol=GIMBAL_TOL)


def test_rpy_quaternion_matches_rotation():
    rng = np.random.default_rng(3)
    for _ in range(5):
        rpy = RollPitchYaw(random_rpy(rng))
        np.testing.assert_allclose(RotationMatrix(rpy.ToQuaternion()).matrix(),
                                   rpy.ToRotationMatrix().matrix(), atol=TOL)


def test_project_to_rotation_matrix():
    rng = np.random.default_rng(4)
    R = RollPitchYaw(random_rpy(rng)).ToRotationMatrix().matrix()
    M = R + 1e-4 * rng.normal(size=(3, 3))
    P = RotationMatrix.ProjectToRotationMatrix(M).matrix()
    np.testing.assert_allclose(P @ P.T, np.eye(3), atol=TOL)
    assert np.linalg.norm(P - R) < 1e-3
    with pytest.raises(ValueError, match="det"):
        RotationMatrix.ProjectToRotationMatrix(np.diag([1.0, 1.0, -1.0]))


# ------------------------------------------------------------------ vectors and batches
def test_multiply_vector_shapes():
    rng = np.random.default_rng(5)
    R = RollPitchYaw(random_rpy(rng)).ToRotationMatrix()
    cols = rng.normal(size=(3, 4))
    np.testing.assert_allclose(R.multiply(cols), R.matrix() @ cols, atol=TOL)
    np.testing.assert_allclose(R @ cols[:, 0], R.matrix() @ cols[:, 0], atol=TOL)
    Rb = RollPitchYaw(random_rpy(rng, 4)).ToRotationMatrix()
    vb = rng.normal(size=(4, 3))
    np.testing.assert_allclose(Rb @ vb, np.einsum("nij,nj->ni", Rb.matrix(), vb), atol=TOL)
    np.testing.assert_allclose(Rb @ vb[0], np.einsum("nij,j->ni", Rb.matrix(), vb[0]), atol=TOL)


def test_vmap_equals_loop_and_jit():
    rng = np.random.default_rng(6)
    rpys = random_rpy(rng, 6)

    def f(rpy):
        R = RollPitchYaw(rpy).ToRotationMatrix()
        return RollPitchYaw(R @ R).vector(), R.ToQuaternion()

    batched = jax.vmap(f)(jnp.asarray(rpys))
    looped = [f(jnp.asarray(r)) for r in rpys]
    for k in range(2):
        np.testing.assert_allclose(batched[k], np.stack([lp[k] for lp in looped]), atol=TOL)
    R = RollPitchYaw(rpys).ToRotationMatrix()  # batch in one object
    out = jax.jit(lambda R: R.inverse() @ R)(R)
    assert isinstance(out, RotationMatrix)
    np.testing.assert_allclose(out.matrix(), np.broadcast_to(np.eye(3), (6, 3, 3)), atol=TOL)
    rolled = jax.vmap(lambda R: R.ToRollPitchYaw())(R)
    np.testing.assert_allclose(rolled.vector(), rpys, atol=TOL)


def test_float32_is_preserved():
    rpy = RollPitchYaw(jnp.array([0.1, 0.2, 0.3], dtype=jnp.float32))
    R = rpy.ToRotationMatrix()
    assert R.matrix().dtype == jnp.float32
    assert (R @ jnp.ones(3, jnp.float32)).dtype == jnp.float32
    back = RollPitchYaw(R).vector()
    assert back.dtype == jnp.float32
    np.testing.assert_allclose(back, [0.1, 0.2, 0.3], atol=F32_TOL)
    assert R.ToQuaternion().dtype == jnp.float32


# ------------------------------------------------------------------ angular-velocity maps
def test_rate_maps_invert_and_match_rotation_derivative():
    rng = np.random.default_rng(7)
    rpy = RollPitchYaw(random_rpy(rng))
    rpyDt = rng.normal(size=3)
    w_A = rpy.CalcAngularVelocityInParentFromRpyDt(rpyDt)
    w_D = rpy.CalcAngularVelocityInChildFromRpyDt(rpyDt)
    np.testing.assert_allclose(rpy.CalcRpyDtFromAngularVelocityInParent(w_A), rpyDt, atol=TOL)
    np.testing.assert_allclose(rpy.CalcRpyDtFromAngularVelocityInChild(w_D), rpyDt, atol=TOL)
    R = rpy.ToRotationMatrix().matrix()
    np.testing.assert_allclose(R.T @ w_A, w_D, atol=TOL)
    # [w]x = Rdot R^T with Rdot from forward-mode differentiation.
    Rdot = jax.jvp(lambda v: RollPitchYaw(v).ToRotationMatrix().matrix(),
                   (rpy.vector(),), (jnp.asarray(rpyDt),))[1]
    W = Rdot @ R.T
    np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], w_A, atol=TOL)


def test_rate_map_raises_near_gimbal_lock():
    rpy = RollPitchYaw(0.1, HALF_PI - 1e-3, 0.2)
    with pytest.raises(ValueError, match="gimbal"):
        rpy.CalcRpyDtFromAngularVelocityInParent(jnp.ones(3))
    with pytest.raises(ValueError, match="gimbal"):
        rpy.CalcRpyDtFromAngularVelocityInChild(jnp.ones(3))
    traced = jax.jit(lambda r: RollPitchYaw(r).CalcRpyDtFromAngularVelocityInParent(jnp.ones(3)))
    assert traced(rpy.vector()).shape == (3,)  # no check under tracing


# ------------------------------------------------------------------ gradients
def test_gradients_finite_at_identity_and_half_turn():
    def f(rpy):
        R = RollPitchYaw(rpy).ToRotationMatrix()
        return jnp.sum(RollPitchYaw(R).vector()) + jnp.sum(R.ToQuaternion())

    for rpy in (jnp.zeros(3), jnp.array([np.pi, 0.0, 0.0]), jnp.array([0.0, 0.0, np.pi])):
        g = jax.grad(f)(rpy)
        assert np.all(np.isfinite(g))
    g = jax.grad(lambda a: jnp.sum(RotationMatrix.FromAngleAxis(a[0], a[1:]).matrix()))(
        jnp.array([0.0, 1.0, 0.0, 0.0]))
    assert np.all(np.isfinite(g))


def test_check_grads_representative():
    v = jnp.array([0.3, -0.2, 0.9])
    rpy0 = jnp.array([0.3, -0.4, 1.1])
    check_grads(jax.jit(lambda r: RollPitchYaw(r).ToRotationMatrix() @ v), (rpy0,), order=1,
                modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)
    R0 = RollPitchYaw(rpy0).ToRotationMatrix().matrix()
    check_grads(jax.jit(lambda R: RollPitchYaw(R).vector()), (R0,), order=1, modes=("fwd", "rev"),
                atol=GRAD_TOL, rtol=GRAD_TOL)
    check_grads(jax.jit(lambda r: RollPitchYaw(r).CalcRpyDtFromAngularVelocityInParent(v)), (rpy0,),
                order=1, modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)


# ------------------------------------------------------------------ errors
def test_errors():
    with pytest.raises(ValueError, match="shape"):
        RotationMatrix(jnp.ones(5))
    with pytest.raises(ValueError, match="quaternion"):
        RotationMatrix.FromQuaternion(jnp.ones(3))
    with pytest.raises(ValueError, match="index"):
        RotationMatrix().col(3)
    with pytest.raises(ValueError, match="index"):
        RotationMatrix().row(-1)
    with pytest.raises(ValueError, match=r"\(3, n\)"):
        RotationMatrix().multiply(jnp.ones((4, 2)))
    with pytest.raises(ValueError, match="v_B"):
        RotationMatrix().multiply(jnp.ones(4))
    with pytest.raises(TypeError):
        RotationMatrix() @ "not a vector"
    with pytest.raises(AttributeError, match="immutable"):
        RotationMatrix()._R = jnp.eye(3)
    with pytest.raises(ValueError, match="RollPitchYaw needs"):
        RollPitchYaw(jnp.ones(5))
    with pytest.raises(TypeError, match="1 or 3"):
        RollPitchYaw(1.0, 2.0)
    with pytest.raises(TypeError, match="unsupported"):
        RollPitchYaw(0.1, roll=1.0)
    with pytest.raises(TypeError, match="unsupported"):
        RollPitchYaw(angles=jnp.zeros(3))


# ------------------------------------------------------------------ pydrake
def test_matches_pydrake():
    pytest.importorskip("pydrake")
    from pydrake.math import RollPitchYaw as DrakeRpy
    from pydrake.math import RotationMatrix as DrakeR

    rng = np.random.default_rng(8)
    rpys = list(random_rpy(rng, 20)) + [np.array([0.3, HALF_PI, 0.2]),
                                        np.array([0.3, -HALF_PI, -0.2]), np.zeros(3),
                                        np.array([np.pi, 0.0, 0.0])]
    for rpy in rpys:
        d_rpy = DrakeRpy(rpy)
        d_R = DrakeR(d_rpy)
        R = RotationMatrix(RollPitchYaw(rpy))
        np.testing.assert_allclose(R.matrix(), d_R.matrix(), atol=TOL)
        np.testing.assert_allclose(R.ToQuaternion(), d_R.ToQuaternion().wxyz(), atol=TOL)
        np.testing.assert_allclose(RollPitchYaw(rpy).ToQuaternion(), d_rpy.ToQuaternion().wxyz(),
                                   atol=TOL)
        # Including Drake's roll/yaw split at exact gimbal lock.
        np.testing.assert_allclose(RollPitchYaw(R).vector(), DrakeRpy(d_R).vector(), atol=TOL)
        if abs(np.cos(rpy[1])) > 0.01:
            w = rng.normal(size=3)
            for ours, theirs in [("CalcAngularVelocityInParentFromRpyDt",) * 2,
                                 ("CalcRpyDtFromAngularVelocityInParent",) * 2,
                                 ("CalcAngularVelocityInChildFromRpyDt",) * 2,
                                 ("CalcRpyDtFromAngularVelocityInChild",) * 2]:
                np.testing.assert_allclose(getattr(RollPitchYaw(rpy), ours)(w),
                                           getattr(d_rpy, theirs)(w), atol=TOL)
    rot = RollPitchYaw(rpys[0]).ToRotationMatrix()
    cols = rng.normal(size=(3, 5))
    np.testing.assert_allclose(rot @ cols, DrakeR(rot.matrix()) @ cols, atol=TOL)


def test_float32_gradient_finite_at_identity():
    g = jax.grad(lambda R: jnp.sum(RotationMatrix(R).ToQuaternion()))(jnp.eye(3, dtype=jnp.float32))
    assert np.all(np.isfinite(g))
