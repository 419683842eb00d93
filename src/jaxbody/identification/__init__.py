"""Inertial-parameter identification: standard parameters, log-Cholesky, regressor, estimators.

- `inertial_parameters`: π = (m, m c, I_Bo) per body, Context conversion, pseudo-inertia J(π)
  and its log-Cholesky parameterization θ ↦ J = U Uᵀ [Rucker & Wensing 2022].
- `measurements`: joint torques, joint reaction wrenches (affine in π).
- `regressor`: Y(q, v, v̇) with y = Y π + y₀, by ``jax.jacfwd`` of the inverse dynamics.
- `least_squares`: linear least squares with base-parameter rank and identifiability.
- `gradient_identification`: optax minimization of the prediction error over θ.

Public API: explicit re-exports only.
"""

from jaxbody.identification.gradient_identification import (
    GradientIdentificationResult,
    IdentificationData,
    default_optimizer,
    default_weights,
    identify_by_gradient,
    predict,
    prediction_loss,
)
from jaxbody.identification.inertial_parameters import (
    LOG_CHOLESKY_NAMES,
    NUM_PARAMETERS,
    PARAMETER_NAMES,
    central_rotational_inertia,
    context_with_inertial_parameters,
    inertial_parameters,
    inertial_parameters_from_context,
    inertial_parameters_from_log_cholesky,
    inertial_parameters_from_pseudo_inertia,
    is_physically_consistent,
    log_cholesky_factor,
    log_cholesky_from_inertial_parameters,
    log_cholesky_from_pseudo_inertia,
    mass_com_unit_inertia,
    pseudo_inertia,
    pseudo_inertia_from_log_cholesky,
    rotational_inertia_matrix,
)
from jaxbody.identification.least_squares import LeastSquaresResult, identify_least_squares
from jaxbody.identification.measurements import (
    joint_reaction_wrenches,
    joint_torques,
    joint_torques_and_wrenches,
)
from jaxbody.identification.regressor import Regressor, dynamics_regressor, stacked_regressor

__all__ = [
    "GradientIdentificationResult", "IdentificationData", "LOG_CHOLESKY_NAMES", "LeastSquaresResult",
    "NUM_PARAMETERS", "PARAMETER_NAMES", "Regressor", "central_rotational_inertia",
    "context_with_inertial_parameters", "default_optimizer", "default_weights", "dynamics_regressor",
    "identify_by_gradient", "identify_least_squares", "inertial_parameters",
    "inertial_parameters_from_context", "inertial_parameters_from_log_cholesky",
    "inertial_parameters_from_pseudo_inertia", "is_physically_consistent", "joint_reaction_wrenches",
    "joint_torques", "joint_torques_and_wrenches", "log_cholesky_factor",
    "log_cholesky_from_inertial_parameters", "log_cholesky_from_pseudo_inertia",
    "mass_com_unit_inertia", "predict", "prediction_loss", "pseudo_inertia",
    "pseudo_inertia_from_log_cholesky", "rotational_inertia_matrix", "stacked_regressor",
]
