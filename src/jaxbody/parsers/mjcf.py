"""MJCF (MuJoCo XML) into a `ModelDescription`: the subset that describes rigid-body trees.

Read: ``<compiler>`` (``angle``, ``eulerseq``, ``autolimits``, ``inertiafromgeom``,
``inertiagrouprange``, ``boundmass``), ``<default>`` classes (nested classes inherit; an
element uses its ``class``, else its nearest ancestor body's ``childclass``, else ``main``),
``<asset><material rgba>``, ``<include file>`` (anywhere; its ``<mujoco>`` children replace it),
``<worldbody>`` with nested ``<body>``s (``pos`` + an orientation, see
`jaxbody.parsers.mjcf_geometry`), ``<inertial>`` (``mass``, ``pos``, orientation,
``diaginertia`` or ``fullinertia``), ``<joint>`` (``hinge``, ``slide``, ``ball``, ``free``) and
``<freejoint>`` with ``pos``, ``axis``, ``range``/``limited``, ``ref``, ``damping``,
``stiffness``/``springref`` and ``armature``, ``<geom>``s, and ``<actuator><motor joint>``.

Mapping to jaxbody (Drake's names where Drake's MJCF parser has them):

- A body is a rigid body; without ``<inertial>`` its inertia comes from its geoms (MuJoCo's
  ``inertiafromgeom="auto"``). A body without joints is welded to its parent
  (``<parent>_welds_to_<body>``).
- hinge → `RevoluteJoint`, slide → `PrismaticJoint`, ball → the quaternion `BallJoint`, free →
  `QuaternionFloatingJoint` whose default pose is the body's. Frames F and M of a joint sit at
  its anchor ``pos``, so the body turns about the anchor as in MuJoCo; a nonzero ``ref``
  rotates F so that jaxbody's joint coordinate equals MuJoCo's ``qpos``.
- Several joints in one body: MuJoCo composes them in order, each about the body frame as
  already moved by the previous ones. jaxbody adds a chain of massless bodies ``<body>0``,
  ``<body>1``, ... (Drake's names), one joint between consecutive ones, the last joint
  carrying the real body; every body of the chain coincides with the real body at q = 0.
- ``damping`` → joint damping; ``stiffness`` → `RevoluteSpring`/`PrismaticSpring` about
  ``springref``. ``armature`` a (added by MuJoCo to the diagonal of M) → the reflected rotor
  inertia of a `JointActuator`, which jaxbody (as Drake) adds to the same diagonal entry: a
  motor with gear g gets rotor inertia a/g² and gear ratio g; a joint without a motor gets an
  actuator named after it with rotor inertia a. Armature on ball and free joints cannot be
  expressed this way and is ignored with a warning.
- ``<motor joint gear>`` → a `JointActuator` on the joint, effort limit ``max|forcerange|``, else
  ``max|ctrlrange|·|gear|``, else none. jaxbody's actuation is the joint force, MuJoCo's is
  ``gear · ctrl``.
- Geoms → visual geometry, plus collision geometry unless ``contype`` and ``conaffinity`` are
  both 0, with friction ``friction[0]`` (static and dynamic).
- Unnamed bodies, joints and geoms are named ``body<k>``, ``joint<k>``, ``geom<k>`` (k: MuJoCo's
  index of the element; ``_`` is appended while the name is taken). The model is named by
  ``<mujoco model>``, else after the file.

Also applied as MuJoCo applies them: ``<compiler settotalmass>``, ``<option gravity>`` (the
plant's gravity, as Drake's parser sets it), ``<flag gravity="disable">`` (gravity disabled on
the model instance), body ``gravcomp`` (a `GravityCompensation` element) and mesh geoms
(`jaxbody.parsers.mjcf_mesh`). A height field on the world body is skipped with a warning.
MuJoCo's parent-child contact filter (``<flag filterparent>``) becomes collision filters
between each moving body and its parent (world children excepted).

Not supported: fluid forces, sdf geoms, height fields on moving bodies, ``<frame>``,
``<replicate>``, shell inertia and non-motor actuators (errors or warnings, see the messages);
tendons, tendon/flex and site-based equality constraints, contact pairs/excludes, sensors and
the ``<flag>``s that change the dynamics are read past with a warning. On a
discrete plant ``<equality>`` becomes Drake's constraints: ``<joint>`` (degree ≤ 1) a coupler,
``<connect>`` a ball constraint, ``<weld>`` a weld (`mjcf_model.read_equality`).
"""

