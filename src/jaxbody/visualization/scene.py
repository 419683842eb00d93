"""`SceneCommands`: the meshcat scene as a replayable list of commands, optionally forwarded
live to a meshcat server.

meshcat's protocol is five msgpack'ed commands: ``set_object`` (a three.js object at a path),
``set_transform`` (a node's 4x4 pose in its parent), ``set_property`` (e.g. ``visible``),
``delete`` and ``set_animation`` (keyframe tracks per node, played by three.js's
AnimationMixer). Paths are ``/``-separated; a node's pose composes with its parents'.

`SceneCommands` keeps the latest command of each kind per path (as meshcat's server does), so
the scene can be replayed into a static HTML file; if given a meshcat window (the
``window`` of a ``meshcat.Visualizer``, or anything with ``send(command)``), every command is
also sent to it.

Example:
    >>> import numpy as np
    >>> scene = SceneCommands()
    >>> scene.set_transform("/jaxbody/a", np.eye(4))
    >>> [c["type"] for c in scene.commands()]
    ['set_transform']
"""

from __future__ import annotations

import umsgpack

from jaxbody.visualization.threejs import matrix_list


class _Command:
    """A lowered command, in the form ``meshcat.Visualizer.window.send`` expects."""

    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data

    def lower(self):
        return self.data


def _norm(path: str) -> str:
    parts = [p for p in str(path).split("/") if p]
    return "/" + "/".join(parts)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class SceneCommands:
    """The current meshcat scene, as the commands that rebuild it.

    Args:
        window: None (record only), or an object with ``send(command)`` where
            ``command.lower()`` is the command dict (a ``meshcat.Visualizer``'s ``window``).
    """

    def __init__(self, window=None):
        self._window = window
        self._objects = {}  # path -> command
        self._properties = {}  # (path, property) -> command
        self._transforms = {}  # path -> command
        self._animation = None

    def _send(self, cmd):
        if self._window is not None:
            self._window.send(_Command(cmd))

    def set_object(self, path, obj: dict) -> None:
        """Puts the three.js object ``obj`` (see `jaxbody.visualization.threejs`) at ``path``."""
        path = _norm(path)
        cmd = {"type": "set_object", "path": path, "object": obj}
        self._objects[path] = cmd
        self._send(cmd)

    def set_transform(self, path, X) -> None:
        """Sets the pose (4x4 homogeneous matrix) of node ``path`` in its parent node."""
        path = _norm(path)
        cmd = {"type": "set_transform", "path": path, "matrix": matrix_list(X)}
        self._transforms[path] = cmd
        self._send(cmd)

    def set_property(self, path, name: str, value) -> None:
        """Sets a property (``visible``, ``position``, ...) of the object at ``path``."""
        path = _norm(path)
        cmd = {"type": "set_property", "path": path, "property": str(name), "value": value}
        self._properties[(path, str(name))] = cmd
        self._send(cmd)

    def delete(self, path) -> None:
        """Deletes node ``path`` and everything under it."""
        path = _norm(path)
        for table in (self._objects, self._transforms):
            for p in [p for p in table if _under(p, path)]:
                del table[p]
        for key in [k for k in self._properties if _under(k[0], path)]:
            del self._properties[key]
        if self._animation is not None:
            anims = [a for a in self._animation["animations"] if not _under(a["path"], path)]
            self._animation = dict(self._animation, animations=anims) if anims else None
        self._send({"type": "delete", "path": path})

    def set_animation(self, animations: list, *, play=True, repetitions=1) -> None:
        """Replaces the animation: ``animations`` is a list of ``{"path", "clip"}`` dicts, a
        three.js AnimationClip (JSON) per animated node."""
        cmd = {"type": "set_animation", "path": "",
               "animations": [dict(a, path=_norm(a["path"])) for a in animations],
               "options": {"play": bool(play), "repetitions": repetitions}}
        self._animation = cmd
        self._send(cmd)

    def animation(self):
        """The last ``set_animation`` command (a dict), or None."""
        return self._animation

    def objects(self) -> dict:
        """``{path: three.js object}`` of the scene."""
        return {p: c["object"] for p, c in self._objects.items()}

    def transforms(self) -> dict:
        """``{path: column-major 4x4 list}`` of the scene's node poses."""
        return {p: c["matrix"] for p, c in self._transforms.items()}

    def commands(self) -> list:
        """The commands that rebuild the scene: objects, properties, transforms, animation."""
        out = list(self._objects.values()) + list(self._properties.values())
        out += list(self._transforms.values())
        return out + ([self._animation] if self._animation is not None else [])

    def packed(self) -> list:
        """`commands` msgpack'ed (meshcat's wire format), one ``bytes`` per command."""
        return [umsgpack.packb(c) for c in self.commands()]
