"""Cart-pole: swing a pole up from hanging (or balance it) by pushing its cart along a rail.

The plant: a 1 kg cart on a prismatic joint along x, limited to ±``RAIL`` m (SAP limit
constraints stop it, as Drake's discrete plants do), and a 0.1 kg, 1 m pole (a thin rod,
its mass spread along it) on a revolute joint about y at the cart; θ = 0 is upright. One
actuator pushes the cart, at most ``MAX_FORCE`` N: the action a ∈ [-1, 1] (clipped) is the
force ``MAX_FORCE · a``. Time step 0.01 s, ``n_frames`` steps per action.

Observation (5,): [x, cos θ, sin θ, ẋ, θ̇].

Reward per step, in [0, 1] (the smooth reward of DeepMind's control suite, written out):
``upright · centered · small_control · small_velocity`` with upright = (1 + cos θ)/2,
centered = (1 + exp(-x²))/2, small_control = (4 + max(0, 1 - a²))/5 and small_velocity =
(1 + exp(-θ̇²/50))/2. Hanging still at the center earns 0; upright, centered, still and
unforced earns 1 per step.

Reset: swing-up starts hanging (θ = π) and balance starts upright, each with every
coordinate perturbed by ±``NOISE`` (uniform). Swing-up never terminates (the episode
length is the wrapper's); balance ends when |θ| > 0.2 rad or the cart reaches a rail end.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import jaxbody as jb
from jaxbody.envs.base import State
from jaxbody.envs.plant_env import PlantEnv

RAIL = 1.8          # half length of the rail (m)
MAX_FORCE = 10.0    # the actuator's force at |action| = 1 (N)
NOISE = 0.05        # reset perturbation of each coordinate (m, rad, m/s, rad/s)
BALANCE_ANGLE = 0.2  # balance ends beyond this pole angle (rad)


def cartpole_plant(time_step: float = 0.01):
    """The cart-pole `MultibodyPlant` (finalized): joints "slider" and "hinge", actuator
    "push"."""
    plant = jb.MultibodyPlant(time_step)
    cart = plant.AddRigidBody("cart", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.3, 0.2, 0.1))
    rod = jb.SpatialInertia.SolidCylinderWithMass(0.1, 0.01, 1.0, [0.0, 0.0, 1.0]).Shift(
        [0.0, 0.0, -0.5])  # about the hinge at its lower end
    pole = plant.AddRigidBody("pole", rod)
    slider = plant.AddJoint(jb.PrismaticJoint("slider", plant.world_frame(), cart.body_frame(),
                                              [1.0, 0.0, 0.0], pos_lower_limit=-RAIL,
                                              pos_upper_limit=RAIL))
    plant.AddJoint(jb.RevoluteJoint("hinge", cart.body_frame(), pole.body_frame(),
                                    [0.0, 1.0, 0.0]))
    plant.AddJointActuator("push", slider, MAX_FORCE)
    for body, shape, color in ((cart, jb.Box(0.3, 0.2, 0.1), [0.3, 0.3, 0.8, 1.0]),
                               (pole, jb.Cylinder(0.01, 1.0), [0.8, 0.5, 0.2, 1.0])):
        X = jb.RigidTransform([0.0, 0.0, 0.5]) if body is pole else jb.RigidTransform()
        plant.RegisterVisualGeometry(body, X, shape, body.name(), color)
    plant.Finalize()
    return plant


class CartPole(PlantEnv):
    """The cart-pole task (module docstring).

    Args:
        swing_up: start hanging and swing up (True), or start upright and balance (False).
        n_frames: 0.01 s plant steps per action (default 2: a 0.02 s control step).
    """

    def __init__(self, swing_up: bool = True, n_frames: int = 2):
        super().__init__(cartpole_plant(), n_frames=n_frames)
        self.swing_up = bool(swing_up)

    @property
    def action_size(self) -> int:
        return 1

    def reset(self, rng: jax.Array) -> State:
        dtype = self._default_context.q.dtype
        d = jax.random.uniform(rng, (4,), dtype, -NOISE, NOISE)
        theta0 = np.pi if self.swing_up else 0.0
        ctx = self.pipeline_init(jnp.stack([d[0], theta0 + d[1]]), d[2:])
        zero = jnp.zeros((), dtype)
        metrics = {"upright": zero, "invalid_action": zero}
        return State(ctx, self._observe(ctx), zero, zero, metrics, {})

    def step(self, state: State, action: jax.Array) -> State:
        action, ok = self.check_action(action)
        a = jnp.clip(action, -1.0, 1.0)
        ctx = self.pipeline_step(state.pipeline_state, MAX_FORCE * a)
        x, theta = ctx.q[0], ctx.q[1]
        upright = (1.0 + jnp.cos(theta)) / 2.0
        centered = (1.0 + jnp.exp(-x ** 2)) / 2.0
        small_control = (4.0 + jnp.maximum(0.0, 1.0 - a[0] ** 2)) / 5.0
        small_velocity = (1.0 + jnp.exp(-ctx.v[1] ** 2 / 50.0)) / 2.0
        reward = upright * centered * small_control * small_velocity
        if self.swing_up:
            done = jnp.zeros_like(reward)
        else:
            fell = (jnp.abs(jnp.arctan2(jnp.sin(theta), jnp.cos(theta))) > BALANCE_ANGLE) \
                | (jnp.abs(x) >= RAIL - 1e-3)
            done = fell.astype(reward.dtype)
        new = state.replace(pipeline_state=ctx, obs=self._observe(ctx), reward=reward,
                            done=done, metrics={**state.metrics, "upright": upright})
        return self.guard(state, ok, new)

    @staticmethod
    def _observe(ctx) -> jax.Array:
        x, theta = ctx.q[0], ctx.q[1]
        return jnp.stack([x, jnp.cos(theta), jnp.sin(theta), ctx.v[0], ctx.v[1]])
