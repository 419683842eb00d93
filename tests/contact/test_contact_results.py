"""`CalcContactResults`: Drake's records of a step's point contacts, every argument honored."""

import jax.numpy as jnp
import numpy as np
import pytest

from benchmarks.contact_scenes import FreeBody, Geom, Scene, build, initial_state
from jaxbody.contact.sap_problem import SapSolverParameters

TOL = 1e-12
R, M, G = 0.1, 2.0, 9.81


@pytest.fixture(scope="module")
def sphere():
    body = FreeBody("ball", M, (0.4 * M * R * R,) * 3, (0.0, 0.0, R - 1e-4))
    scene = Scene([body], [Geom("ball", ("sphere", R), k=1e6, tau=0.01, mu=0.5),
                           Geom("world", ("halfspace",), k=1e6, tau=0.01, mu=0.5)])
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    return plant, ctx


def _total_force_on_ball(results):
    # contact_force() is on body B (the ground) at C; the ball gets the opposite.
    return -sum(results.point_pair_contact_info(i).contact_force()
                for i in range(results.num_point_pair_contacts()))


def test_results_agree_with_the_step(sphere):
    plant, ctx = sphere
    results = plant.CalcContactResults(ctx)
    step = plant.CalcDiscreteStep(ctx)
    assert results.num_point_pair_contacts() == 1
    info = results.point_pair_contact_info(0)
    np.testing.assert_allclose(results.generalized_contact_forces(),
                               step.contact.tau_contact, atol=TOL)
    np.testing.assert_allclose(_total_force_on_ball(results),
                               np.asarray(step.contact.tau_contact[3:]), atol=1e-9)
    np.testing.assert_allclose(info.contact_point()[:2], 0.0, atol=1e-12)
    assert info.point_pair().depth == pytest.approx(1e-4, rel=1e-6)
    assert info.slip_speed() == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(IndexError, match="out of range"):
        results.point_pair_contact_info(1)


def test_every_keyword_argument_is_honored(sphere):
    """A cached compiled step used to keep the first call's arguments."""
    plant, ctx = sphere
    base = _total_force_on_ball(plant.CalcContactResults(ctx))
    push = jnp.zeros(plant.num_velocities()).at[5].set(-30.0)
    pushed = plant.CalcContactResults(ctx, applied_generalized_force=push)
    step = plant.CalcDiscreteStep(ctx, applied_generalized_force=push)
    np.testing.assert_allclose(pushed.generalized_contact_forces(), step.contact.tau_contact,
                               atol=TOL)
    assert _total_force_on_ball(pushed)[2] > base[2] + 1.0
    # A solver capped at one Newton iteration stops short of the converged answer.
    capped = plant.CalcContactResults(ctx, solver_parameters=SapSolverParameters(max_iterations=1))
    step1 = plant.CalcDiscreteStep(ctx, solver_parameters=SapSolverParameters(max_iterations=1))
    np.testing.assert_allclose(capped.generalized_contact_forces(), step1.contact.tau_contact,
                               atol=TOL)
    again = _total_force_on_ball(plant.CalcContactResults(ctx))
    np.testing.assert_allclose(again, base, atol=TOL)


def test_unknown_argument_names_itself(sphere):
    plant, ctx = sphere
    with pytest.raises(TypeError, match="applied_generalised_force"):
        plant.CalcContactResults(ctx, applied_generalised_force=jnp.zeros(6))
