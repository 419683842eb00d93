"""The engines of `benchmarks/rollout.py`: jaxbody, Drake (double and AutoDiffXd), MuJoCo, MJX.

Every engine takes and returns states in the jaxbody/Drake layout x = [q; v]. MuJoCo's model
is written as MJCF from the same `models.ModelSpec` (contact disabled, no damping or armature,
RK4); its free joint has ``qpos = [p; quat_wxyz]`` and ``qvel = [v_WBo_W; w_WB_B]``, converted
here by joint name.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks import models


# ---- jaxbody --------------------------------------------------------------------------------
class JaxbodyEngine:
    def __init__(self, engines):
        import jaxbody as jb

        self.jb = jb
        self.plant, self.bodies = engines.jaxbody
        self.context = self.plant.CreateDefaultContext()

    def _final(self, steps, dt):
        plant, ctx0, jb = self.plant, self.context, self.jb

        def f(q, v):
            c = plant.SetVelocities(plant.SetPositions(ctx0, q), v)
            return jb.rollout(plant, c, None, steps, dt, save_trajectory=False).final_state

        return f

    def final_states(self, q, v, steps, dt):
        import jax

        return np.asarray(jax.jit(jax.vmap(self._final(steps, dt)))(q, v))

    def compiled_rollout(self, q, v, steps, dt):
        import jax
        import jax.numpy as jnp

        qj, vj = jnp.asarray(q), jnp.asarray(v)
        return _compile(jax.jit(jax.vmap(self._final(steps, dt))), qj, vj)

    def compiled_mass_grad(self, q, v, steps, dt, adjoint=True):
        import dataclasses

        import jax
        import jax.numpy as jnp

        plant, jb = self.plant, self.jb
        ctx = plant.SetVelocities(plant.SetPositions(self.context, jnp.asarray(q)), jnp.asarray(v))
        idx = np.array([int(b.index()) for b in self.bodies])

        def loss(link_masses):
            mass = ctx.parameters.mass.at[idx].set(link_masses)
            c = ctx.replace(parameters=dataclasses.replace(ctx.parameters, mass=mass))
            x = jb.rollout(plant, c, None, steps, dt, save_trajectory=False,
                           adjoint=adjoint).final_state
            return jnp.sum(x**2)

        m0 = ctx.parameters.mass[idx]
        call, comp = _compile(jax.jit(jax.grad(loss)), m0)
        return call, comp, np.asarray(call())


def _compile(fn, *args):
    import jax

    t0 = time.perf_counter()
    lowered = fn.lower(*args)
    t1 = time.perf_counter()
    compiled = lowered.compile()
    t2 = time.perf_counter()
    jax.block_until_ready(compiled(*args))
    return (lambda: jax.block_until_ready(compiled(*args))), {"lower_s": t1 - t0,
                                                               "compile_s": t2 - t1}


# ---- Drake ----------------------------------------------------------------------------------
class DrakeEngine:
    """Simulator with Drake's RK3 in fixed-step mode (pydrake has no fixed-step RK4)."""

    scheme = "runge_kutta3"

    def __init__(self, engines):
        from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator

        self.engines = engines
        self.plant, self.bodies = engines.drake
        self.sim = Simulator(self.plant)
        self._reset = ResetIntegratorFromFlags
        self._dt = None

    def final_state(self, q, v, steps, dt):
        if self._dt != dt:
            integ = self._reset(self.sim, self.scheme, dt)
            integ.set_fixed_step_mode(True)
            self._dt = dt
        ctx = self.sim.get_mutable_context()
        ctx.SetTime(0.0)
        self.plant.SetPositions(ctx, q)
        self.plant.SetVelocities(ctx, v)
        self.sim.Initialize()
        self.sim.AdvanceTo(steps * dt)
        return self.plant.GetPositionsAndVelocities(ctx).copy()

    def autodiff_mass_grad(self, q, v, steps, dt):
        """∂|x_N|²/∂m by AutoDiffXd, RK4 written out over CalcTimeDerivatives (Python loop).

        Returns (gradient (num_links,), seconds for one evaluation)."""
        from pydrake.autodiffutils import AutoDiffXd

        plant = self.plant.ToAutoDiffXd()
        ctx = plant.CreateDefaultContext()
        n = len(self.bodies)
        t0 = time.perf_counter()
        for i, b in enumerate(self.bodies):
            d = np.zeros(n)
            d[i] = 1.0
            plant.get_body(b.index()).SetMass(ctx, AutoDiffXd(b.default_mass(), d))
        x = np.array([AutoDiffXd(float(s), np.zeros(n)) for s in np.concatenate([q, v])])
        deriv = plant.AllocateTimeDerivatives()

        def f(x):
            plant.SetPositionsAndVelocities(ctx, x)
            plant.CalcTimeDerivatives(ctx, deriv)
            return deriv.CopyToVector()

        for _ in range(steps):
            k1 = f(x)
            k2 = f(x + 0.5 * dt * k1)
            k3 = f(x + 0.5 * dt * k2)
            k4 = f(x + dt * k3)
            x = x + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
            x = _normalize_quaternions_ad(self.engines, x)
        loss = sum(xi * xi for xi in x)
        elapsed = time.perf_counter() - t0
        return np.asarray(loss.derivatives()), elapsed


