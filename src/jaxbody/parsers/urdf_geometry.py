"""URDF ``<visual>``, ``<collision>`` and ``<material>`` into `GeometryDescription`s, as Drake's
``detail_urdf_geometry.cc`` reads them.

Shapes: ``<box size>``, ``<sphere radius>``, ``<cylinder radius length>``, ``<capsule>`` and
``<drake:capsule>`` (radius, length), ``<drake:ellipsoid a b c>``, ``<mesh filename scale>``
(``<drake:declare_convex/>`` inside makes it a `Convex`). A geometry without a ``name`` is
named after its shape (``Box``, then ``Box_1``, ...), per role and link, as Drake names it.

Collision properties come from ``<drake:proximity_properties>``: ``drake:mu_dynamic``,
``drake:mu_static`` (one alone sets both), ``drake:point_contact_stiffness``,
``drake:hunt_crossley_dissipation``, ``drake:relaxation_time`` and the hydroelastic tags
(kept, unused by jaxbody). Without friction there, the legacy ``<drake_compliance>`` tag or
Drake's default friction (μs = μd = 1) applies.
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
    IllustrationProperties,
    Mesh,
    ProximityProperties,
    Sphere,
)
from jaxbody.geometry.properties import MATERIAL_GROUP, RELAXATION_TIME
from jaxbody.parsers.diagnostics import ParseError
from jaxbody.parsers.inertia import rotation_from_rpy
from jaxbody.parsers.model_description import GeometryDescription
from jaxbody.parsers.xml_reader import parse_numbers, read_scalar, read_string, read_vector

DEFAULT_FRICTION = (1.0, 1.0)  # Drake's default_friction(): (static, dynamic)
HYDRO_GROUP = "hydroelastic"


def read_origin(node, diag):
    """``(R, p)`` from an element's ``rpy`` and ``xyz`` attributes (zero when absent)."""
    if node is None:
        return np.eye(3), np.zeros(3)
    p = read_vector(node, "xyz", 3, diag, default=np.zeros(3))
    rpy = read_vector(node, "rpy", 3, diag, default=np.zeros(3))
    return rotation_from_rpy(rpy), p


# ---- materials --------------------------------------------------------------------------------
def read_material(node, name_required, ctx, materials):
    """``(rgba or None, texture path or None)`` of a ``<material>``, updating ``materials``
    (name -> (rgba, texture)).

    A top-level material must be named. Drake's parser errors when a named material is
    redefined with a different color or texture, or is used before it is defined without a
    color; since that only affects drawing, jaxbody warns instead (and uses the element's own
    color, or none). An unresolvable texture file is an error.
    """
    diag = ctx.diag
    name = node.get("name", "")
    if not name and name_required:
        diag.error(node, "material tag is missing a required name")
    texture = None
    texture_node = node.find("texture")
    if texture_node is not None and texture_node.get("filename"):
        texture = ctx.resolve(texture_node, texture_node.get("filename"), "texture file")
    rgba = None
    color = node.find("color")
    if color is not None:
        rgba = read_vector(color, "rgba", 4, diag, required=True)
    if rgba is None and texture is None:
        if name and name not in materials:
            diag.warning(node, f"material '{name}' was not previously defined, but has no color "
                               "or texture information; the geometry gets no color")
        return materials.get(name, (None, None))
    if not name:
        return rgba, texture
    if name not in materials:
        materials[name] = (rgba if rgba is not None else np.zeros(4), texture)
        return materials[name]
    old_rgba, old_texture = materials[name]
    same_color = rgba is None or np.linalg.norm(rgba - old_rgba) <= 1e-10
    same_texture = texture is None or texture == old_texture
    if not (same_color and same_texture):
        diag.warning(node, f"material '{name}' was previously defined differently; this "
                           "element's own color and texture are used here")
        return (rgba if rgba is not None else old_rgba), (texture or old_texture)
    return materials[name]


