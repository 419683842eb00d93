"""Standard parameters, pseudo-inertia and log-Cholesky: closed forms, round trips, gradients."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxbody as jb
from jaxbody import identification as ident
from tests.identification.arm import random_inertial_parameters, three_link_arm

TOL = 1e-12  # round trips in float64
GRAD_TOL = 1e-6  # check_grads (finite differences)


def test_solid_box_closed_form():
    m, lx, ly, lz = 3.0, 0.1, 0.2, 0.3
    G = jb.SpatialInertia.SolidBoxWithMass(m, lx, ly, lz).get_unit_inertia().CopyToFullMatrix3()
    pi = ident.inertial_parameters(m, np.zeros(3), np.asarray(G))
    I = m / 12 * np.array([ly**2 + lz**2, lx**2 + lz**2, lx**2 + ly**2])
    np.testing.assert_allclose(pi, [m, 0, 0, 0, *I, 0, 0, 0], atol=TOL)
    # Σ = ∫ r rᵀ dm = m/12 diag(l²) for a box about its center.
    np.testing.assert_allclose(ident.pseudo_inertia(pi), np.diag([m * lx**2 / 12, m * ly**2 / 12,
                                                                  m * lz**2 / 12, m]), atol=TOL)


def test_point_mass_pseudo_inertia_is_rank_one():
    m, p = 2.0, np.array([0.3, -0.1, 0.2])
    G = np.asarray(jb.SpatialInertia.PointMass(m, p).get_unit_inertia().CopyToFullMatrix3())
    J = ident.pseudo_inertia(ident.inertial_parameters(m, p, G))
    r = np.append(p, 1.0)
    np.testing.assert_allclose(J, m * np.outer(r, r), atol=TOL)
    assert not bool(ident.is_physically_consistent(ident.inertial_parameters(m, p, G), tol=1e-9))


def test_log_cholesky_closed_form():
    theta = np.array([0.5 * np.log(3.0), 0, 0, 0, 0, 0, 0, 0.1, -0.2, 0.3])
    pi = ident.inertial_parameters_from_log_cholesky(theta)
    # U = √3 [[I, t], [0, 1]]: m = 3, h = m t, Σ = m (1 + t tᵀ).
    t = theta[7:]
    Sigma = 3.0 * (np.eye(3) + np.outer(t, t))
    I = np.trace(Sigma) * np.eye(3) - Sigma
    np.testing.assert_allclose(pi, [3.0, *(3.0 * t), I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2],
                                    I[1, 2]], atol=TOL)
    U = np.asarray(ident.log_cholesky_factor(theta))
    assert np.allclose(np.tril(U, -1), 0.0) and np.all(np.diag(U) > 0)


def test_context_round_trip():
    plant, links = three_link_arm()
    ctx = plant.CreateDefaultContext()
    pi = ident.inertial_parameters_from_context(ctx, links)
    ctx2 = ident.context_with_inertial_parameters(ctx, links, pi)
    for f in ("mass", "com", "unit_inertia"):
        np.testing.assert_allclose(getattr(ctx2.parameters, f), getattr(ctx.parameters, f), atol=TOL)
    new = random_inertial_parameters(np.random.default_rng(0), len(links))
    np.testing.assert_allclose(ident.inertial_parameters_from_context(
        ident.context_with_inertial_parameters(ctx, links, new), links), new, rtol=TOL, atol=TOL)


def test_pseudo_inertia_and_log_cholesky_round_trips():
    rng = np.random.default_rng(1)
    pi = random_inertial_parameters(rng, 20)
    np.testing.assert_allclose(ident.inertial_parameters_from_pseudo_inertia(ident.pseudo_inertia(pi)),
                               pi, rtol=TOL, atol=TOL)
    theta = ident.log_cholesky_from_inertial_parameters(pi)
    np.testing.assert_allclose(ident.inertial_parameters_from_log_cholesky(theta), pi, rtol=1e-10, atol=TOL)
    theta = rng.normal(size=(20, 10))
    np.testing.assert_allclose(ident.log_cholesky_from_inertial_parameters(
        ident.inertial_parameters_from_log_cholesky(theta)), theta, rtol=1e-9, atol=1e-9)
    J = ident.pseudo_inertia_from_log_cholesky(theta)
    np.testing.assert_allclose(ident.log_cholesky_from_pseudo_inertia(J), theta, rtol=1e-9, atol=1e-9)


def test_every_theta_is_physical_and_consistency_test():
    theta = np.random.default_rng(2).normal(0.0, 2.0, (100, 10))
    assert bool(ident.is_physically_consistent(ident.inertial_parameters_from_log_cholesky(theta)).all())
    box = ident.inertial_parameters(1.0, np.zeros(3), np.diag([0.3, 0.4, 0.5]))
    bad_triangle = box.at[4].set(1.0)  # Ixx > Iyy + Izz
    negative_mass = box.at[0].set(-1.0)
    assert bool(ident.is_physically_consistent(box))
    assert not bool(ident.is_physically_consistent(bad_triangle))
    assert not bool(ident.is_physically_consistent(negative_mass))
    assert bool(jnp.isnan(ident.log_cholesky_from_inertial_parameters(bad_triangle)).any())


def test_central_inertia_is_parallel_axis_shift():
    G = jb.SpatialInertia.SolidBoxWithMass(2.0, 0.1, 0.2, 0.3).Shift(-np.array([0.1, 0.2, -0.3]))
    pi = ident.inertial_parameters(2.0, np.asarray(G.get_com()),
                                   np.asarray(G.get_unit_inertia().CopyToFullMatrix3()))
    expected = 2.0 / 12 * np.diag([0.2**2 + 0.3**2, 0.1**2 + 0.3**2, 0.1**2 + 0.2**2])
    np.testing.assert_allclose(ident.central_rotational_inertia(pi), expected, atol=TOL)


def test_gradients_of_the_maps():
    theta = jnp.asarray(np.random.default_rng(3).normal(0.0, 0.5, 10))
    check_grads(jax.jit(ident.inertial_parameters_from_log_cholesky), (theta,), order=1,
                modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)
    pi = ident.inertial_parameters_from_log_cholesky(theta)
    check_grads(jax.jit(ident.log_cholesky_from_inertial_parameters), (pi,), order=1,
                modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)
    check_grads(jax.jit(lambda p: ident.mass_com_unit_inertia(p)[2]), (pi,), order=1,
                modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)


def test_vmap_equals_loop():
    theta = np.random.default_rng(4).normal(size=(5, 10))
    batched = jax.vmap(ident.inertial_parameters_from_log_cholesky)(theta)
    for k in range(5):
        np.testing.assert_allclose(batched[k], ident.inertial_parameters_from_log_cholesky(theta[k]), atol=TOL)


@pytest.mark.parametrize("call, match", [
    (lambda: ident.pseudo_inertia(np.zeros(9)), "pseudo_inertia: pi"),
    (lambda: ident.rotational_inertia_matrix(np.zeros((2, 3))), "rotational_inertia_matrix: pi"),
    (lambda: ident.inertial_parameters(1.0, np.zeros(2), np.eye(3)), "inertial_parameters: com"),
    (lambda: ident.inertial_parameters(1.0, np.zeros(3), np.eye(2)), "inertial_parameters: unit_inertia"),
    (lambda: ident.mass_com_unit_inertia(np.zeros(3)), "mass_com_unit_inertia: pi"),
    (lambda: ident.log_cholesky_factor(np.zeros(4)), "log_cholesky_factor: theta"),
    (lambda: ident.inertial_parameters_from_pseudo_inertia(np.eye(3)), "from_pseudo_inertia: J"),
    (lambda: ident.log_cholesky_from_pseudo_inertia(np.eye(3)), "log_cholesky_from_pseudo_inertia: J"),
])
def test_shape_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_context_shape_error():
    plant, links = three_link_arm()
    with pytest.raises(ValueError, match=r"expected shape \(3, 10\)"):
        ident.context_with_inertial_parameters(plant.CreateDefaultContext(), links, np.ones((2, 10)))
