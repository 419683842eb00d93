"""Constraint scenes built by the same calls in jaxbody and pydrake (discrete SAP plants), and
stepped in both: `build(scene_fn, engine)`, `drake_velocities`, `jaxbody_velocities`.

jaxbody's contact query is set to Drake's one point per pair. A scene function ``f(plant, M)`` adds bodies, joints, geometry and constraints with the
engine's classes under one namespace ``M`` and returns (q0-setter, inputs): a function
``init(plant, ctx, M)`` that sets the initial state through the engine's API, and a dict with
optional constant ``u`` (actuation) and ``xd`` (PD desired state)."""

from __future__ import annotations

import types

import jax.numpy as jnp
import numpy as np

import jaxbody as jb


def namespace(engine):
    if engine == "jaxbody":
        return types.SimpleNamespace(**{k: getattr(jb, k) for k in dir(jb) if k[0].isupper()})
    from pydrake import geometry as dg
    from pydrake import math as dm
    from pydrake.multibody import math as dmm
    from pydrake.multibody import plant as dp
    from pydrake.multibody import tree as dt

    ns = types.SimpleNamespace()
    for mod in (dg, dm, dmm, dp, dt):
        for k in dir(mod):
            if k[0].isupper() and not hasattr(ns, k):
                setattr(ns, k, getattr(mod, k))
    return ns


def build(scene_fn, engine, dt):
    """(plant, diagram or None, init, inputs)."""
    M = namespace(engine)
    if engine == "jaxbody":
        plant, builder = jb.MultibodyPlant(time_step=dt), None
    else:
        from pydrake.multibody.plant import AddMultibodyPlantSceneGraph, DiscreteContactApproximation
        from pydrake.systems.framework import DiagramBuilder

        builder = DiagramBuilder()
        plant, _ = AddMultibodyPlantSceneGraph(builder, dt)
        plant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
    init, inputs = scene_fn(plant, M)
    if engine == "jaxbody":  # Drake's point contact: one point per pair, every pair
        from jaxbody.geometry.collision import ContactQueryOptions

        plant.set_contact_query_options(ContactQueryOptions(single_point=True,
                                                            max_pairs_per_group=None))
    plant.Finalize()
    return plant, None if builder is None else builder.Build(), init, inputs


def add_geometry(plant, M, body, shape, X=None, k=1e5, tau=0.01, mu=0.5, name=None):
    props = M.ProximityProperties()
    M.AddContactMaterial(dissipation=0.0, point_stiffness=k,
                         friction=M.CoulombFriction(mu, mu), properties=props)
    props.AddProperty("material", "relaxation_time", tau)
    X = M.RigidTransform() if X is None else X
    name = name or f"{body.name()}_{len(getattr(plant, '_scene_geoms', []))}"
    plant._scene_geoms = getattr(plant, "_scene_geoms", []) + [name]
    return plant.RegisterCollisionGeometry(body, X, shape, name, props)


def sphere_body(plant, M, name, m=0.5, r=0.05):
    return plant.AddRigidBody(name, M.SpatialInertia.SolidSphereWithMass(m, r))


def box_body(plant, M, name, m, lx, ly, lz):
    return plant.AddRigidBody(name, M.SpatialInertia.SolidBoxWithMass(m, lx, ly, lz))


def set_free(plant, ctx, M, name, p, rpy=(0, 0, 0), V=(0, 0, 0, 0, 0, 0)):
    """Sets a free body's pose and spatial velocity ([w; v] in World); returns the context."""
    body = plant.GetBodyByName(name)
    X = M.RigidTransform(M.RollPitchYaw(list(rpy)), list(p))
    Vs = M.SpatialVelocity(np.asarray(V[:3], float), np.asarray(V[3:], float))
    if isinstance(plant, jb.MultibodyPlant):
        ctx = plant.SetFreeBodyPose(ctx, body, X)
        return plant.SetFreeBodySpatialVelocity(ctx, body, Vs)
    plant.SetFreeBodyPose(ctx, body, X)
    plant.SetFreeBodySpatialVelocity(ctx, body, Vs)
    return ctx


def initial_state(plant, engine, init):
    M = namespace(engine)
    ctx = plant.CreateDefaultContext()
    ctx = init(plant, ctx, M)
    if engine == "jaxbody":
        return np.asarray(ctx.q), np.asarray(ctx.v)
    return plant.GetPositions(ctx).copy(), plant.GetVelocities(ctx).copy()


def drake_simulator(scene_fn, dt):
    """(plant, simulator, plant context, q0, v0, inputs): Drake's scene at its initial state
    with its inputs fixed (the actuation, and the desired state when the scene has one)."""
    from pydrake.systems.analysis import Simulator

    plant, diagram, init, inputs = build(scene_fn, "drake", dt)
    q0, v0 = initial_state(plant, "drake", init)
    sim = Simulator(diagram)
    ctx = plant.GetMyMutableContextFromRoot(sim.get_mutable_context())
    plant.SetPositions(ctx, q0)
    plant.SetVelocities(ctx, v0)
    if plant.num_actuators():
        plant.get_actuation_input_port().FixValue(
            ctx, np.asarray(inputs.get("u", np.zeros(plant.num_actuators())), float))
    if "xd" in inputs:
        plant.get_desired_state_input_port(plant.GetModelInstanceByName(
            "DefaultModelInstance")).FixValue(ctx, np.asarray(inputs["xd"], float))
    sim.Initialize()
    return plant, sim, ctx, q0, v0, inputs


def drake_velocities(scene_fn, dt, steps):
    """((steps, nv) Drake's v after each step, q0, v0)."""
    plant, sim, ctx, q0, v0, _ = drake_simulator(scene_fn, dt)
    out = []
    for k in range(steps):
        sim.AdvanceTo((k + 1) * dt)
        out.append(plant.GetVelocities(ctx).copy())
    return np.asarray(out), q0, v0


def jaxbody_rollout(scene_fn, dt, steps, q0=None, v0=None, **kwargs):
    """(plant, `DiscreteRolloutResult`) from (q0, v0) (default: the scene's initial state)."""
    plant, _, init, inputs = build(scene_fn, "jaxbody", dt)
    if q0 is None:
        q0, v0 = initial_state(plant, "jaxbody", init)
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    controls = None
    if "u" in inputs:
        controls = jnp.broadcast_to(jnp.asarray(inputs["u"], float), (steps, plant.num_actuators()))
    r = jb.discrete_rollout(plant, ctx, num_steps=steps, controls=controls,
                            desired_states=inputs.get("xd"), **kwargs)
    return plant, r


def compare(scene_fn, dt=2e-3, steps=200):
    """(max error relative to the largest speed, jaxbody v, Drake v, rollout, plant)."""
    vd, q0, v0 = drake_velocities(scene_fn, dt, steps)
    plant, r = jaxbody_rollout(scene_fn, dt, steps, q0, v0)
    vj = np.asarray(r.states[1:, plant.num_positions():])
    err = np.abs(vj - vd).max() / np.abs(vd).max()
    return err, vj, vd, r, plant
