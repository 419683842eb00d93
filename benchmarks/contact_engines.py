"""The engines of `benchmarks/contact.py` on one `contact_scenes.Scene`: jaxbody (discrete SAP
rollouts), Drake (SAP, `Simulator`), MuJoCo C (`mujoco.rollout`, one thread) and MJX on CPU.

Every engine takes initial states in the jaxbody/Drake layout (q, v); jaxbody and Drake share it
(checked: their default states are equal). MuJoCo's model is MJCF written from the same scene:
the same masses, inertias, radii, box sizes, poses, friction μ and time step, MuJoCo's default
(soft) contact and solver settings, Euler integrator; the quadruped's PD law is a ``general``
actuator per joint (``kp·(ctrl − q) − kd·q̇``, ctrl = 0). Its free joints have
``qpos = [p; quat_wxyz]`` and ``qvel = [v_WBo_W; w_WB_B]``, converted by joint name.
"""

from __future__ import annotations

import faulthandler
import json
import os
import statistics
import threading
import time

import numpy as np

from benchmarks import contact_scenes as cs


def _compile(fn, *args, eager_constants=False):
    """(call, {lower_s, compile_s}, first result); the first call is the warm-up.

    ``eager_constants``: trace under ``jax.ensure_compile_time_eval()`` (see
    `JaxbodyContact.compiled`).
    """
    import contextlib

    import jax

    t0 = time.perf_counter()
    with jax.ensure_compile_time_eval() if eager_constants else contextlib.nullcontext():
        lowered = fn.lower(*args)
    t1 = time.perf_counter()
    compiled = lowered.compile()
    t2 = time.perf_counter()
    first = jax.block_until_ready(compiled(*args))
    return (lambda: jax.block_until_ready(compiled(*args))), {"lower_s": t1 - t0,
                                                               "compile_s": t2 - t1}, first


# ---- timing and process helpers -----------------------------------------------------------
def timed(call, repeats):
    """Wall-time statistics of ``repeats`` calls (the caller has warmed ``call`` up)."""
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return {"run_median_s": statistics.median(walls), "run_min_s": min(walls),
            "repeats": repeats, "cpu_per_wall": sum(cpus) / sum(walls)}


def watchdog(stall_s, status):
    """Exits with ``status`` once the process used < 1 s of CPU over ``stall_s`` s of wall time."""
    def loop():
        c0, w0 = time.process_time(), time.monotonic()
        while True:
            time.sleep(5)
            c, w = time.process_time(), time.monotonic()
            if c - c0 >= 1.0:
                c0, w0 = c, w
            elif w - w0 > stall_s:
                print(f"# WEDGED: no CPU used for {w - w0:.0f} s (XLA:CPU thread pool); exiting",
                      flush=True)
                faulthandler.dump_traceback(all_threads=True)
                os._exit(status)

    threading.Thread(target=loop, daemon=True).start()


def read_part(path):
    """(info, {(engine, batch): row}) of a scene's JSON-lines part file (see contact.py)."""
    info, done = None, {}
    if path.exists():
        for line in path.read_text().splitlines():
            kind, value = json.loads(line)
            if kind == "info":
                info = value
            else:
                done[value["engine"], value["batch"]] = value
    return info, done


def perturbed_states(scene, plant, batch, rng):
    """(q (batch, nq), v (batch, nv)): row 0 is the scene's state; the others move every free
    body by ≤ 1 mm sideways and 0..1 mm up, every revolute joint by ≤ 0.01 rad, and every
    velocity by ≤ 0.01 (uniform). ``plant``: the Drake (or jaxbody) plant of the scene."""
    q0, v0 = cs.initial_state(scene, plant, "drake" if _is_drake(plant) else "jaxbody")
    q = np.tile(q0, (batch, 1))
    v = np.tile(v0, (batch, 1)) + rng.uniform(-0.01, 0.01, (batch, len(v0)))
    for kind, qs, _ in joint_layout(scene, plant):
        if kind == "free":
            q[:, qs + 4:qs + 6] += rng.uniform(-1e-3, 1e-3, (batch, 2))
            q[:, qs + 6] += rng.uniform(0.0, 1e-3, batch)
        else:
            q[:, qs] += rng.uniform(-0.01, 0.01, batch)
    q[0], v[0] = q0, v0
    return q, v


def _is_drake(plant):
    return type(plant).__module__.startswith("pydrake")


