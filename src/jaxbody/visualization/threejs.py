"""Shapes as three.js JSON objects: the payload of meshcat's ``set_object`` command.

Each function returns a dict in three.js's object format (version 4.5: ``geometries``,
``materials`` and one ``object``), ready to be msgpack'ed into a meshcat command. Numeric arrays
travel as msgpack extension types (typed arrays), as meshcat does.

Drawing rules (those of Drake's ``MeshcatVisualizer``):

- `Box`, `Sphere`, `Ellipsoid`, `Cylinder`, `Capsule`: primitives in the geometry frame G;
  cylinders and capsules along Gz (three.js draws cylinders along y: a fixed rotation maps it).
- `HalfSpace`: a large thin box whose top face is the plane z = 0 of G.
- `Mesh`: ``.obj``, ``.dae`` and ``.stl`` files are sent as they are and parsed by the browser
  (three.js's loaders); with no diffuse color the file's own materials are used (``.obj`` with
  its ``.mtl``, ``.dae`` with its effects). Other formats trimesh can read (``.ply``, ``.glb``,
  ``.off``, ...) are sent as triangles. `Convex` is drawn as its convex hull.
- The diffuse color is the geometry's ``("phong", "diffuse")`` RGBA, else `DEFAULT_RGBA`.

Example:
    >>> from jaxbody.geometry import Box
    >>> obj = shape_object(Box(0.1, 0.2, 0.3), (1.0, 0.0, 0.0, 1.0))
    >>> obj["geometries"][0]["type"], obj["materials"][0]["color"]
    ('BoxGeometry', 16711680)
"""

from __future__ import annotations

import base64
import mimetypes
import os
import re
import uuid

import numpy as np
import umsgpack

from jaxbody.geometry.shapes import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Mesh, Sphere

DEFAULT_RGBA = (0.9, 0.9, 0.9, 1.0)  # Drake's MeshcatVisualizerParams.default_color
HALF_SPACE_SIZE = 40.0  # m, the side of the box that draws a HalfSpace
HALF_SPACE_THICKNESS = 0.02  # m
HALF_SPACE_DROP = 1e-3  # m: the top face sits this far below z = 0, under meshcat's grid
SPHERE_SEGMENTS = 24
CYLINDER_SEGMENTS = 40
_FILE_FORMATS = {".obj": "obj", ".dae": "dae", ".stl": "stl"}  # parsed by three.js's loaders
_EXT_UINT8, _EXT_UINT32, _EXT_FLOAT32 = 0x12, 0x16, 0x17  # msgpack-lite's typed-array codes


def _uuid() -> str:
    return str(uuid.uuid4())


def typed_array(a, dtype=np.float32) -> umsgpack.Ext:
    """``a`` flattened (C order) as a msgpack typed-array extension (Float32Array, ...)."""
    code = {np.dtype(np.float32): _EXT_FLOAT32, np.dtype(np.uint32): _EXT_UINT32,
            np.dtype(np.uint8): _EXT_UINT8}[np.dtype(dtype)]
    return umsgpack.Ext(code, np.ascontiguousarray(a, dtype=dtype).tobytes())


def matrix_list(X) -> list:
    """A 4x4 transform as three.js's column-major list of 16 floats."""
    return [float(x) for x in np.asarray(X, float).T.reshape(-1)]


def rgba_of(color, default=DEFAULT_RGBA) -> np.ndarray:
    """``color`` (RGB or RGBA in [0, 1], or None for ``default``) as an RGBA array."""
    c = np.asarray(default if color is None else color, dtype=float).reshape(-1)
    if c.shape == (3,):
        c = np.append(c, 1.0)
    if c.shape != (4,) or not np.all(np.isfinite(c)) or np.any((c < 0) | (c > 1)):
        raise ValueError(f"a color must be 3 or 4 numbers in [0, 1] (RGB[A]), got {color!r}")
    return c


def phong_material(rgba, *, flat_shading=False) -> dict:
    """A ``MeshPhongMaterial`` of color ``rgba``; transparent when alpha < 1."""
    r, g, b, a = rgba_of(rgba)
    color = (int(round(255 * r)) << 16) | (int(round(255 * g)) << 8) | int(round(255 * b))
    return {"uuid": _uuid(), "type": "MeshPhongMaterial", "color": color, "opacity": float(a),
            "transparent": bool(a < 1.0), "side": 2, "flatShading": bool(flat_shading),
            "reflectivity": 0.5}


