"""Actuation inputs of a model: u from a whole-plant vector or per-instance dict, the effort
limits, and the PD controllers' inputs (Drake's desired-state ports).

``actuation``: u (num_actuators,) for the whole plant, or a dict ``{model_instance: u_i}``
(Drake's per-instance ports: u_i goes to that instance's actuators, in actuator order; absent
instances get zero). ``desired_state``: None (every PD controller disarmed), a whole-plant
(2·num_actuators,) [q_d; v_d] in actuator order, or a dict ``{model_instance: [q_d; v_d]}``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.core.checks import check_shape
from jaxbody.core.elements import ModelInstanceIndex, check_index


def instance(model, model_instance, what) -> int:
    """``model_instance`` checked against the model's instances (an int)."""
    try:
        mi = check_index(model_instance, ModelInstanceIndex, what)
    except TypeError:
        raise TypeError(f"{what}: expected a ModelInstanceIndex, got {model_instance!r} (look "
                        "one up by name with GetModelInstanceByName)") from None
    n = len(model.instances.names)
    if not 0 <= mi < n:
        raise ValueError(f"{what}: invalid model instance {mi}; the plant has {n} instances")
    return int(mi)


def assemble(model, actuation, dtype=None):
    """u (num_actuators,) from a whole-plant vector or a dict ``{model_instance: u_i}``, not
    yet clamped to the effort limits (see `saturate`).

    Raises:
        ValueError: naming the input and the expected size, on a size mismatch.
    """
    nu = model.num_actuators
    if isinstance(actuation, dict):
        u = jnp.zeros(nu, dtype or jnp.zeros(()).dtype)
        for mi, ui in actuation.items():
            m = instance(model, mi, "actuation")
            idx = model.instances.actuator_index[m]
            ui = check_shape(f"actuation for model instance '{model.instances.names[m]}'", ui,
                             (len(idx),))
            u = u.at[idx].add(ui.astype(u.dtype))
        return u
    u = check_shape("actuation", actuation, (nu,))
    return u if dtype is None else u.astype(dtype)


def saturate(model, u):
    """Clamps each u[i] to [−effort_limit, effort_limit] (as Drake, also in continuous time)."""
    lim = model.actuators.effort_limit
    if not np.any(np.isfinite(lim)):
        return u
    return jnp.clip(u, -lim, lim)


def generalized_actuation(model, actuation, dtype):
    """B sat(u): (nv,), or None without actuation."""
    if actuation is None:
        return None
    u = saturate(model, assemble(model, actuation, dtype))
    return jnp.asarray(model.actuators.actuation_matrix(model.nv), dtype) @ u


def pd_inputs(model, desired_state, actuation, dtype, what="CalcDiscreteStep"):
    """((q_d, v_d, u_ff, armed) of the PD-controlled actuators, the actuation u that the free
    motion applies (armed PD actuators' entries zeroed: their u_ff acts inside the
    controller)), from a step's ``desired_state``. Entries of actuators without gains are
    ignored, as Drake does."""
    nu = model.num_actuators
    pd = model.discrete.pd.actuator
    u = None if actuation is None else assemble(model, actuation, dtype)
    if not pd.size:
        if desired_state is not None:
            raise ValueError(f"{what}: desired_state was given but no actuator "
                             "has PD gains (JointActuator.set_controller_gains)")
        return None, u
    armed = np.zeros(nu, bool)
    xd = jnp.zeros(2 * nu, dtype)
    if isinstance(desired_state, dict):
        for mi, x in desired_state.items():
            m = instance(model, mi, "desired_state")
            idx = model.instances.actuator_index[m]
            x = check_shape(f"desired_state for model instance '{model.instances.names[m]}'", x,
                            (2 * len(idx),)).astype(dtype)
            xd = xd.at[idx].set(x[:len(idx)]).at[nu + idx].set(x[len(idx):])
            armed[idx] = True
    elif desired_state is not None:
        xd = check_shape("desired_state", desired_state, (2 * nu,)).astype(dtype)
        armed[:] = True
    if not isinstance(xd, jax.core.Tracer) and not bool(jnp.all(jnp.isfinite(xd[
            np.concatenate([pd, nu + pd])]))):  # Drake's check, where values are known
        raise ValueError(f"{what}: desired_state contains NaN or inf for a "
                         "PD-controlled actuator")
    u_ff = jnp.zeros(pd.size, dtype) if u is None else u[pd]
    on = armed[pd]
    if u is not None and on.any():
        u = u.at[pd[on]].set(0.0)
    return (xd[pd], xd[nu + pd], u_ff, jnp.asarray(on, dtype)), u


def explicit_pd_actuation(model, context, actuation, desired_state, what):
    """The actuation of a continuous model with Drake's explicit PD controllers: for each
    armed PD-controlled actuator u = clamp(−Kp(q − q_d) − Kd(v − v_d) + u_ff, −e, e) at
    ``context``'s state (u_ff its actuation input), the others' input as given.
    ``desired_state`` None disarms every controller, returning ``actuation`` unchanged."""
    if desired_state is None:
        return actuation
    dtype = context.v.dtype
    (qd, vd, u_ff, on), u = pd_inputs(model, desired_state, actuation, dtype, what)
    rows, c = model.discrete.pd, context.parameters.constraints
    e = jnp.asarray(rows.effort, dtype)
    u_pd = jnp.clip(-jnp.asarray(c["pd_kp"], dtype) * (context.q[rows.q] - qd)
                    - jnp.asarray(c["pd_kd"], dtype) * (context.v[rows.dof] - vd)
                    + u_ff, -e, e)
    u = jnp.zeros(model.num_actuators, dtype) if u is None else u
    return u.at[rows.actuator].set(jnp.where(on > 0, u_pd, u[rows.actuator]))