def joint_layout(scene, plant):
    """[(kind, q start, v start)] of the scene's joints, named as in the MJCF."""
    return [(kind, plant.GetJointByName(name).position_start(),
             plant.GetJointByName(name).velocity_start()) for kind, name in _joints(scene)]


def _joints(scene):
    out = [("free", b.name) for b in scene.bodies]
    if scene.quadruped:
        from benchmarks.models import quadruped

        out += [("free" if b.joint == "free" else "hinge", b.name) for b in quadruped().bodies]
    if scene.arm:
        raise NotImplementedError("contact benchmark: arm scenes have no MJCF yet")
    return out


# ---- jaxbody --------------------------------------------------------------------------------
class JaxbodyContact:
    def __init__(self, scene, dtype="float64", plant=None, chunk=None, cg_forcing="exact"):
        import jax.numpy as jnp

        import jaxbody as jb

        self.jb, self.scene, self.dtype = jb, scene, getattr(jnp, dtype)
        self.chunk = chunk  # batched: lax.map over vmapped chunks of this many envs (None: one vmap)
        # SapSolverParameters.cg_forcing (matters only where the solve uses conjugate gradients)
        self.solver_parameters = jb.SapSolverParameters(cg_forcing=cg_forcing)
        self.plant = cs.build(scene, "jaxbody")[0] if plant is None else plant
        self.context = self.plant.CreateDefaultContext(self.dtype)

    def _final(self, steps):
        import jax.numpy as jnp

        plant, ctx0, jb, dtype = self.plant, self.context, self.jb, self.dtype
        controller, params, controls = cs.jaxbody_rollout_inputs(self.scene, plant, steps, dtype)

        def f(q, v):
            c = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
            r = jb.discrete_rollout(plant, c, controller, steps, params=params, controls=controls,
                                    save_trajectory=False,
                                    solver_parameters=self.solver_parameters)
            return r.final_state, jnp.max(r.iterations), jnp.min(r.converged)

        return f

    def compiled(self, q, v, steps):
        """q, v (nq,), (nv,): one scene, ``jax.jit``; (B, nq), (B, nv): ``jax.jit(jax.vmap)``, or
        with ``chunk``, ``lax.map`` over vmapped chunks of ``chunk`` envs. Returns (call, compile
        times, (final states, max SAP iterations, min converged))."""
        import jax
        import jax.numpy as jnp

        f = self._final(steps)
        if np.ndim(q) == 1:
            fn = jax.jit(f)
        elif self.chunk:
            fn = jax.jit(lambda q, v: jax.lax.map(lambda a: f(*a), (q, v), batch_size=self.chunk))
        else:
            fn = jax.jit(jax.vmap(f))
        args = jnp.asarray(q, self.dtype), jnp.asarray(v, self.dtype)
        try:
            call, comp, out = _compile(fn, *args)
        except (ValueError, jax.errors.TracerArrayConversionError) as e:
            # Workaround for a jaxbody bug: when jit compares the plant (a static argument of
            # the inner jit) with a cached equal plant while tracing, MultibodyPlant.__eq__
            # builds its contact key with jnp, gets tracers and raises. Tracing with constant
            # computations evaluated eagerly avoids it (lowering is ~3x slower).
            if "TracerArrayConversionError" not in repr(e) + repr(e.__cause__):
                raise
            call, comp, out = _compile(fn, *args, eager_constants=True)
            comp["eager_constants_workaround"] = True
        return call, comp, tuple(np.asarray(o) for o in out)


# ---- Drake ----------------------------------------------------------------------------------
class DrakeContact:
    def __init__(self, scene):
        from pydrake.systems.analysis import Simulator

        self.scene = scene
        self.plant, self.diagram = cs.build(scene, "drake")
        self.sim = Simulator(self.diagram)
        self.root = self.sim.get_mutable_context()
        self.ctx = self.plant.GetMyMutableContextFromRoot(self.root)
        if self.plant.num_actuators() and not scene.quadruped:
            self.plant.get_actuation_input_port().FixValue(self.ctx, np.asarray(scene.arm_u))

    def final_state(self, q, v, steps):
        self.root.SetTime(0.0)
        self.plant.SetPositions(self.ctx, q)
        self.plant.SetVelocities(self.ctx, v)
        self.sim.Initialize()
        self.sim.AdvanceTo(steps * self.scene.dt)
        return self.plant.GetPositionsAndVelocities(self.ctx).copy()


