"""Quadruped standing and walking: a legged robot from its own model file (example-robot-data's
Unitree Go1 by default) dropped onto the ground must land and stand, or walk forward at a target
speed, through SAP contact, with Drake's implicit PD controllers on its 12 joints.

The plant: the URDF as ``jaxbody simulate --hold`` loads it (`jaxbody.cli.models.load_model`):
a ground half-space, PD gains Kp = 20 N·m/rad per kg of robot and Kd = Kp/20 s on every actuator,
the SRDF's "standing" group state as the nominal posture q₀, time step ``TIME_STEP``,
``n_frames`` steps per action. Contact: Drake's one point per pair, the feet against the ground.

Action (12,) in [-1, 1] (clipped): the joints' position targets q_d = q₀ + ``ACTION_SCALE`` · a
(rad), v_d = 0, in actuator order.

Observation (34,): the trunk's height above the ground; gravity's direction in the trunk frame
(3); the trunk's linear and angular velocity in the trunk frame (3 + 3); the joints' positions
minus q₀ (12) and their velocities (12), in actuator order.

Reward per step: ``upright · height · (1 + posture) / 2 - ACTION_COST · |a|²/12``, with
upright = max(0, z_B · z_W) (the trunk's z-axis against the world's), height =
exp(-((z - z₀)/``HEIGHT_SCALE``)²) around the standing height z₀, posture =
exp(-|q_joints - q₀|²/``POSTURE_SCALE``). Standing still at q₀ earns 1 per step.
Walking (``target_speed`` v* given, m/s): ``upright · height · (tracking + posture) / 2 -
ACTION_COST · |a|²/12``, with tracking = exp(-((v_fwd - v*)² + v_lat²)/``VELOCITY_SCALE``), the
trunk's horizontal velocity in its heading frame (the trunk's yaw alone): v_fwd along its x-axis,
v_lat across. ``metrics["forward_speed"]`` is v_fwd (m/s) in both tasks.

Reset: the standing posture with each joint perturbed uniformly by ±``JOINT_NOISE`` rad, the
trunk lifted by ``DROP_LOW``..``DROP_HIGH`` m above its standing height and tilted by up to
±``TILT`` rad about x and y. The episode ends when the trunk falls below half its standing
height or tilts beyond 60°.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np

import jaxbody as jb
from jaxbody.cli.models import example_robot_data, load_model
from jaxbody.envs.base import State
from jaxbody.envs.plant_env import PlantEnv
from jaxbody.math.so3 import quaternion_multiply, quaternion_to_rotation

TIME_STEP = 0.004          # s
ACTION_SCALE = 0.3         # rad per unit action
ACTION_COST = 0.01
HEIGHT_SCALE = 0.05        # m
POSTURE_SCALE = 0.5        # rad²
VELOCITY_SCALE = 0.1       # (m/s)²
JOINT_NOISE = 0.1          # rad
DROP_LOW, DROP_HIGH = 0.01, 0.05  # m
TILT = 0.1                 # rad
_FALLEN_UPRIGHT = 0.5      # cos 60°

ROBOTS = {"go1": ("go1_description", "urdf", "go1.urdf"),
          "a1": ("a1_description", "urdf", "a1.urdf")}


def quadruped_model_path(robot: str = "go1") -> str:
    """The URDF of ``robot`` ("go1" or "a1") in the installed example-robot-data wheel."""
    if robot not in ROBOTS:
        raise ValueError(f"Quadruped: unknown robot {robot!r}; known: {sorted(ROBOTS)} (or pass "
                         "model_path)")
    share = example_robot_data()
    if share is None:
        raise ValueError("Quadruped: example-robot-data is not installed (pip install "
                         "example-robot-data), or pass model_path")
    return os.path.join(share, "robots", *ROBOTS[robot])


class Quadruped(PlantEnv):
    """The standing task (module docstring).

    Args:
        robot: "go1" or "a1" (example-robot-data); or ``model_path``: a legged robot's URDF
            whose SRDF (in ``../srdf/``) has a "standing" group state.
        n_frames: ``TIME_STEP`` plant steps per action (default 5: a 0.02 s control step).
        target_speed: None (default) for the standing task; a forward speed v* (m/s) for the
            walking task (its reward in the module docstring).
    """

    def __init__(self, robot: str = "go1", *, model_path: str | None = None, n_frames: int = 5,
                 target_speed: float | None = None):
        speed_ok = target_speed is None or (
            isinstance(target_speed, (int, float, np.floating))
            and not isinstance(target_speed, bool) and bool(np.isfinite(target_speed)))
        if not speed_ok:
            raise ValueError(f"Quadruped: target_speed must be a finite number (m/s) or None, "
                             f"got {target_speed!r}")
        self.target_speed = None if target_speed is None else float(target_speed)
        path = model_path or quadruped_model_path(robot)
        loaded = load_model(path, time_step=TIME_STEP, ground=True, hold=True)
        plant = loaded.plant
        super().__init__(plant, n_frames=n_frames)
        bases = sorted(int(b) for b in plant.GetFloatingBaseBodies())
        if len(bases) != 1:
            raise ValueError(f"Quadruped: {os.path.basename(path)} must have one floating base, "
                             f"has {len(bases)}")
        base = plant.get_body(jb.BodyIndex(bases[0]))
        joint = [plant.get_joint(jb.JointIndex(i)) for i in range(plant.num_joints())
                 if plant.get_joint(jb.JointIndex(i)).child_body().index() == base.index()][0]
        self._base_q, self._base_v = joint.position_start(), joint.velocity_start()
        acts = [plant.get_joint_actuator(jb.JointActuatorIndex(i))
                for i in range(plant.num_actuators())]
        self._jq = np.array([a.joint().position_start() for a in acts])
        self._jv = np.array([a.joint().velocity_start() for a in acts])
        q0 = np.asarray(loaded.context.q)
        self._q_stand = q0[self._jq]
        self._z_stand = float(q0[self._base_q + 6])
        self._q0 = q0
        self.model_name = loaded.name

    @property
    def action_size(self) -> int:
        return len(self._jq)

    @property
    def standing_height(self) -> float:
        """The trunk's height z₀ (m) in the standing posture, resting on the ground."""
        return self._z_stand

    def reset(self, rng: jax.Array) -> State:
        dtype = self._default_context.q.dtype
        k_joint, k_drop, k_tilt = jax.random.split(rng, 3)
        q = jnp.asarray(self._q0, dtype)
        q = q.at[self._jq].add(jax.random.uniform(k_joint, (len(self._jq),), dtype,
                                                  -JOINT_NOISE, JOINT_NOISE))
        q = q.at[self._base_q + 6].add(jax.random.uniform(k_drop, (), dtype, DROP_LOW,
                                                          DROP_HIGH))
        half = jax.random.uniform(k_tilt, (2,), dtype, -TILT, TILT) / 2
        zero = jnp.zeros((), dtype)
        roll = jnp.stack([jnp.cos(half[0]), jnp.sin(half[0]), zero, zero])
        pitch = jnp.stack([jnp.cos(half[1]), zero, jnp.sin(half[1]), zero])
        q = q.at[self._base_q:self._base_q + 4].set(quaternion_multiply(roll, pitch))
        ctx = self.pipeline_init(q, jnp.zeros(self.plant.num_velocities(), dtype))
        metrics = {"height": q[self._base_q + 6], "upright": self._upright(ctx),
                   "forward_speed": zero, "invalid_action": zero}
        return State(ctx, self._observe(ctx), zero, zero, metrics, {})

    def step(self, state: State, action: jax.Array) -> State:
        action, ok = self.check_action(action)
        a = jnp.clip(action, -1.0, 1.0)
        target = jnp.asarray(self._q_stand, a.dtype) + ACTION_SCALE * a
        ctx = self.pipeline_step(state.pipeline_state,
                                 desired_state=jnp.concatenate([target, jnp.zeros_like(target)]))
        reward, (z, upright, forward) = self.reward(ctx, a)
        fallen = (z < 0.5 * self._z_stand) | (upright < _FALLEN_UPRIGHT)
        new = state.replace(pipeline_state=ctx, obs=self._observe(ctx), reward=reward,
                            done=fallen.astype(reward.dtype),
                            metrics={**state.metrics, "height": z, "upright": upright,
                                     "forward_speed": forward})
        return self.guard(state, ok, new)

    def reward(self, ctx, a) -> tuple[jax.Array, tuple[jax.Array, jax.Array, jax.Array]]:
        """The task's reward (module docstring) for the context ``ctx`` reached under the
        clipped action ``a``; and (trunk height z, upright, forward speed v_fwd)."""
        z = ctx.q[self._base_q + 6]
        upright = self._upright(ctx)
        height = jnp.exp(-((z - self._z_stand) / HEIGHT_SCALE) ** 2)
        posture = jnp.exp(-jnp.sum((ctx.q[self._jq] - self._q_stand) ** 2) / POSTURE_SCALE)
        R = self._R_WB(ctx)
        heading = R[:2, 0] / jnp.maximum(jnp.linalg.norm(R[:2, 0]), 1e-9)  # the trunk's x, level
        v_xy = ctx.v[self._base_v + 3:self._base_v + 5]
        forward = heading @ v_xy
        lateral = heading[0] * v_xy[1] - heading[1] * v_xy[0]
        if self.target_speed is None:
            gain = (1.0 + posture) / 2.0
        else:
            tracking = jnp.exp(-((forward - self.target_speed) ** 2 + lateral ** 2)
                               / VELOCITY_SCALE)
            gain = (tracking + posture) / 2.0
        reward = jnp.maximum(upright, 0.0) * height * gain \
            - ACTION_COST * jnp.sum(a ** 2) / a.shape[0]
        return reward, (z, upright, forward)

    def _R_WB(self, ctx):
        return quaternion_to_rotation(ctx.q[self._base_q:self._base_q + 4])

    def _upright(self, ctx):
        return self._R_WB(ctx)[2, 2]

    def _observe(self, ctx) -> jax.Array:
        R = self._R_WB(ctx)
        w_W = ctx.v[self._base_v:self._base_v + 3]
        v_W = ctx.v[self._base_v + 3:self._base_v + 6]
        return jnp.concatenate([ctx.q[self._base_q + 6][None], -R[2, :], R.T @ v_W, R.T @ w_W,
                                ctx.q[self._jq] - self._q_stand, ctx.v[self._jv]])
