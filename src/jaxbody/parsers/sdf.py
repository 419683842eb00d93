"""SDFormat into `ModelDescription`s, following Drake's SDFormat parser (detail_sdf_parser.cc,
on libsdformat's SDFormat 1.9+ semantics).

A file holds one ``<model>`` or one ``<world>`` (whose ``<model>``s, ``<include>``s,
``<frame>``s and fixed ``<joint>``s are read). Each model and each nested model (``<model>``
or ``<include>`` inside a model) is one model instance named by its scoped name
(``outer::inner``); instances are created outer first, and a nested model's elements are added
before its parent's, as Drake does. Per model, in Drake's order: links (``<inertial>`` with
pose, mass (default 1) and inertia (default identity), ``<visual>``, ``<collision>``), the
model frame ``__model__`` (a frame on the canonical link), joints (`jaxbody.parsers.sdf_joints`)
with their actuators and springs, ``<frame>``s, ``<drake:joint type="planar">``, and, in a
``<static>`` model, a weld to the world (``sdformat_model_static_world_welds_to_<link>``, at
the link's pose) for every link not welded to the world yet.

``<include>``: ``<uri>`` (``package://``, ``model://``, a path, ``file://``) naming an SDFormat
file, with optional ``<name>``, ``<pose>`` and ``<static>`` overrides; the included file's
errors name that file. Frames and poses: `jaxbody.parsers.sdf_frames`.

Where jaxbody differs from Drake's parser: including URDF or MJCF files, merge-includes and
``placement_frame`` are not supported (errors); a negative mass, negative geometry sizes and
non-finite numbers are errors (Drake warns and substitutes); Drake's tendon constraints and
collision filter groups are read past with a warning (``drake:mimic`` is a coupler constraint,
see `sdf_joints`; bushings, spring-dampers and ball constraints: `drake_elements`). As
Drake's parser, each link's world pose is its default free-body pose
(`MultibodyPlant.SetDefaultFreeBodyPose`): a link left floating starts there.
"""

from __future__ import annotations

import os

import numpy as np

from jaxbody.parsers.drake_elements import read_sdf_drake_elements
from jaxbody.parsers.model_description import (
    WORLD,
    WORLD_INSTANCE,
    BodyDescription,
    FrameDescription,
    ModelDescription,
)
from jaxbody.parsers.package_map import ParsingWorkspace
from jaxbody.parsers.sdf_frames import MODEL_FRAME, SCOPE, FrameGraph, FrameNode, compose, join
from jaxbody.parsers.sdf_geometry import read_collision, read_visual
from jaxbody.parsers.sdf_joints import WeldGroups, read_drake_joint, read_joint, static_welds
from jaxbody.parsers.sdf_values import (
    check_supported,
    child_text,
    element_name,
    parse_pose,
    read_bool,
    read_file,
    read_inertial,
    sdf_version,
)
from jaxbody.parsers.xml_reader import parse_xml

MAX_INCLUDE_DEPTH = 16
_MODEL_TAGS = {"link", "joint", "frame", "model", "include", "pose", "static", "drake:joint",
               "drake:linear_bushing_rpy", "drake:linear_spring_damper", "drake:ball_constraint",
               "drake:tendon_constraint", "drake:collision_filter_group"}
_NOT_YET = ("drake:tendon_constraint", "drake:collision_filter_group")
_LINK_TAGS = {"inertial", "visual", "collision", "pose", "gravity", "kinematic"}


class ModelRecord:
    """One model (or nested model) of the file: its XML, workspace and description."""

    def __init__(self, key, node, ws, static, parent, version):
        self.key, self.node, self.ws, self.static = key, node, ws, static
        self.parent, self.version = parent, version
        self.links, self.joints, self.frames, self.nested = [], [], [], []
        self.desc = ModelDescription(key, ws.diag.location(node), scope=key + SCOPE)


def read_sdf(root, ws):
    """The model descriptions of an ``<sdf>`` document.

    Args:
        root: the document's root `XmlElement`.
        ws: the `ParsingWorkspace` (diagnostics, package map, file folder).

    Returns:
        ``(models, build_order)``: one `ModelDescription` per model instance, in creation
        order (outer models first), and the order in which their elements are added (nested
        models first), for `jaxbody.parsers.builder.add_models`.
    """
    reader = _Reader()
    reader.read_root(root, ws)
    return reader.finish()


