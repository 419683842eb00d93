"""Continuous plants with contact simulated by jaxbody and pydrake with the same fixed-step scheme
(Heun's RK2, Drake's ``RungeKutta2Integrator``, h = 1e-4 s or 2.5e-5 s, quaternions integrated
unprojected as Drake does) on `benchmarks.continuous_scenes`: a ball that bounces, slides and
rolls; a box on four corner spheres sliding to rest; the PD-held quadruped falling onto the
ground. States agree every 0.05 s to `STATE_TOL`. Closed forms: the box's sliding distance
v₀²/(2μg); a box at its static penetration carries its weight through four contacts. Adaptive
integration (diffrax) of the bouncing ball completes and agrees with the fixed-step run."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("pydrake")

import jaxbody as jb  # noqa: E402
from benchmarks import contact_scenes as cs  # noqa: E402
from benchmarks.continuous_scenes import (  # noqa: E402
    BOX,
    MU,
    SCENES,
    V0,
    V_S,
    box_rest_height,
    box_sliding,
    drake_states,
    jaxbody_plant_and_context,
    jaxbody_states,
)

STATE_TOL = 1e-8  # on every state component, relative to max(1, |x|)


@functools.cache
def simulate(name):
    """(plant, jaxbody's states, Drake's states) of scene ``name``, computed once."""
    make, t_final, h = SCENES[name]
    scene = make()
    want, _ = drake_states(scene, t_final, h)
    got, plant = jaxbody_states(scene, t_final, h)
    return plant, got, want


@pytest.mark.parametrize("name", list(SCENES))
def test_states_equal_drakes(name):
    _, got, want = simulate(name)
    err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    assert err.max() < STATE_TOL, f"{name}: max relative state error {err.max():.2e}"


def test_ball_ends_rolling():
    """Quaternion, then xyz: the ball ends on the ground rolling, v = ω r up to the Stribeck
    creep (the comparison covers bouncing, sliding and rolling)."""
    plant, got, _ = simulate("ball_bouncing")
    nq = plant.num_positions()
    w, v = got[-1, nq:nq + 3], got[-1, nq + 3:nq + 6]
    assert abs(got[-1, 6] - 0.1) < 1e-3 and abs(v[0] - w[1] * 0.1) < V_S


def test_quadruped_is_caught():
    plant, got, _ = simulate("quadruped_falling")
    assert got[-1, 6] > 0.3  # the trunk is held up by the PD legs


def test_sliding_distance_closed_form():
    """A box sliding at v₀ under Coulomb friction μ stops after v₀²/(2μg); the Stribeck
    curve's regularization and the corner springs cost less than 1e-3 of it."""
    plant, got, _ = simulate("box_sliding")
    assert np.abs(got[-1, plant.num_positions():]).max() < 1e-3  # at rest
    distance = got[-1, 4]
    want = V0**2 / (2 * MU * 9.81)
    assert abs(distance - want) < 1e-3 * want, (distance, want)


def test_resting_box_forces_sum_to_weight():
    """At the static penetration, at rest, the four corner contacts carry mg and the box's
    acceleration vanishes."""
    plant, _ = cs.build(box_sliding(), "jaxbody")
    ctx = plant.SetFreeBodyPose(plant.CreateDefaultContext(jnp.float64),
                                plant.GetBodyByName("box"),
                                jb.RigidTransform([0.0, 0.0, box_rest_height()]))
    results = plant.CalcContactResults(ctx)
    assert results.num_point_pair_contacts() == 4
    f = sum(np.asarray(results.point_pair_contact_info(i).contact_force())
            * (1 if int(results.point_pair_contact_info(i).bodyB_index()) == 1 else -1)
            for i in range(4))
    np.testing.assert_allclose(f, [0.0, 0.0, BOX["mass"] * 9.81], atol=1e-10)
    np.testing.assert_allclose(plant.CalcGeneralizedAccelerations(ctx), 0.0, atol=1e-10)


def test_adaptive_integration_of_the_bouncing_ball():
    """diffrax's Dopri5 with error control through the bounces, the slide and the rolling:
    it finishes well within its step budget, every state finite, and agrees with the
    fixed-step RK2 run (itself 2e-12 from Drake's) to the tolerances' order."""
    _, t_final, _ = SCENES["ball_bouncing"]
    plant, ctx = jaxbody_plant_and_context(SCENES["ball_bouncing"][0]())
    _, fixed, _ = simulate("ball_bouncing")
    ts = jnp.arange(1, len(fixed) + 1) * 0.05
    r = jb.simulate_adaptive(plant, ctx, t_final, ts=ts, rtol=1e-8, atol=1e-8,
                             max_steps=50_000)
    assert int(r.first_nonfinite_step) == -1
    assert int(r.num_steps) < 20_000, int(r.num_steps)
    nq = plant.num_positions()
    err = np.abs(np.asarray(r.states) - fixed)
    assert err[:, nq:].max() < 1e-3 and err[:, :nq].max() < 1e-4, err.max(0)


def test_gradients_through_sliding_contact():
    """The box's position after 0.02 s of sliding, differentiated with respect to its initial
    speed, the friction coefficient and the contact stiffness (forward and reverse mode
    against finite differences): smooth while it slides (slip ≫ v_s) and touches."""
    from jax.test_util import check_grads

    plant, ctx = jaxbody_plant_and_context(box_sliding())
    nq = plant.num_positions()

    @jax.jit
    def final_x(v0, mu, k):
        c = plant.SetContactParameters(ctx, static_friction=mu, dynamic_friction=mu,
                                       point_contact_stiffness=k)
        c = c.replace(v=c.v.at[3].set(v0))
        x = jb.rollout(plant, c, None, 100, 2e-4, integrator="rk2",
                       save_trajectory=False).final_state
        return x[jnp.asarray([4, 6, nq + 3, nq + 5])]  # x, z, ẋ, ż

    args = (jnp.asarray(V0), jnp.asarray(MU), jnp.asarray(BOX["k"]))
    check_grads(final_x, args, order=1, modes=("fwd", "rev"), eps=1e-4, rtol=1e-4, atol=1e-9)
    _, (_, _, dv_dmu, _) = jax.jvp(final_x, args, (0.0 * args[0], 1.0 + 0 * args[1],
                                                   0.0 * args[2]))
    np.testing.assert_allclose(dv_dmu, -9.81 * 0.02, rtol=5e-2)  # ẋ = v0 − μ g t
