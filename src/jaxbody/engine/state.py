"""State of a compiled model: the context check, per-instance selectors on q, v and u, the
default state, and the q̇ ↔ v maps N(q) and N⁺(q).

Every setter returns a new `Context`. Per-model-instance selectors take a ModelInstanceIndex
(an int, checked by the caller) and select that instance's joints' coordinates in the model's
q (or v) order, as Drake does (`InstanceTable.q_index`, ``v_index``, ``actuator_index``).

The kinematic maps are assembled per joint kind from ``topology.groups``, one block per group:
q̇ = N(q) v and v = N⁺(q) q̇, with N⁺(q) N(q) = I. N(q) of a roll-pitch-yaw joint is singular
at gimbal lock (|cos pitch| → 0); `velocity_to_qdot_map` raises there (an ``eqx.error_if``
guard, so also under jit) while `CHECK_GIMBAL_LOCK` is True. N⁺(q) is defined everywhere.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.core.checks import check_shape
from jaxbody.core.context import Context
from jaxbody.joints.kinds import gimbal_lock

# When True (default), N(q) of roll-pitch-yaw joints raises at gimbal lock, as Drake throws.
# With False the map returns the (huge or inf) values for callers that guard themselves.
CHECK_GIMBAL_LOCK = True


def check_context(model, context, what):
    """``context``, or TypeError if it is not a `Context`, ValueError if another plant (a
    different content key) made it."""
    if not isinstance(context, Context):
        raise TypeError(f"{what}: expected a Context, got {type(context).__name__}")
    if context._plant_key is not None and context._plant_key != model.topology.key:
        raise ValueError(f"{what}: the context was created by a different plant")
    return context


# --- Whole-model and per-instance state ------------------------------------------------------
def get_positions(model, context, model_instance=None):
    """q (nq,), or the entries of ``model_instance`` (a checked ModelInstanceIndex)."""
    if model_instance is None:
        return context.q
    return context.q[model.instances.q_index[int(model_instance)]]


def get_velocities(model, context, model_instance=None):
    """v (nv,), or the entries of ``model_instance``."""
    if model_instance is None:
        return context.v
    return context.v[model.instances.v_index[int(model_instance)]]


def set_positions(model, context, q, model_instance=None):
    """A new context with q (nq,) set, or the entries of ``model_instance`` set to ``q``."""
    if model_instance is None:
        q = check_shape("SetPositions: q", q, (model.nq,))
        return context.replace(q=q.astype(context.q.dtype))
    idx = model.instances.q_index[int(model_instance)]
    q = check_shape("SetPositions: q_instance", q, (len(idx),))
    return context.replace(q=context.q.at[idx].set(q.astype(context.q.dtype)))


def set_velocities(model, context, v, model_instance=None):
    """A new context with v (nv,) set, or the entries of ``model_instance`` set to ``v``."""
    if model_instance is None:
        v = check_shape("SetVelocities: v", v, (model.nv,))
        return context.replace(v=v.astype(context.v.dtype))
    idx = model.instances.v_index[int(model_instance)]
    v = check_shape("SetVelocities: v_instance", v, (len(idx),))
    return context.replace(v=context.v.at[idx].set(v.astype(context.v.dtype)))


def set_positions_and_velocities(model, context, x, model_instance=None):
    """A new context with x = [q; v] set (whole model, or the entries of ``model_instance``)."""
    if model_instance is None:
        x = check_shape("SetPositionsAndVelocities: x", x, (model.nq + model.nv,))
        return set_velocities(model, set_positions(model, context, x[:model.nq]), x[model.nq:])
    mi = int(model_instance)
    nq = len(model.instances.q_index[mi])
    x = check_shape("SetPositionsAndVelocities: x_instance", x,
                    (nq + len(model.instances.v_index[mi]),))
    return set_velocities(model, set_positions(model, context, x[:nq], mi), x[nq:], mi)


def default_context(model, dtype):
    """A context at the default state (the default q, v = 0, time 0) with the model's default
    parameters, every leaf of ``dtype``."""
    return Context(
        time=jnp.zeros((), dtype), q=jnp.asarray(model.default_q, dtype),
        v=jnp.zeros(model.nv, dtype),
        parameters=jax.tree.map(lambda x: jnp.asarray(x, dtype), model.default_parameters),
        plant_key=model.topology.key)


def random_state(model, context, key):
    """A new context whose positions are drawn joint by joint from the joints' random
    distributions (`JointTable.random_samplers`, each ``key -> (nq_joint,)``; the default
    positions where a joint has none) with one split of the PRNG ``key`` per joint, and v = 0."""
    joints = model.joints
    keys = jax.random.split(key, max(len(joints.names), 1))
    q = jnp.asarray(model.default_q, context.q.dtype)
    for j, sampler in enumerate(joints.random_samplers):
        if sampler is None:
            continue
        start, n = int(joints.q_start[j]), int(joints.nq[j])
        qj = jnp.asarray(sampler(keys[j]), context.q.dtype)
        if qj.shape != (n,):
            raise ValueError(f"Joint '{joints.names[j]}': its random distribution returned shape "
                             f"{qj.shape}, expected ({n},)")
        q = q.at[start: start + n].set(qj)
    return context.replace(q=q, v=jnp.zeros_like(context.v))


def set_default_state(model, context):
    """A new context at the default state: the default positions, zero velocities; time and
    parameters kept."""
    return context.replace(q=jnp.asarray(model.default_q, context.q.dtype),
                           v=jnp.zeros_like(context.v))


def set_gravity_vector(context, g):
    """A new context whose gravity parameter is ``g`` (3,) (m/s², in World)."""
    g = check_shape("SetGravityVector: g", g, (3,))
    params = context.parameters
    return context.replace(parameters=dataclasses.replace(
        params, gravity=g.astype(params.gravity.dtype)))


# --- Array selectors -------------------------------------------------------------------------
def _select(index, arr, n_total, what):
    arr = check_shape(f"{what}: array", arr, (n_total,))
    return arr[index]


def _replace(index, arr, n_total, part, what, arr_name, part_name):
    arr = check_shape(f"{what}: {arr_name}", arr, (n_total,))
    part = check_shape(f"{what}: {part_name}", part, (len(index),))
    return arr.at[index].set(part)


def positions_from_array(model, model_instance, q):
    """The entries of ``model_instance`` in a q-shaped array."""
    return _select(model.instances.q_index[int(model_instance)], q, model.nq,
                   "GetPositionsFromArray")


def velocities_from_array(model, model_instance, v):
    """The entries of ``model_instance`` in a v-shaped array."""
    return _select(model.instances.v_index[int(model_instance)], v, model.nv,
                   "GetVelocitiesFromArray")


def set_positions_in_array(model, model_instance, q_instance, q):
    """A copy of ``q`` (nq,) with the instance's entries replaced by ``q_instance``."""
    return _replace(model.instances.q_index[int(model_instance)], q, model.nq, q_instance,
                    "SetPositionsInArray", "q", "q_instance")


