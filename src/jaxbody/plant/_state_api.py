"""Context creation, state accessors, array selectors, free bodies and the q̇ ↔ v maps.

Every setter returns a new `Context`. Per-model-instance accessors select the coordinates of
that instance's joints in the plant's q (or v) order, as Drake does.
"""

from __future__ import annotations

from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.core.checks import check_shape
from jaxbody.core.context import Context, Parameters
from jaxbody.joints.kinds import gimbal_lock
from jaxbody.joints.orientation_joints import floating_positions
from jaxbody.math import RigidTransform
from jaxbody.math.so3 import quaternion_to_rotation, rpy_to_rotation

# When True (default), N(q) of roll-pitch-yaw joints raises at gimbal lock, as Drake throws.
# With False the map returns the (huge or inf) values for callers that guard themselves.
CHECK_GIMBAL_LOCK = True


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


class StateAPI:
    def _build_defaults(self):
        topo = self._topology
        self._default_q = np.zeros(topo.nq)
        for j in self._joints:
            self._default_q[j.position_start(): j.position_start() + j.num_positions()] = \
                j.default_positions()
        self._default_damping = np.zeros(topo.nv)
        for j in self._joints:
            s = j.velocity_start()
            self._default_damping[s: s + j.num_velocities()] = j.default_damping_vector()
        self._q_index = {}
        self._v_index = {}
        for mi in range(len(self._instance_names)):
            js = sorted(self._joints_in(mi), key=lambda j: j.position_start())
            self._q_index[mi] = np.concatenate(
                [np.arange(j.position_start(), j.position_start() + j.num_positions()) for j in js]
                + [np.zeros(0, np.int64)]).astype(np.int64)
            js = sorted(js, key=lambda j: j.velocity_start())
            self._v_index[mi] = np.concatenate(
                [np.arange(j.velocity_start(), j.velocity_start() + j.num_velocities()) for j in js]
                + [np.zeros(0, np.int64)]).astype(np.int64)

    def _default_parameters(self, dtype):
        bodies, frames = self._bodies, self._frames
        frame_R = np.stack([np.asarray(f._default_X_BF().rotation().matrix()) for f in frames])
        frame_p = np.stack([np.asarray(f._default_X_BF().translation()) for f in frames])
        return Parameters(
            mass=jnp.asarray([b._default_mass for b in bodies], dtype),
            com=jnp.asarray(np.stack([b._default_com for b in bodies]), dtype),
            unit_inertia=jnp.asarray(np.stack([b._default_unit_inertia for b in bodies]), dtype),
            frame_R=jnp.asarray(frame_R, dtype),
            frame_p=jnp.asarray(frame_p, dtype),
            damping=jnp.asarray(self._default_damping, dtype),
            gravity=jnp.asarray(self._gravity, dtype),
            rotor_inertia=jnp.asarray([a.default_rotor_inertia() for a in self._actuators], dtype),
            gear_ratio=jnp.asarray([a.default_gear_ratio() for a in self._actuators], dtype),
            force_elements=tuple({k: jnp.asarray(v, dtype) for k, v in
                                  fe._default_parameter_values().items()}
                                 for fe in self._force_elements),
        )

    def CreateDefaultContext(self, dtype=None) -> Context:
        """A context at the default state (zero configuration, quaternions identity, v = 0).

        Args:
            dtype: floating dtype of every leaf; default: JAX's default float (float64 when
                ``jax_enable_x64`` is on, else float32).
        """
        self._require_finalized("CreateDefaultContext")
        dtype = jnp.zeros(()).dtype if dtype is None else dtype
        return Context(
            time=jnp.zeros((), dtype), q=jnp.asarray(self._default_q, dtype),
            v=jnp.zeros(self._topology.nv, dtype), parameters=self._default_parameters(dtype),
            plant_key=self._topology.key)

    def _check_context(self, context, what):
        self._require_finalized(what)
        if not isinstance(context, Context):
            raise TypeError(f"{what}: expected a Context, got {type(context).__name__}")
        if context._plant_key is not None and context._plant_key != self._topology.key:
            raise ValueError(f"{what}: the context was created by a different plant")
        return context

    # --- Whole-plant and per-instance state --------------------------------------------------
    def GetPositions(self, context, model_instance=None):
        self._check_context(context, "GetPositions")
        if model_instance is None:
            return context.q
        return context.q[self._q_index[self._check_instance(model_instance, "GetPositions")]]

    def GetVelocities(self, context, model_instance=None):
        self._check_context(context, "GetVelocities")
        if model_instance is None:
            return context.v
        return context.v[self._v_index[self._check_instance(model_instance, "GetVelocities")]]

    def GetPositionsAndVelocities(self, context, model_instance=None):
        return jnp.concatenate([self.GetPositions(context, model_instance),
                                self.GetVelocities(context, model_instance)])

    def SetPositions(self, context, *args):
        """``SetPositions(context, q)`` or ``SetPositions(context, model_instance, q_instance)``."""
        self._check_context(context, "SetPositions")
        if len(args) == 1:
            q = check_shape("SetPositions: q", args[0], (self._topology.nq,))
            return context.replace(q=q.astype(context.q.dtype))
        idx = self._q_index[self._check_instance(args[0], "SetPositions")]
        q = check_shape("SetPositions: q_instance", args[1], (len(idx),))
        return context.replace(q=context.q.at[idx].set(q.astype(context.q.dtype)))

    def SetVelocities(self, context, *args):
        """``SetVelocities(context, v)`` or ``SetVelocities(context, model_instance, v_instance)``."""
        self._check_context(context, "SetVelocities")
        if len(args) == 1:
            v = check_shape("SetVelocities: v", args[0], (self._topology.nv,))
            return context.replace(v=v.astype(context.v.dtype))
        idx = self._v_index[self._check_instance(args[0], "SetVelocities")]
        v = check_shape("SetVelocities: v_instance", args[1], (len(idx),))
        return context.replace(v=context.v.at[idx].set(v.astype(context.v.dtype)))

    def SetPositionsAndVelocities(self, context, *args):
        """``(context, x)`` or ``(context, model_instance, x_instance)`` with x = [q; v]."""
        if len(args) == 1:
            nq = self._topology.nq
            x = check_shape("SetPositionsAndVelocities: x", args[0],
                             (nq + self._topology.nv,))
            return self.SetVelocities(self.SetPositions(context, x[:nq]), x[nq:])
        mi = args[0]
        nq = len(self._q_index[self._check_instance(mi, "SetPositionsAndVelocities")])
        x = check_shape("SetPositionsAndVelocities: x_instance", args[1],
                         (nq + len(self._v_index[int(mi)]),))
        return self.SetVelocities(self.SetPositions(context, mi, x[:nq]), mi, x[nq:])

    def SetDefaultPositions(self, *args):
        """``SetDefaultPositions(q)`` or ``SetDefaultPositions(model_instance, q_instance)``."""
        self._require_finalized("SetDefaultPositions")
        if len(args) == 1:
            q = np.asarray(args[0], float)
            if q.shape != (self._topology.nq,):
                raise ValueError(f"SetDefaultPositions: expected shape ({self._topology.nq},), "
                                 f"got {q.shape}")
            for j in self._joints:
                j.set_default_positions(q[j.position_start(): j.position_start()
                                          + j.num_positions()])
            return
        idx = self._q_index[self._check_instance(args[0], "SetDefaultPositions")]
        qi = np.asarray(args[1], float)
        if qi.shape != (len(idx),):
            raise ValueError(f"SetDefaultPositions: expected shape ({len(idx)},), got {qi.shape}")
        q = self._default_q.copy()
        q[idx] = qi
        self.SetDefaultPositions(q)

    def GetDefaultPositions(self, model_instance=None):
        self._require_finalized("GetDefaultPositions")
        if model_instance is None:
            return self._default_q.copy()
        return self._default_q[self._q_index[int(model_instance)]].copy()

    def SetDefaultState(self, context):
        """A new context at the default state: the joints' default positions (and free bodies'
        default poses), zero velocities; time and parameters are kept (Drake's
        ``SetDefaultState``, returning the context instead of writing a State)."""
        self._check_context(context, "SetDefaultState")
        return context.replace(q=jnp.asarray(self._default_q, context.q.dtype),
                               v=jnp.zeros_like(context.v))

    def SetRandomState(self, context, key):
        """A new context whose positions are drawn, joint by joint, from the joints' random
        distributions (``Joint.set_random_positions_distribution`` and Drake's
        ``set_random_angle_distribution``, ``set_random_quaternion_distribution_to_uniform``,
        ...), with a JAX PRNG ``key`` instead of Drake's RandomGenerator; joints without one
        take their default positions; velocities are zero, as in Drake. Pure JAX: vmap it over
        keys for a batch of random states."""
        self._check_context(context, "SetRandomState")
        keys = jax.random.split(key, max(len(self._joints), 1))
        q = jnp.asarray(self._default_q, context.q.dtype)
        for j, k in zip(self._joints, keys):
            qj, drawn = j._random_positions(k, context.q.dtype)
            if drawn:
                q = q.at[j.position_start(): j.position_start() + j.num_positions()].set(qj)
        return context.replace(q=q, v=jnp.zeros_like(context.v))

    def SetGravityVector(self, context, g):
        """A new context whose gravity parameter is ``g`` (m/s², in World)."""
        g = check_shape("SetGravityVector: g", g, (3,))
        params = context.parameters
        import dataclasses

        return context.replace(parameters=dataclasses.replace(
            params, gravity=g.astype(params.gravity.dtype)))

    # --- Array selectors ------------------------------------------------------------------------
    def _select(self, index, arr, n_total, what):
        arr = check_shape(f"{what}: array", arr, (n_total,))
        return arr[index]

    def GetPositionsFromArray(self, model_instance, q):
        self._require_finalized("GetPositionsFromArray")
        return self._select(self._q_index[self._check_instance(model_instance, "q")], q,
                            self._topology.nq, "GetPositionsFromArray")

    def GetVelocitiesFromArray(self, model_instance, v):
        self._require_finalized("GetVelocitiesFromArray")
        return self._select(self._v_index[self._check_instance(model_instance, "v")], v,
                            self._topology.nv, "GetVelocitiesFromArray")

    def SetPositionsInArray(self, model_instance, q_instance, q):
        """Returns a copy of ``q`` (num_positions,) with the instance's entries replaced."""
        self._require_finalized("SetPositionsInArray")
        idx = self._q_index[self._check_instance(model_instance, "SetPositionsInArray")]
        q = check_shape("SetPositionsInArray: q", q, (self._topology.nq,))
        qi = check_shape("SetPositionsInArray: q_instance", q_instance, (len(idx),))
        return q.at[idx].set(qi)

    def SetVelocitiesInArray(self, model_instance, v_instance, v):
        """Returns a copy of ``v`` (num_velocities,) with the instance's entries replaced."""
        self._require_finalized("SetVelocitiesInArray")
        idx = self._v_index[self._check_instance(model_instance, "SetVelocitiesInArray")]
        v = check_shape("SetVelocitiesInArray: v", v, (self._topology.nv,))
        vi = check_shape("SetVelocitiesInArray: v_instance", v_instance, (len(idx),))
        return v.at[idx].set(vi)

    def _actuator_index(self, model_instance):
        return np.asarray([int(a.index()) for a in self._actuators_in(model_instance)], np.int64)

    def GetActuationFromArray(self, model_instance, u):
        self._require_finalized("GetActuationFromArray")
        u = check_shape("GetActuationFromArray: u", u, (len(self._actuators),))
        return u[self._actuator_index(model_instance)]

    def SetActuationInArray(self, model_instance, u_instance, u):
        """Returns a copy of ``u`` (num_actuators,) with the instance's entries replaced."""
        self._require_finalized("SetActuationInArray")
        idx = self._actuator_index(model_instance)
        u = check_shape("SetActuationInArray: u", u, (len(self._actuators),))
        ui = check_shape("SetActuationInArray: u_instance", u_instance, (len(idx),))
        return u.at[idx].set(ui)

    # --- Free bodies ----------------------------------------------------------------------------
    def _free_joint(self, body, what):
        self._require_finalized(what)
        self._own_body(body, what)
        if not body.is_floating():
            raise ValueError(f"{what}: body '{body.name()}' is not a free body (its inboard "
                             "joint is not a floating joint to the world)")
        return self._inboard_joint_of_body(body)

    def _world_fixed_frames(self, joint, what):
        if not (joint.frame_on_parent().is_world_frame() and joint.frame_on_child().is_body_frame()):
            raise ValueError(f"{what}: floating joint '{joint.name()}' has offset frames; set its "
                             "coordinates with the joint's set_pose")

    def SetFreeBodyPose(self, context, body, X_WB):
        """A new context with free ``body`` at pose ``X_WB`` (`RigidTransform`)."""
        j = self._free_joint(body, "SetFreeBodyPose")
        self._check_context(context, "SetFreeBodyPose")
        self._world_fixed_frames(j, "SetFreeBodyPose")
        return j.set_pose(context, X_WB)

    def GetFreeBodyPose(self, context, body):
        j = self._free_joint(body, "GetFreeBodyPose")
        self._world_fixed_frames(j, "GetFreeBodyPose")
        return j.get_pose(context)

    def SetDefaultFreeBodyPose(self, body, X_WB):
        """The pose a free body starts at in default contexts (Drake's SetDefaultFreeBodyPose).

        Before Finalize it is kept for the floating joint Finalize adds; after, it sets that
        joint's default positions.
        """
        self._own_body(body, "SetDefaultFreeBodyPose")
        body._default_free_pose = X_WB
        if self._finalized:
            joint = self._free_joint(body, "SetDefaultFreeBodyPose")
            self._world_fixed_frames(joint, "SetDefaultFreeBodyPose")
            joint.set_default_positions(floating_positions(X_WB, joint.num_positions()))

    def GetDefaultFreeBodyPose(self, body):
        """The default pose of a free body (the identity unless set)."""
        self._own_body(body, "GetDefaultFreeBodyPose")
        if not self._finalized:
            X = getattr(body, "_default_free_pose", None)
            return RigidTransform() if X is None else X
        q = self._free_joint(body, "GetDefaultFreeBodyPose").default_positions()
        R = quaternion_to_rotation(q[:4]) if q.shape[0] == 7 else rpy_to_rotation(q[:3])
        return RigidTransform(np.asarray(R), q[-3:])

    def SetFreeBodySpatialVelocity(self, *args):
        """``(body, V_WB, context)`` as in pydrake, or ``(context, body, V_WB)``."""
        if isinstance(args[0], Context):
            context, body, V_WB = args
        else:
            body, V_WB, context = args
        j = self._free_joint(body, "SetFreeBodySpatialVelocity")
        self._world_fixed_frames(j, "SetFreeBodySpatialVelocity")
        self._check_context(context, "SetFreeBodySpatialVelocity")
        return j.SetVelocities(context, jnp.concatenate(
            [jnp.asarray(V_WB.rotational()), jnp.asarray(V_WB.translational())]))

    # --- q̇ ↔ v ------------------------------------------------------------------------------------
    def _checked_q(self, context, what):
        self._check_context(context, what)
        q = context.q
        if CHECK_GIMBAL_LOCK:
            for g in self._topology.groups:
                if g.kind.is_rpy:
                    rpy = q[g.qidx[:, :3]]
                    names = [self._joints[self._topology.node_joint[n]].name() for n in g.nodes]
                    q = eqx.error_if(
                        q, jnp.any(gimbal_lock(rpy)),
                        f"{what}: a roll-pitch-yaw joint (one of {names}) is at gimbal lock "
                        "(|cos(pitch)| < 1e-3); q̇ = N(q) v is singular there")
        return q

    def MakeVelocityToQDotMap(self, context):
        """N(q): (num_positions, num_velocities) with q̇ = N(q) v.

        Raises at gimbal lock of a roll-pitch-yaw joint (|cos pitch| < 1e-3), as Drake does.
        """
        q = self._checked_q(context, "MakeVelocityToQDotMap")
        return _block_diag_from_groups(self._topology, q, "N")

    def MakeQDotToVelocityMap(self, context):
        """N⁺(q): (num_velocities, num_positions) with v = N⁺(q) q̇. Defined everywhere."""
        self._check_context(context, "MakeQDotToVelocityMap")
        return _block_diag_from_groups(self._topology, context.q, "Nplus")

    def MapVelocityToQDot(self, context, v):
        """q̇ = N(q) v. ``v: (num_velocities,)``."""
        v = check_shape("MapVelocityToQDot: v", v, (self._topology.nv,))
        return self.MakeVelocityToQDotMap(context) @ v

    def MapQDotToVelocity(self, context, qdot):
        """v = N⁺(q) q̇. ``qdot: (num_positions,)``."""
        qdot = check_shape("MapQDotToVelocity: qdot", qdot, (self._topology.nq,))
        return self.MakeQDotToVelocityMap(context) @ qdot


