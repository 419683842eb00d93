"""Continuous-time simulation: fixed-step integrators, rollouts in one ``lax.scan``, and
adaptive error-controlled integration (diffrax)."""

from jaxbody.simulation.adaptive import AdaptiveResult, simulate_adaptive
from jaxbody.simulation.discrete_rollout import DiscreteRolloutResult, discrete_rollout
from jaxbody.simulation.integrators import (
    INTEGRATORS,
    explicit_euler_step,
    normalize_quaternions,
    quaternion_indices,
    rk2_step,
    rk4_step,
    semi_implicit_euler_step,
)
from jaxbody.simulation.rollout import RolloutResult, rollout

__all__ = [
    "AdaptiveResult", "DiscreteRolloutResult", "INTEGRATORS", "discrete_rollout", "RolloutResult",
    "explicit_euler_step", "normalize_quaternions",
    "quaternion_indices", "rk2_step", "rk4_step", "rollout", "semi_implicit_euler_step", "simulate_adaptive",
]
