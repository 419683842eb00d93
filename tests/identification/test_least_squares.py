"""Least squares: closed-form identifiability of a pendulum, exact recovery, prior in the null space."""

from functools import partial

import jax
import numpy as np
import pytest

from jaxbody import identification as ident
from tests.identification.arm import fourier_samples, pendulum_about_y, three_link_arm

TOL = 1e-9  # recovery from exact data, relative
NULL_TOL = 1e-6  # a null component below this: identifiable


def _stack(plant, links, num, measure=ident.joint_torques, seed=0):
    q, v, vdot = fourier_samples(plant.num_velocities(), num, seed=seed)
    ctx = plant.CreateDefaultContext()
    reg = jax.jit(lambda q, v, a: ident.stacked_regressor(plant, ctx, q, v, a, links, measure))(q, v, vdot)
    return ctx, reg


def test_pendulum_identifies_exactly_hx_hz_and_Iyy():
    """Rotation about y through Bo, gravity along z: τ = I_yy q̈ + g (h_x cos q + h_z sin q)-like
    terms, so only h_x, h_z and I_yy reach the torque (m alone: a mass on the axis does nothing)."""
    plant, links = pendulum_about_y()
    ctx, reg = _stack(plant, links, 40)
    pi = ident.inertial_parameters_from_context(ctx, links).ravel()
    res = ident.identify_least_squares(reg.Y, reg.Y @ pi + reg.offset, offset=reg.offset)
    assert int(res.rank) == 3
    identifiable = [ident.PARAMETER_NAMES[i] for i in np.flatnonzero(np.asarray(res.null_component) < NULL_TOL)]
    assert identifiable == ["hx", "hz", "Iyy"]
    np.testing.assert_allclose(np.asarray(res.null_component)[[0, 2, 4, 6, 7, 8, 9]], 1.0, atol=NULL_TOL)
    for i in (1, 3, 5):
        assert abs(float(res.pi[i]) - float(pi[i])) <= TOL * max(1.0, abs(float(pi[i])))


def test_three_link_arm_masses_from_wrenches_and_prior_in_null_space():
    plant, links = three_link_arm(damping=0.2, tool=True)
    ctx, reg = _stack(plant, links, 30, partial(ident.joint_reaction_wrenches, bodies=links), seed=1)
    pi = ident.inertial_parameters_from_context(ctx, links).ravel()
    prior = 1.2 * pi
    res = ident.identify_least_squares(reg.Y, reg.Y @ pi + reg.offset, offset=reg.offset, prior=prior)
    # Link 1 turns about its own z axis through Bo: of its inertia only Ixz, Iyz, Izz show (the
    # axis is tilted, so gravity reveals hz too); Ixx, Iyy, Ixy stay unseen.
    assert int(res.rank) == 27
    null = np.asarray(res.null_component).reshape(3, 10)
    assert np.all(null[:, 0] < NULL_TOL)  # every mass
    hidden = np.flatnonzero(null.ravel() > NULL_TOL)
    assert [ident.PARAMETER_NAMES[i] for i in hidden] == ["Ixx", "Iyy", "Ixy"]
    seen = np.setdiff1d(np.arange(30), hidden)
    np.testing.assert_allclose(res.pi[seen], pi[seen], rtol=TOL, atol=TOL)
    # the data fix Y π; the null-space part is the prior's
    np.testing.assert_allclose(reg.Y @ res.pi, reg.Y @ pi, atol=1e-9)
    assert float(res.residual_rms) < 1e-10


def test_weights_equal_scaled_rows():
    rng = np.random.default_rng(0)
    Y, y, w = rng.normal(size=(20, 4)), rng.normal(size=20), rng.uniform(0.5, 2.0, 20)
    a = ident.identify_least_squares(Y, y, weights=w)
    b = ident.identify_least_squares(Y * w[:, None], y * w)
    np.testing.assert_allclose(a.pi, b.pi, rtol=TOL)
    np.testing.assert_allclose(a.pi, np.linalg.lstsq(Y * w[:, None], y * w, rcond=None)[0], rtol=1e-8)


def test_round_off_columns_count_as_zero():
    Y = np.random.default_rng(1).normal(size=(10, 3))
    Y[:, 1] = 1e-17  # autodiff round-off
    res = ident.identify_least_squares(Y, Y @ np.array([1.0, 5.0, 2.0]), prior=np.array([0.0, 7.0, 0.0]))
    assert int(res.rank) == 2 and float(res.null_component[1]) == pytest.approx(1.0)
    np.testing.assert_allclose(res.pi, [1.0, 7.0, 2.0], atol=1e-9)


@pytest.mark.parametrize("kwargs, match", [
    (dict(Y_stack=np.zeros((2, 3)), tau_stack=np.zeros(2)), "M >= p"),
    (dict(Y_stack=np.zeros((4, 3)), tau_stack=np.zeros(3)), "tau_stack"),
    (dict(Y_stack=np.zeros((4, 3)), tau_stack=np.zeros(4), prior=np.zeros(2)), "offset, weights and prior"),
    (dict(Y_stack=np.zeros((4, 3)), tau_stack=np.zeros(4), weights=np.ones(3)), "offset, weights and prior"),
])
def test_shape_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ident.identify_least_squares(**kwargs)