# ---- shapes ---------------------------------------------------------------------------------
def read_shape(geometry_node, ctx):
    """The `Shape` in a ``<geometry>`` element."""
    diag = ctx.diag
    for tag in ("box", "sphere", "cylinder", "capsule", "drake:capsule", "mesh",
                "drake:ellipsoid"):
        node = geometry_node.find(tag)
        if node is None:
            continue
        try:
            if tag == "box":
                return Box(*read_vector(node, "size", 3, diag, required=True))
            if tag == "sphere":
                return Sphere(read_scalar(node, "radius", diag, required=True))
            if tag == "cylinder":
                return Cylinder(read_scalar(node, "radius", diag, required=True),
                                read_scalar(node, "length", diag, required=True))
            if tag in ("capsule", "drake:capsule"):
                return Capsule(read_scalar(node, "radius", diag, required=True),
                               read_scalar(node, "length", diag, required=True))
            if tag == "drake:ellipsoid":
                return Ellipsoid(*(read_scalar(node, a, diag, required=True) for a in "abc"))
            filename = read_string(node, "filename", diag, required=True,
                                   what="mesh element has no filename attribute")
            path = ctx.resolve(node, filename, "mesh file")
            scale = read_vector(node, "scale", 3, diag, default=np.ones(3), sizes=(1, 3))
            cls = Convex if node.find("drake:declare_convex") is not None else Mesh
            return cls(path, scale)
        except ParseError:
            raise
        except ValueError as e:  # a shape's own validity check
            diag.error(node, str(e))
    diag.error(geometry_node, "geometry element does not have a recognizable shape type")


def _default_name(shape, used):
    base = shape.type_name()
    if base not in used:
        return base
    k = 1
    while f"{base}_{k}" in used:
        k += 1
    return f"{base}_{k}"


# ---- visual and collision -----------------------------------------------------------------
def read_visual(node, link_name, ctx, materials, used_names):
    diag = ctx.diag
    geometry_node = node.find("geometry")
    if geometry_node is None:
        diag.error(node, f"link '{link_name}' has a visual element without geometry")
    X_BG = read_origin(node.find("origin"), diag)
    shape = read_shape(geometry_node, ctx)
    props = IllustrationProperties()
    material_node = node.find("material")
    if material_node is not None:
        rgba, texture = read_material(material_node, False, ctx, materials)
        if rgba is not None:
            props.AddProperty("phong", "diffuse", np.asarray(rgba, float))
        if texture is not None:
            props.AddProperty("phong", "diffuse_map", texture)
    accepting = [n.get("name") for n in node.findall("drake:accepting_renderer")]
    if accepting:
        if not all(accepting):
            diag.error(node, "<drake:accepting_renderer> tag given without any name")
        props.AddProperty("renderer", "accepting", set(accepting))
    name = node.get("name") or _default_name(shape, used_names)
    used_names.add(name)
    return GeometryDescription(link_name, "visual", name, shape, props, diag.location(node),
                               X_BG)


def read_collision(node, link_name, ctx, used_names):
    diag = ctx.diag
    geometry_node = node.find("geometry")
    if geometry_node is None:
        diag.error(node, f"link '{link_name}' has a collision element without geometry")
    X_BG = read_origin(node.find("origin"), diag)
    if "group" in node.attrib:
        diag.warning(node, "the 'group' attribute of <collision> is not used and is ignored")
    shape = read_shape(geometry_node, ctx)
    props = ProximityProperties()
    drake_node = node.find("drake:proximity_properties")
    if drake_node is not None:
        read_proximity(drake_node, ctx, props)
    if not props.HasProperty(MATERIAL_GROUP, "coulomb_friction"):
        AddContactMaterial(friction=_legacy_friction(node, link_name, ctx), properties=props)
    elif node.find("drake_compliance") is not None:
        diag.warning(node, "<drake_compliance> is ignored because "
                           "<drake:proximity_properties> already gives the friction")
    name = node.get("name") or _default_name(shape, used_names)
    used_names.add(name)
    return GeometryDescription(link_name, "collision", name, shape, props, diag.location(node),
                               X_BG)


