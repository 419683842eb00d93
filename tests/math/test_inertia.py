"""RotationalInertia, UnitInertia, SpatialInertia: closed forms, identities, validity, pydrake."""

import copy

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from jaxbody.math import (
    RollPitchYaw,
    RotationalInertia,
    SpatialAcceleration,
    SpatialForce,
    SpatialInertia,
    SpatialMomentum,
    SpatialVelocity,
    UnitInertia,
    rotational_inertia_about_com,
    spatial_inertia_matrix,
)

TOL = 1e-12
GRAD_TOL = 1e-6
AXIS = np.array([0.0, 0.6, 0.8])


def random_spatial_inertia(rng, *batch):
    """A valid inertia about a point away from the COM (via a random central inertia)."""
    mass = rng.uniform(0.5, 3.0, batch)
    # A body's central inertia is tr(S) 1 - S for a PSD second-moment matrix S = Q diag Q^T.
    Q = RollPitchYaw(rng.uniform(-3, 3, batch + (3,))).ToRotationMatrix().matrix()
    S = jnp.einsum("...ij,...j,...kj->...ik", Q, rng.uniform(0.1, 1.0, batch + (3,)), Q)
    I_cm = jnp.trace(S, axis1=-2, axis2=-1)[..., None, None] * jnp.eye(3) - S
    return SpatialInertia.MakeFromCentralInertia(mass, rng.normal(size=batch + (3,)), I_cm)


# ------------------------------------------------------------------ closed forms
def test_unit_inertia_closed_forms():
    np.testing.assert_allclose(UnitInertia.SolidBox(1.0, 2.0, 3.0).get_moments(),
                               [13 / 12, 10 / 12, 5 / 12], atol=TOL)
    np.testing.assert_allclose(UnitInertia.SolidSphere(0.5).get_moments(), [0.1] * 3, atol=TOL)
    np.testing.assert_allclose(UnitInertia.SolidEllipsoid(1.0, 2.0, 3.0).get_moments(),
                               [13 / 5, 10 / 5, 5 / 5], atol=TOL)
    cyl = UnitInertia.SolidCylinder(1.0, 2.0, np.array([0.0, 0.0, 1.0]))
    np.testing.assert_allclose(cyl.get_moments(), [7 / 12, 7 / 12, 0.5], atol=TOL)
    G = UnitInertia.PointMass(jnp.array([1.0, 2.0, 3.0])).CopyToFullMatrix3()
    np.testing.assert_allclose(G, [[13, -2, -3], [-2, 10, -6], [-3, -6, 5]], atol=TOL)
    I = RotationalInertia(1.0, 2.0, 3.0, 0.1, 0.2, 0.3)
    np.testing.assert_allclose(I.get_products(), [0.1, 0.2, 0.3], atol=0)
    np.testing.assert_allclose(I.Trace(), 6.0, atol=0)
    np.testing.assert_allclose(I.CalcMaximumPossibleMomentOfInertia(), 3.0, atol=0)
    np.testing.assert_allclose(RotationalInertia(I=I.CopyToFullMatrix3()).get_moments(), [1, 2, 3])
    np.testing.assert_allclose(RotationalInertia(I=I).get_moments(), [1, 2, 3])
    np.testing.assert_allclose(RotationalInertia(2.0, jnp.array([1.0, 0, 0])).get_moments(),
                               [0, 2, 2], atol=0)
    assert bool(RotationalInertia().IsNaN()) and bool(UnitInertia().IsNaN())


def test_spatial_inertia_closed_form_and_products():
    M = SpatialInertia(2.0, jnp.array([0.0, 0.0, 1.0]), UnitInertia(1.5, 1.5, 0.5))
    mat = M.CopyToFullMatrix6()
    np.testing.assert_allclose(mat, mat.T, atol=0)
    np.testing.assert_allclose(mat[3:, 3:], 2 * np.eye(3), atol=0)
    np.testing.assert_allclose(mat[0, 4], -2.0, atol=0)  # m [p]x with p = z
    rng = np.random.default_rng(0)
    V = SpatialVelocity(rng.normal(size=3), rng.normal(size=3))
    A = SpatialAcceleration(rng.normal(size=3), rng.normal(size=3))
    L, F = M * V, M * A
    assert isinstance(L, SpatialMomentum) and isinstance(F, SpatialForce)
    np.testing.assert_allclose(L.get_coeffs(), mat @ V.get_coeffs(), atol=TOL)
    np.testing.assert_allclose(F.get_coeffs(), mat @ A.get_coeffs(), atol=TOL)
    with pytest.raises(TypeError):
        M * 2.0


