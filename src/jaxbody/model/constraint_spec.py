"""The constraints of a model (Drake's constraint specs) and their order of registration."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from jaxbody.core.elements import MultibodyConstraintId, check_index
from jaxbody.math.rigid_transform import RigidTransform


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


@dataclasses.dataclass(frozen=True)
class DistanceConstraintSpec:
    """Drake's ``DistanceConstraintSpec``: ‖p_PQ‖ = distance between point P (``p_AP`` in A)
    and Q (``p_BQ`` in B); ``stiffness`` ∞ is rigid, else a spring-damper (``damping``)."""

    body_A: int
    p_AP: tuple
    body_B: int
    p_BQ: tuple
    distance: float
    stiffness: float
    damping: float
    id: MultibodyConstraintId


@dataclasses.dataclass(frozen=True)
class WeldConstraintSpec:
    """Drake's ``WeldConstraintSpec``: frame P (``X_AP`` in A) coincides with frame Q
    (``X_BQ`` in B)."""

    body_A: int
    X_AP: RigidTransform
    body_B: int
    X_BQ: RigidTransform
    id: MultibodyConstraintId


class ConstraintSpec(NamedTuple):
    """Every constraint of a compiled model, ball and weld specs with Q resolved (at P in the
    default configuration where it was not given, Drake's rule).

    Attributes:
        couplers, balls, distances, welds: the specs of each kind, in registration order.
        order: per `MultibodyConstraintId`, (kind, slot within the kind).
    """

    couplers: tuple
    balls: tuple
    distances: tuple
    welds: tuple
    order: tuple

    def slot(self, id, what, kind=None):
        """(kind, slot within the kind) of constraint ``id``; ``kind``: the kind it must be."""
        i = check_index(id, MultibodyConstraintId, what)
        if not 0 <= i < len(self.order):
            raise ValueError(f"{what}: there is no constraint with id {id!r} (the plant has "
                             f"{len(self.order)})")
        found = self.order[i]
        if kind is not None and found[0] != kind:
            raise ValueError(f"{what}: constraint {id!r} is a {found[0]} constraint, not a "
                             f"{kind} constraint")
        return found
