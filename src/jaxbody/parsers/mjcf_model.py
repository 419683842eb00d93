"""Model-wide MJCF sections: ``<include>`` expansion, ``<compiler>``, ``<default>`` classes and
``<actuator>`` (see `jaxbody.parsers.mjcf` for the mapping to jaxbody)."""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from jaxbody.math.so3 import quaternion_to_rotation
from jaxbody.parsers.model_description import (
    ActuatorDescription,
    BodyConstraintDescription,
    CouplerDescription,
)
from jaxbody.parsers.xml_reader import MAX_XML_BYTES, parse_numbers, parse_xml

MAX_INCLUDE_DEPTH = 16


class MjcfFiles:
    """The main file's workspace, included files, and a `Diagnostics` that names, for every
    element, the file it came from."""

    def __init__(self, ws):
        self.ws = ws
        self.diag = _FileDiagnostics(ws.diag)

    def expand_includes(self, el, stack=()):
        """Replaces every ``<include file>`` below ``el`` by the included ``<mujoco>``'s
        children (recursively; paths are relative to the main file's folder)."""
        children = []
        for child in el.children:
            if child.tag != "include":
                self.expand_includes(child, stack)
                children.append(child)
                continue
            file = child.get("file")
            if not file:
                self.diag.error(child, "<include> is missing the 'file' attribute")
            path = self.ws.resolve(child, file, "included file")
            if path in stack or len(stack) >= MAX_INCLUDE_DEPTH:
                self.diag.error(child, "the includes recurse: " + " -> ".join(stack + (path,)))
            sub = self.ws.diag.for_file(path)
            try:
                if os.path.getsize(path) > MAX_XML_BYTES:
                    self.diag.error(child, f"the included file is larger than {MAX_XML_BYTES} "
                                           "bytes")
                with open(path, "rb") as f:
                    root = parse_xml(f.read(), sub)
            except OSError as e:
                self.diag.error(child, f"cannot read the included file: {e}")
            self.diag.register(root, sub)
            if root.tag != "mujoco":
                sub.error(root, "an included MJCF file must have a <mujoco> root element")
            self.expand_includes(root, stack + (path,))
            children.extend(root.children)
        el.children = children


class _FileDiagnostics:
    """Routes each error and warning to the `Diagnostics` of the element's file."""

    def __init__(self, main):
        self.main, self.filename, self._of = main, main.filename, {}

    def register(self, root, diag):
        stack = [root]
        while stack:
            el = stack.pop()
            self._of[id(el)] = diag
            stack.extend(el.children)

    def _for(self, node):
        return self.main if node is None else self._of.get(id(node), self.main)

    def location(self, node=None, element=None):
        return self._for(node).location(node, element)

    def error(self, node, reason, element=None):
        self._for(node).error(node, reason, element)

    def warning(self, node, reason, element=None):
        self._for(node).warning(node, reason, element)


@dataclasses.dataclass
class Compiler:
    """The ``<compiler>`` settings jaxbody uses (MuJoCo's defaults)."""

    degrees: bool = True
    eulerseq: str = "xyz"
    autolimits: bool = True
    inertiafromgeom: str = "auto"
    inertiagrouprange: tuple = (0, 5)
    boundmass: float = 0.0
    settotalmass: float = -1.0
    meshdir: str | None = None