# ------------------------------------------------------------------ identities
def test_shift_reexpress_and_composite_identities():
    rng = np.random.default_rng(1)
    M = random_spatial_inertia(rng)
    p1, p2 = rng.normal(size=3), rng.normal(size=3)
    np.testing.assert_allclose(M.Shift(p1).Shift(p2).CopyToFullMatrix6(),
                               M.Shift(p1 + p2).CopyToFullMatrix6(), atol=TOL)
    V = SpatialVelocity(rng.normal(size=3), rng.normal(size=3))
    # Kinetic energy does not depend on the about-point.
    np.testing.assert_allclose(V.Shift(p1).dot(M.Shift(p1) * V.Shift(p1)), V.dot(M * V), atol=TOL)
    # The momentum shifts as a force does.
    np.testing.assert_allclose((M.Shift(p1) * V.Shift(p1)).get_coeffs(),
                               (M * V).Shift(p1).get_coeffs(), atol=TOL)
    R = RollPitchYaw(rng.normal(size=3)).ToRotationMatrix()
    np.testing.assert_allclose((R @ (M * V)).get_coeffs(),
                               (M.ReExpress(R) * (R @ V)).get_coeffs(), atol=TOL)
    M2 = random_spatial_inertia(rng)
    np.testing.assert_allclose((M + M2).CopyToFullMatrix6(),
                               M.CopyToFullMatrix6() + M2.CopyToFullMatrix6(), atol=TOL)
    zero = SpatialInertia.Zero()
    np.testing.assert_allclose((zero + zero).CopyToFullMatrix6(), np.zeros((6, 6)), atol=0)
    I = M.CalcRotationalInertia()
    I_cm = I.ShiftToCenterOfMass(M.get_mass(), M.get_com())
    np.testing.assert_allclose(I_cm.CopyToFullMatrix3(),
                               rotational_inertia_about_com(M.get_mass(), M.get_com(),
                                                            M.get_unit_inertia().CopyToFullMatrix3()),
                               atol=TOL)
    np.testing.assert_allclose(I_cm.ShiftFromCenterOfMass(M.get_mass(), M.get_com())
                               .CopyToFullMatrix3(), I.CopyToFullMatrix3(), atol=TOL)
    G = M.get_unit_inertia()
    np.testing.assert_allclose(G.ShiftToCenterOfMass(M.get_com()).ShiftFromCenterOfMass(
        M.get_com()).CopyToFullMatrix3(), G.CopyToFullMatrix3(), atol=TOL)
    np.testing.assert_allclose((2.0 * G).CopyToFullMatrix3(), 2 * G.CopyToFullMatrix3(), atol=0)
    np.testing.assert_allclose(((I + I) / 2.0 - I).CopyToFullMatrix3(), np.zeros((3, 3)), atol=TOL)
    np.testing.assert_allclose(M.CalcComMoment(), M.get_mass() * M.get_com(), atol=0)


def test_validity():
    rng = np.random.default_rng(2)
    M = random_spatial_inertia(rng, 4)
    assert np.all(M.IsPhysicallyValid())
    assert bool(UnitInertia.SolidBox(1.0, 2.0, 3.0).CouldBePhysicallyValid())
    assert not bool(RotationalInertia(1.0, 1.0, 3.0).CouldBePhysicallyValid())  # triangle
    assert not bool(RotationalInertia(-1.0, 1.0, 1.0).CouldBePhysicallyValid())
    assert not bool(RotationalInertia(1.0, 1.0, 1.0, 2.0, 0.0, 0.0).CouldBePhysicallyValid())
    assert not bool(RotationalInertia().CouldBePhysicallyValid())
    bad = SpatialInertia(1.0, jnp.array([1.0, 0, 0]), UnitInertia(0.1, 0.1, 0.1),
                         skip_validity_check=True)
    assert not bool(bad.IsPhysicallyValid())
    assert bool(SpatialInertia(0.0, jnp.array([1.0, 0, 0]), UnitInertia(1.0, 1.0, 1.0))
                .IsPhysicallyValid())
    # Under jit no check is made and IsPhysicallyValid is a traced boolean.
    ok = jax.jit(lambda m: SpatialInertia(m, jnp.zeros(3), UnitInertia(1.0, 1.0, 1.0))
                 .IsPhysicallyValid())
    assert not bool(ok(-1.0)) and bool(ok(1.0))


def test_pure_kernels_batch():
    rng = np.random.default_rng(3)
    M = random_spatial_inertia(rng, 3, 2)
    G = M.get_unit_inertia().CopyToFullMatrix3()
    mats = spatial_inertia_matrix(M.get_mass(), M.get_com(), G)
    assert mats.shape == (3, 2, 6, 6)
    single = SpatialInertia(M.get_mass()[1, 0], M.get_com()[1, 0], G[1, 0])
    np.testing.assert_allclose(mats[1, 0], single.CopyToFullMatrix6(), atol=TOL)
    assert rotational_inertia_about_com(M.get_mass(), M.get_com(), G).shape == (3, 2, 3, 3)
    assert spatial_inertia_matrix(2.0, rng.normal(size=(5, 3)), np.eye(3)).shape == (5, 6, 6)


