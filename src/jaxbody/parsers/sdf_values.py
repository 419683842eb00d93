"""Readers for SDFormat element values (numbers, vectors, booleans, ``<pose>``), element names,
the ``<sdf version>`` and ``<inertial>``.

SDFormat writes values as element text (``<mass>2</mass>``, ``<xyz>0 0 1</xyz>``), not as
attributes as URDF does. Numbers follow the same strict rules as the URDF reader (finite
decimal literals; see `jaxbody.parsers.xml_reader`). A pose is ``x y z roll pitch yaw``
(radians, or degrees with ``degrees="true"``), or ``x y z qx qy qz qw`` with
``rotation_format="quat_xyzw"``; an empty ``<pose/>`` is the identity. An ``<inertial>`` is
read as Drake reads it (`jaxbody.parsers.inertia`), with SDFormat's defaults: mass 1 kg and
the identity inertia, also for a link without ``<inertial>``.
"""

from __future__ import annotations

import os

import numpy as np

from jaxbody.math.so3 import quaternion_to_rotation
from jaxbody.parsers.inertia import rotation_from_rpy, spatial_inertia_from_inertial
from jaxbody.parsers.xml_reader import MAX_XML_BYTES, parse_numbers

SCOPE, WORLD = "::", "world"

_TRUE, _FALSE = ("true", "1"), ("false", "0")


def child_text(node, tag):
    """The stripped text of child ``<tag>``, or None if there is no such child."""
    child = None if node is None else node.find(tag)
    return None if child is None else child.text.strip()


def read_number(node, tag, diag, default=None, required=False):
    """Child ``<tag>``'s text as one finite float (``default`` if absent)."""
    child = node.find(tag)
    if child is None:
        if required:
            diag.error(node, f"missing required element <{tag}>")
        return default
    values = parse_numbers(child.text, diag, child, f"<{tag}>")
    if len(values) != 1:
        diag.error(child, f"<{tag}>: expected a single value, got '{child.text.strip()}'")
    return values[0]


def read_numbers(node, tag, size, diag, default=None, required=False):
    """Child ``<tag>``'s text as a float array of length ``size``."""
    child = node.find(tag)
    if child is None:
        if required:
            diag.error(node, f"missing required element <{tag}>")
        return None if default is None else np.array(default, float)
    values = parse_numbers(child.text, diag, child, f"<{tag}>")
    if len(values) != size:
        diag.error(child, f"<{tag}>: expected {size} values, got '{child.text.strip()}'")
    return np.array(values, float)


def read_bool(node, tag, diag, default=False):
    """Child ``<tag>``'s text as a boolean (``true``/``false``/``1``/``0``)."""
    text = child_text(node, tag)
    if text is None:
        return default
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    diag.error(node.find(tag), f"<{tag}>: '{text}' is not a boolean (true, false, 1 or 0)")


def parse_pose(pose_node, diag):
    """``(relative_to, (R, p))`` of a ``<pose>`` element (``("", identity)`` if None)."""
    if pose_node is None:
        return "", (np.eye(3), np.zeros(3))
    if "frame" in pose_node.attrib and pose_node.get("frame"):
        diag.error(pose_node, "<pose frame='...'> is not supported (SDFormat 1.7 replaced it "
                              "with relative_to)")
    fmt = pose_node.get("rotation_format", "euler_rpy")
    values = parse_numbers(pose_node.text, diag, pose_node, "<pose>") if pose_node.text.strip() else []
    if fmt == "euler_rpy":
        if values and len(values) != 6:
            diag.error(pose_node, f"<pose>: expected 6 values (x y z roll pitch yaw), got "
                                  f"'{pose_node.text.strip()}'")
        values = values or [0.0] * 6
        rpy = np.array(values[3:])
        degrees = pose_node.get("degrees", "false").strip().lower()
        if degrees not in _TRUE + _FALSE:
            diag.error(pose_node, f"<pose>: degrees='{degrees}' is not a boolean")
        if degrees in _TRUE:
            rpy = np.deg2rad(rpy)
        R = rotation_from_rpy(rpy)
    elif fmt == "quat_xyzw":
        if len(values) != 7:
            diag.error(pose_node, f"<pose>: expected 7 values (x y z qx qy qz qw), got "
                                  f"'{pose_node.text.strip()}'")
        qx, qy, qz, qw = values[3:]
        R = rotation_from_quaternion([qw, qx, qy, qz], diag, pose_node)
    else:
        diag.error(pose_node, f"<pose>: unknown rotation_format '{fmt}' (euler_rpy or quat_xyzw)")
    return pose_node.get("relative_to", "").strip(), (R, np.array(values[:3], float))