from __future__ import annotations

import os

import numpy as np

from jaxbody.geometry import (
    AddContactMaterial,
    Box,
    Capsule,
    CoulombFriction,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    IllustrationProperties,
    ProximityProperties,
    Sphere,
)
from jaxbody.math.inertia import point_mass_unit_inertia
from jaxbody.math.so3 import rotation_to_quaternion
from jaxbody.parsers.inertia import could_be_physically_valid
from jaxbody.parsers.mjcf_geometry import (
    DEFAULT_DENSITY,
    axis_angle_rotation,
    combine_inertias,
    frame,
    geom_shape,
    numbers,
    solid_inertia,
)
from jaxbody.parsers.mjcf_mesh import MjcfMeshes
from jaxbody.parsers.mjcf_model import (
    MjcfFiles,
    read_actuators,
    read_compiler,
    read_defaults,
    read_equality,
    read_option,
)
from jaxbody.parsers.model_description import (
    WORLD,
    BodyDescription,
    CollisionFilterDescription,
    GeometryDescription,
    GravityCompensationDescription,
    JointDescription,
    ModelDescription,
    SpringDescription,
)

_IGNORED_SECTIONS = ("visual", "statistic", "size", "custom", "keyframe", "sensor", "extension")
_WARNED_SECTIONS = ("tendon", "contact", "deformable")
_BODY_SILENT = ("site", "camera", "light", "attach")
_BODY_ERRORS = ("frame", "replicate")


def read_mjcf(root, ws) -> ModelDescription:
    """The `ModelDescription` of an MJCF document.

    Args:
        root: the document's root `XmlElement` (``<mujoco>``); its ``<include>``s are expanded
            in place.
        ws: the `ParsingWorkspace` (diagnostics, package map, file folder).
    """
    files = MjcfFiles(ws)
    diag = files.diag
    if root.tag != "mujoco":
        diag.error(root, f"an MJCF (.xml) file must have a <mujoco> root element, not <{root.tag}>")
    files.expand_includes(root)
    reader = _Reader(root, files)
    for section in root.children:
        if section.tag in _WARNED_SECTIONS and section.children:
            diag.warning(section, f"<{section.tag}> is not supported by jaxbody yet and is ignored")
        elif section.tag not in _IGNORED_SECTIONS + ("compiler", "default", "asset", "worldbody",
                                                      "actuator", "option", "equality"):
            diag.warning(section, f"<{section.tag}> is not supported and is ignored")
    option = read_option(root, files)
    for worldbody in root.findall("worldbody"):
        reader.read_world(worldbody)
    _set_total_mass(reader)
    read_actuators(root, reader, files)
    read_equality(root, reader, files)
    model = reader.model
    model.gravity, model.gravity_enabled = option.gravity, option.gravity_enabled
    if option.filter_parent:
        model.collision_filters.extend(_parent_filters(reader))
    if not option.gravity_enabled:  # MuJoCo: no gravity, hence no gravity compensation
        model.gravity_compensation.clear()
    return model


def _set_total_mass(reader):
    """``<compiler settotalmass="X">`` (X > 0): every body's mass and rotational inertia scaled
    by X / (the total mass of the model's bodies), after boundmass, as MuJoCo's compiler does.
    G_BBo_B (the unit inertia) and the center of mass are unchanged."""
    target = reader.compiler.settotalmass
    bodies = [b for b in reader.model.bodies if not b.is_world]
    total = sum(b.mass for b in bodies)
    if target > 0 and total > 0:
        for b in bodies:
            b.mass *= target / total