def test_vmap_equals_loop_jit_float32():
    rng = np.random.default_rng(4)
    M = random_spatial_inertia(rng, 4)
    p = jnp.asarray(rng.normal(size=(4, 3)))

    def f(M, p):
        return M.Shift(p).CopyToFullMatrix6()

    batched = jax.vmap(f)(M, p)
    loop = [f(jax.tree.map(lambda x, i=i: x[i], M), p[i]) for i in range(4)]
    np.testing.assert_allclose(batched, np.stack(loop), atol=TOL)
    np.testing.assert_allclose(jax.jit(f)(M, p), batched, atol=TOL)
    M32 = SpatialInertia.SolidBoxWithMass(jnp.float32(2.0), jnp.float32(0.1), jnp.float32(0.2),
                                          jnp.float32(0.3))
    assert M32.CopyToFullMatrix6().dtype == jnp.float32
    assert bool(M32.IsPhysicallyValid())


def test_gradients():
    def f(x):
        M = SpatialInertia.MakeFromCentralInertia(x[0], x[1:4], UnitInertia.SolidBox(*x[4:7])
                                                  * x[0])
        V = SpatialVelocity(x[7:10], x[10:13])
        return V.dot(M.Shift(x[1:4]) * V) + jnp.sum(M.CopyToFullMatrix6())

    x0 = jnp.array([2.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.3, -0.2, 0.1, 1.0, 0.5, -1.0])
    check_grads(jax.jit(f), (x0,), order=1, modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)
    x_zero = x0.at[1:4].set(0.0).at[7:].set(0.0)
    assert np.all(np.isfinite(jax.grad(f)(x_zero)))


