"""Names of the state, position, velocity and actuation entries (the facade over
`jaxbody.engine.names`), and the unique floating base of a model instance (pydrake's
``GetPositionNames`` ... ``GetUniqueFloatingBaseBodyOrThrow``; the base bodies are element
objects, found here).
"""

from __future__ import annotations

from jaxbody.engine import names
from jaxbody.plant._core import PlantCore


class NamesAPI(PlantCore):
    def _entry_names(self, what, model_instance, prefix, always_suffix, which):
        self._require_finalized(what)
        if model_instance is not None:
            model_instance = self._check_instance(model_instance, what)
        return names.entry_names(self._model, model_instance, prefix, always_suffix, which)

    def GetPositionNames(self, model_instance=None, add_model_instance_prefix=None,
                         always_add_suffix=True):
        """Names of q's entries, ``{model_instance}_{joint}_{suffix}``; for one model instance if
        given (then without the prefix by default, as Drake)."""
        prefix = (model_instance is None) if add_model_instance_prefix is None \
            else add_model_instance_prefix
        return self._entry_names("GetPositionNames", model_instance, prefix, always_add_suffix,
                                 names.POSITIONS)

    def GetVelocityNames(self, model_instance=None, add_model_instance_prefix=None,
                         always_add_suffix=True):
        """Names of v's entries, as `GetPositionNames`."""
        prefix = (model_instance is None) if add_model_instance_prefix is None \
            else add_model_instance_prefix
        return self._entry_names("GetVelocityNames", model_instance, prefix, always_add_suffix,
                                 names.VELOCITIES)

    def GetStateNames(self, model_instance=None, add_model_instance_prefix=None):
        """Names of x = [q; v]'s entries (suffixes always added)."""
        prefix = (model_instance is None) if add_model_instance_prefix is None \
            else add_model_instance_prefix
        return (self._entry_names("GetStateNames", model_instance, prefix, True, names.POSITIONS)
                + self._entry_names("GetStateNames", model_instance, prefix, True,
                                    names.VELOCITIES))

    def GetActuatorNames(self, model_instance=None, add_model_instance_prefix=None):
        """Names of u's entries, ``{model_instance}_{actuator}``."""
        self._require_finalized("GetActuatorNames")
        prefix = (model_instance is None) if add_model_instance_prefix is None \
            else add_model_instance_prefix
        if model_instance is not None:
            model_instance = self._check_instance(model_instance, "GetActuatorNames")
        return names.actuator_names(self._model, model_instance, prefix)

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
