"""`GeometrySet`: a set of geometries named by `GeometryId` and/or by the bodies they are fixed to.

Drake's ``geometry::GeometrySet`` holds GeometryIds and FrameIds; jaxbody keeps geometry on the
plant, so a body (a `RigidBody`) stands where Drake takes the body's FrameId and means "every
collision geometry registered on that body when the set is used" (Drake resolves a frame the
same way, when the filter is declared). Used by
``MultibodyPlant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair``.

Example:
    >>> from jaxbody.geometry import GeometryId, GeometrySet
    >>> s = GeometrySet([GeometryId(3), GeometryId(5)])
    >>> s.Add(GeometryId(7))
    >>> sorted(int(g) for g in s.geometry_ids())
    [3, 5, 7]
"""

from __future__ import annotations

from jaxbody.geometry.geometry_instance import GeometryId


def _is_body(x) -> bool:
    return hasattr(x, "body_frame") and hasattr(x, "index") and not isinstance(x, int)


class GeometrySet:
    """A set of geometries: ``GeometrySet()``, ``GeometrySet(geometry_id)``,
    ``GeometrySet(body)``, ``GeometrySet([ids or bodies])`` or
    ``GeometrySet(geometry_ids, bodies)`` (pydrake's overloads, bodies for FrameIds)."""

    def __init__(self, *args):
        self._ids = set()
        self._bodies = {}
        if len(args) > 2:
            raise TypeError(f"GeometrySet takes at most 2 arguments, got {len(args)}")
        for a in args:
            self.Add(a)

    def Add(self, item) -> None:
        """Adds a `GeometryId`, a body, or an iterable of them."""
        if isinstance(item, (list, tuple, set, frozenset)):
            for x in item:
                self.Add(x)
        elif isinstance(item, GeometrySet):
            self._ids |= item._ids
            self._bodies.update(item._bodies)
        elif isinstance(item, int) and not isinstance(item, bool):
            self._ids.add(GeometryId(int(item)))
        elif _is_body(item):
            self._bodies[id(item)] = item
        else:
            raise TypeError("GeometrySet holds GeometryIds and bodies (RigidBody), got "
                            f"{type(item).__name__}")

    def geometry_ids(self) -> set:
        """The GeometryIds named directly."""
        return set(self._ids)

    def bodies(self) -> list:
        """The bodies named (their geometries belong to the set)."""
        return list(self._bodies.values())

    def num_geometries(self) -> int:
        return len(self._ids)

    def num_frames(self) -> int:
        """The number of bodies named (Drake counts frames)."""
        return len(self._bodies)

    def __repr__(self) -> str:
        names = ", ".join(f"'{b.name()}'" for b in self._bodies.values())
        return f"GeometrySet(ids={sorted(int(i) for i in self._ids)}, bodies=[{names}])"