def read_compiler(root, files):
    c, diag = Compiler(), files.diag
    for el in root.findall("compiler"):
        a = el.attrib
        if "angle" in a:
            if a["angle"] not in ("degree", "radian"):
                diag.error(el, f"compiler angle must be 'degree' or 'radian', got '{a['angle']}'")
            c.degrees = a["angle"] == "degree"
        if "eulerseq" in a:
            seq = a["eulerseq"]
            if len(seq) != 3 or any(ch not in "xyzXYZ" for ch in seq):
                diag.error(el, f"compiler eulerseq must be 3 of x, y, z, X, Y, Z, got '{seq}'")
            c.eulerseq = seq
        if "autolimits" in a:
            c.autolimits = _bool(el, a["autolimits"], diag)
        if "inertiafromgeom" in a:
            if a["inertiafromgeom"] not in ("true", "false", "auto"):
                diag.error(el, "compiler inertiafromgeom must be true, false or auto")
            c.inertiafromgeom = a["inertiafromgeom"]
        if "inertiagrouprange" in a:
            lo, hi = (int(x) for x in _floats(el, a["inertiagrouprange"], 2, diag))
            c.inertiagrouprange = (lo, hi)
        if "boundmass" in a:
            c.boundmass = max(0.0, _floats(el, a["boundmass"], 1, diag)[0])
        if "settotalmass" in a:
            c.settotalmass = _floats(el, a["settotalmass"], 1, diag)[0]
        for name in ("assetdir", "meshdir"):  # meshdir, if given, overrides assetdir
            if name in a:
                c.meshdir = a[name]
        if a.get("coordinate", "local") != "local":
            diag.error(el, "compiler coordinate='global' is not supported (MuJoCo removed it)")
        for name in ("boundinertia", "balanceinertia"):
            if name in a and a[name] not in ("0", "-1", "false"):
                diag.warning(el, f"compiler {name} is not supported and is ignored")
    return c


# MuJoCo's <option><flag>s and their defaults. Gravity is honoured; those in _FLAGS_NO_EFFECT do
# not change jaxbody's continuous dynamics (integrator, solver, sensor and collision-pipeline
# details); any other flag set away from its default is ignored with a warning.
_FLAG_DEFAULTS = {"constraint": "enable", "equality": "enable", "frictionloss": "enable",
                  "limit": "enable", "contact": "enable", "spring": "enable", "damper": "enable",
                  "passive": "enable", "gravity": "enable", "clampctrl": "enable",
                  "warmstart": "enable", "filterparent": "enable", "actuation": "enable",
                  "refsafe": "enable", "sensor": "enable", "midphase": "enable",
                  "eulerdamp": "enable", "autoreset": "enable", "nativeccd": "enable",
                  "island": "enable", "override": "disable", "energy": "disable",
                  "fwdinv": "disable", "invdiscrete": "disable", "multiccd": "disable",
                  "sleep": "disable"}
_FLAGS_NO_EFFECT = ("warmstart", "refsafe", "sensor", "midphase", "eulerdamp", "autoreset",
                    "nativeccd", "island", "energy", "fwdinv", "invdiscrete", "multiccd",
                    "sleep")


@dataclasses.dataclass
class Option:
    """The ``<option>`` settings jaxbody honours: ``gravity`` (3,) if given (set as the plant's
    gravity, as Drake's MJCF parser does), whether gravity acts on the model, and whether
    parent-child contacts are filtered (``filterparent``)."""

    gravity: np.ndarray | None = None
    gravity_enabled: bool = True
    filter_parent: bool = True  # <flag filterparent>: no parent-child contacts


def read_option(root, files):
    """The model's `Option`. Fluid forces (nonzero ``density`` or ``viscosity``) are refused:
    jaxbody has no fluid model, and they change how bodies move."""
    opt, diag = Option(), files.diag
    for el in root.findall("option"):
        a = el.attrib
        if "gravity" in a:
            opt.gravity = np.asarray(_floats(el, a["gravity"], 3, diag), float)
        for name in ("density", "viscosity"):
            if name in a and _floats(el, a[name], 1, diag)[0] != 0:
                diag.error(el, f"<option {name}=\"{a[name]}\">: MuJoCo's fluid forces are not "
                               "supported by jaxbody (remove the attribute to load the model "
                               "without them)")
        for flag in el.findall("flag"):
            for name, value in flag.attrib.items():
                if value not in ("enable", "disable"):
                    diag.error(flag, f"<flag {name}>: expected enable or disable, got '{value}'")
                if name == "gravity":
                    opt.gravity_enabled = value == "enable"
                elif name == "filterparent":
                    opt.filter_parent = value == "enable"
                elif name not in _FLAG_DEFAULTS:
                    diag.warning(flag, f"<flag {name}> is not a MuJoCo flag jaxbody knows; "
                                       "ignored")
                elif value != _FLAG_DEFAULTS[name] and name not in _FLAGS_NO_EFFECT:
                    diag.warning(flag, f"<flag {name}=\"{value}\"> is not supported by jaxbody "
                                       "and is ignored")
        for child in el.children:
            if child.tag != "flag":
                diag.warning(child, f"<option><{child.tag}> is not supported and is ignored")
    return opt


