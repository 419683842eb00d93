"""Implicit PD-controlled joint actuators in the SAP step (Drake's ``SapPdControllerConstraint``).

An actuator with gains (Kp, Kd) and effort limit e on a 1-dof joint (dof d, position q) applies
    u = clamp(−Kp(q − q_d) − Kd(v − v_d) + u_ff, −e, e),     q = q₀ + δt·v,
evaluated at the next velocities, so the controller is as stable as the step itself. As one
scalar row of the problem (J = e_d), with y = R⁻¹(v̂ − v) = δt·(…) the unclamped impulse:
    R⁻¹ = δt(δt·Kp + Kd),   v̂ = R·δt·(Kp(q_d − q₀) + Kd·v_d + u_ff),   γ = clip(y, −δt·e, δt·e),
and cost R(γy − ½γ²) (Drake's clamp antiderivative). In the near-rigid regime (R below
β²/(4π²)·w, β = 0.1, w = 1/A_dd) Drake lowers the gains to that R, keeping Kd/Kp; so does this.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.contact import constraints as C

PD_BETA = 0.1


def effective_gains(Kp, Kd, dt, w):
    """(Kp, Kd) limited to the near-rigid regime as Drake does (the ratio Kd/Kp kept; the
    expression chosen by whether δt·Kp > Kd, to avoid dividing by a zero gain)."""
    R_nr = C.near_rigid_factor(PD_BETA) * w
    R = 1.0 / (dt * (dt * Kp + Kd))
    p_first = dt * Kp > Kd
    tau = Kd / jnp.where(p_first, Kp, 1.0)
    Kp1 = 1.0 / (dt * (dt + tau) * R_nr)
    tau_inv = Kp / jnp.where(p_first, 1.0, Kd)
    Kd2 = 1.0 / (dt * (1.0 + dt * tau_inv) * R_nr)
    Kp_nr = jnp.where(p_first, Kp1, tau_inv * Kd2)
    Kd_nr = jnp.where(p_first, tau * Kp1, Kd2)
    rigid = R < R_nr
    return jnp.where(rigid, Kp_nr, Kp), jnp.where(rigid, Kd_nr, Kd)


def pd_part(layout, dt, q0, inv_diag_A, constraints, qd, vd, u_ff, armed, dtype, nv):
    """(J (P, nv), R, v̂, active, lower, upper, dofs (P,)) of the PD-controlled actuators.

    Args:
        qd, vd, u_ff: (P,) desired positions, velocities and feed-forward actuation of the PD
            actuators (in ``layout.pd.actuator`` order); armed: (P,) 0/1, 0 where the
            desired state was not given (Drake's disarmed controller).
    """
    dofs = layout.pd.dof
    P = dofs.shape[0]
    Kp, Kd = effective_gains(jnp.asarray(constraints["pd_kp"], dtype),
                             jnp.asarray(constraints["pd_kd"], dtype), dt, inv_diag_A[dofs])
    Rinv = dt * (dt * Kp + Kd)
    R = 1.0 / Rinv
    y0 = dt * (Kp * (qd - q0[layout.pd.q]) + Kd * vd + u_ff)  # y at v = 0
    vhat = R * y0
    J = jnp.zeros((P, nv), dtype).at[jnp.arange(P), dofs].set(1.0)
    e = jnp.asarray(layout.pd.effort, dtype)
    return J, R, vhat, jnp.asarray(armed, dtype), -dt * e, dt * e, dofs