def vertex_color_material(opacity=1.0, *, depth_test=True) -> dict:
    """An unlit ``MeshBasicMaterial`` showing the geometry's per-vertex colors as they are (for
    colormaps). It is drawn in the transparent pass, after every opaque object; with
    ``depth_test=False`` it is drawn over everything."""
    return {"uuid": _uuid(), "type": "MeshBasicMaterial", "color": 0xFFFFFF,
            "vertexColors": True, "opacity": float(opacity), "transparent": True, "side": 2,
            "depthTest": bool(depth_test), "depthWrite": bool(depth_test)}


def mesh_object(geometry: dict, material: dict, X=None) -> dict:
    """A three.js ``Mesh`` of ``geometry`` and ``material``, with the fixed transform ``X``."""
    X = np.eye(4) if X is None else X
    return {"metadata": {"version": 4.5, "type": "Object"},
            "geometries": [geometry], "materials": [material],
            "object": {"uuid": _uuid(), "type": "Mesh", "geometry": geometry["uuid"],
                       "material": material["uuid"], "matrix": matrix_list(X)}}


# --- Primitive geometries ------------------------------------------------------------------------
def box_geometry(size) -> dict:
    w, d, h = (float(s) for s in size)
    return {"uuid": _uuid(), "type": "BoxGeometry", "width": w, "height": d, "depth": h}


def sphere_geometry(radius) -> dict:
    return {"uuid": _uuid(), "type": "SphereGeometry", "radius": float(radius),
            "widthSegments": SPHERE_SEGMENTS, "heightSegments": SPHERE_SEGMENTS}


def cylinder_geometry(length, radius_bottom, radius_top=None) -> dict:
    """A three.js cylinder (a cone if ``radius_top`` is 0) along its own y axis."""
    top = radius_bottom if radius_top is None else radius_top
    return {"uuid": _uuid(), "type": "CylinderGeometry", "height": float(length),
            "radiusTop": float(top), "radiusBottom": float(radius_bottom),
            "radialSegments": CYLINDER_SEGMENTS}


def triangles_geometry(vertices, faces, colors=None) -> dict:
    """A ``BufferGeometry`` of triangles ``faces`` (M, 3) of ``vertices`` (N, 3), with optional
    per-vertex RGB ``colors`` (N, 3) in [0, 1] (drawn by a material with ``vertexColors``);
    normals are computed by the browser."""
    V = np.asarray(vertices, np.float32)
    F = np.asarray(faces, np.uint32)
    attributes = {"position": {"itemSize": 3, "type": "Float32Array", "array": typed_array(V),
                               "normalized": False}}
    if colors is not None:
        attributes["color"] = {"itemSize": 3, "type": "Float32Array",
                               "array": typed_array(colors), "normalized": False}
    return {"uuid": _uuid(), "type": "BufferGeometry", "data": {
        "attributes": attributes,
        "index": {"itemSize": 1, "type": "Uint32Array", "array": typed_array(F, np.uint32),
                  "normalized": False}}}


Y_TO_Z = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])  # Rx(pi/2)


# --- Shapes ----------------------------------------------------------------------------------------
def shape_object(shape, rgba=None) -> dict:
    """The three.js object that draws ``shape`` (in its frame G) with diffuse color ``rgba``
    (None: `DEFAULT_RGBA`, or a mesh file's own materials).

    Raises:
        ValueError: a mesh file that cannot be read, or an unsupported shape.
    """
    color = rgba_of(rgba)
    if isinstance(shape, Box):
        return mesh_object(box_geometry(shape.size()), phong_material(color))
    if isinstance(shape, Sphere):
        return mesh_object(sphere_geometry(max(shape.radius(), 1e-6)), phong_material(color))
    if isinstance(shape, Ellipsoid):
        X = np.diag([shape.a(), shape.b(), shape.c(), 1.0])
        return mesh_object(sphere_geometry(1.0), phong_material(color), X)
    if isinstance(shape, Cylinder):
        return mesh_object(cylinder_geometry(shape.length(), shape.radius()),
                           phong_material(color), Y_TO_Z)
    if isinstance(shape, Capsule):
        V, F = _capsule_mesh(shape.radius(), shape.length())
        return mesh_object(triangles_geometry(V, F), phong_material(color))
    if isinstance(shape, HalfSpace):
        X = np.eye(4)
        X[2, 3] = -HALF_SPACE_DROP - HALF_SPACE_THICKNESS / 2
        size = (HALF_SPACE_SIZE, HALF_SPACE_SIZE, HALF_SPACE_THICKNESS)
        return mesh_object(box_geometry(size), phong_material(color), X)
    if isinstance(shape, Convex):
        try:
            V, F = shape.GetConvexHull()
        except ValueError:  # e.g. a .dae trimesh cannot read: let the browser draw the file
            return _mesh_file_object(shape, rgba)
        return mesh_object(triangles_geometry(V, F), phong_material(color, flat_shading=True))
    if isinstance(shape, Mesh):
        return _mesh_file_object(shape, rgba)
    raise ValueError(f"cannot draw a {type(shape).__name__}")


