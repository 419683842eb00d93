"""SDFormat ``<visual>`` and ``<collision>`` into `GeometryDescription`s, as Drake's
``detail_sdf_geometry.cc`` reads them.

Shapes (SDFormat defaults when a size is omitted): ``<box><size>`` (1 1 1), ``<sphere><radius>``
(1), ``<cylinder>`` and ``<capsule>`` (``radius``, ``length``), ``<ellipsoid><radii>``,
``<plane><normal>`` (a `HalfSpace` whose outward normal is ``normal``, posed with Drake's
``HalfSpace::MakePose``; the plane's ``<size>`` is ignored), ``<mesh><uri><scale>`` (a `Mesh`,
or a `Convex` with ``<drake:declare_convex/>``), and Drake's older ``<drake:capsule>`` and
``<drake:ellipsoid>``. ``<empty/>``, a ``<geometry>`` without a shape, and the shapes Drake
does not support (``heightmap``, ``polyline``, ``cone``, ``image``; with a warning) register no
geometry. Where Drake replaces a negative size by the default with a warning, jaxbody raises a
`ParseError`.

Collision properties: ``<drake:proximity_properties>`` (the same tags as in URDF, with values
as element text); friction from there, else from ``<surface><friction><ode><mu>`` (static,
default 1) and ``<mu2>`` (dynamic, default 1), else Drake's default (1, 1). Visual properties:
``<material><diffuse>`` (rgb or rgba; rounded to single precision, as libsdformat and so Drake
hold colors), ``<drake:diffuse_map>`` and ``<drake:accepting_renderer>``.
"""

from __future__ import annotations

import numpy as np

from jaxbody.geometry import (
    AddContactMaterial,
    Box,
    Capsule,
    Convex,
    CoulombFriction,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    IllustrationProperties,
    Mesh,
    ProximityProperties,
    Sphere,
)
from jaxbody.geometry.properties import MATERIAL_GROUP
from jaxbody.parsers.diagnostics import ParseError
from jaxbody.parsers.model_description import GeometryDescription
from jaxbody.parsers.sdf_frames import compose
from jaxbody.parsers.sdf_values import child_text, read_number, read_numbers
from jaxbody.parsers.urdf_geometry import DEFAULT_FRICTION, read_proximity
from jaxbody.parsers.xml_reader import parse_numbers

_SHAPES = ("box", "sphere", "cylinder", "capsule", "ellipsoid", "plane", "mesh", "empty",
           "drake:capsule", "drake:ellipsoid")
_UNSUPPORTED_SHAPES = ("heightmap", "polyline", "cone", "image")


def half_space_pose(normal):
    """Drake's ``HalfSpace::MakePose(normal, 0)``: ``R`` whose z column is the unit normal and
    whose x column is ``normalize(z × e)``, ``e`` the axis of the normal's smallest-magnitude
    component; ValueError for a (near) zero normal."""
    n = np.asarray(normal, float)
    norm = np.linalg.norm(n)
    if not norm >= 1e-10:
        raise ValueError(f"the plane normal {n.tolist()} is zero")
    perp = np.zeros(3)
    perp[int(np.argmin(np.abs(n)))] = 1.0
    z = n / norm
    x = np.cross(z, perp)
    x = x / np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z]), np.zeros(3)


def read_shape(geometry_node, ws):
    """``(shape, X_GS)`` of a ``<geometry>`` (``X_GS`` is the plane's pose, else identity), or
    None when it registers no geometry."""
    diag = ws.diag
    for child in geometry_node.children:
        if child.tag in _UNSUPPORTED_SHAPES:
            diag.warning(child, f"Ignoring unsupported SDFormat element in geometry: {child.tag}")
        elif child.tag not in _SHAPES:
            diag.error(child, f"unknown geometry type <{child.tag}>")
    node = next((c for c in geometry_node.children if c.tag in _SHAPES), None)
    if node is None or node.tag == "empty":
        return None
    try:
        return _make_shape(node, ws)
    except ParseError:
        raise
    except ValueError as e:  # a shape's own validity check
        diag.error(node, str(e))


