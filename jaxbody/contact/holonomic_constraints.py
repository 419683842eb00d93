"""Drake's holonomic SAP constraints between joints and bodies, as bilateral scalar rows of the
step's problem (``SapProblem.Jl`` with a lower impulse bound of −∞).

Each equation of a constraint g(q) = 0 is near-rigid (stiffness ∞, Drake's β = 0.1), so, as
Drake's ``SapHolonomicConstraint`` does in that regime, R = β²/(4π²)·w and v̂ = −g₀/(2δt) (the
relaxation time clamped to δt), w the constraint's Delassus estimate ‖J diag(A)⁻¹ Jᵀ‖_F / m:
- coupler (``SapCouplerConstraint``): g = q₀ − ρ q₁ − Δq, one row e₀ − ρ e₁;
- ball (``SapBallConstraint``): g = p_WQ − p_WP, three rows J = J_v_WBq − J_v_WAp in World.
The static data (dofs, body nodes, points) come from `discrete_problem.discrete_layout`; ρ, Δq
and the active flags from the Context (``Parameters.constraints``).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.jacobians import point_jacobian_in_world
from jaxbody.contact import constraints as C

HOLONOMIC_BETA = 0.1  # Drake's near-rigid threshold for couplers and ball constraints


def coupler_part(layout, dt, q0, inv_diag_A, constraints, dtype, nv):
    """(J, R, v̂, active, dofs (2C,)) of the coupler constraints: one row e₀ − ρ e₁ each, with
    g₀ = q₀ − ρ q₁ − Δq, Drake's Delassus estimate w = 1/A₀₀ + ρ²/A₁₁ and near-rigid R."""
    cd, cq = layout["coupler_dof"], layout["coupler_q"]
    C_ = cd.shape[0]
    if not C_:
        z = jnp.zeros((0,), dtype)
        return jnp.zeros((0, nv), dtype), z, z, z, cd.reshape(-1)
    rho = jnp.asarray(constraints["coupler_gear_ratio"], dtype)
    offset = jnp.asarray(constraints["coupler_offset"], dtype)
    g0 = q0[cq[:, 0]] - rho * q0[cq[:, 1]] - offset
    rows = np.arange(C_)
    J = jnp.zeros((C_, nv), dtype).at[rows, cd[:, 0]].add(1.0).at[rows, cd[:, 1]].add(-rho)
    w = inv_diag_A[cd[:, 0]] + rho * rho * inv_diag_A[cd[:, 1]]
    R, vhat = C.limit_regularization(w, g0, dt, jnp.inf, dt, HOLONOMIC_BETA)
    active = jnp.asarray(constraints["coupler_active"], dtype)
    return J, R, vhat, active, cd.reshape(-1)


def ball_rows(topo, layout, pk):
    """(J (B, 3, nv), g (B, 3)) of the ball constraints at the poses ``pk``: g = p_WQ − p_WP and
    J = J_v_WBq − J_v_WAp, both in World (Drake's ``SapBallConstraint`` kinematics)."""
    na, nb = layout["ball_nodes"][:, 0], layout["ball_nodes"][:, 1]
    dtype = pk.p_WB.dtype
    p_WP = (jnp.einsum("bij,bj->bi", pk.R_WB[na], jnp.asarray(layout["ball_p_AP"], dtype))
            + pk.p_WB[na])
    p_WQ = (jnp.einsum("bij,bj->bi", pk.R_WB[nb], jnp.asarray(layout["ball_p_BQ"], dtype))
            + pk.p_WB[nb])
    J = (point_jacobian_in_world(topo, pk, nb, p_WQ)[:, 3:]
         - point_jacobian_in_world(topo, pk, na, p_WP)[:, 3:])
    return J, p_WQ - p_WP


def ball_part(topo, layout, dt, pk, inv_diag_A, constraints, dtype):
    """(J (3B, nv), R, v̂, active (3B,)) of the ball constraints; one Delassus estimate
    w = ‖J diag(A)⁻¹ Jᵀ‖_F / 3 per constraint, for its three rows."""
    J, g = ball_rows(topo, layout, pk)
    B = J.shape[0]
    w = C.delassus_estimate(J, inv_diag_A)  # (B,)
    R, vhat = C.limit_regularization(jnp.repeat(w, 3), g.reshape(-1), dt, jnp.inf, dt,
                                     HOLONOMIC_BETA)
    active = jnp.repeat(jnp.asarray(constraints["ball_active"], dtype), 3)
    return J.reshape(3 * B, -1), R, vhat, active
