"""Constraints of a discrete plant, solved by SAP with the contacts (Drake's
``AddCouplerConstraint`` and the constraint active status).

A coupler constraint ties two single-dof joints: q₀ = ρ q₁ + Δq. In the discrete step it is one
near-rigid bilateral SAP equation (`jaxbody.contact.discrete_problem`). Its gear ratio ρ and
offset Δq and every constraint's active status are Context parameters
(``Parameters.constraints``), so they can be differentiated and batched
(``jax.vmap(lambda on: plant.SetConstraintActiveStatus(ctx, id, on))``).
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from jaxbody.plant.elements import MultibodyConstraintId, check_index


@dataclasses.dataclass(frozen=True)
class CouplerConstraintSpec:
    """Drake's ``CouplerConstraintSpec``: joint0's q = gear_ratio · joint1's q + offset."""

    joint0_index: int
    joint1_index: int
    gear_ratio: float
    offset: float
    id: MultibodyConstraintId


class ConstraintsAPI:
    """Mixin of `MultibodyPlant`: constraints solved by the SAP discrete step."""

    def _coupler_specs(self):
        return getattr(self, "_couplers", [])

    def AddCouplerConstraint(self, joint0, joint1, gear_ratio, offset=0.0):
        """Adds q₀ = ρ q₁ + Δq between two single-dof joints (Drake's semantics: a near-rigid
        holonomic SAP constraint, discrete plants only). Returns its `MultibodyConstraintId`.

        Raises:
            ValueError: a continuous plant, a joint that is not single-dof, the same joint
                twice, joints of another plant, or after Finalize().
        """
        self._require_not_finalized("AddCouplerConstraint")
        if not self.is_discrete():
            raise ValueError("AddCouplerConstraint: currently coupler constraints are only "
                             "supported for discrete MultibodyPlant models (time_step > 0)")
        for j in (joint0, joint1):
            if j.GetParentPlant() is not self:
                raise ValueError(f"AddCouplerConstraint: joint '{j.name()}' belongs to another "
                                 "plant")
            if j.num_velocities() != 1 or j.num_positions() != 1:
                raise ValueError(f"AddCouplerConstraint: coupler constraints can only be "
                                 f"defined on single-DOF joints; joint '{j.name()}' has "
                                 f"{j.num_positions()} positions and {j.num_velocities()} "
                                 "velocities")
        if joint0.index() == joint1.index():
            raise ValueError(f"AddCouplerConstraint: joint '{joint0.name()}' is coupled to "
                             "itself")
        gear_ratio, offset = float(gear_ratio), float(offset)
        if not (np.isfinite(gear_ratio) and np.isfinite(offset)):
            raise ValueError(f"AddCouplerConstraint: gear_ratio and offset must be finite, got "
                             f"{gear_ratio!r} and {offset!r}")
        cid = MultibodyConstraintId(self.num_constraints())
        self._couplers = self._coupler_specs() + [
            CouplerConstraintSpec(int(joint0.index()), int(joint1.index()), gear_ratio, offset,
                                  cid)]
        return cid

    def num_constraints(self) -> int:
        """The number of constraints (Drake's ``num_constraints``)."""
        return len(self._coupler_specs())

    def num_coupler_constraints(self) -> int:
        return len(self._coupler_specs())

    def GetConstraintIds(self) -> list:
        """Every constraint's `MultibodyConstraintId`, in the order they were added."""
        return [c.id for c in self._coupler_specs()]

    def get_coupler_constraint_specs(self, id=None):
        """The `CouplerConstraintSpec` of ``id``, or all of them (a list) when None."""
        specs = self._coupler_specs()
        if id is None:
            return list(specs)
        return specs[self._constraint_slot(id, "get_coupler_constraint_specs")]

    def _constraint_slot(self, id, what):
        i = check_index(id, MultibodyConstraintId, what)
        if not 0 <= i < self.num_constraints():
            raise ValueError(f"{what}: there is no constraint with id {id!r} (the plant has "
                             f"{self.num_constraints()})")
        return i

    def _coupler_joints(self):
        """(joint0, joint1) of each coupler constraint, for the discrete layout."""
        return [(self.get_joint(c.joint0_index), self.get_joint(c.joint1_index))
                for c in self._coupler_specs()]

    def _default_parameters(self, dtype):
        params = super()._default_parameters(dtype)
        specs = self._coupler_specs()
        if not specs:
            return params
        constraints = {
            "coupler_gear_ratio": jnp.asarray([c.gear_ratio for c in specs], dtype),
            "coupler_offset": jnp.asarray([c.offset for c in specs], dtype),
            "coupler_active": jnp.ones(len(specs), dtype)}
        return dataclasses.replace(params, constraints=constraints)

    def GetConstraintActiveStatus(self, context, id):
        """Whether constraint ``id`` is active in ``context`` (a traced 0/1 under jit; a bool
        for a concrete context)."""
        self._check_context(context, "GetConstraintActiveStatus")
        i = self._constraint_slot(id, "GetConstraintActiveStatus")
        status = context.parameters.constraints["coupler_active"][i]
        try:
            return bool(status > 0.5)
        except Exception:  # traced
            return status > 0.5

    def SetConstraintActiveStatus(self, context, id, status):
        """A new Context in which constraint ``id`` is active (``status`` True / 1) or not
        (False / 0); ``status`` may be traced (``jax.vmap`` over it)."""
        self._check_context(context, "SetConstraintActiveStatus")
        i = self._constraint_slot(id, "SetConstraintActiveStatus")
        c = dict(context.parameters.constraints)
        c["coupler_active"] = c["coupler_active"].at[i].set(
            jnp.asarray(status, c["coupler_active"].dtype))
        return context.replace(parameters=dataclasses.replace(context.parameters, constraints=c))

    def SetCouplerConstraintParameters(self, context, id, gear_ratio=None, offset=None):
        """A new Context with coupler ``id``'s gear ratio and/or offset replaced (jaxbody's
        functional counterpart of rebuilding the plant; traceable, vmappable)."""
        self._check_context(context, "SetCouplerConstraintParameters")
        i = self._constraint_slot(id, "SetCouplerConstraintParameters")
        c = dict(context.parameters.constraints)
        for key, value in (("coupler_gear_ratio", gear_ratio), ("coupler_offset", offset)):
            if value is not None:
                c[key] = c[key].at[i].set(jnp.asarray(value, c[key].dtype))
        return context.replace(parameters=dataclasses.replace(context.parameters, constraints=c))
