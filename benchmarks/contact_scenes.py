"""Contact scenes built identically in jaxbody and pydrake (discrete, SAP), and stepped in both.

A scene is plain data: free bodies (mass, central principal inertia, initial pose and spatial
velocity), optionally the benchmark 7-dof arm or the benchmark quadruped (free trunk, joints held
by a PD controller u = D x + y0 evaluated at the start of each step), and collision geometries
with Drake's contact material (point stiffness k, relaxation time τ, friction μ).
`build(scene, engine)` makes the plant; `drake_velocities` / `jaxbody_velocities` step it and
return v after every step. `SCENES` names the benchmark scenes of `benchmarks/contact.py`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

DT = 1e-3


@dataclasses.dataclass
class FreeBody:
    name: str
    mass: float
    inertia: tuple  # central principal moments (kg·m²)
    p_WB: tuple
    rpy: tuple = (0.0, 0.0, 0.0)
    V_WB: tuple = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)  # [w; v] in World


@dataclasses.dataclass
class Geom:
    body: str  # "world" for anchored geometry
    shape: tuple  # ("sphere", r) | ("box", lx, ly, lz) | ("halfspace",) | ("cylinder", r, L) | ...
    p_BG: tuple = (0.0, 0.0, 0.0)
    rpy: tuple = (0.0, 0.0, 0.0)
    k: float = 1e5
    tau: float = 0.01
    mu: float = 0.5
    d: float = 0.0  # Hunt-Crossley dissipation (s/m): continuous plants only (SAP uses tau)
    # hydroelastic: ("compliant", resolution_hint, modulus) | ("rigid", resolution_hint or None)
    hydro: tuple | None = None


@dataclasses.dataclass
class Scene:
    bodies: list
    geoms: list
    arm: bool = False  # add the benchmark arm7 (welded base) with a sphere on its last link
    arm_q: tuple = (0.0, 0.6, 0.0, -1.2, 0.0, 0.5, 0.0)
    arm_v: tuple = (0.8, 0.3, 0.0, 0.4, 0.0, 0.0, 0.0)
    arm_u: tuple = (0.0,) * 7
    quadruped: bool = False  # add models.quadruped() (free trunk), joints PD-held at q = 0
    base_p: tuple = (0.0, 0.0, 0.6)  # quadruped trunk pose in World
    base_rpy: tuple = (0.0, 0.0, 0.0)
    kp: float = 150.0  # quadruped PD gains (N·m/rad, N·m·s/rad)
    kd: float = 3.0
    max_pairs_per_group: int | None = None  # jaxbody's query cap (None: every pair, as Drake)
    single_point: bool = True  # jaxbody: Drake's one point per pair; False: box manifolds
    dt: float = DT
    stiction_tolerance: float | None = None  # Stribeck v_s / kSimilar, kLagged ε (None: Drake's 1e-4 m/s)
    approximation: str = "kSap"  # discrete: "kSap", "kSimilar" or "kLagged"


def _mods(engine):
    if engine == "jaxbody":
        import jaxbody as jb

        return jb, jb, jb, jb
    from pydrake import geometry as dg
    from pydrake import math as dm
    from pydrake.multibody import plant as dp
    from pydrake.multibody import tree as dt

    return dt, dm, dp, dg


def _shape(g, shape):
    kind = shape[0]
    if kind == "sphere":
        return g.Sphere(shape[1])
    if kind == "box":
        return g.Box(*shape[1:])
    if kind == "halfspace":
        return g.HalfSpace()
    if kind == "cylinder":
        return g.Cylinder(*shape[1:])
    if kind == "capsule":
        return g.Capsule(*shape[1:])
    if kind == "ellipsoid":
        return g.Ellipsoid(*shape[1:])
    raise ValueError(kind)


def _add_arm(plant, tree, math):
    from benchmarks.models import arm7 as arm7_spec

    spec = arm7_spec()
    bodies = []
    for b in spec.bodies:
        c = b.com
        G = b.I_com / b.mass + (c @ c * np.eye(3) - np.outer(c, c))
        bodies.append(plant.AddRigidBody(b.name, tree.SpatialInertia(
            b.mass, b.com, tree.UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2]))))
    for b, body in zip(spec.bodies, bodies):
        P = plant.world_body() if b.parent < 0 else bodies[b.parent]
        J = plant.AddFrame(tree.FixedOffsetFrame(f"{b.name}_J", P.body_frame(), math.RigidTransform(
            math.RotationMatrix(b.R_PJ), b.p_PJ)))
        joint = plant.AddJoint(tree.RevoluteJoint(f"{b.name}_joint", J, body.body_frame(), b.axis))
        plant.AddJointActuator(f"{b.name}_act", joint)
    return bodies


def _add_quadruped(plant, tree, math):
    """models.quadruped() with an actuator on every revolute joint (the trunk is free)."""
    from benchmarks.models import _unit_inertia_about_Bo, quadruped

    spec = quadruped()
    bodies = []
    for b in spec.bodies:
        G = _unit_inertia_about_Bo(b)
        bodies.append(plant.AddRigidBody(b.name, tree.SpatialInertia(
            b.mass, b.com, tree.UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2]))))
    for b, body in zip(spec.bodies, bodies):
        if b.joint == "free":
            continue  # Finalize() adds the quaternion floating joint
        J = plant.AddFrame(tree.FixedOffsetFrame(f"{b.name}_J", bodies[b.parent].body_frame(),
                                                 math.RigidTransform(math.RotationMatrix(b.R_PJ),
                                                                     b.p_PJ)))
        joint = plant.AddJoint(tree.RevoluteJoint(b.name, J, body.body_frame(), b.axis))
        plant.AddJointActuator(f"{b.name}_act", joint)
    return bodies


def pd_controller(scene: Scene, plant):
    """(D, y0): the quadruped's PD law u = kp (0 − q_j) − kd v_j as u = D [q; v] + y0, in the
    plant's actuator order (the same layout in jaxbody and Drake)."""
    from benchmarks.models import quadruped

    nq, nv, nu = plant.num_positions(), plant.num_velocities(), plant.num_actuators()
    D, y0 = np.zeros((nu, nq + nv)), np.zeros(nu)
    for b in quadruped().bodies:
        if b.joint == "free":
            continue
        i = int(plant.GetJointActuatorByName(f"{b.name}_act").index())
        joint = plant.GetJointByName(b.name)
        D[i, joint.position_start()] = -scene.kp
        D[i, nq + joint.velocity_start()] = -scene.kd
    return D, y0