def rotation_from_quaternion(q_wxyz, diag, node):
    """The rotation of quaternion ``[w, x, y, z]`` (normalized; an error if zero)."""
    q = np.asarray(q_wxyz, float)
    n = np.linalg.norm(q)
    if not n > 1e-10:
        diag.error(node, f"the quaternion {q.tolist()} is zero")
    return quaternion_to_rotation(q / n)


def element_name(xml, diag, what):
    """The ``name`` attribute of a frame-bearing element: required, without ``::``, and not a
    reserved name (``world``, ``__*__``)."""
    name = xml.get("name", "").strip()
    if not name:
        diag.error(xml, f"Required attribute[name] in element[{xml.tag}] is not specified")
    if SCOPE in name:
        diag.error(xml, f"Detected delimiter '::' in {what} name '{name}'")
    if name == WORLD or (name.startswith("__") and name.endswith("__")):
        diag.error(xml, f"The supplied {what} name [{name}] is reserved.")
    return name


def sdf_version(root, diag):
    """``(major, minor)`` of ``<sdf version>`` (required)."""
    text = root.get("version", "").strip()
    try:
        major, minor = (int(x) for x in text.split(".")[:2])
    except ValueError:
        diag.error(root, f"<sdf> needs a version attribute such as version=\"1.9\", got '{text}'")
    return major, minor


def read_file(path, node, diag):
    """The bytes of an included file (size-limited); errors name ``node``."""
    try:
        if os.path.getsize(path) > MAX_XML_BYTES:
            diag.error(node, f"the included file is larger than {MAX_XML_BYTES} bytes")
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        diag.error(node, f"cannot read the included file: {e}")


def read_inertial(link, link_name, diag):
    """``(mass, p_BoBcm_B, G_BBo_B)``; SDFormat's defaults: mass 1, inertia identity."""
    inertial = link.find("inertial")
    if inertial is None:
        return spatial_inertia_from_inertial(1.0, np.eye(3), np.zeros(3), (1, 1, 1), (0, 0, 0))[:3]
    pose = inertial.find("pose")
    if pose is not None and pose.get("relative_to"):
        diag.error(pose, "an <inertial> <pose> cannot have a relative_to attribute")
    _, (R, p) = parse_pose(pose, diag)
    mass = read_number(inertial, "mass", diag, default=1.0)
    if mass < 0:
        diag.error(inertial.find("mass"), f"link '{link_name}' has a negative mass ({mass:g} kg)")
    node = inertial.find("inertia")
    I = {k: read_number(node, k, diag, default=1.0 if k in ("ixx", "iyy", "izz") else 0.0)
         if node is not None else (1.0 if k in ("ixx", "iyy", "izz") else 0.0)
         for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
    mass, com, G, problem = spatial_inertia_from_inertial(
        mass, R, p, (I["ixx"], I["iyy"], I["izz"]), (I["ixy"], I["ixz"], I["iyz"]))
    if problem:
        diag.warning(inertial, f"link '{link_name}': {problem}")
    return mass, com, G


def check_supported(node, supported, diag):
    """Drake's ``CheckSupportedElements``: an unknown ``drake:`` child is an error, any other
    unknown child a warning (it is ignored)."""
    for child in node.children:
        if child.tag not in supported:
            message = f"Unsupported SDFormat element in {node.tag}: {child.tag}"
            if child.tag.startswith("drake:"):
                diag.error(child, message)
            else:
                diag.warning(child, f"Ignoring u{message[1:]}")
