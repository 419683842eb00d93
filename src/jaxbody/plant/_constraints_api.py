"""Constraints of a discrete plant, solved by SAP with the contacts (Drake's
``AddCouplerConstraint``, ``AddDistanceConstraint``, ``AddBallConstraint``,
``AddWeldConstraint``).

- coupler: two single-dof joints, q₀ = ρ q₁ + Δq (one near-rigid bilateral equation);
- distance: points P of A and Q of B at distance ℓ, rigid (stiffness ∞) or a spring-damper
  (k, c) along p_PQ (one equation);
- ball: P of A on Q of B (three near-rigid equations, J = J_v_WBq − J_v_WAp);
- weld: frame P of A on frame Q of B (six near-rigid equations at their midpoint).
See `jaxbody.contact.holonomic_constraints` for the SAP rows. Registration is here; the Context
side (active status, gear ratios, lengths, compliances) is `_constraint_params_api`.
"""

from __future__ import annotations

import numpy as np

from jaxbody.core.elements import MultibodyConstraintId
from jaxbody.math.rigid_transform import RigidTransform
from jaxbody.model.constraint_spec import (  # noqa: F401 (re-exported)
    BallConstraintSpec,
    ConstraintSpec,
    CouplerConstraintSpec,
    DistanceConstraintSpec,
    WeldConstraintSpec,
)
from jaxbody.plant._core import PlantCore


def _check_point(what, name, p):
    a = np.asarray(p, dtype=float)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{what}: {name} must be 3 finite numbers, got {p!r}")
    return tuple(float(x) for x in a)


def _check_transform(what, name, X):
    if not isinstance(X, RigidTransform):
        raise ValueError(f"{what}: {name} must be a RigidTransform, got {type(X).__name__}")
    M = np.asarray(X.GetAsMatrix34(), float)
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{what}: {name} has non-finite entries")
    return RigidTransform(np.asarray(X.GetAsMatrix4(), float))


