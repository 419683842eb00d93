"""The scene command log (replay, delete, forwarding) and the static HTML page."""

import numpy as np
import pytest
import umsgpack

from jaxbody.visualization.html import static_html
from jaxbody.visualization.scene import SceneCommands
from jaxbody.visualization.threejs import shape_object
from tests.visualization.viz_fixtures import RecordingWindow, scene_of


def test_latest_command_per_path_is_kept_in_replay_order():
    from jaxbody.geometry import Sphere

    s = SceneCommands()
    X = np.eye(4)
    s.set_transform("/a/b", X)
    s.set_object("a/b/c", shape_object(Sphere(0.1)))
    X2 = np.eye(4)
    X2[0, 3] = 1.0
    s.set_transform("/a/b/", X2)
    s.set_property("/a/b", "visible", False)
    s.set_animation([{"path": "a/b", "clip": {"fps": 1, "name": "default", "tracks": []}}])
    kinds = [(c["type"], c["path"]) for c in s.commands()]
    assert kinds == [("set_object", "/a/b/c"), ("set_property", "/a/b"),
                     ("set_transform", "/a/b"), ("set_animation", "")]
    assert s.transforms()["/a/b"][12] == 1.0  # column-major: translation x
    assert s.animation()["animations"][0]["path"] == "/a/b"


def test_delete_removes_a_subtree_only():
    from jaxbody.geometry import Box

    s = SceneCommands()
    s.set_object("/a/x", shape_object(Box(1, 1, 1)))
    s.set_object("/ab/y", shape_object(Box(1, 1, 1)))
    s.set_transform("/a", np.eye(4))
    s.set_animation([{"path": "/a/x", "clip": {}}, {"path": "/ab/y", "clip": {}}])
    s.delete("/a")
    assert list(s.objects()) == ["/ab/y"]
    assert s.transforms() == {}
    assert [a["path"] for a in s.animation()["animations"]] == ["/ab/y"]
    s.delete("/ab")
    assert s.animation() is None


def test_every_command_is_forwarded_to_a_live_window():
    w = RecordingWindow()
    s = SceneCommands(w)
    s.set_transform("/a", np.eye(4))
    s.set_property("/a", "visible", True)
    s.delete("/a")
    assert [c["type"] for c in w.sent] == ["set_transform", "set_property", "delete"]
    assert s.commands() == []


def test_packed_commands_round_trip():
    s = SceneCommands()
    s.set_transform("/a", np.diag([1.0, 2.0, 3.0, 1.0]))
    (blob,) = s.packed()
    assert umsgpack.unpackb(blob)["matrix"][:3] == [1.0, 0.0, 0.0]


def test_static_html_inlines_the_viewer_and_the_scene():
    s = SceneCommands()
    s.set_transform("/jaxbody/a", np.eye(4))
    html = static_html(s.packed(), title="<pendulum & co>", camera=([1, 2, 3], [0, 0, 0.5]),
                       show_controls=False)
    assert "<title>&lt;pendulum &amp; co&gt;</title>" in html
    assert "MeshCat" in html and 'src="' not in html and "connect(" not in html.split(
        'id="jaxbody-scene"')[1]
    scene = scene_of(html)
    assert scene["camera"] == {"position": [1.0, 2.0, 3.0], "target": [0.0, 0.0, 0.5]}
    assert scene["controls"] is False
    assert scene["commands"][0]["path"] == "/jaxbody/a"


def test_static_html_rejects_a_non_finite_camera():
    with pytest.raises(ValueError, match="camera"):
        static_html([], camera=([np.nan, 0, 0], [0, 0, 0]))
