"""Environments for learning: pure, jittable, vmappable ``reset(key)`` and ``step(state,
action)`` over jaxbody plants, shaped as Brax's ``Env`` so that Brax's trainers train them
with no adapter, and differentiable end to end (exact gradients through SAP contact, for
analytic policy gradients).

    env = jaxbody.envs.make("cartpole")
    state = jax.jit(env.reset)(jax.random.PRNGKey(0))
    state = jax.jit(env.step)(state, jnp.array([0.5]))

Tasks: ``"cartpole"`` (`CartPole`: swing-up, or balance), ``"push"`` (`Push`: a finger
pushes a box to a goal), ``"quadruped"`` (`Quadruped`: example-robot-data's Go1 or A1 lands
and stands, PD-driven, on SAP contact). Wrappers: `VmapWrapper`, `EpisodeWrapper`, `AutoResetWrapper`,
`RandomizeParameters`, and `wrap` composing them. Brax's trainers on JAX 0.10 and later: call
`patch_jax_for_brax` first (`jaxbody.envs.brax_support`).
"""

from jaxbody.envs.base import Env, State, Wrapper
from jaxbody.envs.brax_support import patch_jax_for_brax
from jaxbody.envs.cartpole import CartPole, cartpole_plant
from jaxbody.envs.plant_env import PlantEnv
from jaxbody.envs.push import Push, push_plant
from jaxbody.envs.quadruped import Quadruped, quadruped_model_path
from jaxbody.envs.wrappers import (
    AutoResetWrapper,
    EpisodeWrapper,
    RandomizeParameters,
    VmapWrapper,
    wrap,
)

TASKS = {"cartpole": CartPole, "push": Push, "quadruped": Quadruped}


def make(name: str, **kwargs) -> Env:
    """The task ``name`` (a key of `TASKS`), built with ``kwargs``."""
    if name not in TASKS:
        raise ValueError(f"make: unknown environment {name!r}; known: {sorted(TASKS)}")
    return TASKS[name](**kwargs)


__all__ = ["AutoResetWrapper", "CartPole", "Env", "EpisodeWrapper", "PlantEnv", "Push",
           "RandomizeParameters", "State", "TASKS", "VmapWrapper", "Wrapper", "cartpole_plant",
           "make", "patch_jax_for_brax", "push_plant", "Quadruped", "quadruped_model_path",
           "wrap"]
