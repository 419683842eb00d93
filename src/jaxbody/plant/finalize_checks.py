"""Structural checks of the builder state at Finalize (after the topology is compiled)."""

from __future__ import annotations

import numpy as np


def check_constraints_at_finalize(plant):
    """Drake's ``FinalizeConstraints`` check, at Finalize: no ball, distance or weld constraint
    between two bodies that are both welded to the world (no dof between them and the world),
    naming both."""
    topo = plant._topology
    welded = np.zeros(topo.num_nodes, bool)
    welded[0] = True
    for node in range(1, topo.num_nodes):  # parent[node] < node: parents come first
        joint = plant._joints[topo.node_joint[node]]
        welded[node] = welded[topo.parent[node]] and joint.num_velocities() == 0
    for kind, specs in (("ball", plant._balls), ("distance", plant._distances),
                        ("weld", plant._welds)):
        for spec in specs:
            if welded[topo.body_node[int(spec.body_A)]] and welded[
                    topo.body_node[int(spec.body_B)]]:
                A, B = (plant._bodies[int(b)].name() for b in (spec.body_A, spec.body_B))
                raise ValueError(f"Creating a {kind} constraint between bodies '{A}' and "
                                 f"'{B}' where both are welded to the world is not allowed")
