"""Physics of the SAP step where multi-point box contact does better than Drake's single point:
a box at rest on the ground, and a box sliding to rest."""

import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from benchmarks.contact_scenes import FreeBody, Geom, Scene, build, initial_state

G = 9.81


def _box_scene(mu, v0=0.0, k=1e6, tau=0.01):
    lx, ly, lz, m = 0.2, 0.2, 0.1, 1.0
    inertia = (m / 12 * (ly**2 + lz**2), m / 12 * (lx**2 + lz**2), m / 12 * (lx**2 + ly**2))
    body = FreeBody("box", m, inertia, (0, 0, lz / 2 - 1e-5), V_WB=(0, 0, 0, v0, 0, 0))
    return Scene([body], [Geom("box", ("box", lx, ly, lz), k=k, tau=tau, mu=mu),
                          Geom("world", ("halfspace",), k=k, tau=tau, mu=mu)],
                 single_point=False)  # the four-corner manifold (Drake's one point rocks)


def _run(scene, steps):
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    return plant, jb.discrete_rollout(plant, ctx, num_steps=steps, save_contacts=True)


@pytest.fixture(scope="module")
def resting():
    return _run(_box_scene(mu=0.5), 500)


def test_box_at_rest_carries_its_weight_on_four_corners(resting):
    plant, r = resting
    f = np.asarray(r.contact_forces[-1])  # on A (the box: registered first)
    active = np.asarray(r.contact_active[-1]) > 0
    assert active.sum() == 4
    np.testing.assert_allclose(f[active].sum(0), [0, 0, 1.0 * G], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(f[active][:, 2], G / 4, rtol=1e-6)  # symmetric: no rocking


def test_box_at_rest_does_not_drift_or_rock(resting):
    plant, r = resting
    x = np.asarray(r.states)
    q, v = x[:, :7], x[:, 7:]
    assert np.max(np.abs(v[-100:])) < 1e-8
    np.testing.assert_allclose(q[-1, :4], [1, 0, 0, 0], atol=1e-9)  # no rotation
    assert np.max(np.abs(q[:, 4:6])) < 1e-9  # no horizontal drift


@pytest.mark.parametrize("mu", [0.3, 0.6])
def test_box_sliding_to_rest_stops_at_v2_over_2_mu_g(mu):
    v0 = 1.0
    plant, r = _run(_box_scene(mu=mu, v0=v0), int(1.3 * v0 / (mu * G) / 1e-3))
    x = np.asarray(r.states)
    distance = x[-1, 4] - x[0, 4]
    assert np.max(np.abs(x[-1, 7:])) < 1e-3  # at rest
    assert distance == pytest.approx(v0**2 / (2 * mu * G), rel=0.01)
    assert abs(x[-1, 5]) < 1e-9  # straight
    np.testing.assert_allclose(x[-1, :4], [1, 0, 0, 0], atol=1e-3)  # upright at the end
    # N.B. The first step lifts the box (v_z ≈ 0.27 m/s at μ = 0.3): SAP's regularized friction
    # couples a large slip to the normal impulse (γn ∝ yn + μ̂‖yt‖). Drake does exactly the same
    # (tests/reference/test_sap_drake.py compares a sliding sled step by step).