def set_velocities_in_array(model, model_instance, v_instance, v):
    """A copy of ``v`` (nv,) with the instance's entries replaced by ``v_instance``."""
    return _replace(model.instances.v_index[int(model_instance)], v, model.nv, v_instance,
                    "SetVelocitiesInArray", "v", "v_instance")


def actuator_index(model, model_instance):
    """(k,) the actuator indices of ``model_instance`` (every actuator for None), in order."""
    if model_instance is None:
        return np.arange(model.num_actuators, dtype=np.int64)
    return model.instances.actuator_index[int(model_instance)]


def actuation_from_array(model, model_instance, u):
    """The entries of ``model_instance`` in a u-shaped (num_actuators,) array."""
    u = check_shape("GetActuationFromArray: u", u, (model.num_actuators,))
    return u[actuator_index(model, model_instance)]


def set_actuation_in_array(model, model_instance, u_instance, u):
    """A copy of ``u`` (num_actuators,) with the instance's entries replaced."""
    return _replace(actuator_index(model, model_instance), u, model.num_actuators, u_instance,
                    "SetActuationInArray", "u", "u_instance")


# --- q̇ ↔ v -----------------------------------------------------------------------------------
@partial(jax.jit, static_argnums=(0, 2))
def _block_diag_from_groups(topo, q, which):
    """Assembles N(q) (nq × nv) or N⁺(q) (nv × nq) from per-kind blocks."""
    rows, cols = (topo.nq, topo.nv) if which == "N" else (topo.nv, topo.nq)
    out = jnp.zeros((rows, cols), q.dtype)
    for g in topo.groups:
        if g.kind.nv == 0:
            continue
        qg = q[g.qidx]
        if which == "N":
            blk, r, c = g.kind.N(qg, g.constants), g.qidx, g.vidx
        else:
            blk, r, c = g.kind.Nplus(qg, g.constants), g.vidx, g.qidx
        out = out.at[r[:, :, None], c[:, None, :]].set(blk.astype(q.dtype))
    return out