def read_defaults(root, files):
    """``{class: {element tag: attributes}}``; nested classes inherit their parent's."""
    defaults, diag = {}, files.diag

    def visit(node, inherited, top):
        cls = node.get("class") or ("main" if top else None)
        if cls is None:
            diag.error(node, "a nested <default> needs a class attribute")
        if cls in defaults:
            diag.error(node, f"default class '{cls}' is defined twice")
        attrs = {tag: dict(values) for tag, values in inherited.items()}
        for child in node.children:
            if child.tag != "default":
                attrs.setdefault(child.tag, {}).update(child.attrib)
        defaults[cls] = attrs
        for child in node.findall("default"):
            visit(child, attrs, False)

    for node in root.findall("default"):
        visit(node, {}, True)
    defaults.setdefault("main", {})
    return defaults


def read_actuators(root, reader, files):
    """``<motor joint>``s become actuators; armature without a motor gets its own (see
    `jaxbody.parsers.mjcf`)."""
    diag, model, actuated = files.diag, reader.model, {}
    for section in root.findall("actuator"):
        for el in section.children:
            if el.tag != "motor":
                diag.warning(el, f"<{el.tag}> actuators are not supported and are ignored")
                continue
            attrs = reader.attrs(el, "motor")
            joint = attrs.get("joint")
            if not joint:
                diag.warning(el, "only motors with a joint transmission are supported; ignored")
                continue
            if joint not in reader.joint_info:
                diag.error(el, f"motor refers to unknown joint '{joint}'")
            kind, armature, _ = reader.joint_info[joint]
            if kind not in ("revolute", "prismatic") or joint in actuated:
                diag.warning(el, f"motor on joint '{joint}' ignored (jaxbody actuates each "
                                 "hinge or slide joint at most once)")
                continue
            gear = abs(float(_floats(el, attrs.get("gear", "1"), None, diag)[0]))
            a = ActuatorDescription(attrs.get("name") or joint, joint, diag.location(el),
                                    _effort_limit(el, attrs, gear, diag))
            if armature > 0:
                if gear == 0:
                    diag.error(el, f"motor on joint '{joint}' has gear 0 but the joint has "
                                   "armature")
                a.rotor_inertia, a.gear_ratio = armature / gear**2, gear
            actuated[joint] = a.name
            model.actuators.append(a)
    names = set(actuated.values())
    for joint, (kind, armature, el) in reader.joint_info.items():
        if armature > 0 and kind in ("revolute", "prismatic") and joint not in actuated:
            name = joint if joint not in names else f"{joint}_armature"
            model.actuators.append(ActuatorDescription(name, joint, diag.location(el), np.inf,
                                                       rotor_inertia=armature, gear_ratio=1.0))


def read_equality(root, reader, files):
    """MuJoCo's equality constraints as Drake's constraints (discrete plants):
    - ``<joint joint1 joint2 polycoef>`` with a polynomial of degree ≤ 1,
      (q₁ − ref₁) = c₀ + c₁ (q₂ − ref₂), is the coupler q₁ = c₁ q₂ + Δq with
      Δq = c₀ + ref₁ − c₁ ref₂;
    - ``<connect body1 body2 anchor>`` is a ball constraint: the anchor (in body1) on the point
      of body2 (default: the world) that coincides with it at qpos0;
    - ``<weld body1 body2 relpose>`` is a weld: body2 at ``relpose`` (pos, quat) in body1, or,
      when its quaternion is zero (the default), at their relative pose at qpos0.
    MuJoCo's soft-constraint parameters (solref, solimp, torquescale) have no Drake counterpart:
    the constraints are Drake's near-rigid ones. Site-based connects and welds, tendon and flex
    equalities, inactive ones and higher degrees are ignored with a warning."""
    diag, model = files.diag, reader.model
    for section in root.findall("equality"):
        for el in section.children:
            attrs = reader.attrs(el, "equality")
            if el.tag in ("connect", "weld"):
                _body_equality(el, attrs, model, diag)
                continue
            if el.tag != "joint":
                diag.warning(el, f"<equality><{el.tag}> is not supported by jaxbody yet and is "
                                 "ignored")
                continue
            _joint_equality(el, attrs, reader, model, diag)


