"""Counters and by-name / by-index lookups of `MultibodyPlant` (Drake's names)."""

from __future__ import annotations

import numpy as np

from jaxbody.core.elements import (
    BodyIndex,
    FrameIndex,
    JointActuatorIndex,
    JointIndex,
    ModelInstanceIndex,
    check_index,
)


def _fmt_instance(plant, mi):
    return "" if mi is None else f" in model instance '{plant._instance_names[int(mi)]}'"


class LookupAPI:
    # --- Elements by index ----------------------------------------------------------------
    def world_body(self):
        return self._bodies[0]

    def world_frame(self):
        return self._frames[0]

    def _get(self, seq, index, what, kind):
        i = check_index(index, kind, what)
        if not 0 <= i < len(seq):
            raise IndexError(f"{what}: index {i} out of range [0, {len(seq)})")
        return seq[i]

    def get_body(self, body_index):
        return self._get(self._bodies, body_index, "get_body", BodyIndex)

    def get_joint(self, joint_index):
        return self._get(self._joints, joint_index, "get_joint", JointIndex)

    def get_frame(self, frame_index):
        return self._get(self._frames, frame_index, "get_frame", FrameIndex)

    def get_joint_actuator(self, actuator_index):
        return self._get(self._actuators, actuator_index, "get_joint_actuator", JointActuatorIndex)

    # --- Counters -------------------------------------------------------------------------------
    def num_bodies(self) -> int:
        return len(self._bodies)

    def num_joints(self) -> int:
        return len(self._joints)

    def num_frames(self) -> int:
        return len(self._frames)

    def num_actuators(self, model_instance=None) -> int:
        return len(self._actuators_in(model_instance))

    def num_model_instances(self) -> int:
        return len(self._instance_names)

    def _joints_in(self, model_instance):
        if model_instance is None:
            return list(self._joints)
        mi = self._check_instance(model_instance, "model instance")
        return [j for j in self._joints if j.model_instance() == mi]

    def _actuators_in(self, model_instance):
        if model_instance is None:
            return list(self._actuators)
        mi = self._check_instance(model_instance, "model instance")
        return [a for a in self._actuators if a.model_instance() == mi]

    def num_positions(self, model_instance=None) -> int:
        if model_instance is None and self._finalized:
            return self._topology.nq
        self._require_finalized("num_positions")
        return sum(j.num_positions() for j in self._joints_in(model_instance))

    def num_velocities(self, model_instance=None) -> int:
        if model_instance is None and self._finalized:
            return self._topology.nv
        self._require_finalized("num_velocities")
        return sum(j.num_velocities() for j in self._joints_in(model_instance))

    def num_multibody_states(self, model_instance=None) -> int:
        return self.num_positions(model_instance) + self.num_velocities(model_instance)

    def num_actuated_dofs(self, model_instance=None) -> int:
        self._require_finalized("num_actuated_dofs")
        return sum(a.joint().num_velocities() for a in self._actuators_in(model_instance))

    # --- Model instances ------------------------------------------------------------------------
    def HasModelInstanceNamed(self, name) -> bool:
        return name in self._instance_names

    def GetModelInstanceByName(self, name) -> ModelInstanceIndex:
        if name not in self._instance_names:
            raise ValueError(f"GetModelInstanceByName: no model instance named '{name}'; "
                             f"known: {self._instance_names}")
        return ModelInstanceIndex(self._instance_names.index(name))

    def GetModelInstanceName(self, model_instance) -> str:
        return self._instance_names[self._check_instance(model_instance, "GetModelInstanceName")]

    # --- By name -------------------------------------------------------------------------------
    def _find(self, seq, name, model_instance, what):
        if model_instance is not None:
            mi = self._check_instance(model_instance, what)
            hits = [e for e in seq if e.name() == name and e.model_instance() == mi]
        else:
            hits = [e for e in seq if e.name() == name]
        if not hits:
            raise ValueError(f"{what}: no element named '{name}'{_fmt_instance(self, model_instance)}")
        if len(hits) > 1:
            insts = [self._instance_names[int(e.model_instance())] for e in hits]
            raise ValueError(f"{what}: the name '{name}' is in several model instances {insts}; "
                             "pass the model instance")
        return hits[0]

    def _has(self, seq, name, model_instance):
        return any(e.name() == name and (model_instance is None
                                         or e.model_instance() == int(model_instance))
                   for e in seq)

    def HasBodyNamed(self, name, model_instance=None) -> bool:
        return self._has(self._bodies, name, model_instance)

    def HasJointNamed(self, name, model_instance=None) -> bool:
        return self._has(self._joints, name, model_instance)

    def HasFrameNamed(self, name, model_instance=None) -> bool:
        return self._has(self._frames, name, model_instance)

    def HasJointActuatorNamed(self, name, model_instance=None) -> bool:
        return self._has(self._actuators, name, model_instance)

    def NumBodiesWithName(self, name) -> int:
        return sum(b.name() == name for b in self._bodies)

    def GetBodyByName(self, name, model_instance=None):
        return self._find(self._bodies, name, model_instance, "GetBodyByName")

    def GetRigidBodyByName(self, name, model_instance=None):
        return self._find(self._bodies, name, model_instance, "GetRigidBodyByName")

    def GetJointByName(self, name, model_instance=None):
        return self._find(self._joints, name, model_instance, "GetJointByName")

    def GetFrameByName(self, name, model_instance=None):
        return self._find(self._frames, name, model_instance, "GetFrameByName")

    def GetJointActuatorByName(self, name, model_instance=None):
        return self._find(self._actuators, name, model_instance, "GetJointActuatorByName")

    # --- Index lists ---------------------------------------------------------------------------
    def GetBodyIndices(self, model_instance):
        mi = self._check_instance(model_instance, "GetBodyIndices")
        return [b.index() for b in self._bodies if b.model_instance() == mi]

    def GetJointIndices(self, model_instance=None):
        return [j.index() for j in self._joints_in(model_instance)]

    def GetFrameIndices(self, model_instance):
        mi = self._check_instance(model_instance, "GetFrameIndices")
        return [f.index() for f in self._frames if f.model_instance() == mi]

    def GetJointActuatorIndices(self, model_instance=None):
        return [a.index() for a in self._actuators_in(model_instance)]

    def GetActuatedJointIndices(self, model_instance=None):
        return [a.joint().index() for a in self._actuators_in(model_instance)]

    # --- Welds and anchoring ----------------------------------------------------------------
    def IsAnchored(self, body) -> bool:
        """True if every joint on the path from ``body`` to the world is a weld."""
        self._require_finalized("IsAnchored")
        topo = self._topology
        node = topo.body_node[self._own_body(body, "IsAnchored")]
        while node > 0:
            if self._joints[topo.node_joint[node]].num_velocities() > 0:
                return False
            node = topo.parent[node]
        return True

    def GetBodiesWeldedTo(self, body):
        """All bodies welded (transitively) to ``body``, itself included, in no set order."""
        start = self._own_body(body, "GetBodiesWeldedTo")
        adj = {}
        for j in self._joints:
            if j.num_velocities() == 0:
                a, b = int(j.parent_body().index()), int(j.child_body().index())
                adj.setdefault(a, []).append(b)
                adj.setdefault(b, []).append(a)
        seen, stack = {start}, [start]
        while stack:
            for n in adj.get(stack.pop(), []):
                if n not in seen:
                    seen.add(n)
                    stack.append(n)
        return [self._bodies[i] for i in sorted(seen)]

    def _own_body(self, body, what) -> int:
        if getattr(body, "_plant", None) is not self:
            raise ValueError(f"{what}: body '{getattr(body, 'name', lambda: body)()}' is not "
                             "in this plant")
        return int(body.index())

    def _own_frame(self, frame, what):
        if getattr(frame, "_plant", None) is not self:
            raise ValueError(f"{what}: frame '{getattr(frame, 'name', lambda: frame)()}' is not "
                             "in this plant")
        return frame

    def GetFloatingBaseBodies(self):
        self._require_finalized("GetFloatingBaseBodies")
        return {b.index() for b in self._bodies[1:] if b.is_floating()}

    # --- Limits (Drake: whole-plant vectors in q, v or actuator order) -------------------------
    def _stack_limits(self, what, which, start, count, getter):
        self._require_finalized(what)
        out = np.full(getattr(self._topology, which), np.nan)
        for j in self._joints:
            out[start(j): start(j) + count(j)] = getter(j)
        return out

    def GetPositionLowerLimits(self):
        return self._stack_limits("GetPositionLowerLimits", "nq",
                                  lambda j: j.position_start(), lambda j: j.num_positions(),
                                  lambda j: j.position_lower_limits())

    def GetPositionUpperLimits(self):
        return self._stack_limits("GetPositionUpperLimits", "nq",
                                  lambda j: j.position_start(), lambda j: j.num_positions(),
                                  lambda j: j.position_upper_limits())

    def GetVelocityLowerLimits(self):
        return self._stack_limits("GetVelocityLowerLimits", "nv",
                                  lambda j: j.velocity_start(), lambda j: j.num_velocities(),
                                  lambda j: j.velocity_lower_limits())

    def GetVelocityUpperLimits(self):
        return self._stack_limits("GetVelocityUpperLimits", "nv",
                                  lambda j: j.velocity_start(), lambda j: j.num_velocities(),
                                  lambda j: j.velocity_upper_limits())

    def GetAccelerationLowerLimits(self):
        return self._stack_limits("GetAccelerationLowerLimits", "nv",
                                  lambda j: j.velocity_start(), lambda j: j.num_velocities(),
                                  lambda j: j.acceleration_lower_limits())

    def GetAccelerationUpperLimits(self):
        return self._stack_limits("GetAccelerationUpperLimits", "nv",
                                  lambda j: j.velocity_start(), lambda j: j.num_velocities(),
                                  lambda j: j.acceleration_upper_limits())

    def GetEffortLowerLimits(self):
        """(num_actuators,) ``-effort_limit`` of each actuator."""
        self._require_finalized("GetEffortLowerLimits")
        return -np.asarray([a.effort_limit() for a in self._actuators], float)

    def GetEffortUpperLimits(self):
        """(num_actuators,) ``effort_limit`` of each actuator."""
        self._require_finalized("GetEffortUpperLimits")
        return np.asarray([a.effort_limit() for a in self._actuators], float)