def build(scene: Scene, engine: str):
    """(plant, root object): the finalized plant (jaxbody) or (plant, diagram) (Drake); discrete
    (SAP) for ``scene.dt > 0``, continuous (penalty point contact) for ``scene.dt == 0``."""
    tree, math, plant_mod, g = _mods(engine)
    if engine == "jaxbody":
        plant = plant_mod.MultibodyPlant(scene.dt)
        diagram_builder = None
    else:
        from pydrake.systems.framework import DiagramBuilder

        diagram_builder = DiagramBuilder()
        plant, _ = plant_mod.AddMultibodyPlantSceneGraph(diagram_builder, scene.dt)
        if scene.dt > 0:
            plant.set_discrete_contact_approximation(
                getattr(plant_mod.DiscreteContactApproximation, scene.approximation))
    named = {"world": plant.world_body()}
    if scene.arm:
        for body in _add_arm(plant, tree, math):
            named[body.name()] = body
    if scene.quadruped:
        for body in _add_quadruped(plant, tree, math):
            named[body.name()] = body
    for b in scene.bodies:
        M = tree.SpatialInertia.MakeFromCentralInertia(b.mass, np.zeros(3),
                                                       tree.RotationalInertia(*b.inertia))
        named[b.name] = plant.AddRigidBody(b.name, M)
    for i, geo in enumerate(scene.geoms):
        props = g.ProximityProperties()
        g.AddContactMaterial(dissipation=geo.d, point_stiffness=geo.k,
                             friction=plant_mod.CoulombFriction(geo.mu, geo.mu), properties=props)
        props.AddProperty("material", "relaxation_time", geo.tau)
        if geo.hydro is not None:
            from benchmarks.hydro_scenes import add_hydroelastic_properties

            add_hydroelastic_properties(g, geo, props)
        X = math.RigidTransform(math.RollPitchYaw(list(geo.rpy)), list(geo.p_BG))
        plant.RegisterCollisionGeometry(named[geo.body], X, _shape(g, geo.shape), f"g{i}", props)
    if engine == "jaxbody":
        from jaxbody.geometry.collision import ContactQueryOptions

        plant.set_contact_query_options(ContactQueryOptions(
            single_point=scene.single_point, max_pairs_per_group=scene.max_pairs_per_group))
    if scene.stiction_tolerance is not None:
        plant.set_stiction_tolerance(scene.stiction_tolerance)
    if engine == "jaxbody" and scene.dt > 0:
        plant.set_discrete_contact_approximation(
            getattr(plant_mod.DiscreteContactApproximation, scene.approximation))
    plant.Finalize()
    if engine == "jaxbody":
        return plant, None
    if scene.quadruped:  # u = D x + y0 as a stateless C++ system: u_k = π(x_k), as jaxbody
        from pydrake.systems.primitives import AffineSystem

        D, y0 = pd_controller(scene, plant)
        nx, nu = D.shape[1], D.shape[0]
        pd = diagram_builder.AddSystem(AffineSystem(
            np.zeros((0, 0)), np.zeros((0, nx)), np.zeros(0), np.zeros((nu, 0)), D, y0, 0.0))
        diagram_builder.Connect(plant.get_state_output_port(), pd.get_input_port())
        diagram_builder.Connect(pd.get_output_port(), plant.get_actuation_input_port())
    return plant, diagram_builder.Build()