def _make_shape(node, ws):
    diag, tag, identity = ws.diag, node.tag, (np.eye(3), np.zeros(3))
    if tag == "box":
        return Box(*read_numbers(node, "size", 3, diag, default=(1, 1, 1))), identity
    if tag == "sphere":
        return Sphere(read_number(node, "radius", diag, default=1.0)), identity
    if tag in ("cylinder", "capsule"):
        cls = Cylinder if tag == "cylinder" else Capsule
        return cls(read_number(node, "radius", diag, default=1.0 if tag == "cylinder" else 0.5),
                   read_number(node, "length", diag, default=1.0)), identity
    if tag == "drake:capsule":
        return Capsule(read_number(node, "radius", diag, required=True),
                       read_number(node, "length", diag, required=True)), identity
    if tag == "ellipsoid":
        return Ellipsoid(*read_numbers(node, "radii", 3, diag, default=(1, 1, 1))), identity
    if tag == "drake:ellipsoid":
        return Ellipsoid(*(read_number(node, a, diag, required=True) for a in "abc")), identity
    if tag == "plane":
        return HalfSpace(), half_space_pose(read_numbers(node, "normal", 3, diag,
                                                         default=(0, 0, 1)))
    uri = child_text(node, "uri")
    if not uri:
        diag.error(node, "<mesh> has no <uri>")
    path = ws.resolve(node, uri, "mesh file")
    scale = read_numbers(node, "scale", 3, diag, default=(1, 1, 1))
    cls = Convex if node.find("drake:declare_convex") is not None else Mesh
    return cls(path, scale), identity


def read_visual(node, body_key, X_LG, ws):
    """The `GeometryDescription` of a ``<visual>`` at ``X_LG`` (None if it has no shape)."""
    diag = ws.diag
    geometry_node = node.find("geometry")
    shape = None if geometry_node is None else read_shape(geometry_node, ws)
    if shape is None:
        return None
    props = IllustrationProperties()
    material = node.find("material")
    if material is not None:
        diffuse = child_text(material, "diffuse")
        if diffuse:
            rgba = parse_numbers(diffuse, diag, material.find("diffuse"), "<diffuse>")
            if len(rgba) not in (3, 4):
                diag.error(material.find("diffuse"), f"<diffuse>: expected 3 or 4 values, got "
                                                     f"'{diffuse}'")
            # libsdformat holds colors in single precision (gz::math::Color), and so does Drake
            rgba = np.array((rgba + [1.0])[:4], np.float32).astype(float)
            props.AddProperty("phong", "diffuse", rgba)
        texture = child_text(material, "drake:diffuse_map")
        if texture:
            props.AddProperty("phong", "diffuse_map",
                              ws.resolve(material.find("drake:diffuse_map"), texture, "texture"))
    accepting = [(c.text or "").strip() for c in node.findall("drake:accepting_renderer")]
    if accepting:
        if not all(accepting):
            diag.error(node, "<drake:accepting_renderer> tag given without any name")
        props.AddProperty("renderer", "accepting", set(accepting))
    if node.find("transparency") is not None:
        diag.warning(node.find("transparency"), "Ignoring unsupported SDFormat element in "
                                                "visual: transparency")
    return GeometryDescription(body_key, "visual", node.get("name"), shape[0], props,
                               diag.location(node), compose(X_LG, shape[1]))


def read_collision(node, body_key, X_LG, ws):
    """The `GeometryDescription` of a ``<collision>`` at ``X_LG`` (None if it has no shape)."""
    diag = ws.diag
    geometry_node = node.find("geometry")
    shape = None if geometry_node is None else read_shape(geometry_node, ws)
    if shape is None:
        return None
    props = ProximityProperties()
    drake_node = node.find("drake:proximity_properties")
    if drake_node is not None:
        read_proximity(drake_node, ws, props,
                       read_value=lambda tag: read_number(drake_node, tag, diag))
    if not props.HasProperty(MATERIAL_GROUP, "coulomb_friction"):
        ode = _find_path(node, ("surface", "friction", "ode"))
        mu = DEFAULT_FRICTION
        if ode is not None:
            mu = (read_number(ode, "mu", diag, default=1.0), read_number(ode, "mu2", diag,
                                                                          default=1.0))
        try:
            AddContactMaterial(friction=CoulombFriction(*mu), properties=props)
        except ValueError as e:
            diag.error(ode if ode is not None else node, str(e))
    return GeometryDescription(body_key, "collision", node.get("name"), shape[0], props,
                               diag.location(node), compose(X_LG, shape[1]))


def _find_path(node, tags):
    for tag in tags:
        node = node.find(tag)
        if node is None:
            return None
    return node
