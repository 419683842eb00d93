"""Forward dynamics and what its analytic derivatives need, of a batch in one pass.

The tangent rule of forward dynamics (`implicit_dynamics.py`) needs, at the same state, v̇ (ABA),
the inverse-dynamics derivatives ∂τ/∂q, ∂τ/∂v at v̇ (`rnea_derivatives.py`) and M⁻¹ (CRBA and the
tree's LᵀDL, `mass_inverse.py`). Run as three batch-minor kernels, each computes the same
kinematics (poses, subspaces, velocities, inertias about Wo); here they share one. At a known
v̇ (the linearization of ẋ at a recorded ẋ) the last two share it (`state_derivatives`).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.batch_minor import mass_inverse
from jaxbody.algorithms.batch_minor.forward_dynamics import forward_dynamics_of
from jaxbody.algorithms.batch_minor.inverse_dynamics import mass_matrix_of
from jaxbody.algorithms.batch_minor.kinematics import dynamics_kinematics
from jaxbody.algorithms.batch_minor.rnea_derivatives import inverse_dynamics_derivatives_of


def forward_dynamics_derivatives(topo, q, v, tau, mass, com, unit_inertia, frame_R, frame_p,
                                 gravity, refl, F_Bo_W=None):
    """(v̇ (nv, B), ∂τ/∂q (nv, nq, B), ∂τ/∂v (nv, nv, B), (M + diag(refl))⁻¹ (nv, nv, B)),
    the derivatives those of τ = ID(q, v, v̇) − τ_g(q) − Σ Jᵀ F at the v̇ found. Arguments as in
    `forward_dynamics.forward_dynamics`."""
    bk = dynamics_kinematics(topo, q, v, mass, com, unit_inertia, frame_R, frame_p)
    vdot = forward_dynamics_of(topo, bk, tau, gravity, refl, F_Bo_W)
    return (vdot,) + _state_derivatives_of(topo, bk, q, v, vdot, gravity, refl, F_Bo_W)


def state_derivatives(topo, q, v, vdot, mass, com, unit_inertia, frame_R, frame_p, gravity,
                      refl, F_Bo_W=None):
    """(∂τ/∂q, ∂τ/∂v, (M + diag(refl))⁻¹) at a known v̇ (nv, B): what the linearization of
    ẋ at a known ẋ needs."""
    bk = dynamics_kinematics(topo, q, v, mass, com, unit_inertia, frame_R, frame_p)
    return _state_derivatives_of(topo, bk, q, v, vdot, gravity, refl, F_Bo_W)


def _state_derivatives_of(topo, bk, q, v, vdot, gravity, refl, F_Bo_W):
    Dq, Dv = inverse_dynamics_derivatives_of(topo, bk, q, v, vdot, gravity, F_Bo_W)
    M = mass_matrix_of(topo, bk)
    M = M + jnp.asarray(np.eye(topo.nv)[:, :, None], M.dtype) * refl[None]
    return Dq, Dv, mass_inverse.inverse(topo, M)