def initial_state(scene: Scene, plant, engine):
    """(q0, v0) in the plant's order, set through the free-body API of the engine."""
    tree, math, _, _ = _mods(engine)
    free = [(b.name, b.p_WB, b.rpy, b.V_WB) for b in scene.bodies]
    if scene.quadruped:
        free.append(("trunk", scene.base_p, scene.base_rpy, (0.0,) * 6))
    if engine == "jaxbody":
        ctx = plant.CreateDefaultContext()
        for name, p_WB, rpy, V_WB in free:
            body = plant.GetBodyByName(name)
            ctx = plant.SetFreeBodyPose(ctx, body, math.RigidTransform(
                math.RollPitchYaw(list(rpy)), list(p_WB)))
            ctx = plant.SetFreeBodySpatialVelocity(ctx, body, tree.SpatialVelocity(
                np.asarray(V_WB[:3]), np.asarray(V_WB[3:])))
        q, v = np.asarray(ctx.q), np.asarray(ctx.v)
    else:
        from pydrake.multibody.math import SpatialVelocity

        ctx = plant.CreateDefaultContext()
        for name, p_WB, rpy, V_WB in free:
            body = plant.GetBodyByName(name)
            plant.SetFreeBodyPose(ctx, body, math.RigidTransform(
                math.RollPitchYaw(list(rpy)), list(p_WB)))
            plant.SetFreeBodySpatialVelocity(ctx, body, SpatialVelocity(
                np.asarray(V_WB[:3]), np.asarray(V_WB[3:])))
        q, v = plant.GetPositions(ctx).copy(), plant.GetVelocities(ctx).copy()
    if scene.arm:
        arm_joints = [plant.GetJointByName(f"link{i + 1}_joint") for i in range(7)]
        for j, qa, va in zip(arm_joints, scene.arm_q, scene.arm_v):
            q[j.position_start()] = qa
            v[j.velocity_start()] = va
    return q, v


