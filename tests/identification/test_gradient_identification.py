"""Gradient identification: loss gradients, recovery on a 3-link arm, optimizers, errors."""

import doctest
import importlib
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from jax.test_util import check_grads

from jaxbody import identification as ident
from jaxbody.identification import gradient_identification
from tests.identification.arm import fourier_samples, three_link_arm

GRAD_TOL = 1e-5  # check_grads through RNEA (finite differences)
MASS_TOL = 1e-3  # relative mass error after the 3-link recovery
STEPS = 1500


@pytest.fixture(scope="module")
def arm():
    plant, links = three_link_arm(damping=0.2, tool=True)
    ctx = plant.CreateDefaultContext()
    pi_true = ident.inertial_parameters_from_context(ctx, links)
    measure = partial(ident.joint_reaction_wrenches, bodies=tuple(links))
    q, v, vdot = fourier_samples(3, 40, seed=3)
    data = ident.IdentificationData(q, v, vdot, np.zeros((40, 18)))
    data = data._replace(measured=ident.predict(plant, ctx, links, pi_true, data, measure))
    m, c, _ = ident.mass_com_unit_inertia(pi_true)
    I_cm = ident.central_rotational_inertia(pi_true)
    pi0 = ident.inertial_parameters(1.3 * m * jnp.array([1.0, 0.8, 1.1]), c + 0.02,
                                    (0.7 * I_cm) / (1.3 * m)[:, None, None]
                                    + ((c + 0.02) ** 2).sum(1)[:, None, None] * jnp.eye(3)
                                    - (c + 0.02)[:, :, None] * (c + 0.02)[:, None, :])
    return plant, links, ctx, pi_true, measure, data, ident.log_cholesky_from_inertial_parameters(pi0)


def test_loss_gradients(arm):
    plant, links, ctx, _, measure, data, theta0 = arm
    small = ident.IdentificationData(*(np.asarray(x)[:4] for x in data))
    loss = jax.jit(lambda th: ident.prediction_loss(th, plant, ctx, links, small._replace(
        measured=small.measured[:, :3]), theta_prior=theta0, prior_weight=0.1))  # joint torques
    check_grads(loss, (theta0,), order=1, modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)


def test_recovers_masses_of_a_three_link_arm(arm):
    plant, links, ctx, pi_true, measure, data, theta0 = arm
    res = ident.identify_by_gradient(plant, ctx, data, theta0, links, steps=STEPS, measure=measure)
    assert res.theta_history.shape == (STEPS + 1, 3, 10) and res.loss_history.shape == (STEPS + 1,)
    np.testing.assert_allclose(res.theta_history[0], theta0)
    assert float(res.loss_history[-1]) < 1e-5 * float(res.loss_history[0])
    np.testing.assert_allclose(res.pi[:, 0], pi_true[:, 0], rtol=MASS_TOL)
    assert bool(ident.is_physically_consistent(res.pi).all())


def test_torques_only_fit_the_torques(arm):
    plant, links, ctx, pi_true, _, data, theta0 = arm
    tau = ident.predict(plant, ctx, links, pi_true, data)
    data = data._replace(measured=tau)
    res = ident.identify_by_gradient(plant, ctx, data, theta0, links, steps=300,
                                     optimizer=optax.adam(3e-2))
    pred = ident.predict(plant, ctx, links, res.pi, data)
    assert float(jnp.sqrt(jnp.mean((pred - tau) ** 2))) < 2e-2 * float(jnp.sqrt(jnp.mean(tau**2)))


def test_line_search_state_detection():
    """L-BFGS stores value and gradient (reused by `identify_by_gradient`; its docstring example
    runs L-BFGS to convergence), Adam does not."""
    theta = jnp.zeros((1, 10))
    assert gradient_identification._stores_value(optax.lbfgs().init(theta))
    assert not gradient_identification._stores_value(optax.adam(1e-2).init(theta))


def test_theta_shape_error(arm):
    plant, links, ctx, _, _, data, theta0 = arm
    with pytest.raises(ValueError, match=r"theta0: expected shape \(3, 10\)"):
        ident.identify_by_gradient(plant, ctx, data, theta0[:2], links, steps=1)


@pytest.mark.parametrize("module", ["inertial_parameters", "measurements", "regressor", "least_squares",
                                    "gradient_identification"])
def test_docstring_examples(module):
    module = importlib.import_module(f"jaxbody.identification.{module}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
