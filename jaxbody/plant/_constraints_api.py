"""Constraints of a discrete plant, solved by SAP with the contacts (Drake's
``AddCouplerConstraint``, ``AddBallConstraint`` and the constraint active status).

A coupler constraint ties two single-dof joints: q₀ = ρ q₁ + Δq, one near-rigid bilateral SAP
equation. A ball constraint holds a point P of body A on a point Q of body B: g = p_WQ − p_WP,
three near-rigid bilateral equations with J = J_v_WBq − J_v_WAp (Drake's ``SapBallConstraint``).
See `jaxbody.contact.discrete_problem`. A coupler's gear ratio ρ and offset Δq and every
constraint's active status are Context parameters (``Parameters.constraints``), so they can be
differentiated and batched (``jax.vmap(lambda on: plant.SetConstraintActiveStatus(ctx, id,
on))``).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.plant.elements import BodyIndex, MultibodyConstraintId, check_index


@dataclasses.dataclass(frozen=True)
class CouplerConstraintSpec:
    """Drake's ``CouplerConstraintSpec``: joint0's q = gear_ratio · joint1's q + offset."""

    joint0_index: int
    joint1_index: int
    gear_ratio: float
    offset: float
    id: MultibodyConstraintId


@dataclasses.dataclass(frozen=True)
class BallConstraintSpec:
    """Drake's ``BallConstraintSpec``: point P (``p_AP`` in A) of body A coincides with point Q
    (``p_BQ`` in B) of body B; ``p_BQ`` None: where P is in the default configuration."""

    body_A: int
    p_AP: tuple
    body_B: int
    p_BQ: tuple | None
    id: MultibodyConstraintId


