"""Continuous-time contact scenes (penalty point contact), built identically in jaxbody and
pydrake through `contact_scenes.build` with ``dt = 0``, and simulated by both with the same
fixed-step scheme (Heun's RK2, Drake's ``RungeKutta2Integrator``; quaternions integrated
unprojected, as Drake does).

- ``ball_bouncing``: a ball released above the ground moving sideways: it bounces, slides, rolls.
- ``box_sliding``: a box on four corner spheres, at its static penetration, pushed to V0.
- ``quadruped_falling``: `contact_scenes.quadruped_falling` with Hunt-Crossley dissipation.

`SCENES` maps each name to (scene builder, duration, fixed step).
"""

from __future__ import annotations

import numpy as np

from benchmarks import contact_scenes as cs

CHECK_EVERY = 0.05  # s between the compared states
MU, V0 = 0.5, 1.0
V_S = 0.01  # stiction tolerance (m/s): the sticking regime stays well inside RK2's stability
BOX = dict(mass=2.0, size=(0.3, 0.2, 0.1), corner=0.01, k=2e5, d=5.0)


def ball_bouncing():
    """A 0.1 m, 1 kg ball released 5 cm above the ground at 1 m/s sideways, spinning about
    its vertical axis: it bounces (Hunt-Crossley d = 2 s/m), slides, then rolls."""
    ball = cs.FreeBody("ball", 1.0, (0.004,) * 3, (0.0, 0.0, 0.15), V_WB=(0, 0, 3.0, V0, 0, 0))
    geoms = [cs.Geom("world", ("halfspace",), k=1e5, mu=MU, d=2.0),
             cs.Geom("ball", ("sphere", 0.1), k=1e5, mu=MU, d=2.0)]
    return cs.Scene([ball], geoms, dt=0.0, stiction_tolerance=V_S)


def box_rest_height():
    """Center height of the box resting on its corner spheres: each carries mg/4 at the
    combined stiffness k/2."""
    m, lz, r, k = BOX["mass"], BOX["size"][2], BOX["corner"], BOX["k"]
    return lz / 2 + r - m * 9.81 / 4 / (k / 2)


def box_sliding():
    """The box resting on its four corner spheres, pushed to V0 along x: it slides to rest."""
    m, (lx, ly, lz) = BOX["mass"], BOX["size"]
    inertia = tuple(m / 12 * (b * b + c * c) for b, c in ((ly, lz), (lx, lz), (lx, ly)))
    box = cs.FreeBody("box", m, inertia, (0.0, 0.0, box_rest_height()),
                      V_WB=(0, 0, 0, V0, 0, 0))
    geoms = [cs.Geom("world", ("halfspace",), k=BOX["k"], mu=MU, d=BOX["d"])]
    for x in (-lx / 2, lx / 2):
        for y in (-ly / 2, ly / 2):
            geoms.append(cs.Geom("box", ("sphere", BOX["corner"]), p_BG=(x, y, -lz / 2),
                                 k=BOX["k"], mu=MU, d=BOX["d"]))
    return cs.Scene([box], geoms, dt=0.0, stiction_tolerance=V_S)


def quadruped_falling():
    """The benchmark quadruped, PD-held, rolled and pitched, dropped 1 cm onto the ground."""
    scene = cs.quadruped_falling()
    geoms = [cs.Geom(g.body, g.shape, g.p_BG, g.rpy, k=1e5, mu=MU, d=1.0) for g in scene.geoms]
    return cs.Scene([], geoms, quadruped=True, base_p=scene.base_p, base_rpy=scene.base_rpy,
                    dt=0.0, stiction_tolerance=V_S)


# name: (scene, duration, step). The quadruped's light calves make its sticking feet stiff
# (μ fₙ/(v_s m) ≈ 1.5e4 /s): at 1e-4 s RK2 is near its stability limit there and both engines'
# rounding differences grow to 1e-2; at 2.5e-5 s they stay at 1e-12.
SCENES = {"ball_bouncing": (ball_bouncing, 0.5, 1e-4), "box_sliding": (box_sliding, 0.4, 1e-4),
          "quadruped_falling": (quadruped_falling, 0.2, 2.5e-5)}


def drake_states(scene, t_final, h):
    """(n, nq + nv) Drake's states every CHECK_EVERY s (RK2 at fixed step h), and x0."""
    from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator

    plant, diagram = cs.build(scene, "drake")
    q0, v0 = cs.initial_state(scene, plant, "drake")
    sim = Simulator(diagram)
    pctx = plant.GetMyMutableContextFromRoot(sim.get_mutable_context())
    plant.SetPositions(pctx, q0)
    plant.SetVelocities(pctx, v0)
    ResetIntegratorFromFlags(sim, "runge_kutta2", h)
    sim.Initialize()
    out = []
    for k in range(1, int(round(t_final / CHECK_EVERY)) + 1):
        sim.AdvanceTo(k * CHECK_EVERY)
        out.append(np.concatenate([plant.GetPositions(pctx), plant.GetVelocities(pctx)]))
    return np.asarray(out), np.concatenate([q0, v0])


def jaxbody_plant_and_context(scene, dtype=None):
    """(plant, context at the scene's initial state) of jaxbody."""
    import jax.numpy as jnp

    plant, _ = cs.build(scene, "jaxbody")
    q0, v0 = cs.initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext(dtype or jnp.float64)
    return plant, plant.SetVelocities(plant.SetPositions(ctx, jnp.asarray(q0)), jnp.asarray(v0))


def jaxbody_states(scene, t_final, h):
    """((n, nq + nv) jaxbody's states every CHECK_EVERY s (`rollout`, "rk2", unprojected),
    plant)."""
    import jax.numpy as jnp

    import jaxbody as jb

    plant, ctx = jaxbody_plant_and_context(scene)
    n = int(round(t_final / h))
    controller, params, _ = cs.jaxbody_rollout_inputs(scene, plant, n, jnp.float64)
    r = jb.rollout(plant, ctx, controller, n, h, params=params, integrator="rk2",
                   project_quaternions=False)
    every = int(round(CHECK_EVERY / h))
    return np.asarray(r.states[every::every]), plant
