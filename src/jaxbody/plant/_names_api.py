"""Names of the state, position, velocity and actuation entries, and the unique floating base of
a model instance (pydrake's ``GetPositionNames`` ... ``GetUniqueFloatingBaseBodyOrThrow``).

Names read ``{model_instance}_{joint}_{suffix}`` as Drake writes them, with Drake's per-joint
suffixes (``JointKind.suffixes``: ``q``/``w`` for a revolute joint, ``qw qx qy qz x y z`` /
``wx wy wz vx vy vz`` for a quaternion floating joint, ...); Simbody's kinds, which Drake lacks,
follow the same pattern.
"""

from __future__ import annotations


class NamesAPI:
    def _entry_names(self, what, model_instance, prefix, always_suffix, which):
        self._require_finalized(what)
        if model_instance is not None:
            mi = self._check_instance(model_instance, what)
        joints = [j for j in self._joints
                  if model_instance is None or j.model_instance() == mi]
        start = (lambda j: j.position_start()) if which == 0 else (lambda j: j.velocity_start())
        names = []
        for j in sorted(joints, key=start):
            suffixes = j.kind.suffixes[which]
            head = (f"{self._instance_names[int(j.model_instance())]}_" if prefix else "") + j.name()
            for s in suffixes:
                names.append(f"{head}_{s}" if always_suffix or len(suffixes) > 1 else head)
        return names

    def GetPositionNames(self, model_instance=None, add_model_instance_prefix=None,
                         always_add_suffix=True):
        """Names of q's entries, ``{model_instance}_{joint}_{suffix}``; for one model instance if
        given (then without the prefix by default, as Drake)."""
        prefix = (model_instance is None) if add_model_instance_prefix is None \
            else add_model_instance_prefix
        return self._entry_names("GetPositionNames", model_instance, prefix, always_add_suffix, 0)

    def GetVelocityNames(self, model_instance=None, add_model_instance_prefix=None,
                         always_add_suffix=True):
        """Names of v's entries, as `GetPositionNames`."""
        prefix = (model_instance is None) if add_model_instance_prefix is None \
            else add_model_instance_prefix
        return self._entry_names("GetVelocityNames", model_instance, prefix, always_add_suffix, 1)

    def GetStateNames(self, model_instance=None, add_model_instance_prefix=None):
        """Names of x = [q; v]'s entries (suffixes always added)."""
        prefix = (model_instance is None) if add_model_instance_prefix is None \
            else add_model_instance_prefix
        return (self._entry_names("GetStateNames", model_instance, prefix, True, 0)
                + self._entry_names("GetStateNames", model_instance, prefix, True, 1))

    def GetActuatorNames(self, model_instance=None, add_model_instance_prefix=None):
        """Names of u's entries, ``{model_instance}_{actuator}``."""
        self._require_finalized("GetActuatorNames")
        prefix = (model_instance is None) if add_model_instance_prefix is None \
            else add_model_instance_prefix
        if model_instance is not None:
            mi = self._check_instance(model_instance, "GetActuatorNames")
        return [(f"{self._instance_names[int(a.model_instance())]}_" if prefix else "") + a.name()
                for a in self._actuators
                if model_instance is None or a.model_instance() == mi]

    # --- The floating base of a model instance ------------------------------------------------
    def _base_bodies(self, model_instance, what):
        self._require_finalized(what)
        mi = self._check_instance(model_instance, what)
        joints = [(b, self._inboard_joint_of_body(b)) for b in self._bodies[1:]
                  if b.model_instance() == mi]
        return [b for b, j in joints if j is not None and int(j.parent_body().index()) == 0]

    def HasUniqueFloatingBaseBody(self, model_instance) -> bool:
        """True if the model instance has one base body (a body whose tree parent is the world)
        and it is a floating base body."""
        bases = self._base_bodies(model_instance, "HasUniqueFloatingBaseBody")
        return len(bases) == 1 and bases[0].is_floating()

    def GetUniqueFloatingBaseBodyOrThrow(self, model_instance):
        """The floating base body of ``model_instance``; raises unless
        `HasUniqueFloatingBaseBody`."""
        if not self.HasUniqueFloatingBaseBody(model_instance):
            name = self._instance_names[int(model_instance)]
            raise ValueError(f"GetUniqueFloatingBaseBodyOrThrow: model instance '{name}' does not "
                             "have a unique floating base body")
        return self._base_bodies(model_instance, "GetUniqueFloatingBaseBodyOrThrow")[0]

    def GetUniqueFreeBaseBodyOrThrow(self, model_instance):
        """Drake's older name of `GetUniqueFloatingBaseBodyOrThrow`."""
        return self.GetUniqueFloatingBaseBodyOrThrow(model_instance)