def read_proximity(node, ctx, props, read_value=None):
    """Adds the properties of a ``<drake:proximity_properties>`` element to ``props``.

    ``read_value(tag)`` reads one child's number (None if absent); by default URDF's
    ``<tag value="..."/>``, SDFormat passes a reader of ``<tag>...</tag>``.
    """
    diag = ctx.diag

    def value(tag):
        if read_value is not None:
            return read_value(tag)
        child = node.find(tag)
        if child is None:
            return None
        return read_scalar(child, "value", diag, required=True)

    if node.find("drake:soft_hydroelastic") is not None:
        diag.error(node.find("drake:soft_hydroelastic"), "<drake:soft_hydroelastic> is no "
                   "longer supported; use <drake:compliant_hydroelastic>")
    rigid = node.find("drake:rigid_hydroelastic") is not None
    compliant = node.find("drake:compliant_hydroelastic") is not None
    if rigid and compliant:
        diag.error(node, "<drake:rigid_hydroelastic> and <drake:compliant_hydroelastic> are "
                         "mutually exclusive")
    if rigid or compliant:
        props.AddProperty(HYDRO_GROUP, "compliance_type", "rigid" if rigid else "compliant")
    for tag, key in (("drake:mesh_resolution_hint", "resolution_hint"),
                     ("drake:hydroelastic_modulus", "hydroelastic_modulus"),
                     ("drake:hydroelastic_margin", "margin")):
        x = value(tag)
        if x is None:
            continue
        if key == "hydroelastic_modulus" and rigid:
            diag.warning(node, "a rigid hydroelastic geometry ignores drake:hydroelastic_modulus")
            continue
        if key == "margin" and x < 0:
            diag.error(node.find(tag), f"the hydroelastic margin can't be negative; given {x}")
        props.AddProperty(HYDRO_GROUP, key, x)
    mu_d, mu_s = value("drake:mu_dynamic"), value("drake:mu_static")
    friction = None
    try:
        if mu_d is not None or mu_s is not None:
            friction = CoulombFriction(mu_s if mu_s is not None else mu_d,
                                       mu_d if mu_d is not None else mu_s)
        AddContactMaterial(value("drake:hunt_crossley_dissipation"),
                           value("drake:point_contact_stiffness"), friction, props)
    except ValueError as e:
        diag.error(node, str(e))
    tau = value("drake:relaxation_time")
    if tau is not None:
        if tau < 0:
            diag.error(node.find("drake:relaxation_time"),
                       f"the relaxation time can't be negative; given {tau}")
        props.AddProperty(MATERIAL_GROUP, RELAXATION_TIME, tau)


def _legacy_friction(node, link_name, ctx):
    """Friction from the legacy ``<drake_compliance>`` tag, else Drake's default (1, 1)."""
    diag = ctx.diag
    compliance = node.find("drake_compliance")
    if compliance is None:
        return CoulombFriction(*DEFAULT_FRICTION)
    for tag in ("youngs_modulus", "dissipation"):
        if compliance.find(tag) is not None:
            diag.warning(compliance, f"<{tag}> under <drake_compliance> is no longer used")
    values = {}
    for tag in ("static_friction", "dynamic_friction"):
        child = compliance.find(tag)
        if child is not None:
            nums = parse_numbers(child.text, diag, child, f"<{tag}>")
            if len(nums) != 1:
                diag.error(child, f"unable to parse {tag} for link '{link_name}'")
            values[tag] = nums[0]
    if len(values) == 1:
        diag.error(compliance, f"link '{link_name}': when specifying coefficients of friction, "
                               "both static and dynamic coefficients must be defined")
    if not values:
        return CoulombFriction(*DEFAULT_FRICTION)
    try:
        return CoulombFriction(values["static_friction"], values["dynamic_friction"])
    except ValueError as e:
        diag.error(compliance, str(e))
