"""Force elements, gravity per model instance, and the plant's force inputs (Drake's ports as
function arguments).

The inputs of Drake's plant become arguments of the dynamics methods:
- ``actuation``: u (num_actuators,) for the whole plant, or a dict ``{model_instance: u_i}``
  (Drake's per-instance ports: u_i goes to that instance's actuators, in actuator order; absent
  instances get zero); each actuator's value is clamped to
  ``[−effort_limit, effort_limit]``, which pydrake 1.51 also does for continuous plants;
- ``applied_generalized_force``: (num_velocities,) generalized forces;
- ``applied_spatial_force``: a list of `ExternallyAppliedSpatialForce`;
- ``applied_forces``: a `MultibodyForces` (jaxbody's own, kept for compatibility).
Joint position limits are not enforced in continuous time (as Drake, which warns); joint
damping enters as −D v.
"""

from __future__ import annotations

from jaxbody.engine import actuation as act
from jaxbody.engine import dynamics as dyn
from jaxbody.engine import forces as fo
from jaxbody.forces.force_element import ForceElement, ForceElementIndex
from jaxbody.forces.gravity import UniformGravityFieldElement
from jaxbody.plant._core import PlantCore


class ForcesAPI(PlantCore):
    # --- Construction -------------------------------------------------------------------------
    def AddForceElement(self, force_element):
        """Adds a `ForceElement` (before Finalize) and returns it.

        Raises:
            RuntimeError: after Finalize, or for a second `UniformGravityFieldElement`.
        """
        self._require_not_finalized("AddForceElement")
        if not isinstance(force_element, ForceElement):
            raise TypeError(f"AddForceElement: expected a ForceElement, got "
                            f"{type(force_element).__name__}")
        if isinstance(force_element, UniformGravityFieldElement) and self._force_elements:
            raise RuntimeError("This model already contains a gravity field element. Only one "
                               "gravity field element is allowed per model.")
        if force_element._plant is not None:
            raise ValueError("AddForceElement: the element was already added to a plant")
        return self._register_force_element(force_element)

    def num_force_elements(self) -> int:
        """Number of force elements, the always-present gravity element included."""
        return len(self._force_elements)

    def get_force_element(self, force_element_index):
        return self._get(self._force_elements, force_element_index, "get_force_element",
                         ForceElementIndex)

    def gravity_field(self) -> UniformGravityFieldElement:
        return self._force_elements[0]

    def mutable_gravity_field(self) -> UniformGravityFieldElement:
        return self._force_elements[0]

    def set_gravity_enabled(self, model_instance, is_enabled: bool):
        """Enables/disables gravity on the bodies of ``model_instance`` (before Finalize)."""
        self.gravity_field().set_enabled(self._check_instance(model_instance,
                                                              "set_gravity_enabled"), is_enabled)

    def is_gravity_enabled(self, model_instance) -> bool:
        return self.gravity_field().is_enabled(self._check_instance(model_instance,
                                                                    "is_gravity_enabled"))

    # --- Element kinematics (the force elements' own Calc* methods) ---------------------------
    def _element_kinematics(self, context, what):
        """`ElementKinematics` at ``context`` (for `ForceElement.CalcPotentialEnergy` and
        the like)."""
        self._check_context(context, what)
        model = self._model
        return fo.element_kinematics(model, dyn.kinematics(model, context), context)

    def CalcForceElementsContribution(self, context):
        """The forces of every force element, gravity and joint damping, as Drake's method.

        Returns:
            `MultibodyForces`: generalized forces (elements on joints, and −D v) and body
            spatial forces ``F_Bo_W`` (gravity at each COM, springs, bushings).
        """
        self._check_context(context, "CalcForceElementsContribution")
        model = self._model
        return fo.force_elements_contribution(model, context, dyn.kinematics(model, context))

    # --- Actuation -------------------------------------------------------------------------
    def AssembleActuation(self, actuation, dtype=None):
        """u (num_actuators,) from a whole-plant vector or a dict ``{model_instance: u_i}``
        (each u_i placed at its instance's actuators); not yet clamped to the effort limits
        (see `SaturateActuation`).

        Raises:
            ValueError: naming the input and the expected size, on a size mismatch.
        """
        self._require_finalized("AssembleActuation")
        return act.assemble(self._model, actuation, dtype)

    def SaturateActuation(self, u):
        """Clamps each u[i] to [−effort_limit, effort_limit] (as Drake, also in continuous time)."""
        self._require_finalized("SaturateActuation")
        return act.saturate(self._model, u)
