"""Every joint kind in one place: Drake's (`kinds`) and Simbody's (`simbody_kinds`)."""

from __future__ import annotations

from jaxbody.joints.kinds import (
    BallRpy,
    Planar,
    Prismatic,
    QuaternionFloating,
    Revolute,
    RpyFloating,
    Screw,
    Universal,
    Weld,
)
from jaxbody.joints.simbody_kinds import (
    Ball,
    BendStretch,
    Cylindrical,
    Ellipsoid,
    FreeLine,
    Gimbal,
    LineOrientation,
    Translational,
)

ALL_KINDS = (
    Weld, Revolute, Prismatic, Screw, Universal, Planar, BallRpy, RpyFloating,
    QuaternionFloating, Ball, Cylindrical, Translational, Gimbal, BendStretch, LineOrientation,
    FreeLine, Ellipsoid,
)
KIND_BY_NAME = {k.name: k for k in ALL_KINDS}