class ConstraintsAPI:
    """Mixin of `MultibodyPlant`: constraints solved by the SAP discrete step."""

    def _coupler_specs(self):
        return getattr(self, "_couplers", [])

    def _ball_specs(self):
        return getattr(self, "_balls", [])

    def _constraint_slots(self):
        """[(kind, slot within its kind)] by constraint id."""
        return getattr(self, "_constraint_order", [])

    def _new_constraint(self, kind, count):
        cid = MultibodyConstraintId(self.num_constraints())
        self._constraint_order = self._constraint_slots() + [(kind, count)]
        return cid

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
        cid = self._new_constraint("coupler", len(self._coupler_specs()))
        self._couplers = self._coupler_specs() + [
            CouplerConstraintSpec(int(joint0.index()), int(joint1.index()), gear_ratio, offset,
                                  cid)]
        return cid

    def AddBallConstraint(self, body_A, p_AP, body_B, p_BQ=None):
        """Adds a ball constraint: point P of ``body_A`` (``p_AP`` in A) coincides with point Q
        of ``body_B`` (``p_BQ`` in B; None: the point of B at P in the default configuration),
        three near-rigid SAP equations (Drake's semantics; discrete plants only). Either body
        may be the world. Returns its `MultibodyConstraintId`.

        Raises:
            ValueError: a continuous plant, the same body twice, a body of another plant, a
                point that is not 3 finite numbers, or after Finalize().
        """
        what = "AddBallConstraint"
        self._require_not_finalized(what)
        if not self.is_discrete():
            raise ValueError(f"{what}: currently ball constraints are only supported for "
                             "discrete MultibodyPlant models (time_step > 0)")
        for b in (body_A, body_B):
            if b.GetParentPlant() is not self:
                raise ValueError(f"{what}: body '{b.name()}' belongs to another plant")
        if body_A.index() == body_B.index():
            raise ValueError(f"{what}: invalid set of bodies: body_A and body_B are both "
                             f"'{body_A.name()}'")
        points = []
        for name, p in (("p_AP", p_AP), ("p_BQ", p_BQ)):
            if p is None and name == "p_BQ":
                points.append(None)
                continue
            a = np.asarray(p, dtype=float)
            if a.shape != (3,) or not np.all(np.isfinite(a)):
                raise ValueError(f"{what}: {name} must be 3 finite numbers, got {p!r}")
            points.append(tuple(float(x) for x in a))
        cid = self._new_constraint("ball", len(self._ball_specs()))
        self._balls = self._ball_specs() + [BallConstraintSpec(
            int(body_A.index()), points[0], int(body_B.index()), points[1], cid)]
        return cid

    def num_constraints(self) -> int:
        """The number of constraints (Drake's ``num_constraints``)."""
        return len(self._constraint_slots())

    def num_coupler_constraints(self) -> int:
        return len(self._coupler_specs())

    def num_ball_constraints(self) -> int:
        return len(self._ball_specs())

    def GetConstraintIds(self) -> list:
        """Every constraint's `MultibodyConstraintId`, in the order they were added."""
        return [MultibodyConstraintId(i) for i in range(self.num_constraints())]

    def get_coupler_constraint_specs(self, id=None):
        """The `CouplerConstraintSpec` of ``id``, or all of them (a list) when None."""
        specs = self._coupler_specs()
        if id is None:
            return list(specs)
        return specs[self._constraint_slot(id, "get_coupler_constraint_specs", "coupler")[1]]

    def get_ball_constraint_specs(self, id=None):
        """The `BallConstraintSpec` of ``id`` (``p_BQ`` resolved after Finalize), or all of
        them (a list) when None."""
        specs = self._resolved_ball_specs() if self.is_finalized() else self._ball_specs()
        if id is None:
            return list(specs)
        return specs[self._constraint_slot(id, "get_ball_constraint_specs", "ball")[1]]

    def _constraint_slot(self, id, what, kind=None):
        """(kind, slot within the kind) of constraint ``id``; ``kind``: the kind it must be."""
        i = check_index(id, MultibodyConstraintId, what)
        if not 0 <= i < self.num_constraints():
            raise ValueError(f"{what}: there is no constraint with id {id!r} (the plant has "
                             f"{self.num_constraints()})")
        found = self._constraint_slots()[i]
        if kind is not None and found[0] != kind:
            raise ValueError(f"{what}: constraint {id!r} is a {found[0]} constraint, not a "
                             f"{kind} constraint")
        return found

    def _resolved_ball_specs(self):
        """The ball specs with every ``p_BQ`` set (Drake: Q at P in the default context)."""
        cached = getattr(self, "_balls_resolved_cache", None)
        if cached is not None:
            return cached
        out, ctx = [], None
        with jax.ensure_compile_time_eval():  # host values even when first asked while tracing
            for s in self._ball_specs():
                if s.p_BQ is None:
                    if ctx is None:
                        ctx = self.CreateDefaultContext(jnp.float64)
                    X_WA = self.EvalBodyPoseInWorld(ctx, self.get_body(BodyIndex(s.body_A)))
                    X_WB = self.EvalBodyPoseInWorld(ctx, self.get_body(BodyIndex(s.body_B)))
                    p_WP = np.asarray(X_WA.multiply(np.asarray(s.p_AP)))
                    p_BQ = np.asarray(X_WB.inverse().multiply(p_WP))
                    s = dataclasses.replace(s, p_BQ=tuple(float(x) for x in p_BQ))
                out.append(s)
        self._balls_resolved_cache = out
        return out

    def _coupler_joints(self):
        """(joint0, joint1) of each coupler constraint, for the discrete layout."""
        return [(self.get_joint(c.joint0_index), self.get_joint(c.joint1_index))
                for c in self._coupler_specs()]

    def _default_parameters(self, dtype):
        params = super()._default_parameters(dtype)
        specs, balls = self._coupler_specs(), self._ball_specs()
        constraints = {}
        if specs:
            constraints.update({
                "coupler_gear_ratio": jnp.asarray([c.gear_ratio for c in specs], dtype),
                "coupler_offset": jnp.asarray([c.offset for c in specs], dtype),
                "coupler_active": jnp.ones(len(specs), dtype)})
        if balls:
            constraints["ball_active"] = jnp.ones(len(balls), dtype)
        return dataclasses.replace(params, constraints=constraints) if constraints else params

    def GetConstraintActiveStatus(self, context, id):
        """Whether constraint ``id`` is active in ``context`` (a traced 0/1 under jit; a bool
        for a concrete context)."""
        self._check_context(context, "GetConstraintActiveStatus")
        kind, i = self._constraint_slot(id, "GetConstraintActiveStatus")
        status = context.parameters.constraints[f"{kind}_active"][i]
        try:
            return bool(status > 0.5)
        except Exception:  # traced
            return status > 0.5

    def SetConstraintActiveStatus(self, context, id, status):
        """A new Context in which constraint ``id`` is active (``status`` True / 1) or not
        (False / 0); ``status`` may be traced (``jax.vmap`` over it)."""
        self._check_context(context, "SetConstraintActiveStatus")
        kind, i = self._constraint_slot(id, "SetConstraintActiveStatus")
        c = dict(context.parameters.constraints)
        key = f"{kind}_active"
        c[key] = c[key].at[i].set(jnp.asarray(status, c[key].dtype))
        return context.replace(parameters=dataclasses.replace(context.parameters, constraints=c))

    def SetCouplerConstraintParameters(self, context, id, gear_ratio=None, offset=None):
        """A new Context with coupler ``id``'s gear ratio and/or offset replaced (jaxbody's
        functional counterpart of rebuilding the plant; traceable, vmappable)."""
        self._check_context(context, "SetCouplerConstraintParameters")
        _, i = self._constraint_slot(id, "SetCouplerConstraintParameters", "coupler")
        c = dict(context.parameters.constraints)
        for key, value in (("coupler_gear_ratio", gear_ratio), ("coupler_offset", offset)):
            if value is not None:
                c[key] = c[key].at[i].set(jnp.asarray(value, c[key].dtype))
        return context.replace(parameters=dataclasses.replace(context.parameters, constraints=c))