def _normalize_quaternions_ad(engines, x):
    from pydrake.math import sqrt

    for s in models._free_q_starts(engines):
        x[s:s + 4] = x[s:s + 4] / sqrt(sum(x[s + k] * x[s + k] for k in range(4)))
    return x


# ---- MuJoCo ---------------------------------------------------------------------------------
def mjcf(spec, dt):
    """MJCF text of a `models.ModelSpec`: the same bodies, frames, inertias and joint axes."""
    children = {}
    for i, b in enumerate(spec.bodies):
        children.setdefault(b.parent, []).append(i)

    def quat(R):
        from pydrake.math import RotationMatrix

        qt = RotationMatrix(np.asarray(R)).ToQuaternion()
        return f"{qt.w():.17g} {qt.x():.17g} {qt.y():.17g} {qt.z():.17g}"

    def body(i, indent):
        b = spec.bodies[i]
        p = " ".join(f"{c:.17g}" for c in b.p_PJ)
        out = [f'{indent}<body name="{b.name}" pos="{p}" quat="{quat(b.R_PJ)}">']
        if b.joint == "free":
            out.append(f'{indent}  <freejoint name="{b.name}"/>')
        else:
            kind = "hinge" if b.joint == "revolute" else "slide"
            ax = " ".join(f"{c:.17g}" for c in b.axis)
            out.append(f'{indent}  <joint name="{b.name}" type="{kind}" axis="{ax}"/>')
        I = b.I_com
        full = " ".join(f"{c:.17g}" for c in (I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]))
        com = " ".join(f"{c:.17g}" for c in b.com)
        out.append(f'{indent}  <inertial pos="{com}" mass="{b.mass:.17g}" fullinertia="{full}"/>')
        for c in children.get(i, []):
            out += body(c, indent + "  ")
        out.append(f"{indent}</body>")
        return out

    lines = [f'<mujoco model="{spec.name}">', '  <compiler angle="radian"/>',
             f'  <option timestep="{dt}" integrator="RK4" gravity="0 0 -9.81">',
             '    <flag contact="disable"/>', "  </option>", "  <worldbody>"]
    for i in children.get(-1, []):
        lines += body(i, "    ")
    lines += ["  </worldbody>", "</mujoco>"]
    return "\n".join(lines)


