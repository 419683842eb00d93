"""Model instances, index lists, welded bodies and the whole-plant limit vectors of
`MultibodyPlant` (Drake's names); the counters and the by-name / by-index element lookups are
`PlantCore`'s (``_core.py``)."""

from __future__ import annotations

import numpy as np

from jaxbody.core.elements import ModelInstanceIndex
from jaxbody.plant._core import PlantCore


class LookupAPI(PlantCore):
    """Mixin of `MultibodyPlant`: model instances, index lists, welds and anchoring, and the
    joint and actuator limits (the element lookups by index and name are `PlantCore`'s)."""

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

    def GetFloatingBaseBodies(self):
        self._require_finalized("GetFloatingBaseBodies")
        return {b.index() for b in self._bodies[1:] if b.is_floating()}

    # --- Limits (Drake: whole-plant vectors in q, v or actuator order) -------------------------
    def _limits(self, what, field):
        self._require_finalized(what)
        return getattr(self._model.joints, field).copy()

    def GetPositionLowerLimits(self):
        return self._limits("GetPositionLowerLimits", "q_lower")

    def GetPositionUpperLimits(self):
        return self._limits("GetPositionUpperLimits", "q_upper")

    def GetVelocityLowerLimits(self):
        return self._limits("GetVelocityLowerLimits", "v_lower")

    def GetVelocityUpperLimits(self):
        return self._limits("GetVelocityUpperLimits", "v_upper")

    def GetAccelerationLowerLimits(self):
        return self._limits("GetAccelerationLowerLimits", "a_lower")

    def GetAccelerationUpperLimits(self):
        return self._limits("GetAccelerationUpperLimits", "a_upper")

    def GetEffortLowerLimits(self):
        """(num_actuators,) ``-effort_limit`` of each actuator."""
        self._require_finalized("GetEffortLowerLimits")
        return -np.asarray([a.effort_limit() for a in self._actuators], float)

    def GetEffortUpperLimits(self):
        """(num_actuators,) ``effort_limit`` of each actuator."""
        self._require_finalized("GetEffortUpperLimits")
        return np.asarray([a.effort_limit() for a in self._actuators], float)