def _checked_q(model, q, what):
    """``q``, guarded to raise at gimbal lock of a roll-pitch-yaw joint (`CHECK_GIMBAL_LOCK`)."""
    if not CHECK_GIMBAL_LOCK:
        return q
    topo = model.topology
    for g in topo.groups:
        if g.kind.is_rpy:
            rpy = q[g.qidx[:, :3]]
            names = [model.joints.names[topo.node_joint[n]] for n in g.nodes]
            q = eqx.error_if(
                q, jnp.any(gimbal_lock(rpy)),
                f"{what}: a roll-pitch-yaw joint (one of {names}) is at gimbal lock "
                "(|cos(pitch)| < 1e-3); q̇ = N(q) v is singular there")
    return q


def velocity_to_qdot_map(model, context, what="MakeVelocityToQDotMap"):
    """N(q): (nq, nv) with q̇ = N(q) v; raises at gimbal lock (see the module docstring)."""
    q = _checked_q(model, context.q, what)
    return _block_diag_from_groups(model.topology, q, "N")


def qdot_to_velocity_map(model, context):
    """N⁺(q): (nv, nq) with v = N⁺(q) q̇. Defined everywhere."""
    return _block_diag_from_groups(model.topology, context.q, "Nplus")


def map_velocity_to_qdot(model, context, v):
    """q̇ = N(q) v. ``v: (nv,)``. Joint group by joint group (N is block diagonal by joint),
    each block's product as broadcast products: O(Σ nq_j·nv_j), and no dense (nq × nv) matrix
    (whose batched product cost a 12-body step 6.5 of its ~100 µs)."""
    v = check_shape("MapVelocityToQDot: v", v, (model.nv,))
    q = _checked_q(model, context.q, "MapVelocityToQDot")
    return _map_by_groups(model.topology, q, v.astype(q.dtype))


@partial(jax.jit, static_argnums=(0,))
def _map_by_groups(topo, q, v):
    qdot = jnp.zeros((topo.nq,), q.dtype)
    for g in topo.groups:
        if g.kind.nv == 0:
            continue
        blk = g.kind.N(q[g.qidx], g.constants).astype(q.dtype)  # (k, nq_g, nv_g)
        vg = v[g.vidx]  # (k, nv_g)
        qdot = qdot.at[g.qidx].set(sum(blk[:, :, j] * vg[:, None, j]
                                       for j in range(vg.shape[1])))
    return qdot


def velocity_to_qdot_jacobians(model, context, v, what="CalcTimeDerivativesLinearization"):
    """(∂q̇/∂q (nq, nq), ∂q̇/∂v = N(q) (nq, nv)) of q̇ = N(q) v, joint group by joint group:
    each kind's q̇ block differentiated in its own joints' coordinates only (what jacfwd of
    `map_velocity_to_qdot` gives, without pushing every direction through every group)."""
    v = check_shape(f"{what}: v", v, (model.nv,))
    q = _checked_q(model, context.q, what)
    topo = model.topology
    return _qdot_position_jacobian(topo, q, v.astype(q.dtype)), _block_diag_from_groups(topo, q, "N")


@partial(jax.jit, static_argnums=(0,))
def _qdot_position_jacobian(topo, q, v):
    out = jnp.zeros((topo.nq, topo.nq), q.dtype)
    for g in topo.groups:
        if g.kind.nv == 0:
            continue
        vg = v[g.vidx]  # (k, nv_g)

        def qdot_g(qg, g=g, vg=vg):  # (k, nq_g)
            return jnp.einsum("kij,kj->ki", g.kind.N(qg, g.constants).astype(qg.dtype), vg)

        J = jax.jacfwd(qdot_g)(q[g.qidx])  # (k, nq_g, k, nq_g): block diagonal in the joints
        blk = jnp.moveaxis(jnp.diagonal(J, axis1=0, axis2=2), -1, 0)  # (k, nq_g, nq_g)
        r = g.qidx
        out = out.at[r[:, :, None], r[:, None, :]].set(blk)
    return out


def map_qdot_to_velocity(model, context, qdot):
    """v = N⁺(q) q̇. ``qdot: (nq,)``."""
    qdot = check_shape("MapQDotToVelocity: qdot", qdot, (model.nq,))
    return qdot_to_velocity_map(model, context) @ qdot