# ------------------------------------------------------------------ errors
def test_errors():
    p, G = jnp.zeros(3), UnitInertia(1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="mass = -1"):
        SpatialInertia(-1.0, p, G)
    with pytest.raises(ValueError, match="not finite"):
        SpatialInertia(np.inf, p, G)
    with pytest.raises(ValueError, match="Position vector"):
        SpatialInertia(1.0, jnp.array([np.nan, 0, 0]), G)
    with pytest.raises(ValueError, match="Unit inertia"):
        SpatialInertia(1.0, p, UnitInertia(np.nan, 1.0, 1.0))
    with pytest.raises(ValueError, match="Principal moments"):
        SpatialInertia(1.0, jnp.array([1.0, 0, 0]), UnitInertia(0.1, 0.1, 0.1))
    with pytest.raises(TypeError, match="UnitInertia"):
        SpatialInertia(1.0, p, RotationalInertia(1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="positive and finite"):
        SpatialInertia.MakeFromCentralInertia(0.0, p, RotationalInertia(1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="mass is not positive"):
        SpatialInertia.SolidBoxWithMass(-1.0, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="x-length is not positive"):
        SpatialInertia.SolidBoxWithMass(1.0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="density is not positive"):
        SpatialInertia.SolidSphereWithDensity(np.nan, 1.0)
    with pytest.raises(ValueError, match="not a unit vector"):
        SpatialInertia.SolidCylinderWithMass(1.0, 1.0, 1.0, np.array([0.0, 0.0, 2.0]))
    with pytest.raises(ValueError, match="non-negative"):
        UnitInertia.SolidBox(-1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        RotationalInertia(-1.0, jnp.ones(3))
    with pytest.raises(ValueError, match="CouldBePhysicallyValid"):
        RotationalInertia.MakeFromMomentsAndProductsOfInertia(1.0, 1.0, 3.0, 0.0, 0.0, 0.0)
    I = RotationalInertia.MakeFromMomentsAndProductsOfInertia(1.0, 1.0, 3.0, 0, 0, 0, True)
    assert not bool(I.CouldBePhysicallyValid())
    with pytest.raises(TypeError, match="positional"):
        RotationalInertia(1.0, I=np.eye(3))
    with pytest.raises(TypeError, match="4 arguments"):
        RotationalInertia(1.0, 2.0, 3.0, 4.0)
    with pytest.raises(TypeError, match="2 arguments"):
        UnitInertia(1.0, jnp.ones(3))
    with pytest.raises(ValueError, match="I must have shape"):
        RotationalInertia(I=np.eye(4))
    with pytest.raises(TypeError):
        RotationalInertia(1.0, 1.0, 1.0) + 1.0
    with pytest.raises(TypeError):
        RotationalInertia(1.0, 1.0, 1.0) - 1.0
    with pytest.raises(TypeError):
        RotationalInertia(1.0, 1.0, 1.0) * G
    with pytest.raises(TypeError):
        SpatialInertia.Zero() + 1.0


# ------------------------------------------------------------------ pydrake
def test_matches_pydrake():
    pytest.importorskip("pydrake")
    from pydrake.math import RotationMatrix as DrakeR
    from pydrake.multibody import tree as dt

    def same(a, b):
        np.testing.assert_allclose(a.CopyToFullMatrix6(), b.CopyToFullMatrix6(), atol=TOL)

    for name, args in [("SolidBoxWithMass", (2.0, 0.1, 0.2, 0.3)),
                       ("SolidBoxWithDensity", (900.0, 0.1, 0.2, 0.3)),
                       ("SolidSphereWithMass", (2.0, 0.3)), ("SolidSphereWithDensity", (9.0, 0.3)),
                       ("SolidEllipsoidWithMass", (2.0, 0.1, 0.2, 0.3)),
                       ("SolidEllipsoidWithDensity", (9.0, 0.1, 0.2, 0.3)),
                       ("SolidCylinderWithMass", (2.0, 0.1, 0.5, AXIS)),
                       ("SolidCylinderWithDensity", (9.0, 0.1, 0.5, AXIS)),
                       ("SolidCapsuleWithMass", (2.0, 0.1, 0.5, AXIS)),
                       ("SolidCapsuleWithDensity", (9.0, 0.1, 0.5, AXIS))]:
        same(getattr(SpatialInertia, name)(*args), getattr(dt.SpatialInertia, name)(*args))
    rng = np.random.default_rng(5)
    for _ in range(5):
        M = random_spatial_inertia(rng)
        G = M.get_unit_inertia()
        dG = dt.UnitInertia(*np.asarray(G.get_moments()), *np.asarray(G.get_products()))
        dM = dt.SpatialInertia(float(M.get_mass()), np.asarray(M.get_com()), dG)
        same(M, dM)
        p, R = rng.normal(size=3), RollPitchYaw(rng.normal(size=3)).ToRotationMatrix()
        same(M.Shift(p), dM.Shift(p))
        same(M.ReExpress(R), dM.ReExpress(DrakeR(R.matrix())))
        M2 = random_spatial_inertia(rng)
        dM2 = copy.copy(dM)
        dM2 += dt.SpatialInertia(float(M2.get_mass()), np.asarray(M2.get_com()), dt.UnitInertia(
            *np.asarray(M2.get_unit_inertia().get_moments()),
            *np.asarray(M2.get_unit_inertia().get_products())))
        same(M + M2, dM2)
        w, v = rng.normal(size=3), rng.normal(size=3)
        from pydrake.multibody.math import SpatialVelocity as DV
        np.testing.assert_allclose((M * SpatialVelocity(w, v)).get_coeffs(),
                                   (dM * DV(w, v)).get_coeffs(), atol=TOL)
        I = M.CalcRotationalInertia()
        dI = dM.CalcRotationalInertia()
        np.testing.assert_allclose(I.CalcPrincipalMomentsOfInertia(),
                                   dI.CalcPrincipalMomentsOfInertia(), atol=TOL)
        np.testing.assert_allclose(I.ReExpress(R).CopyToFullMatrix3(),
                                   dI.ReExpress(DrakeR(R.matrix())).CopyToFullMatrix3(), atol=TOL)
        mc = dt.SpatialInertia.MakeFromCentralInertia(2.0, p, dI)
        same(SpatialInertia.MakeFromCentralInertia(2.0, p, I), mc)
    for args in [(1.0, [0, 0, 0], (1, 1, 3)), (1.0, [1, 0, 0], (0.1, 0.1, 0.1)),
                 (1.0, [0, 0, 0], (0.2, 0.3, 0.4)), (0.0, [1, 0, 0], (1, 1, 1))]:
        ours = SpatialInertia(args[0], jnp.asarray(args[1], float), UnitInertia(*args[2]), True)
        theirs = dt.SpatialInertia(args[0], np.asarray(args[1], float), dt.UnitInertia(*args[2]),
                                   True)
        assert bool(ours.IsPhysicallyValid()) == theirs.IsPhysicallyValid()
    for moments in [(1, 1, 3), (1, 2, 3), (1, 1, 1, 2, 0, 0), (1, 1, 1, 0.4, 0.1, 0.2)]:
        assert (bool(RotationalInertia(*map(float, moments)).CouldBePhysicallyValid())
                == dt.RotationalInertia(*map(float, moments)).CouldBePhysicallyValid())
