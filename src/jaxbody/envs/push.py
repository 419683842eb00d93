"""Push: a spherical finger pushes a box across the floor to a goal, through SAP contact.

The plant: a 0.5 kg box (0.2 × 0.2 × 0.1 m) free on a floor half-space, and a 0.2 kg sphere
(radius 0.04 m) carried at the box's mid-height by two prismatic joints (x, then y), each
driven by an actuator with Drake's implicit PD controller (p = ``KP`` N/m, d = ``KD`` N·s/m;
effort limit ``MAX_FORCE`` N). Every geometry: point stiffness 1e5 N/m, relaxation time
0.02 s, μ = 0.4; multi-point contact (``ContactQueryOptions(single_point=False)``), so the box
slides on its face's four corners (Drake's one point per pair would rock it on one). Time step
0.01 s, ``n_frames`` steps per action.

Action (2,) in [-1, 1] (clipped): the finger's position target moves ``REACH`` m per unit
from where the finger is: q_d = finger_xy + REACH · a, v_d = 0.

Observation (14,): finger x, y and their velocities; the box's x, y, its planar velocity,
cos and sin of its yaw; the goal minus the box (x, y); the box minus the finger (x, y).

Reward per step: -‖box_xy - goal‖ - ``REACH_WEIGHT`` · max(0, ‖box_xy - finger_xy‖ -
``REACH_SLACK``): get the box to the goal, and stay near the box while doing it.
``metrics["distance"]`` is ‖box_xy - goal‖ (m).

Reset: box at the origin, resting; finger touching the box's -x face, its y offset uniform in
±``FINGER_NOISE`` m; goal uniform in ``GOAL_LOW``..``GOAL_HIGH`` (m). Never terminates.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import jaxbody as jb
from jaxbody.envs.base import State
from jaxbody.envs.plant_env import PlantEnv
from jaxbody.geometry.collision import ContactQueryOptions

KP, KD = 200.0, 20.0             # the finger's PD gains (N/m, N·s/m)
MAX_FORCE = 20.0                 # the finger actuators' effort limit (N)
REACH = 0.05                     # target offset per unit action (m)
REACH_WEIGHT, REACH_SLACK = 0.5, 0.1
FINGER_NOISE = 0.03              # reset: finger y offset (m)
GOAL_LOW, GOAL_HIGH = (0.15, -0.1), (0.3, 0.1)
_FINGER_X0 = -0.145              # the finger's x when touching the box's -x face (m)


def push_plant(time_step: float = 0.01):
    """The push `MultibodyPlant` (finalized): free body "box", joints "x", "y" of the finger,
    actuators "ax", "ay" with PD gains."""
    plant = jb.MultibodyPlant(time_step)
    plant.set_contact_query_options(ContactQueryOptions(single_point=False))

    def material():
        p = jb.ProximityProperties()
        jb.AddContactMaterial(point_stiffness=1e5, friction=jb.CoulombFriction(0.4, 0.4),
                              properties=p)
        p.AddProperty("material", "relaxation_time", 0.02)
        return p

    box = plant.AddRigidBody("box", jb.SpatialInertia.SolidBoxWithMass(0.5, 0.2, 0.2, 0.1))
    plant.RegisterCollisionGeometry(box, jb.RigidTransform(), jb.Box(0.2, 0.2, 0.1), "box",
                                    material())
    plant.RegisterVisualGeometry(box, jb.RigidTransform(), jb.Box(0.2, 0.2, 0.1), "box",
                                 [0.85, 0.55, 0.2, 1.0])
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                    "floor", material())
    carriage = plant.AddRigidBody("carriage", jb.SpatialInertia.SolidSphereWithMass(0.1, 0.01))
    finger = plant.AddRigidBody("finger", jb.SpatialInertia.SolidSphereWithMass(0.2, 0.04))
    rail = plant.AddFrame(jb.FixedOffsetFrame("rail", plant.world_frame(),
                                              jb.RigidTransform([0.0, 0.0, 0.05])))
    jx = plant.AddJoint(jb.PrismaticJoint("x", rail, carriage.body_frame(), [1.0, 0.0, 0.0]))
    jy = plant.AddJoint(jb.PrismaticJoint("y", carriage.body_frame(), finger.body_frame(),
                                          [0.0, 1.0, 0.0]))
    for name, joint in (("ax", jx), ("ay", jy)):
        plant.AddJointActuator(name, joint, MAX_FORCE).set_controller_gains(
            jb.PdControllerGains(KP, KD))
    plant.RegisterCollisionGeometry(finger, jb.RigidTransform(), jb.Sphere(0.04), "finger",
                                    material())
    plant.RegisterVisualGeometry(finger, jb.RigidTransform(), jb.Sphere(0.04), "finger",
                                 [0.2, 0.4, 0.9, 1.0])
    plant.Finalize()
    return plant


class Push(PlantEnv):
    """The push task (module docstring).

    Args:
        n_frames: 0.01 s plant steps per action (default 2: a 0.02 s control step).
    """

    def __init__(self, n_frames: int = 2):
        plant = push_plant()
        super().__init__(plant, n_frames=n_frames)
        box = plant.GetJointByName("box")
        self._box_q = box.position_start() + 4          # x, y, z after the quaternion
        self._box_v = box.velocity_start() + 3          # vx, vy, vz after ω
        jx, jy = plant.GetJointByName("x"), plant.GetJointByName("y")
        self._fq = np.array([jx.position_start(), jy.position_start()])
        self._fv = np.array([jx.velocity_start(), jy.velocity_start()])
        ctx = plant.SetFreeBodyPose(self._default_context, plant.GetBodyByName("box"),
                                    jb.RigidTransform([0.0, 0.0, 0.05]))
        self._q0 = np.asarray(ctx.q).copy()
        self._q0[self._fq[0]] = _FINGER_X0

    @property
    def action_size(self) -> int:
        return 2

    def reset(self, rng: jax.Array) -> State:
        dtype = self._default_context.q.dtype
        k_finger, k_goal = jax.random.split(rng)
        q = jnp.asarray(self._q0, dtype).at[self._fq[1]].set(
            jax.random.uniform(k_finger, (), dtype, -FINGER_NOISE, FINGER_NOISE))
        ctx = self.pipeline_init(q, jnp.zeros(self.plant.num_velocities(), dtype))
        goal = jax.random.uniform(k_goal, (2,), dtype, jnp.asarray(GOAL_LOW, dtype),
                                  jnp.asarray(GOAL_HIGH, dtype))
        zero = jnp.zeros((), dtype)
        metrics = {"distance": jnp.linalg.norm(self._box_xy(ctx) - goal),
                   "invalid_action": zero}
        return State(ctx, self._observe(ctx, goal), zero, zero, metrics, {"goal": goal})

    def step(self, state: State, action: jax.Array) -> State:
        action, ok = self.check_action(action)
        ctx = state.pipeline_state
        target = ctx.q[self._fq] + REACH * jnp.clip(action, -1.0, 1.0)
        desired = jnp.concatenate([target, jnp.zeros_like(target)])
        ctx = self.pipeline_step(ctx, desired_state=desired)
        goal = state.info["goal"]
        box, finger = self._box_xy(ctx), ctx.q[self._fq]
        distance = jnp.linalg.norm(box - goal)
        reward = -distance - REACH_WEIGHT * jnp.maximum(
            0.0, jnp.linalg.norm(box - finger) - REACH_SLACK)
        new = state.replace(pipeline_state=ctx, obs=self._observe(ctx, goal), reward=reward,
                            done=jnp.zeros_like(reward),
                            metrics={**state.metrics, "distance": distance})
        return self.guard(state, ok, new)

    def _box_xy(self, ctx):
        return ctx.q[self._box_q:self._box_q + 2]

    def _observe(self, ctx, goal) -> jax.Array:
        qw, qz = ctx.q[self._box_q - 4], ctx.q[self._box_q - 1]  # yaw of a box lying flat
        yaw = 2.0 * jnp.arctan2(qz, qw)
        box, finger = self._box_xy(ctx), ctx.q[self._fq]
        return jnp.concatenate([finger, ctx.v[self._fv], box,
                                ctx.v[self._box_v:self._box_v + 2],
                                jnp.stack([jnp.cos(yaw), jnp.sin(yaw)]), goal - box,
                                box - finger])
