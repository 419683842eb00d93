"""Finalize-time compiler: the plant's elements -> static NumPy index arrays (`Topology`).

The tree's nodes are the bodies, numbered depth-first from the world with children in joint
order, exactly as Drake numbers its mobilized bodies, so that q and v have Drake's layout.
Node 0 is the world; ``parent[i] < i`` for every other node. Everything here is static
(hashable, never traced); the tree passes in `jaxbody.algorithms` loop only over ``levels``
(tree depths) and joint-kind ``groups``.
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

from jaxbody.joints.reversed_kind import reversed_kind
from jaxbody.plant.dof_tree import DofTree, compile_dof_tree


@dataclasses.dataclass(frozen=True)
class KindGroup:
    """All joints of one kind: their nodes and coordinate indices, vectorized.

    Attributes:
        kind: the `JointKind` class.
        nodes: (k,) tree node of each joint's child body.
        qidx: (k, nq) indices into q; vidx: (k, nv) indices into v.
        constants: name -> (k, ...) per-joint constants (axes, pitches, weld poses).
    """

    kind: type
    nodes: np.ndarray
    qidx: np.ndarray
    vidx: np.ndarray
    constants: dict


@dataclasses.dataclass(frozen=True, eq=False)
class Topology:
    """The compiled tree. Node-indexed arrays have length ``num_nodes`` (= num_bodies)."""

    num_nodes: int
    nq: int
    nv: int
    node_body: np.ndarray  # (n,) BodyIndex of each node
    body_node: np.ndarray  # (num_bodies,) node of each body
    parent: np.ndarray  # (n,) parent node (-1 for the world)
    depth: np.ndarray  # (n,) world = 0
    levels: tuple  # levels[d] = nodes at depth d + 1, as int arrays
    node_joint: np.ndarray  # (n,) JointIndex of each node's inboard joint (-1 for world)
    frame_on_parent: np.ndarray  # (n,) FrameIndex of F for each node's joint
    frame_on_child: np.ndarray  # (n,) FrameIndex of M
    groups: tuple  # KindGroup per joint kind present
    dof_node: np.ndarray  # (nv,) node owning each velocity
    ancestor: np.ndarray  # (n, n) bool: ancestor[i, j] = j is i or an ancestor of i
    frame_node: np.ndarray  # (num_frames,) node of each frame's body
    dof_tree: DofTree  # multi-dof joints expanded into single-dof chains (see dof_tree.py)
    key: str  # content hash

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, Topology) and other.key == self.key

    @property
    def height(self) -> int:
        """Drake's tree height: the number of levels including the world's."""
        return len(self.levels) + 1


def _depth_first_order(num_bodies, joints_by_child, children_of):
    """Bodies in Drake's mobilized-body order: depth-first, children by joint index."""
    order = []
    stack = [0]
    while stack:
        b = stack.pop()
        order.append(b)
        kids = sorted(children_of.get(b, []), key=lambda jb: jb[0])  # (sort key, child)
        stack.extend(child for _, child in reversed(kids))
    return order


def _tree_parent(joint, reversed_):
    """The body a joint hangs from in the tree: its parent, or its child when reversed."""
    return int((joint.child_body() if reversed_ else joint.parent_body()).index())


