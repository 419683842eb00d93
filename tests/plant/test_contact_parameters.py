"""`MultibodyPlant.SetContactParameters` / `GetContactParameters`: per-geometry contact parameters
as Context leaves, set out of place, checked, vmappable and differentiable; checked against the
closed-form combination rules of the combined values `CalcPointContacts` reports (Drake's:
friction 2 μa μb / (μa + μb), stiffness ka kb / (ka + kb))."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb

TOL = 1e-12


@pytest.fixture(scope="module")
def scene():
    plant = jb.MultibodyPlant(0.001)
    ball = plant.AddRigidBody("ball", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    g_ball = plant.RegisterCollisionGeometry(ball, jb.RigidTransform(), jb.Sphere(0.1), "ball",
                                             jb.CoulombFriction(0.5, 0.5))
    g_ground = plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(),
                                               jb.HalfSpace(), "ground", jb.CoulombFriction(1, 1))
    plant.Finalize()
    ctx = plant.SetPositions(plant.CreateDefaultContext(), [1, 0, 0, 0, 0, 0, 0.09])
    return plant, ctx, g_ball, g_ground, jax.jit(plant.CalcPointContacts)


def test_set_one_geometry_out_of_place(scene):
    plant, ctx, g_ball, g_ground, contacts = scene
    c = plant.SetContactParameters(ctx, g_ball, static_friction=0.8, dynamic_friction=0.6,
                                   point_contact_stiffness=2e5)
    got = plant.GetContactParameters(c, g_ball)
    assert float(got["static_friction"]) == 0.8 and float(got["dynamic_friction"]) == 0.6
    assert float(got["point_contact_stiffness"]) == 2e5
    # the other geometry and the original context are unchanged
    for name, x in plant.GetContactParameters(c, g_ground).items():
        assert float(x) == float(plant.GetContactParameters(ctx, g_ground)[name])
    assert float(plant.GetContactParameters(ctx, g_ball)["dynamic_friction"]) == 0.5
    pc = contacts(c)
    assert abs(float(pc.mu[0]) - 2 * 0.6 * 1.0 / 1.6) < TOL
    assert abs(float(pc.mu_static[0]) - 2 * 0.8 * 1.0 / 1.8) < TOL
    k_ground = float(plant.GetContactParameters(ctx, g_ground)["point_contact_stiffness"])
    assert abs(float(pc.k[0]) - 2e5 * k_ground / (2e5 + k_ground)) < 1e-12 * k_ground


def test_every_geometry_and_per_geometry_arrays(scene):
    plant, ctx, g_ball, g_ground, _ = scene
    c = plant.SetContactParameters(ctx, relaxation_time=0.02)
    assert np.all(np.asarray(c.parameters.contact["relaxation_time"]) == 0.02)
    c = plant.SetContactParameters(ctx, [g_ground, g_ball], dynamic_friction=[0.3, 0.2])
    assert float(plant.GetContactParameters(c, g_ground)["dynamic_friction"]) == 0.3
    assert float(plant.GetContactParameters(c, g_ball)["dynamic_friction"]) == 0.2


def test_vmap_and_grad_through_the_setter(scene):
    """Domain randomization: one context per friction value, in one vmapped call; and the
    derivative of the combined stiffness w.r.t. the ball's stiffness, in closed form."""
    plant, ctx, g_ball, g_ground, _ = scene
    mus = jnp.linspace(0.2, 0.9, 5)

    def combined_mu(mu):
        c = plant.SetContactParameters(ctx, static_friction=mu, dynamic_friction=mu)
        return plant.CalcPointContacts(c).mu[0]

    np.testing.assert_allclose(jax.jit(jax.vmap(combined_mu))(mus), mus, rtol=0, atol=TOL)
    k_ground = float(plant.GetContactParameters(ctx, g_ground)["point_contact_stiffness"])

    def combined_k(k):
        c = plant.SetContactParameters(ctx, g_ball, point_contact_stiffness=k)
        return plant.CalcPointContacts(c).k[0]

    k = 3e5
    want = (k_ground / (k + k_ground)) ** 2  # d/dk of k kg / (k + kg)
    assert abs(float(jax.grad(combined_k)(k)) - want) < 1e-10


def test_bad_input_names_the_problem(scene):
    plant, ctx, g_ball, _, _ = scene
    with pytest.raises(TypeError, match="unknown parameter.*'friction'"):
        plant.SetContactParameters(ctx, g_ball, friction=0.5)
    with pytest.raises(ValueError, match=r"dynamic_friction must be a scalar or have shape \(1,\)"):
        plant.SetContactParameters(ctx, g_ball, dynamic_friction=[0.1, 0.2])
    with pytest.raises(ValueError, match="static_friction must be finite and >= 0"):
        plant.SetContactParameters(ctx, g_ball, static_friction=-0.1)
    with pytest.raises(ValueError, match="relaxation_time must be finite"):
        plant.SetContactParameters(ctx, g_ball, relaxation_time=np.inf)
    with pytest.raises(ValueError, match="is not the id of a collision geometry"):
        plant.SetContactParameters(ctx, jb.GeometryId(12345), dynamic_friction=0.1)
    with pytest.raises(ValueError, match="dynamic friction exceeds static friction"):
        plant.SetContactParameters(ctx, g_ball, dynamic_friction=0.9)  # static stays 0.5
    with pytest.raises(ValueError, match="listed more than once"):
        plant.SetContactParameters(ctx, [g_ball, g_ball], dynamic_friction=0.1)
    c = plant.SetContactParameters(ctx, g_ball, point_contact_stiffness=np.inf)  # rigid: allowed
    assert np.isinf(float(plant.GetContactParameters(c, g_ball)["point_contact_stiffness"]))
    bare = jb.MultibodyPlant(0.001)
    bare.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    bare.Finalize()
    with pytest.raises(ValueError, match="has no collision geometry"):
        bare.SetContactParameters(bare.CreateDefaultContext(), dynamic_friction=0.1)