def drake_velocities(scene: Scene, num_steps: int):
    """(num_steps, nv) Drake's v after each step, and (nq,) q0, (nv,) v0."""
    from pydrake.systems.analysis import Simulator

    plant, diagram = build(scene, "drake")
    q0, v0 = initial_state(scene, plant, "drake")
    sim = Simulator(diagram)
    ctx = sim.get_mutable_context()
    pctx = plant.GetMyMutableContextFromRoot(ctx)
    plant.SetPositions(pctx, q0)
    plant.SetVelocities(pctx, v0)
    if plant.num_actuators() and not scene.quadruped:  # the quadruped's PD is connected
        plant.get_actuation_input_port().FixValue(pctx, np.asarray(scene.arm_u, float))
    sim.Initialize()
    out = []
    for k in range(num_steps):
        sim.AdvanceTo((k + 1) * scene.dt)
        out.append(plant.GetVelocities(pctx).copy())
    return np.asarray(out), q0, v0


def linear_policy(t, x, params):
    """u = D x + y0 with ``params = (D, y0)`` (module-level, so jaxbody traces it once)."""
    D, y0 = params
    return D @ x + y0


def jaxbody_rollout_inputs(scene: Scene, plant, num_steps, dtype=None):
    """(controller, params, controls) of `jaxbody.discrete_rollout` that drive the plant as
    `drake_velocities` does: the quadruped's PD law, or the arm's constant actuation;
    ``scene`` None: none (a limp model)."""
    import jax.numpy as jnp

    if scene is None:
        return None, None, None
    if scene.quadruped:
        D, y0 = pd_controller(scene, plant)
        return linear_policy, (jnp.asarray(D, dtype), jnp.asarray(y0, dtype)), None
    if plant.num_actuators():
        u = np.tile(np.asarray(scene.arm_u, float), (num_steps, 1))
        return None, None, jnp.asarray(u, dtype)
    return None, None, None


def jaxbody_velocities(scene: Scene, num_steps: int):
    """(num_steps, nv) jaxbody's v after each step, and (nq,) q0, (nv,) v0 (float64)."""
    import jax.numpy as jnp

    import jaxbody as jb

    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext(jnp.float64)
    ctx = plant.SetVelocities(plant.SetPositions(ctx, jnp.asarray(q0)), jnp.asarray(v0))
    controller, params, controls = jaxbody_rollout_inputs(scene, plant, num_steps, jnp.float64)
    r = jb.discrete_rollout(plant, ctx, controller, num_steps, params=params, controls=controls)
    return np.asarray(r.states[1:, plant.num_positions():]), q0, v0


# ---- the benchmark scenes -----------------------------------------------------------------------
RADIUS, MASS = 0.05, 0.5  # every benchmark sphere
_SPHERE_I = (0.4 * MASS * RADIUS**2,) * 3
REST = RADIUS - 5e-5  # center height of a sphere resting on z = 0 (≈ static penetration mg/k)


def _sphere(name, p, V=(0.0,) * 6):
    return FreeBody(name, MASS, _SPHERE_I, tuple(float(c) for c in p),
                    V_WB=tuple(float(c) for c in V))


def spheres_on_ground(n: int = 1) -> Scene:
    """n spheres (r = 5 cm, 0.5 kg) resting on a ground halfspace, sliding and spinning; with
    n > 1 they sit on a 4-wide grid 11 cm apart and move toward their neighbors, so that
    sphere-sphere contacts happen within a few tens of steps."""
    rng = np.random.default_rng(n)
    bodies, geoms = [], [Geom("world", ("halfspace",))]
    for i in range(n):
        r, c = divmod(i, 4)
        p = (0.11 * c, 0.11 * r, REST)
        w = rng.uniform(-3, 3, 3)
        v = np.r_[0.4 if n == 1 else 0.3 * (-1) ** c, 0.1 * (-1) ** r, 0.0]
        bodies.append(_sphere(f"s{i}", p, np.r_[w, v]))
        geoms.append(Geom(f"s{i}", ("sphere", RADIUS)))
    return Scene(bodies, geoms)