class MujocoEngine:
    def __init__(self, engines, dt=1e-3):
        import mujoco

        self.mj = mujoco
        self.engines = engines
        self.model = mujoco.MjModel.from_xml_string(mjcf(engines.spec, dt))
        self.data = mujoco.MjData(self.model)
        self.spec_state = mujoco.mjtState.mjSTATE_FULLPHYSICS
        self.nstate = mujoco.mj_stateSize(self.model, self.spec_state)
        pd = engines.drake[0]
        self.joints = []  # (kind, our q start, our v start, mj qpos adr, mj dof adr)
        for b in engines.spec.bodies:
            jid = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, b.name)
            dj = pd.GetJointByName(b.name)
            self.joints.append((b.joint, dj.position_start(), dj.velocity_start(),
                                self.model.jnt_qposadr[jid], self.model.jnt_dofadr[jid]))

    def to_mujoco(self, q, v):
        qm, vm = np.zeros(self.model.nq), np.zeros(self.model.nv)
        for kind, qs, vs, qa, da in self.joints:
            if kind == "free":
                qm[qa:qa + 3], qm[qa + 3:qa + 7] = q[qs + 4:qs + 7], q[qs:qs + 4]
                R_WB = models.quat_to_rotation(q[qs:qs + 4])
                vm[da:da + 3], vm[da + 3:da + 6] = v[vs + 3:vs + 6], R_WB.T @ v[vs:vs + 3]
            else:
                qm[qa], vm[da] = q[qs], v[vs]
        return qm, vm

    def from_mujoco(self, qm, vm):
        nq, nv = self.engines.nq, self.engines.nv
        q, v = np.zeros(nq), np.zeros(nv)
        for kind, qs, vs, qa, da in self.joints:
            if kind == "free":
                q[qs + 4:qs + 7], q[qs:qs + 4] = qm[qa:qa + 3], qm[qa + 3:qa + 7]
                R_WB = models.quat_to_rotation(q[qs:qs + 4])
                v[vs + 3:vs + 6], v[vs:vs + 3] = vm[da:da + 3], R_WB @ vm[da + 3:da + 6]
            else:
                q[qs], v[vs] = qm[qa], vm[da]
        return np.concatenate([q, v])

    def _states(self, q, v):
        mj, m, d = self.mj, self.model, self.data
        out = np.zeros((len(q), self.nstate))
        for i in range(len(q)):
            mj.mj_resetData(m, d)
            d.qpos[:], d.qvel[:] = self.to_mujoco(q[i], v[i])
            mj.mj_getState(m, d, out[i], self.spec_state)
        return out

    def rollout_call(self, q, v, steps, dt):
        from mujoco import rollout

        self.model.opt.timestep = dt
        states = self._states(q, v)
        buf = np.zeros((len(q), steps, self.nstate))
        return lambda: rollout.rollout(self.model, self.data, states, nstep=steps, state=buf)

    def final_states(self, q, v, steps, dt):
        from mujoco import rollout

        self.model.opt.timestep = dt
        st, _ = rollout.rollout(self.model, self.data, self._states(q, v), nstep=steps)
        nq, nv = self.model.nq, self.model.nv
        last = st[:, -1]
        return np.stack([self.from_mujoco(s[1:1 + nq], s[1 + nq:1 + nq + nv]) for s in last])


class MjxGrad:
    """∂|x_N|²/∂m with MJX: ``jax.grad`` through ``mjx.step`` (RK4) in a ``lax.scan``; the
    rotational inertias scale with the masses, as Drake's and jaxbody's ``SetMass``."""

    def __init__(self, mj_engine):
        self.e = mj_engine

    def compiled(self, q, v, steps, dt):
        import jax
        import jax.numpy as jnp
        from mujoco import mjx

        e = self.e
        e.model.opt.timestep = dt
        mx = mjx.put_model(e.model)
        qm, vm = e.to_mujoco(q, v)
        bid = np.array([e.mj.mj_name2id(e.model, e.mj.mjtObj.mjOBJ_BODY, b.name)
                        for b in e.engines.spec.bodies])
        m0 = jnp.asarray(e.model.body_mass[bid])
        I0 = jnp.asarray(e.model.body_inertia[bid])

        def loss(masses):
            m = mx.replace(body_mass=mx.body_mass.at[bid].set(masses),
                           body_inertia=mx.body_inertia.at[bid].set(I0 * (masses / m0)[:, None]))
            d = mjx.make_data(m).replace(qpos=jnp.asarray(qm), qvel=jnp.asarray(vm))
            d, _ = jax.lax.scan(lambda d, _: (mjx.step(m, d), None), d, None, length=steps)
            return jnp.sum(d.qpos**2) + jnp.sum(d.qvel**2)

        call, comp = _compile(jax.jit(jax.grad(loss)), m0)
        return call, comp, np.asarray(call())