def _parent_filters(reader):
    """MuJoCo's parent-child contact filter (``<flag filterparent>``, on by default): no contact
    between a moving body (one with joints) together with the bodies welded to it, and its
    parent's such group, unless that parent group is the world. jaxbody's own filter covers
    bodies joined by one joint and welded groups; this adds the pairs it misses (a body with
    several joints hangs from its parent through massless bodies, and a body's parent may be
    welded to the moving one above it)."""
    root = reader.weld_root
    groups = {}
    for body, r in root.items():
        if body != WORLD:
            groups.setdefault(r, []).append(body)
    out = []
    for body, (parent, loc) in reader.parent_of.items():
        if root[body] == body and root[parent] != WORLD:
            out.append(CollisionFilterDescription(tuple(groups[body]),
                                                  tuple(groups[root[parent]]), loc))
    return out


class _Reader:
    """Walks ``<worldbody>``, adding bodies, joints, springs and geometry to ``model``."""

    def __init__(self, root, files):
        self.files, self.diag = files, files.diag
        self.compiler = read_compiler(root, files)
        self.defaults = read_defaults(root, files)
        self.materials = {m.get("name"): m.get("rgba") for a in root.findall("asset")
                          for m in a.findall("material") if m.get("name")}
        name = root.get("model") or os.path.splitext(os.path.basename(self.diag.filename))[0]
        if not name or name.startswith("<"):
            name = "MuJoCo Model"
        self.model = ModelDescription(name, self.diag.location(root))
        self.model.bodies.append(BodyDescription(WORLD, self.diag.location(root), is_world=True))
        self.joint_info = {}  # joint name -> (kind, armature, element)
        self.weld_root = {WORLD: WORLD}  # body -> the moving body (or world) it is welded to
        self.parent_of = {}  # body -> (its parent body, its location)
        self.n_bodies = self.n_joints = self.n_geoms = 0
        self.meshes = MjcfMeshes(root, self)
        self.used = {"body": set(), "joint": set(), "geom": set()}  # names given in the file
        stack = [root]
        while stack:
            el = stack.pop()
            kind = "joint" if el.tag == "freejoint" else el.tag
            if kind in self.used and el.get("name"):
                self.used[kind].add(el.get("name"))
            stack.extend(el.children)

    def _unique_body(self, name):
        while name in self.used["body"]:
            name += "_"
        self.used["body"].add(name)
        return name

    def auto_name(self, kind, index):
        """A name for an unnamed element: ``<kind><index>``, made unique."""
        name = f"{kind}{index}"
        while name in self.used[kind]:
            name += "_"
        self.used[kind].add(name)
        return name

    def attrs(self, el, tag, childclass=None):
        """``el``'s attributes over those of its default class."""
        cls = el.get("class") or childclass or "main"
        if cls not in self.defaults:
            self.diag.error(el, f"unknown default class '{cls}'")
        merged = dict(self.defaults[cls].get(tag, {}))
        merged.update(el.attrib)
        return merged

    def read_world(self, worldbody):
        for el in worldbody.children:
            if el.tag == "geom":
                self._geom(el, WORLD, None, None)
            elif el.tag == "body":
                self._body(el, WORLD, None)
            elif el.tag in ("joint", "freejoint", "inertial"):
                self.diag.error(el, f"<{el.tag}> is not allowed in <worldbody>")
            elif el.tag in _BODY_ERRORS:
                self.diag.error(el, f"<{el.tag}> is not supported by jaxbody's MJCF reader")

    def _body(self, el, parent, childclass):
        diag = self.diag
        self.n_bodies += 1
        name = el.get("name") or self.auto_name("body", self.n_bodies)
        childclass = el.get("childclass") or childclass
        if childclass is not None and childclass not in self.defaults:
            diag.error(el, f"unknown childclass '{childclass}'")
        X_PB = frame(el, el.attrib, self.compiler, diag)
        parts, joints, inertial = [], [], None
        for child in el.children:
            if child.tag in ("joint", "freejoint"):
                joints.append(child)
            elif child.tag == "inertial":
                inertial = child
            elif child.tag in _BODY_ERRORS:
                diag.error(child, f"<{child.tag}> is not supported by jaxbody's MJCF reader")
            elif child.tag not in ("geom", "body") + _BODY_SILENT:
                diag.warning(child, f"<{child.tag}> in <body> is not supported and is ignored")
        body = BodyDescription(name, diag.location(el))
        self.model.bodies.append(body)
        self.weld_root[name] = name if joints else self.weld_root[parent]
        self.parent_of[name] = (parent, diag.location(el))
        mode = self.compiler.inertiafromgeom  # do the geoms give the body's inertia?
        from_geoms = mode == "true" or (mode == "auto" and inertial is None)
        for child in el.findall("geom"):
            self._geom(child, name, childclass, parts if from_geoms else None)
        body.mass, body.com, body.G = self._inertia(el, inertial, parts, name)
        gravcomp = float(numbers(el, el.attrib, "gravcomp", 1, diag, default=(0,))[0])
        if gravcomp != 0:
            self.model.gravity_compensation.append(
                GravityCompensationDescription(name, gravcomp, diag.location(el)))
        if not joints:
            self.model.joints.append(JointDescription(
                f"{parent}_welds_to_{name}", "weld", parent, name, diag.location(el), X_PF=None,
                X_FM=X_PB))
        chain = [self._unique_body(f"{name}{k}") for k in range(len(joints) - 1)] + [name]
        for k, link in enumerate(chain[:-1]):
            self.model.bodies.append(BodyDescription(link, diag.location(joints[k])))
        for k, joint in enumerate(joints):
            self._joint(joint, parent if k == 0 else chain[k - 1], chain[k],
                        X_PB if k == 0 else (np.eye(3), np.zeros(3)), childclass, len(joints))
        for child in el.findall("body"):
            self._body(child, name, childclass)

    def _inertia(self, el, inertial, parts, name):
        """``(mass, p_BoBcm_B, G_BBo_B)`` from ``<inertial>`` or the geoms."""
        diag, mode = self.diag, self.compiler.inertiafromgeom
        if inertial is not None and mode != "true":
            attrs = inertial.attrib
            mass = numbers(inertial, attrs, "mass", 1, diag)
            if mass is None:
                diag.error(inertial, "missing required attribute 'mass'")
            R, com = frame(inertial, attrs, self.compiler, diag)
            full = numbers(inertial, attrs, "fullinertia", 6, diag)
            diag_I = numbers(inertial, attrs, "diaginertia", 3, diag)
            if (full is None) == (diag_I is None):
                diag.error(inertial, "<inertial> needs exactly one of diaginertia and fullinertia")
            I_Bi = (np.diag(diag_I) if full is None else np.array(
                [[full[0], full[3], full[4]], [full[3], full[1], full[5]],
                 [full[4], full[5], full[2]]]))
            mass, I = float(mass[0]), R @ I_Bi @ R.T
        elif mode == "false":
            return 0.0, np.zeros(3), np.zeros((3, 3))
        else:
            mass, com, I = combine_inertias(parts)
        if mass < 0:
            diag.error(inertial if inertial is not None else el, f"body '{name}' has a negative "
                                                                 f"mass ({mass:g} kg)")
        mass = max(mass, self.compiler.boundmass)
        if not could_be_physically_valid(I):
            diag.warning(inertial if inertial is not None else el, f"body '{name}': the "
                         "rotational inertia is not physically valid (loaded anyway)")
        if not mass > 0:
            return 0.0, np.zeros(3), np.zeros((3, 3))
        return mass, com, I / mass + point_mass_unit_inertia(np.asarray(com, float))

    def _joint(self, el, parent, child, X_PB, childclass, n_joints):
        diag = self.diag
        self.n_joints += 1
        attrs = ({"type": "free", **el.attrib} if el.tag == "freejoint"
                 else self.attrs(el, "joint", childclass))
        kind = attrs.get("type", "hinge")
        name = el.get("name") or self.auto_name("joint", self.n_joints - 1)
        pos = numbers(el, attrs, "pos", 3, diag, default=(0, 0, 0))
        j = JointDescription(name, "", parent, child, diag.location(el),
                             X_PF=(X_PB[0], X_PB[0] @ pos + X_PB[1]), X_BM=(np.eye(3), pos))
        damping = self._nonnegative(el, attrs, "damping")
        armature = self._nonnegative(el, attrs, "armature")
        stiffness = self._nonnegative(el, attrs, "stiffness")
        if kind == "free":
            if parent != WORLD or n_joints > 1:
                diag.error(el, f"free joint '{name}': a free joint must be the only joint of a "
                               "body whose parent is the world")
            R, p = X_PB
            j.kind, j.X_PF, j.X_BM = "free", None, None
            j.default_q = np.concatenate([rotation_to_quaternion(np.asarray(R, float)), p])
            j.damping = np.full(6, damping)
        elif kind == "ball":
            j.kind, j.damping = "ball", np.full(3, damping)
            if self._limited(el, attrs):
                diag.warning(el, f"ball joint '{name}': range limits are not supported and are "
                                 "ignored")
        elif kind in ("hinge", "slide"):
            self._hinge_or_slide(el, attrs, kind, j, damping, stiffness)
        else:
            diag.error(el, f"joint '{name}' has unknown type '{kind}' (hinge, slide, ball, free)")
        if kind in ("ball", "free") and (armature or stiffness):
            diag.warning(el, f"{kind} joint '{name}': armature and stiffness cannot be expressed "
                             "in jaxbody and are ignored")
        if numbers(el, attrs, "frictionloss", 1, diag, default=(0,))[0] != 0:
            diag.warning(el, f"joint '{name}': frictionloss is not supported and is ignored")
        self.joint_info[name] = (j.kind, armature, el)
        self.model.joints.append(j)

    def _hinge_or_slide(self, el, attrs, kind, j, damping, stiffness):
        diag = self.diag
        axis = numbers(el, attrs, "axis", 3, diag, default=(0, 0, 1))
        if not np.linalg.norm(axis) > 1e-10:
            diag.error(el, f"joint '{j.name}': the axis is zero")
        axis = axis / np.linalg.norm(axis)
        scale = np.pi / 180 if (kind == "hinge" and self.compiler.degrees) else 1.0
        j.kind, j.axis, j.damping = ("revolute" if kind == "hinge" else "prismatic"), axis, \
            np.array([damping])
        ref = float(numbers(el, attrs, "ref", 1, diag, default=(0,))[0]) * scale
        if ref != 0:  # jaxbody's coordinate is MuJoCo's qpos: F is rotated back by ref
            R_shift = axis_angle_rotation(axis, -ref) if kind == "hinge" else np.eye(3)
            p_shift = -ref * axis if kind == "slide" else np.zeros(3)
            R, p = j.X_PF
            j.X_PF = (R @ R_shift, R @ p_shift + p)
            j.default_q = np.array([ref])
        if self._limited(el, attrs):
            lower, upper = numbers(el, attrs, "range", 2, diag) * scale
            if lower > upper:
                diag.error(el, f"joint '{j.name}': range lower limit {lower:g} exceeds the upper "
                               f"limit {upper:g}")
            j.pos_lower, j.pos_upper = np.array([lower]), np.array([upper])
        if stiffness > 0:
            nominal = float(numbers(el, attrs, "springref", 1, diag, default=(0,))[0]) * scale
            self.model.springs.append(SpringDescription(j.kind, j.name, nominal, stiffness,
                                                        diag.location(el)))

    def _limited(self, el, attrs):
        limited = attrs.get("limited", "auto").strip().lower()
        if limited not in ("true", "false", "auto"):
            self.diag.error(el, f"attribute 'limited': '{limited}' is not true, false or auto")
        if limited == "auto":
            return "range" in attrs and self.compiler.autolimits
        if limited == "true" and "range" not in attrs:
            self.diag.error(el, "a limited joint needs a range")
        return limited == "true"

    def _nonnegative(self, el, attrs, name):
        value = float(numbers(el, attrs, name, 1, self.diag, default=(0,))[0])
        if value < 0:
            self.diag.error(el, f"attribute '{name}' must be >= 0, got {value:g}")
        return value

    def _geom(self, el, body, childclass, parts):
        diag = self.diag
        self.n_geoms += 1
        attrs = self.attrs(el, "geom", childclass)
        if attrs.get("type") == "hfield":
            if body != WORLD:
                diag.error(el, "hfield geoms are supported on the world body only (as static "
                               "terrain, which jaxbody skips)")
            diag.warning(el, "hfield geom on the world body (static terrain) is skipped: "
                             "jaxbody has no height-field shape, so nothing collides with it")
            return
        if attrs.get("type") == "sdf":
            diag.error(el, "sdf geoms are not supported by jaxbody's MJCF reader")
        if attrs.get("shellinertia", "false").strip().lower() == "true":
            diag.error(el, "shellinertia is not supported by jaxbody's MJCF reader")
        if "fluidshape" in attrs and attrs["fluidshape"] != "none":
            diag.warning(el, "geom fluidshape is ignored (jaxbody has no fluid forces)")
        name = el.get("name") or self.auto_name("geom", self.n_geoms - 1)
        group = int(numbers(el, attrs, "group", 1, diag, default=(0,))[0])
        lo, hi = self.compiler.inertiagrouprange
        in_inertia = parts is not None and lo <= group <= hi
        mass = numbers(el, attrs, "mass", 1, diag)
        mass = None if mass is None else float(mass[0])
        density = float(numbers(el, attrs, "density", 1, diag, default=(DEFAULT_DENSITY,))[0])
        if attrs.get("type") == "mesh":
            kind, X_BG = "mesh", frame(el, attrs, self.compiler, diag)
            shape, visual, part = self.meshes.geom(el, attrs, in_inertia, mass, density)
            if part is not None:
                m, (R, p), I_G = part
                parts.append((m, (X_BG[0] @ R, X_BG[0] @ p + X_BG[1]), I_G))
        else:
            kind, dims, X_BG = geom_shape(el, attrs, self.compiler, diag)
            try:
                shape = visual = {
                    "sphere": Sphere, "capsule": lambda r, h: Capsule(r, 2 * h),
                    "cylinder": lambda r, h: Cylinder(r, 2 * h),
                    "box": lambda a, b, c: Box(2 * a, 2 * b, 2 * c), "ellipsoid": Ellipsoid,
                    "plane": HalfSpace}[kind](*dims)
            except ValueError as e:
                diag.error(el, str(e))
            if kind != "plane" and in_inertia:
                m, I_G = solid_inertia(kind, dims, mass, density)
                if m < 0:
                    diag.error(el, f"geom '{name}' has a negative mass or density")
                parts.append((m, X_BG, I_G))
        loc = diag.location(el)
        rgba = numbers(el, attrs, "rgba", 4, diag)
        if rgba is None and attrs.get("material") in self.materials:
            rgba = numbers(el, {"rgba": self.materials[attrs["material"]]}, "rgba", 4, diag)
        props = IllustrationProperties()
        props.AddProperty("phong", "diffuse", rgba if rgba is not None else np.array(
            [0.5, 0.5, 0.5, 1.0]))
        self.model.geometries.append(GeometryDescription(body, "visual", name, visual, props,
                                                         loc, X_BG))
        contype = int(numbers(el, attrs, "contype", 1, diag, default=(1,))[0])
        conaffinity = int(numbers(el, attrs, "conaffinity", 1, diag, default=(1,))[0])
        if contype or conaffinity:
            mu = float(numbers(el, attrs, "friction", None, diag, default=(1,))[0])
            proximity = ProximityProperties()
            try:
                AddContactMaterial(friction=CoulombFriction(mu, mu), properties=proximity)
            except ValueError as e:
                diag.error(el, str(e))
            self.model.geometries.append(GeometryDescription(body, "collision", name, shape,
                                                             proximity, loc, X_BG))
