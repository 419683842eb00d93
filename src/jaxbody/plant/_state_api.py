"""Context creation, state accessors, array selectors, free bodies and the q̇ ↔ v maps: the
facade over `jaxbody.engine.state`.

Every setter returns a new `Context`. Per-model-instance accessors select the coordinates of
that instance's joints in the plant's q (or v) order, as Drake does. What stays here reads the
builder's elements: the joints' default positions and the free bodies' floating joints.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.core.checks import check_shape
from jaxbody.core.context import Context
from jaxbody.engine import state
from jaxbody.joints.orientation_joints import floating_positions
from jaxbody.math import RigidTransform
from jaxbody.math.so3 import quaternion_to_rotation, rpy_to_rotation
from jaxbody.plant._core import PlantCore


class StateAPI(PlantCore):
    def CreateDefaultContext(self, dtype=None) -> Context:
        """A context at the default state (zero configuration, quaternions identity, v = 0).

        Args:
            dtype: floating dtype of every leaf; default: JAX's default float (float64 when
                ``jax_enable_x64`` is on, else float32).
        """
        self._require_finalized("CreateDefaultContext")
        return state.default_context(self._model, jnp.zeros(()).dtype if dtype is None else dtype)

    def _instance(self, model_instance, what):
        return None if model_instance is None else self._check_instance(model_instance, what)

    # --- Whole-plant and per-instance state --------------------------------------------------
    def GetPositions(self, context, model_instance=None):
        self._check_context(context, "GetPositions")
        return state.get_positions(self._model, context,
                                   self._instance(model_instance, "GetPositions"))

    def GetVelocities(self, context, model_instance=None):
        self._check_context(context, "GetVelocities")
        return state.get_velocities(self._model, context,
                                    self._instance(model_instance, "GetVelocities"))

    def GetPositionsAndVelocities(self, context, model_instance=None):
        return jnp.concatenate([self.GetPositions(context, model_instance),
                                self.GetVelocities(context, model_instance)])

    def SetPositions(self, context, *args):
        """``SetPositions(context, q)`` or ``SetPositions(context, model_instance, q_instance)``."""
        self._check_context(context, "SetPositions")
        if len(args) == 1:
            return state.set_positions(self._model, context, args[0])
        mi = self._check_instance(args[0], "SetPositions")
        return state.set_positions(self._model, context, args[1], mi)

    def SetVelocities(self, context, *args):
        """``SetVelocities(context, v)`` or ``SetVelocities(context, model_instance, v_instance)``."""
        self._check_context(context, "SetVelocities")
        if len(args) == 1:
            return state.set_velocities(self._model, context, args[0])
        mi = self._check_instance(args[0], "SetVelocities")
        return state.set_velocities(self._model, context, args[1], mi)

    def SetPositionsAndVelocities(self, context, *args):
        """``(context, x)`` or ``(context, model_instance, x_instance)`` with x = [q; v]."""
        if len(args) == 1:
            x = check_shape("SetPositionsAndVelocities: x", args[0],
                            (self._topology.nq + self._topology.nv,))
            self._check_context(context, "SetPositions")
            return state.set_positions_and_velocities(self._model, context, x)
        mi = self._check_instance(args[0], "SetPositionsAndVelocities")
        self._check_context(context, "SetPositions")
        return state.set_positions_and_velocities(self._model, context, args[1], mi)

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
        mi = self._check_instance(args[0], "SetDefaultPositions")
        idx = self._model.instances.q_index[mi]
        qi = np.asarray(args[1], float)
        if qi.shape != (len(idx),):
            raise ValueError(f"SetDefaultPositions: expected shape ({len(idx)},), got {qi.shape}")
        q = self._model.default_q.copy()
        q[idx] = qi
        self.SetDefaultPositions(q)

    def GetDefaultPositions(self, model_instance=None):
        self._require_finalized("GetDefaultPositions")
        model = self._model
        if model_instance is None:
            return model.default_q.copy()
        return model.default_q[model.instances.q_index[int(model_instance)]].copy()

    def SetDefaultState(self, context):
        """A new context at the default state: the joints' default positions (and free bodies'
        default poses), zero velocities; time and parameters are kept (Drake's
        ``SetDefaultState``, returning the context instead of writing a State)."""
        self._check_context(context, "SetDefaultState")
        return state.set_default_state(self._model, context)

    def SetRandomState(self, context, key):
        """A new context whose positions are drawn, joint by joint, from the joints' random
        distributions (``Joint.set_random_positions_distribution`` and Drake's
        ``set_random_angle_distribution``, ``set_random_quaternion_distribution_to_uniform``,
        ...), with a JAX PRNG ``key`` instead of Drake's RandomGenerator; joints without one
        take their default positions; velocities are zero, as in Drake. Pure JAX: vmap it over
        keys for a batch of random states."""
        self._check_context(context, "SetRandomState")
        return state.random_state(self._model, context, key)

    def SetGravityVector(self, context, g):
        """A new context whose gravity parameter is ``g`` (m/s², in World)."""
        return state.set_gravity_vector(context, g)

    # --- Array selectors ------------------------------------------------------------------------
    def GetPositionsFromArray(self, model_instance, q):
        self._require_finalized("GetPositionsFromArray")
        return state.positions_from_array(self._model, self._check_instance(model_instance, "q"),
                                          q)

    def GetVelocitiesFromArray(self, model_instance, v):
        self._require_finalized("GetVelocitiesFromArray")
        return state.velocities_from_array(self._model,
                                           self._check_instance(model_instance, "v"), v)

    def SetPositionsInArray(self, model_instance, q_instance, q):
        """Returns a copy of ``q`` (num_positions,) with the instance's entries replaced."""
        self._require_finalized("SetPositionsInArray")
        mi = self._check_instance(model_instance, "SetPositionsInArray")
        return state.set_positions_in_array(self._model, mi, q_instance, q)

    def SetVelocitiesInArray(self, model_instance, v_instance, v):
        """Returns a copy of ``v`` (num_velocities,) with the instance's entries replaced."""
        self._require_finalized("SetVelocitiesInArray")
        mi = self._check_instance(model_instance, "SetVelocitiesInArray")
        return state.set_velocities_in_array(self._model, mi, v_instance, v)

    def _actuator_index(self, model_instance):
        return state.actuator_index(self._model, self._instance(model_instance, "model instance"))

    def GetActuationFromArray(self, model_instance, u):
        self._require_finalized("GetActuationFromArray")
        mi = self._instance(model_instance, "model instance")
        return state.actuation_from_array(self._model, mi, u)

    def SetActuationInArray(self, model_instance, u_instance, u):
        """Returns a copy of ``u`` (num_actuators,) with the instance's entries replaced."""
        self._require_finalized("SetActuationInArray")
        mi = self._instance(model_instance, "model instance")
        return state.set_actuation_in_array(self._model, mi, u_instance, u)

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
    def MakeVelocityToQDotMap(self, context):
        """N(q): (num_positions, num_velocities) with q̇ = N(q) v.

        Raises at gimbal lock of a roll-pitch-yaw joint (|cos pitch| < 1e-3), as Drake does
        (`jaxbody.engine.state.CHECK_GIMBAL_LOCK`).
        """
        self._check_context(context, "MakeVelocityToQDotMap")
        return state.velocity_to_qdot_map(self._model, context)

    def MakeQDotToVelocityMap(self, context):
        """N⁺(q): (num_velocities, num_positions) with v = N⁺(q) q̇. Defined everywhere."""
        self._check_context(context, "MakeQDotToVelocityMap")
        return state.qdot_to_velocity_map(self._model, context)

    def MapVelocityToQDot(self, context, v):
        """q̇ = N(q) v. ``v: (num_velocities,)``."""
        v = check_shape("MapVelocityToQDot: v", v, (self._topology.nv,))
        self._check_context(context, "MakeVelocityToQDotMap")
        return state.map_velocity_to_qdot(self._model, context, v)

    def MapQDotToVelocity(self, context, qdot):
        """v = N⁺(q) q̇. ``qdot: (num_positions,)``."""
        qdot = check_shape("MapQDotToVelocity: qdot", qdot, (self._topology.nq,))
        self._check_context(context, "MakeQDotToVelocityMap")
        return state.map_qdot_to_velocity(self._model, context, qdot)
