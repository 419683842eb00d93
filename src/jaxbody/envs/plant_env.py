"""`PlantEnv`: the physics half of a task on a discrete jaxbody plant (SAP steps).

A task subclasses it and writes its reset distribution, observation and reward; the physics
(``pipeline_init``, ``pipeline_step``: ``n_frames`` SAP steps per control step) and the
action checks are here. The parameters a reset puts in the context are ``self.sys`` (the
plant's defaults), which Brax's domain-randomization wrapper replaces per environment;
`jaxbody.envs.RandomizeParameters` draws them per episode instead.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.envs.base import Env, State


class PlantEnv(Env):
    """An environment stepping a finalized discrete ``plant`` (`MultibodyPlant`).

    Args:
        plant: a finalized `MultibodyPlant` with time_step > 0 (SAP contact, limits,
            constraints and PD-controlled actuators as the plant declares them).
        n_frames: SAP steps per control step (the action is held over them).
        solver_parameters: `SapSolverParameters` of every step (Drake's defaults if None).
    """

    def __init__(self, plant, *, n_frames: int = 1, solver_parameters=None):
        if not plant.is_finalized():
            raise ValueError(f"{type(self).__name__}: the plant must be finalized "
                             "(call plant.Finalize())")
        if not plant.is_discrete():
            raise ValueError(f"{type(self).__name__}: the plant is continuous (time_step = 0); "
                             "environments step discrete plants: MultibodyPlant(time_step > 0)")
        if not isinstance(n_frames, (int, np.integer)) or isinstance(n_frames, bool) \
                or n_frames < 1:
            raise ValueError(f"{type(self).__name__}: n_frames must be a positive int, "
                             f"got {n_frames!r}")
        self.plant = plant
        self._n_frames = int(n_frames)
        self._solver_parameters = solver_parameters
        self._default_context = plant.CreateDefaultContext()
        self.sys = self._default_context.parameters

    @property
    def dt(self) -> float:
        """The control step (s): ``n_frames`` plant time steps."""
        return self.plant.time_step() * self._n_frames

    @property
    def n_frames(self) -> int:
        return self._n_frames

    def pipeline_init(self, q, v):
        """A context at time 0 with positions ``q``, velocities ``v`` and parameters
        ``self.sys``."""
        nq, nv = self.plant.num_positions(), self.plant.num_velocities()
        x = jnp.concatenate([jnp.reshape(q, (nq,)), jnp.reshape(v, (nv,))])
        ctx = self._default_context.replace(parameters=self.sys)
        return self.plant.SetPositionsAndVelocities(ctx, x)

    def pipeline_step(self, context, actuation=None, desired_state=None):
        """The context ``n_frames`` SAP steps after ``context``, ``actuation`` (num_actuators,)
        and the PD controllers' ``desired_state`` held over them."""

        def one(ctx, _):
            r = self.plant.CalcDiscreteStep(ctx, actuation, desired_state=desired_state,
                                            solver_parameters=self._solver_parameters)
            return r.context, None

        if self._n_frames == 1:
            return one(context, None)[0]
        return jax.lax.scan(one, context, None, length=self._n_frames)[0]

    def check_action(self, action) -> tuple[jax.Array, jax.Array]:
        """``(action, ok)``: the action as an array of shape (action_size,), or ValueError
        naming the environment and the expected shape; ``ok`` () is whether every entry is
        finite. A concrete non-finite action raises here, naming its entries; under jit
        the task keeps the state and ends the episode (`guard`)."""
        name = type(self).__name__
        action = jnp.asarray(action)
        n = self.action_size
        if action.shape != (n,):
            raise ValueError(f"{name}.step: action must have shape ({n},) (one environment; "
                             f"vmap the step over a batch), got {action.shape}")
        if not jnp.issubdtype(action.dtype, jnp.floating):
            action = action.astype(self._default_context.v.dtype)
        if not isinstance(action, jax.core.Tracer):
            bad = np.flatnonzero(~np.isfinite(np.asarray(action)))
            if bad.size:
                raise ValueError(f"{name}.step: action entries {bad.tolist()} are not finite: "
                                 f"{np.asarray(action)[bad].tolist()}")
        return action, jnp.all(jnp.isfinite(action))

    @staticmethod
    def guard(state: State, ok, new: State) -> State:
        """``new`` where ``ok``; otherwise ``state`` kept, ended (done = 1), reward 0, and
        ``metrics["invalid_action"]`` = 1: a non-finite action under jit never reaches the
        physics, and the episode that met it is visibly cut."""
        keep = lambda a, b: jnp.where(ok, a, b)  # noqa: E731
        ctx = jax.tree.map(keep, new.pipeline_state, state.pipeline_state)
        obs = jax.tree.map(keep, new.obs, state.obs)
        metrics = dict(new.metrics)
        metrics["invalid_action"] = jnp.where(ok, 0.0, 1.0).astype(new.reward.dtype)
        return new.replace(pipeline_state=ctx, obs=obs,
                           reward=jnp.where(ok, new.reward, 0.0).astype(new.reward.dtype),
                           done=jnp.where(ok, new.done, 1.0).astype(new.done.dtype),
                           metrics=metrics)
