"""Drake's holonomic SAP constraints between joints and bodies, as bilateral scalar rows of the
step's problem (``SapProblem.Jl`` with impulse bounds (−∞, ∞)).

Each equation of a constraint g(q) = 0 with stiffness k and relaxation time τ is regularized as
Drake's ``SapHolonomicConstraint`` does (`holonomic_regularization`): R = max(1/(δt(δt + τ)k),
β²/(4π²)·w) with β = 0.1 and w the constraint's Delassus estimate ‖J diag(A)⁻¹ Jᵀ‖_F / m; in
the near-rigid regime (the first term is the smaller) τ becomes δt; v̂ = −g₀/(δt + τ). Kinds:
- coupler (``SapCouplerConstraint``, k = ∞): g = q₀ − ρ q₁ − Δq, one row e₀ − ρ e₁;
- ball (``SapBallConstraint``, k = ∞): g = p_WQ − p_WP, three rows J = J_v_WBq − J_v_WAp;
- distance (``SapDistanceConstraint``, k and τ = c/k from the Context, k = ∞ rigid):
  g = ‖p_PQ‖ − ℓ, one row p̂ᵀ(J_v_WBq − J_v_WAp), p̂ = p_PQ/‖p_PQ‖;
- weld (``SapWeldConstraint``, k = ∞): g = (a_PQ, p_PoQo) in World, a_PQ the rotation vector of
  R_PQ, six rows J = J_V_WBm − J_V_WAm (spatial, angular first) at M, the midpoint of Po, Qo.
The static data (dofs, body nodes, points, frames) come from `discrete_problem.discrete_layout`;
ρ, Δq, lengths, compliances and the active flags from the Context (``Parameters.constraints``).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.jacobians import point_jacobian_in_world
from jaxbody.contact import constraints as C
from jaxbody.math.so3 import rotation_to_rotation_vector, safe_norm

HOLONOMIC_BETA = 0.1  # Drake's near-rigid threshold for couplers, balls, distances and welds


def holonomic_regularization(w, g0, dt, stiffness, tau):
    """(R, v̂) of holonomic equations (Drake's ``SapHolonomicConstraint::DoMakeData``)."""
    R_near_rigid = C.near_rigid_factor(HOLONOMIC_BETA) * w
    R_compliant = 1.0 / (dt * (dt + tau) * stiffness)
    tau = jnp.where(R_compliant < R_near_rigid, dt, tau)
    return jnp.maximum(R_compliant, R_near_rigid), -g0 / (dt + tau)


def coupler_part(layout, dt, q0, inv_diag_A, constraints, dtype, nv):
    """(J, R, v̂, active, dofs (2C,)) of the coupler constraints: one row e₀ − ρ e₁ each, with
    g₀ = q₀ − ρ q₁ − Δq, Drake's Delassus estimate w = 1/A₀₀ + ρ²/A₁₁ and near-rigid R."""
    cd, cq = layout.couplers.dof, layout.couplers.q
    C_ = cd.shape[0]
    rho = jnp.asarray(constraints["coupler_gear_ratio"], dtype)
    offset = jnp.asarray(constraints["coupler_offset"], dtype)
    g0 = q0[cq[:, 0]] - rho * q0[cq[:, 1]] - offset
    rows = np.arange(C_)
    J = jnp.zeros((C_, nv), dtype).at[rows, cd[:, 0]].add(1.0).at[rows, cd[:, 1]].add(-rho)
    w = inv_diag_A[cd[:, 0]] + rho * rho * inv_diag_A[cd[:, 1]]
    R, vhat = holonomic_regularization(w, g0, dt, jnp.inf, 0.0)
    active = jnp.asarray(constraints["coupler_active"], dtype)
    return J, R, vhat, active, cd.reshape(-1)


def _points(pk, nodes, p_local, dtype):
    """p_W of points fixed on tree nodes: (n, 3)."""
    return (jnp.einsum("bij,bj->bi", pk.R_WB[nodes], jnp.asarray(p_local, dtype))
            + pk.p_WB[nodes])


def point_pair_rows(topo, pk, nodes, p_AP, p_BQ):
    """(J (n, 3, nv), p_PQ (n, 3)): the Jacobian of v_ApBq = v_WBq − v_WAp and p_WQ − p_WP in
    World, for point P on node ``nodes[:, 0]`` and Q on ``nodes[:, 1]``."""
    na, nb = nodes[:, 0], nodes[:, 1]
    dtype = pk.p_WB.dtype
    p_WP, p_WQ = _points(pk, na, p_AP, dtype), _points(pk, nb, p_BQ, dtype)
    J = (point_jacobian_in_world(topo, pk, nb, p_WQ)[:, 3:]
         - point_jacobian_in_world(topo, pk, na, p_WP)[:, 3:])
    return J, p_WQ - p_WP


def ball_rows(topo, layout, pk):
    """(J (B, 3, nv), g (B, 3)) of the ball constraints at the poses ``pk``: g = p_WQ − p_WP and
    J = J_v_WBq − J_v_WAp, both in World (Drake's ``SapBallConstraint`` kinematics)."""
    return point_pair_rows(topo, pk, layout.balls.nodes, layout.balls.p_AP,
                           layout.balls.p_BQ)


def ball_part(topo, layout, dt, pk, inv_diag_A, constraints, dtype):
    """(J (3B, nv), R, v̂, active (3B,)) of the ball constraints; one Delassus estimate
    w = ‖J diag(A)⁻¹ Jᵀ‖_F / 3 per constraint, for its three rows."""
    J, g = ball_rows(topo, layout, pk)
    B = J.shape[0]
    w = C.delassus_estimate(J, inv_diag_A)  # (B,)
    R, vhat = holonomic_regularization(jnp.repeat(w, 3), g.reshape(-1), dt, jnp.inf, 0.0)
    active = jnp.repeat(jnp.asarray(constraints["ball_active"], dtype), 3)
    return J.reshape(3 * B, -1), R, vhat, active


def distance_part(topo, layout, dt, pk, inv_diag_A, constraints, dtype):
    """(J (D, nv), R, v̂, active (D,), distance ‖p_PQ‖ (D,)) of the distance constraints:
    g = ‖p_PQ‖ − ℓ, J = p̂ᵀ(J_v_WBq − J_v_WAp), k and τ = c/k from the Context (k = ∞ with
    c = 0: τ = 0, near-rigid)."""
    J3, p_PQ = point_pair_rows(topo, pk, layout.distances.nodes, layout.distances.p_AP,
                               layout.distances.p_BQ)
    d = safe_norm(p_PQ)
    p_hat = p_PQ / jnp.where(d > 0, d, 1.0)[:, None]
    J = jnp.einsum("bi,bin->bn", p_hat, J3)
    k = jnp.asarray(constraints["distance_stiffness"], dtype)
    c = jnp.asarray(constraints["distance_damping"], dtype)
    tau = jnp.where(jnp.isinf(k), 0.0, c / k)
    w = C.delassus_estimate(J[:, None, :], inv_diag_A)
    g0 = d - jnp.asarray(constraints["distance_length"], dtype)
    R, vhat = holonomic_regularization(w, g0, dt, k, tau)
    return J, R, vhat, jnp.asarray(constraints["distance_active"], dtype), d


def weld_part(topo, layout, dt, pk, inv_diag_A, constraints, dtype):
    """(J (6W, nv), R, v̂, active (6W,)) of the weld constraints (Drake's ``SapWeldConstraint``:
    g = (a_PQ_W, p_PoQo_W), J = J_V_WBm − J_V_WAm at the midpoint M of Po and Qo)."""
    nodes = layout.welds.nodes
    na, nb = nodes[:, 0], nodes[:, 1]
    R_WP = pk.R_WB[na] @ jnp.asarray(layout.welds.R_AP, dtype)
    R_WQ = pk.R_WB[nb] @ jnp.asarray(layout.welds.R_BQ, dtype)
    p_WP = _points(pk, na, layout.welds.p_AP, dtype)
    p_WQ = _points(pk, nb, layout.welds.p_BQ, dtype)
    a_PQ_W = jnp.einsum("bij,bj->bi", R_WP,
                        rotation_to_rotation_vector(jnp.swapaxes(R_WP, -1, -2) @ R_WQ))
    p_WM = 0.5 * (p_WP + p_WQ)
    J = (point_jacobian_in_world(topo, pk, nb, p_WM)
         - point_jacobian_in_world(topo, pk, na, p_WM))  # (W, 6, nv)
    W = J.shape[0]
    w = C.delassus_estimate(J, inv_diag_A)
    g0 = jnp.concatenate([a_PQ_W, p_WQ - p_WP], -1)
    R, vhat = holonomic_regularization(jnp.repeat(w, 6), g0.reshape(-1), dt, jnp.inf, 0.0)
    active = jnp.repeat(jnp.asarray(constraints["weld_active"], dtype), 6)
    return J.reshape(6 * W, -1), R, vhat, active