class _Reader:
    def __init__(self):
        self.graph = FrameGraph()
        self.records = []  # creation (pre-)order
        self.world_frames, self.world_joints = [], []
        self.world_ws = None
        self.joint_parent = {}  # joint key -> key of its <parent> frame

    # ---- pass 1: collect every frame-bearing element -------------------------------------
    def read_root(self, root, ws, include_stack=()):
        diag = ws.diag
        if root.tag != "sdf":
            diag.error(root, f"the root element is <{root.tag}>; an SDFormat file must start "
                             "with <sdf version=...>")
        version = sdf_version(root, diag)
        models, worlds = root.findall("model"), root.findall("world")
        if len(models) + len(worlds) != 1:
            diag.error(root, f"File must have exactly one <model> or exactly one <world>, but "
                             f"instead has {len(models)} models and {len(worlds)} worlds")
        for child in root.children:
            if child.tag not in ("model", "world"):
                diag.warning(child, f"Ignoring unsupported SDFormat element in sdf: {child.tag}")
        if models:
            return self.collect_model(models[0], ws, None, version, include_stack)
        self.world_ws = ws
        world = worlds[0]
        check_supported(world, {"model", "include", "frame", "joint"}, diag)
        for child in world.children:
            if child.tag == "model":
                self.collect_model(child, ws, None, version, include_stack)
            elif child.tag == "include":
                self.collect_include(child, ws, None, version, include_stack)
        if not self.records:
            diag.error(world, "the <world> has no models")
        self._collect_frames(world, ws, "", self.world_frames)
        self.world_joints = [self._add_node(j, ws, "", "joint", "", "", WORLD)
                             for j in world.findall("joint")]

    def collect_model(self, node, ws, parent, version, include_stack, name=None, pose=None,
                      static=None):
        diag = ws.diag
        name = element_name(node if name is None else _Named(node, name), diag, "model")
        scope = parent.key if parent else ""
        key = join(scope, name)
        self._check_unique(key, node, diag)
        if static is None:
            static = read_bool(node, "static", diag)
        record = ModelRecord(key, node, ws, static, parent, version)
        self.records.append(record)
        if parent is not None:
            parent.nested.append(record)
        check_supported(node, _MODEL_TAGS, diag)
        rel, X = pose if pose is not None else parse_pose(node.find("pose"), diag)
        if parent is None and rel and self.world_ws is None:
            diag.error(node.find("pose"), "a top-level <model> cannot have a relative_to pose")
        top = key if parent is None else self.graph.nodes[parent.key].top
        self.graph.add(key, FrameNode("model", scope, node, diag, rel,
                                      parent.key if parent else WORLD, X,
                                      node.get("canonical_link", ""), top))
        for child in node.children:
            if child.tag == "link":
                record.links.append(self._add_node(child, ws, key, "link", "", key, top))
            elif child.tag == "joint":
                record.joints.append(self._add_node(child, ws, key, "joint", "", "", top))
            elif child.tag in ("model", "include"):
                if child.tag == "model":
                    self.collect_model(child, ws, record, version, include_stack)
                else:
                    self.collect_include(child, ws, record, version, include_stack)
            elif child.tag in _NOT_YET:
                diag.warning(child, f"<{child.tag}> is not supported by jaxbody yet and is "
                                    "ignored")
        self._collect_frames(node, ws, key, record.frames)
        if not record.links and not record.nested:
            diag.error(node, f"model '{key}': A model must have at least one link.")
        return record

    def _collect_frames(self, node, ws, scope, out):
        top = self.graph.nodes[scope].top if scope else WORLD
        for child in node.findall("frame"):
            out.append(self._add_node(child, ws, scope, "frame",
                                      child.get("attached_to", "").strip(), "", top))

    def _add_node(self, xml, ws, scope, kind, attached, default_rel, top):
        diag = ws.diag
        key = join(scope, element_name(xml, diag, kind))
        self._check_unique(key, xml, diag)
        rel, X = parse_pose(xml.find("pose"), diag)
        self.graph.add(key, FrameNode(kind, scope, xml, diag, rel, default_rel, X,
                                      attached or None, top))
        return key

    def _check_unique(self, key, xml, diag):
        if key in self.graph.nodes:
            first = self.graph.nodes[key].xml
            scope, _, name = key.rpartition(SCOPE)
            diag.error(xml, f"Non-unique name[{name}] in {f'model {scope!r}' if scope else 'the world'}"
                            f" (links, joints, frames and nested models share one namespace; "
                            f"first at line {first.line if first is not None else 0})")

    def collect_include(self, node, ws, parent, version, include_stack):
        diag = ws.diag
        if node.get("merge", "false").strip().lower() in ("true", "1"):
            diag.error(node, "merge-includes (<include merge=\"true\">) are not supported")
        if node.find("placement_frame") is not None:
            diag.error(node.find("placement_frame"), "<placement_frame> is not supported")
        uri = child_text(node, "uri")
        if not uri:
            diag.error(node, "<include> has no <uri>")
        path = ws.resolve(node, uri, "included model")
        if not path.lower().endswith(".sdf"):
            diag.error(node, f"cannot include '{uri}': jaxbody includes only SDFormat (.sdf) "
                             "files")
        if path in include_stack or len(include_stack) >= MAX_INCLUDE_DEPTH:
            diag.error(node, f"the <include> of '{uri}' recurses (include chain: "
                             + " -> ".join(include_stack + (path,)) + ")")
        sub = ParsingWorkspace(diag.for_file(path), ws.package_map, os.path.dirname(path))
        root = parse_xml(read_file(path, node, diag), sub.diag)
        model = root.find("model") if root.tag == "sdf" else None
        if model is None:
            sub.diag.error(root, "an included SDFormat file must hold a <model>")
        pose = parse_pose(node.find("pose"), diag) if node.find("pose") is not None else None
        static = read_bool(node, "static", diag) if node.find("static") is not None else None
        return self.collect_model(model, sub, parent, sdf_version(root, sub.diag),
                                  include_stack + (path,), child_text(node, "name") or None,
                                  pose, static)

    # ---- pass 2: resolve references and build the descriptions ----------------------------
    def finish(self):
        for record in self.records:
            self._resolve_references(record)
        for key in self.world_frames:
            self._resolve_frame(key, "")
        for key in self.world_joints:
            self._resolve_joint(key, "")
        for record in self.records:
            self._read_links(record)
        order = self._build_order()
        welded = WeldGroups()  # bodies welded together so far, in Drake's order of addition
        for i in order:
            record = self.records[i]
            self._model_frame(record)
            for key in record.joints:
                read_joint(self, record, key, welded)
            for key in record.frames:
                record.desc.frames.append(self.frame_description(key))
            for node in record.node.findall("drake:joint"):
                read_drake_joint(self, record, node)
            read_sdf_drake_elements(self, record)
            if record.static:
                static_welds(self, record, welded)
        last = self.records[order[-1]]
        for key in self.world_frames:
            last.desc.frames.append(self.frame_description(key))
        for key in self.world_joints:
            read_joint(self, None, key, welded, into=last)
        return [r.desc for r in self.records], order

    def _resolve_references(self, record):
        g = self.graph
        model = g.nodes[record.key]
        canonical = model.attached
        if canonical:
            key = g.resolve(record.key, canonical, record.node, record.ws.diag, "canonical_link")
            if g.nodes[key].kind != "link":
                record.ws.diag.error(record.node, f"canonical_link '{canonical}' is not a link")
            model.attached = key
        elif record.links:
            model.attached = record.links[0]
        else:
            model.attached = record.nested[0].key
        for key in record.frames:
            self._resolve_frame(key, record.key)
        for key in record.joints:
            self._resolve_joint(key, record.key)

    def _resolve_joint(self, key, scope):
        n = self.graph.nodes[key]
        self.joint_parent[key] = self.joint_link(scope, n.xml, "parent", n.diag)
        n.attached = n.default_rel = self.joint_link(scope, n.xml, "child", n.diag)
    def _resolve_frame(self, key, scope):
        n = self.graph.nodes[key]
        if n.attached:
            n.attached = self.graph.resolve(scope, n.attached, n.xml, n.diag, "attached_to")
        else:
            n.attached = scope or WORLD
        n.default_rel = n.attached

    def joint_link(self, scope, xml, role, diag):
        """The key of a joint's ``<parent>`` or ``<child>`` frame (``world`` allowed as parent)."""
        text = child_text(xml, role)
        if not text:
            diag.error(xml, f"joint '{xml.get('name')}' has no <{role}>")
        if text == WORLD:
            if role == "child":
                diag.error(xml.find(role), f"joint '{xml.get('name')}': the world cannot be a "
                                           "joint's child")
            return WORLD
        return self.graph.resolve(scope, text, xml.find(role), diag, f"<{role}>")

    def _read_links(self, record):
        for key in record.links:
            n = self.graph.nodes[key]
            diag, name = n.diag, key.rsplit(SCOPE, 1)[-1]
            check_supported(n.xml, _LINK_TAGS | {"drake:visual"}, diag)
            for tag, value in (("kinematic", False), ("gravity", True)):
                if n.xml.find(tag) is not None and read_bool(n.xml, tag, diag) != value:
                    diag.warning(n.xml.find(tag), f"<{tag}> other than {str(value).lower()} is "
                                                  "not supported and is ignored")
            body = BodyDescription(name, diag.location(n.xml), X_WB=self.graph.world_pose(key))
            body.mass, body.com, body.G = read_inertial(n.xml, name, diag)
            record.desc.bodies.append(body)
            for tag, read in (("visual", read_visual), ("collision", read_collision)):
                for g_node in n.xml.findall(tag):
                    if not g_node.get("name"):
                        diag.error(g_node, f"Required attribute[name] in element[{tag}] is not "
                                           "specified")
                    rel, X = parse_pose(g_node.find("pose"), diag)
                    if rel:
                        target = self.graph.resolve(record.key, rel, g_node, diag, "relative_to")
                        X = compose(self.graph.relative(key, target), X)
                    g = read(g_node, key, X, record.ws)
                    if g is not None:
                        record.desc.geometries.append(g)

    def _build_order(self):
        order = []

        def visit(record):
            for nested in record.nested:
                visit(nested)
            order.append(self.records.index(record))

        for record in self.records:
            if record.parent is None:
                visit(record)
        return order

    def _model_frame(self, record):
        g = self.graph
        body = g.body(record.key)
        record.desc.frames.append(FrameDescription(
            MODEL_FRAME, body, record.ws.diag.location(record.node),
            g.relative(body, record.key), before_joints=True))

    def frame_description(self, key):
        """A ``<frame>``. Drake fixes it to the plant frame standing for its ``attached_to``
        target at its pose relative to that target; for a joint target that plant frame is the
        child link's body frame, so (as in Drake) the pose is taken as relative to the link."""
        g, n = self.graph, self.graph.nodes[key]
        body = g.body(key)
        X_BF = g.relative(body, key)
        if g.nodes[n.attached].kind == "joint":
            X_BF = g.relative(n.attached, key)
        return FrameDescription(key.rsplit(SCOPE, 1)[-1], body, n.diag.location(n.xml), X_BF,
                                instance=self.instance_of(n.attached))

    def instance_of(self, key):
        """The model (instance) of the plant frame that stands for frame ``key``."""
        n = self.graph.nodes[key]
        if n.kind == "world":
            return WORLD_INSTANCE
        if n.kind == "model":
            return key
        if n.kind == "frame":
            return self.instance_of(n.attached)
        return self.graph.body(key).rsplit(SCOPE, 1)[0]

    def X_WM(self, record):
        """Drake's world pose of a model frame: ``X_WP X_PM`` down the nesting."""
        if record is None:
            return (np.eye(3), np.zeros(3))
        if record.parent is None:
            return self.graph.world_pose(record.key)
        return compose(self.X_WM(record.parent), self.graph.relative(record.parent.key,
                                                                      record.key))


# ---- helpers ------------------------------------------------------------------------------


class _Named:
    """An element seen with another name (an ``<include>``'s ``<name>`` override)."""

    def __init__(self, xml, name):
        self.xml, self.name = xml, name
        self.tag, self.line = xml.tag, xml.line

    def get(self, key, default=None):
        return self.name if key == "name" else self.xml.get(key, default)