def spheres_in_box(n: int = 27) -> Scene:
    """n = m³ spheres stacked in an m×m×m lattice (5 mm gaps, 2 mm random lateral offsets so the
    stacks topple) inside a box: a floor halfspace and four 5 cm thick walls (boxes) welded to
    the world, inner faces 20 cm from the center."""
    m = round(n ** (1 / 3))
    if m**3 != n:
        raise ValueError(f"spheres_in_box: n must be a cube, got {n}")
    rng = np.random.default_rng(n)
    half, t, h = 0.2, 0.05, 0.6
    geoms = [Geom("world", ("halfspace",))]
    for axis in (0, 1):
        for s in (-1, 1):
            p = [0.0, 0.0, h / 2]
            p[axis] = s * (half + t / 2)
            size = (t, 2 * half + 2 * t, h) if axis == 0 else (2 * half + 2 * t, t, h)
            geoms.append(Geom("world", ("box", *size), p_BG=tuple(p)))
    bodies, k = [], 0
    for z in range(m):
        for y in range(m):
            for x in range(m):
                off = rng.uniform(-2e-3, 2e-3, 2) if z else np.zeros(2)
                p = (0.11 * (x - (m - 1) / 2) + off[0], 0.11 * (y - (m - 1) / 2) + off[1],
                     REST + 0.105 * z)
                bodies.append(_sphere(f"s{k}", p))
                geoms.append(Geom(f"s{k}", ("sphere", RADIUS)))
                k += 1
    return Scene(bodies, geoms)


def sphere_pile(n: int = 12) -> Scene:
    """n spheres dropped onto a ground halfspace (no walls) from a loose lattice m wide (m = 2
    for n ≤ 12, else ⌈√(n/4)⌉), 10.6 cm apart with ±3 mm random lateral offsets, the lowest
    layer 2 mm above the ground: they land, collide and spread into a pile."""
    rng = np.random.default_rng(1000 + n)
    m = 2 if n <= 12 else int(np.ceil(np.sqrt(n / 4)))
    bodies, geoms = [], [Geom("world", ("halfspace",))]
    for i in range(n):
        z, rest = divmod(i, m * m)
        y, x = divmod(rest, m)
        off = rng.uniform(-3e-3, 3e-3, 2)
        p = (0.106 * (x - (m - 1) / 2) + off[0], 0.106 * (y - (m - 1) / 2) + off[1],
             RADIUS + 2e-3 + 0.106 * z)
        bodies.append(_sphere(f"s{i}", p))
        geoms.append(Geom(f"s{i}", ("sphere", RADIUS)))
    return Scene(bodies, geoms)


FOOT_RADIUS = 0.03


def quadruped_standing() -> Scene:
    """models.quadruped() standing on a ground halfspace on four sphere feet (r = 3 cm) at the
    calves' ends, joints PD-held at q = 0, trunk dropped from 1 mm above touchdown."""
    from benchmarks.models import quadruped

    geoms = [Geom("world", ("halfspace",))]
    calf = {b.name: b for b in quadruped().bodies if b.name.endswith("_calf")}
    for name in calf:
        geoms.append(Geom(name, ("sphere", FOOT_RADIUS), p_BG=(0.0, 0.0, -0.3)))
    # foot height below the trunk at q = 0: thigh 0.3 + calf 0.3 cos(0.3) (calf pitched 0.3)
    z = 0.3 + 0.3 * np.cos(0.3) + FOOT_RADIUS + 1e-3
    return Scene([], geoms, quadruped=True, base_p=(0.0, 0.0, float(z)))


def quadruped_falling() -> Scene:
    """The standing quadruped dropped from 1 cm above touchdown, rolled 0.2 rad and pitched
    0.1 rad: its feet land one after the other and the PD-held legs catch it."""
    standing = quadruped_standing()
    x, y, z = standing.base_p
    return dataclasses.replace(standing, base_p=(x, y, z + 0.01), base_rpy=(0.2, 0.1, 0.0))


SCENES = {
    "sphere1": lambda: spheres_on_ground(1),
    "spheres8": lambda: spheres_on_ground(8),
    "pile12": lambda: sphere_pile(12),
    "spheres27_box": lambda: spheres_in_box(27),
    "pile100": lambda: sphere_pile(100),
    "quadruped": quadruped_standing,
    "quadruped_falling": quadruped_falling,
}
