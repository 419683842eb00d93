"""Collision candidates: the pairs of collision geometries that the narrow phase considers,
filtered as Drake filters them at ``MultibodyPlant::Finalize()``.

Drake's rules (``multibody/plant/multibody_plant.cc``, ``ApplyDefaultCollisionFilters`` and
``ExcludeCollisionGeometriesWithCollisionFilterGroupPair``; SceneGraph's
``geometry/proximity/collision_filter.cc``), in the order applied:

1. Geometries on the same body (SceneGraph never collides geometries of one frame; all anchored
   geometry is on the world's frame).
2. Adjacent bodies, when ``adjacent_bodies_collision_filters`` is on (the default): for every
   joint, the parent's and the child's geometries, except joints whose parent is the world
   and joints of type QuaternionFloatingJoint.
3. Welded subgraphs: all geometries of bodies joined by weld joints (directly or through
   other welds; the subgraph of the world makes anchored and world-welded geometry one group)
   are excluded within the subgraph.
4. User filter groups: ``ExcludeCollisionGeometriesWithCollisionFilterGroupPair((name_a, set_a),
   (name_b, set_b))`` excludes within ``set_a`` if the names are equal, else between the sets.

A pair is (A, B) with A's GeometryId below B's (Drake reports ``id_A < id_B``).
"""

from __future__ import annotations

import numpy as np


def welded_subgraphs(num_bodies, joints) -> np.ndarray:
    """(num_bodies,) label of each body's welded subgraph (union-find over weld joints)."""
    parent = np.arange(num_bodies)

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for j in joints:
        if j.type_name() == "weld":
            a, b = find(int(j.parent_body().index())), find(int(j.child_body().index()))
            parent[max(a, b)] = min(a, b)
    return np.array([find(i) for i in range(num_bodies)], np.int64)


def adjacent_bodies(num_bodies, joints) -> np.ndarray:
    """(num_bodies, num_bodies) bool: bodies whose collisions Drake's adjacency rule filters."""
    adj = np.zeros((num_bodies, num_bodies), bool)
    for j in joints:
        p, c = int(j.parent_body().index()), int(j.child_body().index())
        if p == 0 or j.type_name() == "quaternion_floating":
            continue
        adj[p, c] = adj[c, p] = True
    return adj


def collision_candidates(geometry_body, num_bodies, joints, adjacent_filter, excluded):
    """Candidate pairs as (i, j) collision indices, i < j, in (i, j) order.

    Args:
        geometry_body: (G,) BodyIndex of each collision geometry, in GeometryId order.
        num_bodies: the plant's number of bodies.
        joints: the plant's joints.
        adjacent_filter: whether rule 2 applies.
        excluded: (G, G) bool, the user's filter groups (rule 4), symmetric.

    Returns:
        ``(i, j)``: two (num_pairs,) int64 arrays.
    """
    gb = np.asarray(geometry_body, np.int64)
    i, j = np.triu_indices(len(gb), 1)
    bi, bj = gb[i], gb[j]
    keep = bi != bj
    weld = welded_subgraphs(num_bodies, joints)
    keep &= weld[bi] != weld[bj]
    if adjacent_filter:
        keep &= ~adjacent_bodies(num_bodies, joints)[bi, bj]
    keep &= ~excluded[i, j]
    return i[keep], j[keep]