# ---- MuJoCo ---------------------------------------------------------------------------------
def _f(x):
    return " ".join(f"{float(c):.17g}" for c in np.ravel(x))


def _quat(R):
    """[w, x, y, z] of a rotation matrix (Shepperd)."""
    R = np.asarray(R, float)
    w = np.sqrt(max(0.0, 1 + np.trace(R))) / 2
    x = np.copysign(np.sqrt(max(0.0, 1 + R[0, 0] - R[1, 1] - R[2, 2])) / 2, R[2, 1] - R[1, 2])
    y = np.copysign(np.sqrt(max(0.0, 1 - R[0, 0] + R[1, 1] - R[2, 2])) / 2, R[0, 2] - R[2, 0])
    z = np.copysign(np.sqrt(max(0.0, 1 - R[0, 0] - R[1, 1] + R[2, 2])) / 2, R[1, 0] - R[0, 1])
    return np.array([w, x, y, z])


def _rpy(rpy):
    r, p, y = rpy
    Rx = np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
    Ry = np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]])
    Rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def _geom_xml(g, i):
    kind = g.shape[0]
    if kind == "halfspace":
        spec = 'type="plane" size="0 0 1"'
    elif kind == "sphere":
        spec = f'type="sphere" size="{g.shape[1]:.17g}"'
    else:
        spec = f'type="box" size="{_f(np.asarray(g.shape[1:]) / 2)}"'
    return (f'<geom name="g{i}" {spec} pos="{_f(g.p_BG)}" quat="{_f(_quat(_rpy(g.rpy)))}" '
            f'friction="{g.mu:.17g} 0.005 0.0001"/>')


def mjcf(scene):
    """MJCF text of a scene (see the module docstring)."""
    geoms = {}
    for i, g in enumerate(scene.geoms):
        geoms.setdefault(g.body, []).append(_geom_xml(g, i))
    lines = ['<mujoco model="contact_scene">', '  <compiler angle="radian"/>',
             f'  <option timestep="{scene.dt}" gravity="0 0 -9.81"/>', "  <worldbody>"]
    lines += [f"    {x}" for x in geoms.get("world", [])]
    for b in scene.bodies:
        lines += [f'    <body name="{b.name}" pos="{_f(b.p_WB)}" quat="{_f(_quat(_rpy(b.rpy)))}">',
                  f'      <freejoint name="{b.name}"/>',
                  f'      <inertial pos="0 0 0" mass="{b.mass:.17g}" diaginertia="{_f(b.inertia)}"/>']
        lines += [f"      {x}" for x in geoms.get(b.name, [])] + ["    </body>"]
    actuators = []
    if scene.quadruped:
        from benchmarks.models import quadruped

        spec = quadruped()
        children = {}
        for i, b in enumerate(spec.bodies):
            children.setdefault(b.parent, []).append(i)

        def body(i, indent):
            b = spec.bodies[i]
            p, R = (scene.base_p, _rpy(scene.base_rpy)) if b.joint == "free" else (b.p_PJ, b.R_PJ)
            out = [f'{indent}<body name="{b.name}" pos="{_f(p)}" quat="{_f(_quat(R))}">']
            if b.joint == "free":
                out.append(f'{indent}  <freejoint name="{b.name}"/>')
            else:
                out.append(f'{indent}  <joint name="{b.name}" type="hinge" axis="{_f(b.axis)}"/>')
                actuators.append(f'    <general joint="{b.name}" gainprm="{scene.kp}" '
                                 f'biastype="affine" biasprm="0 {-scene.kp} {-scene.kd}"/>')
            I = b.I_com
            out.append(f'{indent}  <inertial pos="{_f(b.com)}" mass="{b.mass:.17g}" fullinertia='
                       f'"{_f([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])}"/>')
            out += [f"{indent}  {x}" for x in geoms.get(b.name, [])]
            for c in children.get(i, []):
                out += body(c, indent + "  ")
            return out + [f"{indent}</body>"]

        for i in children[-1]:
            lines += body(i, "    ")
    lines.append("  </worldbody>")
    if actuators:
        lines += ["  <actuator>"] + actuators + ["  </actuator>"]
    return "\n".join(lines + ["</mujoco>"])