def _capsule_mesh(radius, length):
    import trimesh

    m = trimesh.creation.capsule(height=length, radius=radius, count=[CYLINDER_SEGMENTS, 16])
    return np.asarray(m.vertices), np.asarray(m.faces)


def _mesh_file_object(shape, rgba):
    """A `Mesh`/`Convex` file: sent as the file (obj/dae/stl) or as trimesh's triangles."""
    path = shape.filename()
    fmt = _FILE_FORMATS.get(shape.extension())
    scale = np.diag(np.append(shape.scale3(), 1.0))
    if fmt is None:
        V, F = shape.vertices(), shape.faces()  # ValueError names the file if unreadable
        return mesh_object(triangles_geometry(V, F), phong_material(rgba_of(rgba)))
    data = _read_file(path, binary=(fmt == "stl"))
    if fmt == "stl":  # three.js's STL loader gives no material: use the color or the default
        data = typed_array(np.frombuffer(data, np.uint8), np.uint8)
    if rgba is not None or fmt == "stl":
        geometry = {"uuid": _uuid(), "type": "_meshfile_geometry", "format": fmt, "data": data}
        return mesh_object(geometry, phong_material(rgba_of(rgba)), scale)
    obj = {"uuid": _uuid(), "type": "_meshfile_object", "format": fmt, "data": data,
           "resources": _resources(path, data, fmt), "matrix": matrix_list(scale)}
    if fmt == "obj":
        mtl = _mtl_library(path, data)
        if mtl is not None:
            obj["mtl_library"] = mtl
            obj["resources"].update(_resources(path, mtl, "mtl"))
    return {"metadata": {"version": 4.5, "type": "Object"}, "geometries": [], "materials": [],
            "object": obj}


def _read_file(path, binary=False):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ValueError(f"Mesh file '{path}' cannot be read: {e}") from e
    return raw if binary else raw.decode("utf-8", errors="replace")


def _mtl_library(path, obj_text):
    """The text of the ``.mtl`` files an ``.obj`` names (``mtllib``), or None."""
    texts = []
    for m in re.finditer(r"^\s*mtllib\s+(.+?)\s*$", obj_text, re.MULTILINE):
        mtl = os.path.join(os.path.dirname(path), m.group(1))
        if os.path.isfile(mtl):
            texts.append(_read_file(mtl))
    return "\n".join(texts) if texts else None


def _resources(path, text, fmt):
    """Texture files a mesh (or mtl) names, found beside it, as data URIs keyed by name."""
    pattern = {"dae": r"<init_from>\s*([^<\s]+)\s*</init_from>",
               "mtl": r"^\s*map_\w+\s+(?:-\S+\s+\S+\s+)*(\S+)\s*$"}.get(fmt)
    out = {}
    for name in re.findall(pattern, text, re.MULTILINE) if pattern else ():
        file = os.path.join(os.path.dirname(path), name)
        if os.path.isfile(file):
            mime = mimetypes.guess_type(file)[0] or "application/octet-stream"
            with open(file, "rb") as f:
                out[name] = f"data:{mime};base64," + base64.b64encode(f.read()).decode("ascii")
    return out


def bounding_radius(shape) -> float:
    """A radius (m) about Go enclosing ``shape``, for framing the camera (0 for a HalfSpace)."""
    if isinstance(shape, Box):
        return float(np.linalg.norm(shape.size()) / 2)
    if isinstance(shape, Sphere):
        return shape.radius()
    if isinstance(shape, Ellipsoid):
        return max(shape.a(), shape.b(), shape.c())
    if isinstance(shape, (Cylinder, Capsule)):
        cap = shape.radius() if isinstance(shape, Capsule) else 0.0
        return float(np.hypot(shape.radius(), shape.length() / 2) + cap)
    if isinstance(shape, (Mesh, Convex)):
        try:
            lo, hi = shape.CalcAxisAlignedBoundingBox()
            return float(max(np.linalg.norm(lo), np.linalg.norm(hi)))
        except ValueError:
            return 0.1
    return 0.0