def _body_equality(el, attrs, model, diag):
    tag = el.tag
    if not _bool(el, attrs.get("active", "true"), diag):
        diag.warning(el, f"an inactive <equality><{tag}> is ignored")
        return
    if "site1" in attrs or "site2" in attrs:
        diag.warning(el, f"a site-based <equality><{tag}> is not supported by jaxbody yet and "
                         "is ignored")
        return
    b1, b2 = attrs.get("body1"), attrs.get("body2", "world")
    if not b1:
        diag.error(el, f"<equality><{tag}> is missing the 'body1' attribute")
    names = model.body_names() | {"world"}
    for b in (b1, b2):
        if b not in names:
            diag.error(el, f"<equality><{tag}> refers to unknown body '{b}'")
    if b1 == b2:
        diag.error(el, f"<equality><{tag}> constrains body '{b1}' to itself")
    if tag == "connect":
        anchor = _floats(el, attrs.get("anchor", "0 0 0"), 3, diag)
        model.body_constraints.append(BodyConstraintDescription(
            "ball", b1, b2, tuple(float(x) for x in anchor), None, diag.location(el)))
        return
    relpose = np.asarray(_floats(el, attrs.get("relpose", "0 1 0 0 0 0 0"), 7, diag), float)
    X = None
    if np.any(relpose[3:] != 0):
        X = np.eye(4)
        X[:3, :3] = np.asarray(quaternion_to_rotation(relpose[3:] / np.linalg.norm(relpose[3:])))
        X[:3, 3] = relpose[:3]
    model.body_constraints.append(BodyConstraintDescription("weld", b1, b2, (0.0, 0.0, 0.0), X,
                                                            diag.location(el)))


def _joint_equality(el, attrs, reader, model, diag):
    by_name = {d.name: d for d in model.joints}
    j1, j2 = attrs.get("joint1"), attrs.get("joint2")
    if not j1:
        diag.error(el, "<equality><joint> is missing the 'joint1' attribute")
    for j in (j1, j2):
        if j is not None and j not in reader.joint_info:
            diag.error(el, f"<equality><joint> refers to unknown joint '{j}'")
    c = np.zeros(5)
    given = _floats(el, attrs.get("polycoef", "0 1 0 0 0"), None, diag)
    c[:min(5, len(given))] = given[:5]
    if not _bool(el, attrs.get("active", "true"), diag):
        diag.warning(el, "an inactive <equality><joint> is ignored")
        return
    if j2 is None or np.any(c[2:] != 0):
        diag.warning(el, "<equality><joint> is supported as a coupler only: with "
                         "joint2 and a polynomial of degree at most 1; ignored")
        return
    ref = [float(np.asarray(by_name[j].default_q)[0])  # MuJoCo's qpos0 (radians)
           if getattr(by_name[j], "default_q", None) is not None else 0.0
           for j in (j1, j2)]
    model.couplers.append(CouplerDescription(j1, j2, float(c[1]),
                                             float(c[0] + ref[0] - c[1] * ref[1]),
                                             diag.location(el)))


def _effort_limit(el, attrs, gear, diag):
    for prefix, scale in (("force", 1.0), ("ctrl", gear)):
        limited = attrs.get(f"{prefix}limited", "auto").strip().lower()
        if limited == "true" or (limited == "auto" and f"{prefix}range" in attrs):
            lo, hi = _floats(el, attrs.get(f"{prefix}range", "0 0"), 2, diag)
            if lo > hi:
                diag.error(el, f"{prefix}range lower limit exceeds the upper limit")
            limit = max(abs(lo), abs(hi)) * scale
            return limit if limit > 0 else np.inf
    return np.inf


def _floats(el, text, size, diag):
    values = parse_numbers(text, diag, el, "attribute")
    if size is not None and len(values) != size:
        diag.error(el, f"expected {size} values, got '{text}'")
    if not values:
        diag.error(el, f"expected a number, got '{text}'")
    return values


def _bool(el, text, diag):
    if text not in ("true", "false"):
        diag.error(el, f"expected true or false, got '{text}'")
    return text == "true"