class ConstraintsAPI(PlantCore):
    """Mixin of `MultibodyPlant`: constraints solved by the SAP discrete step."""

    def _check_constraint_bodies(self, what, kind, body_A, body_B):
        self._require_not_finalized(what)
        if not self.is_discrete():
            raise ValueError(f"{what}: currently {kind} constraints are only supported for "
                             "discrete MultibodyPlant models (time_step > 0)")
        for b in (body_A, body_B):
            if b.GetParentPlant() is not self:
                raise ValueError(f"{what}: body '{b.name()}' belongs to another plant")
        if body_A.index() == body_B.index():
            raise ValueError(f"{what}: invalid set of bodies: body_A and body_B are both "
                             f"'{body_A.name()}'")

    def _new_constraint(self, kind, count):
        cid = MultibodyConstraintId(self.num_constraints())
        self._constraint_order = self._constraint_order + [(kind, count)]
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
        cid = self._new_constraint("coupler", len(self._couplers))
        self._couplers = self._couplers + [
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
        self._check_constraint_bodies(what, "ball", body_A, body_B)
        points = [_check_point(what, "p_AP", p_AP),
                  None if p_BQ is None else _check_point(what, "p_BQ", p_BQ)]
        cid = self._new_constraint("ball", len(self._balls))
        self._balls = self._balls + [BallConstraintSpec(
            int(body_A.index()), points[0], int(body_B.index()), points[1], cid)]
        return cid

    def AddDistanceConstraint(self, body_A, p_AP, body_B, p_BQ, distance,
                              stiffness=np.inf, damping=0.0):
        """Adds a distance constraint ‖p_PQ‖ = ``distance`` between point P of ``body_A``
        (``p_AP`` in A) and Q of ``body_B`` (``p_BQ`` in B): rigid when ``stiffness`` is ∞
        (near-rigid SAP equation), else a spring of that stiffness (N/m) and ``damping``
        (N·s/m) along p_PQ, solved implicitly (Drake's semantics; discrete plants only).
        Returns its `MultibodyConstraintId`.

        Raises:
            ValueError: a continuous plant, the same body twice, a body of another plant, a
                bad point, distance <= 0, stiffness <= 0, damping < 0, or after Finalize().
        """
        what = "AddDistanceConstraint"
        self._check_constraint_bodies(what, "distance", body_A, body_B)
        p_AP, p_BQ = _check_point(what, "p_AP", p_AP), _check_point(what, "p_BQ", p_BQ)
        distance, stiffness, damping = float(distance), float(stiffness), float(damping)
        if not (np.isfinite(distance) and distance > 0):
            raise ValueError(f"{what}: distance must be finite and > 0, got {distance!r}")
        if not stiffness > 0:
            raise ValueError(f"{what}: stiffness must be > 0 (inf: rigid), got {stiffness!r}")
        if not (np.isfinite(damping) and damping >= 0):
            raise ValueError(f"{what}: damping must be finite and >= 0, got {damping!r}")
        cid = self._new_constraint("distance", len(self._distances))
        self._distances = self._distances + [DistanceConstraintSpec(
            int(body_A.index()), p_AP, int(body_B.index()), p_BQ, distance, stiffness, damping,
            cid)]
        return cid

    def AddWeldConstraint(self, body_A, X_AP, body_B, X_BQ=None):
        """Adds a weld constraint: frame P of ``body_A`` (``X_AP``) coincides with frame Q of
        ``body_B`` (``X_BQ``), six near-rigid SAP equations (Drake's semantics; discrete plants
        only). Either body may be the world. ``X_BQ`` None (jaxbody's extension, as
        `AddBallConstraint`'s ``p_BQ``; MJCF's ``<weld>`` without ``relpose``): the frame of B
        at P in the default configuration. Returns its `MultibodyConstraintId`.

        Raises:
            ValueError: a continuous plant, the same body twice, a body of another plant, a
                transform that is not a finite `RigidTransform`, or after Finalize().
        """
        what = "AddWeldConstraint"
        self._check_constraint_bodies(what, "weld", body_A, body_B)
        X_AP = _check_transform(what, "X_AP", X_AP)
        X_BQ = None if X_BQ is None else _check_transform(what, "X_BQ", X_BQ)
        cid = self._new_constraint("weld", len(self._welds))
        self._welds = self._welds + [WeldConstraintSpec(
            int(body_A.index()), X_AP, int(body_B.index()), X_BQ, cid)]
        return cid

    def num_constraints(self) -> int:
        """The number of constraints (Drake's ``num_constraints``)."""
        return len(self._constraint_order)

    def num_coupler_constraints(self) -> int:
        return len(self._couplers)

    def num_ball_constraints(self) -> int:
        return len(self._balls)

    def num_distance_constraints(self) -> int:
        return len(self._distances)

    def num_weld_constraints(self) -> int:
        return len(self._welds)

    def GetConstraintIds(self) -> list:
        """Every constraint's `MultibodyConstraintId`, in the order they were added."""
        return [MultibodyConstraintId(i) for i in range(self.num_constraints())]

    def _specs(self, kind, id):
        """The spec of constraint ``id`` (which must be a ``kind`` constraint), or all the
        ``kind`` specs (a list) when None; ball and weld specs with Q resolved after
        Finalize."""
        if kind in ("ball", "weld") and self.is_finalized():  # resolved by `compile_model`
            c = self._model.constraints
            specs = c.welds if kind == "weld" else c.balls
        else:
            specs = {"coupler": self._couplers, "ball": self._balls,
                     "distance": self._distances, "weld": self._welds}[kind]
        if id is None:
            return list(specs)
        return specs[self._constraint_slot(id, f"get_{kind}_constraint_specs", kind)[1]]

    def get_coupler_constraint_specs(self, id=None):
        """The `CouplerConstraintSpec` of ``id``, or all of them (a list) when None."""
        return self._specs("coupler", id)

    def get_ball_constraint_specs(self, id=None):
        """The `BallConstraintSpec` of ``id`` (``p_BQ`` resolved after Finalize), or all of
        them (a list) when None."""
        return self._specs("ball", id)

    def get_distance_constraint_specs(self, id=None):
        """The `DistanceConstraintSpec` of ``id``, or all of them (a list) when None."""
        return self._specs("distance", id)

    def get_weld_constraint_specs(self, id=None):
        """The `WeldConstraintSpec` of ``id`` (``X_BQ`` resolved after Finalize), or all of
        them (a list) when None."""
        return self._specs("weld", id)

    def _constraint_slot(self, id, what, kind=None):
        """(kind, slot within the kind) of constraint ``id``; ``kind``: the kind it must be."""
        if self.is_finalized():
            return self._model.constraints.slot(id, what, kind)
        spec = ConstraintSpec((), (), (), (), tuple(self._constraint_order))
        return spec.slot(id, what, kind)
