"""Long runs (slow tests, run in CI): 100 000 SAP steps of a box resting on the ground and of a
three-box stack (no drift, every solve converged, nothing non-finite), and 100 000 RK4 steps of a
conservative double pendulum (energy drift measured and bounded)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from benchmarks.contact_scenes import FreeBody, Geom, Scene, build, initial_state
from tests.helpers.models import double_pendulum

STEPS = 100_000
SETTLE = 2_000  # steps for the contacts to reach their compliant equilibrium
DRIFT_TOL = 1e-6  # m, over the remaining steps
H = 0.1  # box edge (m)


def _boxes(n):
    """n boxes of edge H stacked on the ground, each resting 0.1 mm into the one below."""
    m = 1.0
    inertia = (m * H * H / 6,) * 3
    bodies = [FreeBody(f"box{i}", m, inertia, (0.0, 0.0, H / 2 - 1e-4 + i * (H - 1e-4)))
              for i in range(n)]
    geoms = [Geom(b.name, ("box", H, H, H)) for b in bodies] + [Geom("world", ("halfspace",))]
    return Scene(bodies, geoms, single_point=False)  # face manifolds: one point per pair rocks


def _run(plant, ctx, steps):
    r = jb.discrete_rollout(plant, ctx, num_steps=steps, save_trajectory=False)
    return r, ctx.replace(q=r.final_state[:plant.num_positions()],
                          v=r.final_state[plant.num_positions():], time=r.times[-1])


def _poses(plant, scene, ctx):
    out = []
    for b in scene.bodies:
        X = plant.EvalBodyPoseInWorld(ctx, plant.GetBodyByName(b.name))
        out.append((np.asarray(X.translation()), np.asarray(X.rotation().matrix())))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("num_boxes", [1, 3])
def test_boxes_rest_for_100k_steps(num_boxes):
    scene = _boxes(num_boxes)
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    r, ctx = _run(plant, ctx, SETTLE)
    assert np.all(np.asarray(r.converged) == 1.0) and int(r.first_nonfinite_step) == -1
    settled = _poses(plant, scene, ctx)
    r, ctx = _run(plant, ctx, STEPS - SETTLE)
    assert int(r.first_nonfinite_step) == -1
    assert np.all(np.asarray(r.converged) == 1.0)
    assert not np.any(np.asarray(r.contact_overflow))
    for b, (p0, R0), (p1, R1) in zip(scene.bodies, settled, _poses(plant, scene, ctx)):
        # every box stays where it settled, upright, on top of the one below
        assert np.abs(p1 - p0).max() < DRIFT_TOL, (b.name, p1 - p0)
        assert np.abs(R1 - R0).max() < DRIFT_TOL, (b.name, R1 - R0)
        assert abs(p1[2] - b.p_WB[2]) < 1e-3
    assert np.abs(np.asarray(ctx.v)).max() < 1e-6


@pytest.mark.slow
def test_double_pendulum_energy_over_100k_rk4_steps():
    """RK4 at δt = 1 ms on a conservative double pendulum (no damping): the energy error of a
    fourth-order method grows at most linearly; over 100 s it stays below 1e-8 of the energy
    scale m g L = 25 J (measured: 6.5e-10 J after 100 s and at most 3.2e-9 J along the way,
    with E = −7.9 J)."""
    plant, _, _ = double_pendulum(l1=1.0, l2=0.7, m1=1.0, m2=0.5)
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(),
                                                 jnp.array([1.2, -0.5])), jnp.array([0.3, -0.8]))

    def energy(x):
        c = ctx.replace(q=x[:2], v=x[2:])
        return plant.CalcKineticEnergy(c) + plant.CalcPotentialEnergy(c)

    r = jb.rollout(plant, ctx, num_steps=STEPS, dt=1e-3, save_trajectory=False)
    assert int(r.first_nonfinite_step) == -1
    x0 = jnp.concatenate([ctx.q, ctx.v])
    e0, e1 = float(jax.jit(energy)(x0)), float(jax.jit(energy)(r.final_state))
    scale = 1.5 * 9.81 * 1.7  # m g L: the potential energy's range
    assert abs(e1 - e0) < 1e-8 * scale, (e0, e1)
