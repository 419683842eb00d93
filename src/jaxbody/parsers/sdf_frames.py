"""SDFormat's frame semantics (SDFormat 1.7+, as libsdformat and Drake resolve them): the pose
graph (``<pose relative_to>``) and the attached-to graph (which body each frame moves with).

Every frame-bearing element of a file is a node with a file-wide *key*: a model is its scoped
name (``outer``, ``outer::inner``; the name ``__model__`` in a model's scope is the model
itself), and its links, joints and ``<frame>``s are ``model_key::name``. World-level frames use
their bare name, and ``world`` is the world frame. In a model's scope a name may refer into a
nested model (``inner::link``), never upward.

Default ``relative_to`` targets, as in SDFormat: a link or nested model is posed in its parent
model's frame, a joint in its child frame, a ``<frame>`` in the frame it is attached to
(default: the model frame), a top-level model in the world. Attached-to: a link moves with
itself, a joint with its child link, a frame with what it is attached to, a model with its
canonical link (the ``canonical_link`` attribute, else its first link, else the canonical link
of its first nested model).

Poses compose as rotation-matrix transforms ``(R, p)``. As libsdformat does, a pose relative to
another frame of the same top-level model is computed through that model's frame (never through
the world), so a joint frame that coincides with its parent body frame comes out as the exact
identity (Drake then adds no ``<joint>_parent`` frame).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxbody.parsers.model_description import WORLD

SCOPE = "::"
MODEL_FRAME = "__model__"


def join(scope, name):
    """``scope::name`` (just ``name`` at world scope, where ``scope`` is "")."""
    return name if not scope else f"{scope}{SCOPE}{name}"


def compose(X_AB, X_BC):
    """``X_AC = X_AB X_BC`` for ``(R, p)`` pairs."""
    return X_AB[0] @ X_BC[0], X_AB[0] @ X_BC[1] + X_AB[1]


def invert(X_AB):
    """``X_BA`` from ``X_AB``."""
    return X_AB[0].T, -(X_AB[0].T @ X_AB[1])


IDENTITY = (np.eye(3), np.zeros(3))


@dataclasses.dataclass
class FrameNode:
    """One frame-bearing element.

    Attributes:
        kind: "model", "link", "joint", "frame" or "world".
        scope: key of the model whose scope the element's references are written in ("" for
            world-level elements; a model's own scope for its ``__model__`` references).
        xml: the element (for error locations); diag: its file's `Diagnostics`.
        relative_to: the ``relative_to`` text as written ("" for the default).
        default_rel: key of the default ``relative_to`` target.
        X: the pose as written (in the ``relative_to`` frame).
        attached: key of what the node is attached to (links: None, they are bodies).
        top: key of the top-level model holding the node ("world" for world-level frames).
    """

    kind: str
    scope: str
    xml: object
    diag: object
    relative_to: str
    default_rel: str
    X: tuple
    attached: str | None
    top: str


class FrameGraph:
    """The pose and attached-to graphs of one file, over file-wide keys."""

    def __init__(self):
        self.nodes = {WORLD: FrameNode("world", "", None, None, "", WORLD, IDENTITY, None, WORLD)}
        self._pose, self._body = {WORLD: (WORLD, IDENTITY)}, {WORLD: WORLD}

    def add(self, key, node):
        self.nodes[key] = node

    def resolve(self, scope, name, node, diag, what):
        """The key that ``name`` (written in model ``scope``, "" for world) refers to."""
        if not name:
            diag.error(node, f"{what}: empty frame name")
        if name == MODEL_FRAME:
            return scope or WORLD
        if name == WORLD and not scope:
            return WORLD
        key = join(scope, name)
        if key.endswith(SCOPE + MODEL_FRAME):
            key = key[:-len(SCOPE + MODEL_FRAME)]
        if key not in self.nodes or key == WORLD:
            where = f"model '{scope}'" if scope else "the world"
            diag.error(node, f"{what}: '{name}' does not match a nested model, link, joint or "
                             f"frame name in {where}")
        return key

    def _rel_key(self, key):
        n = self.nodes[key]
        if not n.relative_to:
            return n.default_rel
        return self.resolve(n.scope, n.relative_to, n.xml, n.diag, "relative_to")

    def pose(self, key, _visiting=()):
        """``(root, X_root_key)``: the pose of ``key`` in its top-level model's frame, or in the
        world for world-level frames (root = "world")."""
        if key in self._pose:
            return self._pose[key]
        n = self.nodes[key]
        if n.kind == "model" and n.top == key:
            self._pose[key] = (key, IDENTITY)
            return self._pose[key]
        if key in _visiting:
            n.diag.error(n.xml, "the <pose relative_to> references form a cycle: "
                                + " -> ".join(_visiting + (key,)))
        target = self._rel_key(key)
        root, X_rT = self.pose(target, _visiting + (key,))
        self._pose[key] = (root, compose(X_rT, n.X))
        return self._pose[key]

    def world_pose_of_root(self, root):
        """``X_W,root`` for a root returned by `pose` (a top-level model or the world)."""
        if root == WORLD:
            return IDENTITY
        target = self._rel_key(root)
        r, X_rT = self.pose(target, (root,))
        return compose(compose(self.world_pose_of_root(r), X_rT), self.nodes[root].X)

    def relative(self, a, b):
        """``X_ab``: the pose of frame ``b`` in frame ``a`` (both keys)."""
        ra, X_ra = self.pose(a)
        rb, X_rb = self.pose(b)
        if ra != rb:
            X_ra = compose(self.world_pose_of_root(ra), X_ra)
            X_rb = compose(self.world_pose_of_root(rb), X_rb)
        return compose(invert(X_ra), X_rb)

    def world_pose(self, key):
        root, X = self.pose(key)
        return compose(self.world_pose_of_root(root), X)

    def body(self, key, _visiting=()):
        """The key of the link (or "world") that frame ``key`` is attached to."""
        if key in self._body:
            return self._body[key]
        n = self.nodes[key]
        if n.kind == "link":
            self._body[key] = key
            return key
        if key in _visiting:
            n.diag.error(n.xml, "the attached_to references form a cycle: "
                                + " -> ".join(_visiting + (key,)))
        self._body[key] = self.body(n.attached, _visiting + (key,))
        return self._body[key]
