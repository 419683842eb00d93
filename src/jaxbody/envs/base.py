"""The environment interface: `State`, `Env` and `Wrapper`, shaped as Brax's ``brax.envs``.

An environment is two pure functions, ``reset(key) -> State`` and ``step(state, action) ->
State``, that ``jax.jit``, ``jax.vmap`` and ``jax.grad`` transform. `State` has Brax's field
names (``pipeline_state`` holds the jaxbody `Context`), a ``replace`` method and dict-valued
``metrics`` and ``info``, so Brax's wrappers and trainers (``brax.training.agents.ppo``, ``apg``,
``sac``) drive a jaxbody environment as they drive their own, with no adapter.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Any

import jax


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class State:
    """One environment's state after a reset or a step.

    Attributes:
        pipeline_state: the physics state, a jaxbody `Context` (time, q, v and the parameters);
            Brax's name for it (``context`` reads the same).
        obs: the observation, (observation_size,).
        reward: () the reward of the step that led here (0 after a reset).
        done: () 1.0 when the episode ended at this state (termination or truncation), else 0.
        metrics: named () values a task reports every step (reward terms); wrappers sum them
            over episodes.
        info: named values wrappers and tasks carry between steps (step counters, keys, the
            first state for auto-reset).
    """

    pipeline_state: Any
    obs: jax.Array
    reward: jax.Array
    done: jax.Array
    metrics: dict = dataclasses.field(default_factory=dict)
    info: dict = dataclasses.field(default_factory=dict)

    @property
    def context(self):
        """The physics `Context` (``pipeline_state``)."""
        return self.pipeline_state

    def replace(self, **changes) -> State:
        """A copy with ``changes`` (field name → value), as ``flax.struct`` dataclasses have."""
        return dataclasses.replace(self, **changes)


class Env(abc.ABC):
    """An environment: ``reset(key)`` and ``step(state, action)``, pure and jittable.

    Subclasses define `reset`, `step`, `action_size` and, when the observation is not an
    array of ``reset``'s, `observation_size`. ``backend`` is "jaxbody" (Brax's trainers read
    it); ``unwrapped`` is the innermost environment.
    """

    @abc.abstractmethod
    def reset(self, rng: jax.Array) -> State:
        """The initial state drawn with the PRNG key ``rng``."""

    @abc.abstractmethod
    def step(self, state: State, action: jax.Array) -> State:
        """The state one control step after ``state`` under ``action`` (action_size,)."""

    @property
    def observation_size(self) -> int:
        """The length of ``State.obs`` (evaluated abstractly: nothing is computed)."""
        obs = jax.eval_shape(self.unwrapped.reset, jax.random.PRNGKey(0)).obs
        return obs.shape[-1]

    @property
    @abc.abstractmethod
    def action_size(self) -> int:
        """The length of the action `step` takes."""

    @property
    def backend(self) -> str:
        return "jaxbody"

    @property
    def unwrapped(self) -> Env:
        return self


class Wrapper(Env):
    """An environment around another: what it does not define, it forwards to ``env``."""

    def __init__(self, env: Env):
        self.env = env

    def reset(self, rng: jax.Array) -> State:
        return self.env.reset(rng)

    def step(self, state: State, action: jax.Array) -> State:
        return self.env.step(state, action)

    @property
    def observation_size(self) -> int:
        return self.env.observation_size

    @property
    def action_size(self) -> int:
        return self.env.action_size

    @property
    def unwrapped(self) -> Env:
        return self.env.unwrapped

    def __getattr__(self, name):
        if name == "env":  # not yet set (during unpickling): do not recurse
            raise AttributeError(name)
        return getattr(self.env, name)