class MujocoContact:
    def __init__(self, scene, plant):
        """``plant``: the scene's Drake (or jaxbody) plant, for the q/v layout."""
        import mujoco

        joints = [(kind, name, qs, vs) for (kind, name), (_, qs, vs)
                  in zip(_joints(scene), joint_layout(scene, plant))]
        self._attach(mujoco.MjModel.from_xml_string(mjcf(scene)), joints)

    @classmethod
    def of_model(cls, model, joints):
        """The engine of a compiled ``MjModel`` whose joints are ``joints``: [(kind ("free" or
        one-dof), MuJoCo joint name, our q start, our v start)], every joint of the model."""
        if len(joints) != model.njnt:
            raise ValueError(f"MuJoCo model has {model.njnt} joints, the layout {len(joints)}")
        self = cls.__new__(cls)
        self._attach(model, joints)
        return self

    def _attach(self, model, joints):
        import mujoco

        self.mj, self.model = mujoco, model
        self.data = mujoco.MjData(self.model)
        self.spec_state = mujoco.mjtState.mjSTATE_FULLPHYSICS
        self.nstate = mujoco.mj_stateSize(self.model, self.spec_state)
        self.joints = []  # (kind, our q start, our v start, mj qpos adr, mj dof adr)
        for kind, name, qs, vs in joints:
            jid = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, name)
            if jid < 0:
                raise ValueError(f"MuJoCo model has no joint named {name!r}")
            self.joints.append((kind, qs, vs, self.model.jnt_qposadr[jid],
                                self.model.jnt_dofadr[jid]))

    def to_mujoco(self, q, v):
        """(B, nq), (B, nv) in our layout -> MuJoCo's qpos (B, nq), qvel (B, nv)."""
        q, v = np.atleast_2d(q), np.atleast_2d(v)
        qm, vm = np.zeros((len(q), self.model.nq)), np.zeros((len(q), self.model.nv))
        for kind, qs, vs, qa, da in self.joints:
            if kind == "free":
                qm[:, qa:qa + 3], qm[:, qa + 3:qa + 7] = q[:, qs + 4:qs + 7], q[:, qs:qs + 4]
                R_WB = _quat_to_rotation(q[:, qs:qs + 4])
                vm[:, da:da + 3] = v[:, vs + 3:vs + 6]
                vm[:, da + 3:da + 6] = np.einsum("bji,bj->bi", R_WB, v[:, vs:vs + 3])
            else:
                qm[:, qa], vm[:, da] = q[:, qs], v[:, vs]
        return qm, vm

    def states(self, q, v):
        mj, m, d = self.mj, self.model, self.data
        qm, vm = self.to_mujoco(q, v)
        out = np.zeros((len(qm), self.nstate))
        for i in range(len(qm)):
            mj.mj_resetData(m, d)
            d.qpos[:], d.qvel[:] = qm[i], vm[i]
            mj.mj_getState(m, d, out[i], self.spec_state)
        return out

    def rollout_call(self, q, v, steps):
        from mujoco import rollout

        states = self.states(q, v)
        buf = np.zeros((len(states), steps, self.nstate))
        return lambda: rollout.rollout(self.model, self.data, states, nstep=steps, state=buf)


def _quat_to_rotation(quat):
    from benchmarks.models import quat_to_rotation

    return quat_to_rotation(quat)


class MjxContact:
    """``jax.jit(jax.vmap(rollout))``, rollout = ``mjx.step`` in a ``lax.scan`` (MJX on CPU)."""

    def __init__(self, mujoco_engine, dtype="float64"):
        self.e, self.dtype = mujoco_engine, dtype

    def compiled(self, q, v, steps):
        import jax
        import jax.numpy as jnp
        from mujoco import mjx

        dt = getattr(jnp, self.dtype)
        cast = lambda x: x.astype(dt) if jnp.issubdtype(x.dtype, jnp.floating) else x  # noqa: E731
        m = mjx.put_model(self.e.model)
        m = jax.tree_util.tree_map(lambda x: cast(x) if isinstance(x, jax.Array) else x, m)
        d0 = mjx.make_data(m)
        d0 = jax.tree_util.tree_map(lambda x: cast(x) if isinstance(x, jax.Array) else x, d0)

        def roll(qpos, qvel):
            d = d0.replace(qpos=qpos, qvel=qvel)
            d, _ = jax.lax.scan(lambda d, _: (mjx.step(m, d), None), d, None, length=steps)
            return d.qpos, d.qvel

        qm, vm = self.e.to_mujoco(q, v)
        return _compile(jax.jit(jax.vmap(roll)), jnp.asarray(qm, dt), jnp.asarray(vm, dt))
