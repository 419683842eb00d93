"""One self-contained HTML file that replays a meshcat scene: no server, no network.

The file inlines meshcat's bundled three.js viewer (``meshcat/viewer/dist/main.min.js`` from
the ``meshcat`` Python package, with its license notices) and the scene's msgpack'ed commands
(base64, in a JSON block). On load it builds the viewer, replays the commands (an animation
starts playing if it was published with ``play=True``), and frames the camera. The viewer's
"Open Controls" panel holds the animation's play/pause/reset buttons and its time slider.

Example:
    >>> import numpy as np
    >>> from jaxbody.visualization.scene import SceneCommands
    >>> scene = SceneCommands()
    >>> scene.set_transform("/jaxbody/a", np.eye(4))
    >>> html = static_html(scene.packed(), title="empty")
    >>> html.startswith("<!DOCTYPE html>") and 'src="' not in html
    True
"""

from __future__ import annotations

import base64
import functools
import html as _html
import json
import os

import numpy as np

_CAMERA_JS = """
function jaxbodySetCamera(viewer, position, target) {
  // meshcat's scene root turns its z-up World into three.js's y-up frame; map both points
  // from World (the scene root's frame) into the camera's parent and three.js's world frames.
  var THREE_ = MeshCat.THREE;
  viewer.scene.updateMatrixWorld(true);
  var cam = viewer.camera;
  var p = viewer.scene.localToWorld(new THREE_.Vector3(position[0], position[1], position[2]));
  var t = viewer.scene.localToWorld(new THREE_.Vector3(target[0], target[1], target[2]));
  cam.position.copy(cam.parent ? cam.parent.worldToLocal(p) : p);
  viewer.controls.target.copy(t);
  viewer.controls.update();
  viewer.set_dirty();
}
"""

_LOADER_JS = """
(function () {
  var scene = JSON.parse(document.getElementById("jaxbody-scene").textContent);
  var viewer = new MeshCat.Viewer(document.getElementById("meshcat-pane"));
  window.viewer = viewer;
  function bytes(b64) {
    var s = atob(b64), n = s.length, a = new Uint8Array(n);
    for (var i = 0; i < n; i++) a[i] = s.charCodeAt(i);
    return a;
  }
  scene.commands.forEach(function (c) {
    try { viewer.handle_command_bytearray(bytes(c)); }
    catch (e) { console.error("jaxbody: a scene command failed:", e); }
  });
  if (scene.camera) jaxbodySetCamera(viewer, scene.camera.position, scene.camera.target);
  if (!scene.controls) viewer.gui.domElement.style.display = "none";
  document.body.setAttribute("data-jaxbody-ready", "1");
})();
"""

_TEMPLATE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>body {{ margin: 0; overflow: hidden; }}
#meshcat-pane {{ width: 100vw; height: 100vh; overflow: hidden; }}</style>
</head>
<body>
<div id="meshcat-pane"></div>
<!-- meshcat viewer {version} (three.js and others); their license notices:
{licenses}
-->
<script>
{viewer_js}
</script>
<script id="jaxbody-scene" type="application/json">{scene}</script>
<script>
{camera_js}
{loader_js}
</script>
</body>
</html>
"""


@functools.cache
def _viewer_assets():
    """(main.min.js, its license notices, meshcat's version) from the installed package."""
    import importlib.metadata
    import importlib.util

    spec = importlib.util.find_spec("meshcat")  # located, not imported (that would start zmq)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("jaxbody.visualization needs the 'meshcat' package: "
                          "pip install 'jaxbody[viz]'")
    dist = os.path.join(spec.submodule_search_locations[0], "viewer", "dist")
    with open(os.path.join(dist, "main.min.js"), encoding="utf-8") as f:
        js = f.read()
    lic = os.path.join(dist, "main.min.js.LICENSE.txt")
    notices = ""
    if os.path.isfile(lic):
        with open(lic, encoding="utf-8") as f:
            notices = f.read().replace("--", "- -")  # keep the HTML comment well formed
    if "</script" in js.lower():  # never true for the shipped file; keeps the inlining safe
        js = js.replace("</script", "<\\/script").replace("</SCRIPT", "<\\/SCRIPT")
    return js, notices, importlib.metadata.version("meshcat")


def static_html(packed_commands, *, title="jaxbody", camera=None, show_controls=True) -> str:
    """The HTML page that replays ``packed_commands``.

    Args:
        packed_commands: msgpack'ed meshcat commands (``SceneCommands.packed()``).
        title: the page title.
        camera: None (meshcat's default view), or ``(position, target)``: the camera's
            position and the point it looks at, in World (m), z up.
        show_controls: False hides meshcat's control panel (for screenshots).

    Returns:
        The page, as a string with every script inline.
    """
    js, notices, version = _viewer_assets()
    cam = None
    if camera is not None:
        p, t = (np.asarray(c, float).reshape(3) for c in camera)
        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(t))):
            raise ValueError(f"static_html: camera must be finite (position, target), got {camera}")
        cam = {"position": p.tolist(), "target": t.tolist()}
    scene = json.dumps({"commands": [base64.b64encode(c).decode("ascii") for c in packed_commands],
                        "camera": cam, "controls": bool(show_controls)})
    return _TEMPLATE.format(title=_html.escape(str(title)), version=version, licenses=notices,
                            viewer_js=js, scene=scene.replace("</", "<\\/"),
                            camera_js=_CAMERA_JS, loader_js=_LOADER_JS)
