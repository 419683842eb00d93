"""Wrappers for stepping environments outside a trainer: a batch (`VmapWrapper`), episodes of
a fixed length (`EpisodeWrapper`), fresh resets when an episode ends (`AutoResetWrapper`), and
parameters drawn per episode (`RandomizeParameters`). `wrap` composes them in the order Brax's
trainers do.

The ``info`` keys are Brax's ("steps", "truncation", "episode_done", "episode_metrics"), so a
stack of these wrappers can be handed to Brax's trainers with ``wrap_env=False``; with
``wrap_env=True`` (their default) Brax applies its own wrappers to the bare environment, which
also works.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.envs.base import Env, State, Wrapper


def _positive_int(owner, name, n):
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise ValueError(f"{owner}: {name} must be a positive int, got {n!r}")
    return int(n)


class VmapWrapper(Wrapper):
    """A batch of environments: `reset` takes one key (split into ``batch_size``) or a
    (batch, 2) array of keys; `step` takes a (batch, action_size) action."""

    def __init__(self, env: Env, batch_size: int | None = None):
        super().__init__(env)
        self.batch_size = None if batch_size is None else _positive_int(
            "VmapWrapper", "batch_size", batch_size)

    def reset(self, rng: jax.Array) -> State:
        if self.batch_size is not None:
            rng = jax.random.split(rng, self.batch_size)
        return jax.vmap(self.env.reset)(rng)

    def step(self, state: State, action: jax.Array) -> State:
        n = self.env.action_size
        if jnp.ndim(action) != 2 or jnp.shape(action)[1] != n:
            raise ValueError(f"VmapWrapper.step: action must have shape (batch, {n}), got "
                             f"{jnp.shape(action)}")
        return jax.vmap(self.env.step)(state, action)


class EpisodeWrapper(Wrapper):
    """Episodes of ``episode_length`` environment steps, each action held for
    ``action_repeat`` of them (rewards summed).

    ``info["steps"]`` counts the episode's steps, ``info["truncation"]`` is 1 when the episode
    ends by the length limit rather than by the task, ``info["episode_done"]`` repeats
    ``done``, and ``info["episode_metrics"]`` sums the reward ("sum_reward"), the steps
    ("length") and each task metric over the current episode (reset after a done step).
    """

    def __init__(self, env: Env, episode_length: int, action_repeat: int = 1):
        super().__init__(env)
        self.episode_length = _positive_int("EpisodeWrapper", "episode_length", episode_length)
        self.action_repeat = _positive_int("EpisodeWrapper", "action_repeat", action_repeat)

    def reset(self, rng: jax.Array) -> State:
        state = self.env.reset(rng)
        z = jnp.zeros_like(state.reward)
        sums = {"sum_reward": z, "length": z, **{k: z for k in state.metrics}}
        return state.replace(info={**state.info, "steps": z, "truncation": z,
                                   "episode_done": z, "episode_metrics": sums})

    def step(self, state: State, action: jax.Array) -> State:
        def once(s, _):
            s = self.env.step(s, action)
            return s, s.reward

        if self.action_repeat == 1:
            nxt = self.env.step(state, action)
            reward = nxt.reward
        else:
            nxt, rewards = jax.lax.scan(once, state, None, length=self.action_repeat)
            reward = jnp.sum(rewards, axis=0)
        steps = state.info["steps"] + self.action_repeat
        at_limit = steps >= self.episode_length
        done = jnp.where(at_limit, jnp.ones_like(nxt.done), nxt.done)
        keep = 1.0 - state.info["episode_done"]  # a new episode starts after a done step
        old = state.info["episode_metrics"]
        sums = {"sum_reward": old["sum_reward"] * keep + reward,
                "length": old["length"] * keep + self.action_repeat,
                **{k: old[k] * keep + nxt.metrics[k] for k in nxt.metrics}}
        info = {**nxt.info, "steps": steps,
                "truncation": jnp.where(at_limit, 1.0 - nxt.done, 0.0).astype(done.dtype),
                "episode_done": done, "episode_metrics": sums}
        return nxt.replace(reward=reward, done=done, info=info)


class AutoResetWrapper(Wrapper):
    """Starts a fresh episode when one ends: a step whose state is done returns the reward,
    done flag and metrics of that step with the state, observation and counters of a new
    reset, drawn with a key carried in ``info["reset_key"]`` (so every episode of every
    environment starts from its own draw, reproducibly). The finished episode's
    ``episode_metrics``, ``episode_done`` and ``truncation`` stay readable at the done step."""

    _KEEP = ("episode_metrics", "episode_done", "truncation")

    def reset(self, rng: jax.Array) -> State:
        carry, first = jax.random.split(rng)
        state = self.env.reset(first)
        return state.replace(info={**state.info, "reset_key": carry})

    def step(self, state: State, action: jax.Array) -> State:
        carry, fresh_key = jax.random.split(state.info["reset_key"])
        nxt = self.env.step(state, action)
        fresh = self.env.reset(fresh_key)
        fresh = fresh.replace(info={**fresh.info, "reset_key": carry,
                                    **{k: nxt.info[k] for k in self._KEEP if k in nxt.info}})
        nxt = nxt.replace(info={**nxt.info, "reset_key": carry})
        done = nxt.done > 0
        pick = lambda a, b: jnp.where(done, a, b)  # noqa: E731
        ctx = jax.tree.map(pick, fresh.pipeline_state, nxt.pipeline_state)
        obs = jax.tree.map(pick, fresh.obs, nxt.obs)
        info = jax.tree.map(pick, fresh.info, nxt.info)
        return nxt.replace(pipeline_state=ctx, obs=obs, info=info)


class RandomizeParameters(Wrapper):
    """Domain randomization over the Context's parameters: every reset draws
    ``fn(key, parameters) -> parameters`` (the plant's `Parameters`: masses, inertias,
    frictions and contact stiffnesses, damping, actuator gains...) and the episode runs with
    them. Inside `AutoResetWrapper` every episode gets its own draw. The result must have the
    tree structure, shapes and dtypes of the parameters it was given.

    Brax's ``randomization_fn(sys, rng)`` also works: the environment's ``sys`` is the
    `Parameters` a reset uses.
    """

    def __init__(self, env: Env, fn):
        super().__init__(env)
        if not callable(fn):
            raise TypeError(f"RandomizeParameters: fn must be callable (key, parameters) -> "
                            f"parameters, got {type(fn).__name__}")
        self.fn = fn

    def reset(self, rng: jax.Array) -> State:
        k_env, k_par = jax.random.split(rng)
        base = self.env.unwrapped
        default = base.sys
        drawn = self.fn(k_par, default)
        want = jax.tree.structure(default)
        if jax.tree.structure(drawn) != want:
            raise ValueError(f"RandomizeParameters: fn returned {jax.tree.structure(drawn)}, "
                             f"expected the parameters' structure {want}")
        for (path, a), b in zip(jax.tree_util.tree_leaves_with_path(default),
                                jax.tree.leaves(drawn)):
            if jnp.shape(a) != jnp.shape(b):
                raise ValueError(f"RandomizeParameters: fn changed the shape of parameter "
                                 f"{jax.tree_util.keystr(path)}: {jnp.shape(a)} -> "
                                 f"{jnp.shape(b)}")
        base.sys = jax.tree.map(lambda a, b: jnp.asarray(b, jnp.result_type(a)), default, drawn)
        try:
            return self.env.reset(k_env)
        finally:
            base.sys = default


def wrap(env: Env, episode_length: int = 1000, action_repeat: int = 1, *,
         randomization_fn=None, batch_size: int | None = None) -> Env:
    """``env`` with (inside out) `RandomizeParameters` when ``randomization_fn`` is given,
    `EpisodeWrapper`, `AutoResetWrapper` and `VmapWrapper`: a batch of environments that run
    forever, episode after episode."""
    if randomization_fn is not None:
        env = RandomizeParameters(env, randomization_fn)
    env = EpisodeWrapper(env, episode_length, action_repeat)
    env = AutoResetWrapper(env)
    return VmapWrapper(env, batch_size)
