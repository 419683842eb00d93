"""Fixtures of the visualization tests: small mesh files written on demand (never committed as
data: a cube as .obj with a .mtl, .stl and .ply, and a tetrahedron as a minimal COLLADA .dae),
a stand-in for a live meshcat window, the scene data of an exported page, and hand-made
hydroelastic contact polygons."""

from __future__ import annotations

import base64
import json
import os
import re

import numpy as np
import umsgpack

from jaxbody.geometry.hydroelastic.polygons import ContactPolygons

CUBE_HALF = 0.1  # m

_DAE = """<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_effects><effect id="red-fx"><profile_COMMON><technique sid="common"><phong>
    <diffuse><color>0.9 0.1 0.1 1</color></diffuse></phong></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials><material id="red" name="red"><instance_effect url="#red-fx"/></material>
  </library_materials>
  <library_geometries><geometry id="tet" name="tet"><mesh>
    <source id="tet-pos"><float_array id="tet-pos-array" count="12">{positions}</float_array>
      <technique_common><accessor source="#tet-pos-array" count="4" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="tet-vtx"><input semantic="POSITION" source="#tet-pos"/></vertices>
    <triangles material="red" count="4"><input semantic="VERTEX" source="#tet-vtx" offset="0"/>
      <p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="scene"><node id="tet-node" name="tet">
    <instance_geometry url="#tet"><bind_material><technique_common>
      <instance_material symbol="red" target="#red"/></technique_common></bind_material>
    </instance_geometry></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"""


def write_meshes(folder) -> dict:
    """Writes the files into ``folder``; returns ``{extension: path}``."""
    import trimesh

    cube = trimesh.creation.box(extents=[2 * CUBE_HALF] * 3)
    paths = {}
    for ext in ("stl", "ply"):
        paths[ext] = os.path.join(folder, f"cube.{ext}")
        cube.export(paths[ext])
    paths["obj"] = os.path.join(folder, "cube.obj")
    lines = ["mtllib cube.mtl", "usemtl green"]
    lines += [f"v {x:g} {y:g} {z:g}" for x, y, z in cube.vertices]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in cube.faces]
    with open(paths["obj"], "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "cube.mtl"), "w") as f:
        f.write("newmtl green\nKd 0.1 0.8 0.1\n")
    h = CUBE_HALF
    tet = np.array([[-h, -h, -h], [h, -h, -h], [0, h, -h], [0, 0, h]])
    paths["dae"] = os.path.join(folder, "tet.dae")
    with open(paths["dae"], "w") as f:
        f.write(_DAE.format(positions=" ".join(f"{x:g}" for x in tet.reshape(-1))))
    return paths


class RecordingWindow:
    """Stands in for a meshcat server window: records what would be sent."""

    def __init__(self):
        self.sent = []

    def send(self, command):
        self.sent.append(command.lower())


def scene_of(html) -> dict:
    """The scene block of a `static_html` page, with its commands unpacked (dicts)."""
    block = re.search(r'<script id="jaxbody-scene" type="application/json">(.*?)</script>',
                      html, re.S).group(1)
    data = json.loads(block)
    data["commands"] = [umsgpack.unpackb(base64.b64decode(c)) for c in data["commands"]]
    return data


def contact_polygons(polys, pressures, *, slots=None, V=5, invalid=()):
    """`ContactPolygons` of the polygons (each (n, 3)) in order, in ``slots`` slots of V vertices
    (padded with the last vertex); slots listed in ``invalid`` hold NaN and are not valid. Areas
    are 1 m² and normals +x (the drawing uses only the vertices and pressures)."""
    F = slots or len(polys) + len(invalid)
    verts, n = np.full((F, V, 3), np.nan), np.zeros(F, np.int32)
    pressure, valid = np.full(F, np.nan), np.zeros(F, bool)
    live = [f for f in range(F) if f not in invalid]
    for f, P, p in zip(live, polys, pressures):
        P = np.asarray(P, float)
        verts[f, :len(P)], verts[f, len(P):], n[f], pressure[f], valid[f] = P, P[-1], len(P), p, True
    area = np.ones(F)
    return ContactPolygons(area=area, centroid=verts.mean(1), normal=np.tile([1.0, 0, 0], (F, 1)),
                           pressure=pressure, grad_M=np.zeros((F, 3)), grad_N=np.zeros((F, 3)),
                           vertices=verts, num_vertices=n, valid=valid)


def square(y0, size=0.4, x=0.0, z0=-0.2):
    """A square in the plane x = const, counterclockwise about +x."""
    return np.array([[x, y0, z0], [x, y0 + size, z0], [x, y0 + size, z0 + size],
                     [x, y0, z0 + size]])
