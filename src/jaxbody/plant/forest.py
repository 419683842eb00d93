"""Growing the tree: which joint is each body's inboard joint, and which joints are reversed.

Joints are edges between bodies, in either direction. The tree grows from the world; a joint
reached from its child's side is *reversed* (its parent body is the outboard one; see
`joints/reversed_kind.py`). Bodies the world does not reach get a floating joint, one per
connected group, by Drake's base-body policy (the body that is a parent most often, ties to the
lowest index; among the bodies that are no joint's child when there are any). Two paths to a
body close a loop, which a tree cannot hold: an error names the joints.
"""

from __future__ import annotations

import collections


def _edges(joints):
    adj = {}
    for j in joints:
        p, c = int(j.parent_body().index()), int(j.child_body().index())
        adj.setdefault(p, []).append((j, c, False))
        adj.setdefault(c, []).append((j, p, True))
    for edges in adj.values():
        edges.sort(key=lambda e: int(e[0].index()))
    return adj


def _loop_error(bodies, body, first, second):
    name = bodies[body].name()
    if int(first.child_body().index()) == body == int(second.child_body().index()):
        return ValueError(
            f"Body '{name}' is the child of two joints, '{first.name()}' and '{second.name()}': "
            "this closes a kinematic loop, which a tree cannot hold (use a constraint instead)")
    return ValueError(
        f"Kinematic loop: body '{name}' is reached through joints '{first.name()}' and "
        f"'{second.name()}'; a tree cannot hold it (use a constraint instead)")


def _grow(bodies, joints):
    """{body index: (inboard joint, reversed)} for the bodies the world reaches, breadth first
    (as Drake grows its forest), so a loop is reported at the body where the paths meet."""
    adj = _edges(joints)
    inboard = {}
    queue = collections.deque([0])
    while queue:
        b = queue.popleft()
        came = inboard[b][0] if b else None
        for j, other, rev in adj.get(b, []):
            if j is came:
                continue
            if other == 0 or other in inboard:
                first = inboard[other][0] if other else (came or j)
                raise _loop_error(bodies, other, first, j)
            inboard[other] = (j, rev)
            queue.append(other)
    return inboard


def grow_forest(plant, add_floating_joint):
    """Orients every joint of ``plant`` and floats the groups the world does not reach
    (``add_floating_joint(body)``); returns {body index: (inboard joint, reversed)}."""
    bodies = plant._bodies
    while True:
        inboard = _grow(bodies, plant._joints)
        unreached = [b for b in bodies[1:] if int(b.index()) not in inboard]
        if not unreached:
            return inboard
        parent_count, children = {}, set()
        for j in plant._joints:
            k = int(j.parent_body().index())
            parent_count[k] = parent_count.get(k, 0) + 1
            children.add(int(j.child_body().index()))
        roots = [b for b in unreached if int(b.index()) not in children] or unreached
        base = min(roots, key=lambda b: (-parent_count.get(int(b.index()), 0), int(b.index())))
        add_floating_joint(base)


__all__ = ["grow_forest"]