def compile_topology(plant) -> Topology:
    """Builds the `Topology` of a plant whose every non-world body has one inboard joint
    (``plant._inboard``: body -> (joint, reversed), from `forest.grow_forest`). A reversed
    joint's node moves its frame F relative to M (`joints/reversed_kind.py`)."""
    bodies = plant._bodies
    joints = plant._joints
    nb = len(bodies)
    children_of = {}
    inboard = {b: j for b, (j, _) in plant._inboard.items()}
    reversed_ = {b for b, (_, rev) in plant._inboard.items() if rev}
    parent_count = {}
    for j in joints:
        p = int(j.parent_body().index())
        parent_count[p] = parent_count.get(p, 0) + 1
    for child, j in inboard.items():
        parent = _tree_parent(j, child in reversed_)
        # Drake's order of trees: joints the user made to the world first (by joint index); then
        # the free bodies' trees, by Drake's base-body policy: the body that is a parent most
        # often first, ties to the lowest body index.
        if getattr(j, "_ephemeral", False):
            key = (1, -parent_count.get(child, 0), child)
        else:
            key = (0, int(j.index()), 0)
        children_of.setdefault(parent, []).append((key, child))
    order = _depth_first_order(nb, inboard, children_of)
    if len(order) != nb:  # pragma: no cover  (guarded by the plant's loop check)
        raise RuntimeError("internal error: not every body is reachable from the world")
    body_node = np.empty(nb, dtype=np.int64)
    body_node[np.asarray(order)] = np.arange(nb)
    node_body = np.asarray(order, dtype=np.int64)

    parent = np.full(nb, -1, dtype=np.int64)
    node_joint = np.full(nb, -1, dtype=np.int64)
    fparent = np.zeros(nb, dtype=np.int64)
    fchild = np.zeros(nb, dtype=np.int64)
    depth = np.zeros(nb, dtype=np.int64)
    q_start = np.zeros(nb, dtype=np.int64)
    v_start = np.zeros(nb, dtype=np.int64)
    nq = nv = 0
    node_kind = [None] * nb
    for node in range(1, nb):
        body = int(node_body[node])
        j, rev = inboard[body], body in reversed_
        p = int(body_node[_tree_parent(j, rev)])
        parent[node] = p
        depth[node] = depth[p] + 1
        node_joint[node] = int(j.index())
        F, M = (j.frame_on_child(), j.frame_on_parent()) if rev else \
            (j.frame_on_parent(), j.frame_on_child())
        fparent[node], fchild[node] = int(F.index()), int(M.index())
        node_kind[node] = reversed_kind(j.kind) if rev else j.kind
        q_start[node], v_start[node] = nq, nv
        j._position_start, j._velocity_start = nq, nv
        nq += j.kind.nq
        nv += j.kind.nv

    levels = tuple(np.flatnonzero(depth == d) for d in range(1, int(depth.max(initial=0)) + 1))

    by_kind = {}
    for node in range(1, nb):
        j = joints[node_joint[node]]
        by_kind.setdefault(node_kind[node].name, []).append((node, j))
    groups = []
    dof_node = np.zeros(nv, dtype=np.int64)
    for name in sorted(by_kind):
        members = by_kind[name]
        kind = node_kind[members[0][0]]
        nodes = np.asarray([n for n, _ in members], dtype=np.int64)
        qidx = np.asarray([q_start[n] + np.arange(kind.nq) for n in nodes], dtype=np.int64)
        vidx = np.asarray([v_start[n] + np.arange(kind.nv) for n in nodes], dtype=np.int64)
        qidx = qidx.reshape(len(nodes), kind.nq)
        vidx = vidx.reshape(len(nodes), kind.nv)
        for n in nodes:
            dof_node[v_start[n]: v_start[n] + kind.nv] = n
        consts = {}
        for cname in members[0][1]._constants:
            consts[cname] = np.stack([j._constants[cname] for _, j in members])
        groups.append(KindGroup(kind, nodes, qidx, vidx, consts))

    ancestor = np.zeros((nb, nb), dtype=bool)
    for i in range(nb):
        k = i
        while k >= 0:
            ancestor[i, k] = True
            k = parent[k]

    frame_node = np.asarray([body_node[int(f.body().index())] for f in plant._frames], np.int64)

    node_nv = np.zeros(nb, dtype=np.int64)
    for node in range(1, nb):
        node_nv[node] = joints[node_joint[node]].kind.nv

    h = hashlib.sha256()
    for arr in (node_body, parent, node_joint, fparent, fchild, frame_node):
        h.update(arr.tobytes())
    for g in groups:
        h.update(g.kind.name.encode())
        h.update(g.nodes.tobytes())
        for cname in sorted(g.constants):
            h.update(cname.encode())
            h.update(g.constants[cname].tobytes())
    key = h.hexdigest()

    return Topology(
        num_nodes=nb, nq=nq, nv=nv, node_body=node_body, body_node=body_node, parent=parent,
        depth=depth, levels=levels, node_joint=node_joint, frame_on_parent=fparent,
        frame_on_child=fchild, groups=tuple(groups), dof_node=dof_node, ancestor=ancestor,
        frame_node=frame_node,
        dof_tree=compile_dof_tree(nb, parent, v_start, node_nv), key=key,
    )
