"""SDFormat ``<joint>``, ``<drake:joint>`` and ``<static>`` welds into `JointDescription`s, as
Drake's ``AddJointFromSpecification`` builds them.

Frames: J is the joint frame (``<pose>``, default relative to the child frame), P and C the
parent and child links. Frame M is always ``<joint>_child`` at ``X_CJ``; frame F is
``<joint>_parent`` at ``X_PJ`` unless ``X_PJ`` is exactly the identity (then F is P's body
frame). With the world as parent, ``X_PJ = X_WM X_MJ`` (M the joint's model frame).

Types: ``fixed`` (weld), ``revolute``, ``continuous`` (revolute without position limits),
``prismatic``, ``screw`` (``<screw_thread_pitch>`` in m/revolution, default 1, or the
deprecated ``<thread_pitch>`` p as ``-2π/p``), ``ball`` (`BallRpyJoint`; an axis only gives
damping), ``universal`` (frames F and M carry axis and axis2 as their x and y axes, which must
be orthogonal). ``<axis><xyz expressed_in>`` (default: the joint frame; before SDFormat 1.7
``<use_parent_model_frame>`` means the model frame) is re-expressed in J. ``<limit>``: lower,
upper, velocity (negative: none), effort (0: no actuator; negative: unlimited) and
``drake:acceleration``. ``<dynamics>``: damping, and ``spring_stiffness``/``spring_reference``
as a `RevoluteSpring`/`PrismaticSpring`. 1-dof joints with a nonzero effort limit get an
actuator named after the joint, with ``drake:rotor_inertia`` and ``drake:gear_ratio``.
``<drake:mimic joint multiplier offset>`` (defaults 1 and 0) is a coupler constraint
q = multiplier · q_joint + offset on a discrete plant, as in Drake.
"""

from __future__ import annotations

import numpy as np

from jaxbody.parsers.model_description import (
    WORLD,
    ActuatorDescription,
    CouplerDescription,
    JointDescription,
    SpringDescription,
)
from jaxbody.parsers.sdf_frames import MODEL_FRAME, SCOPE, compose
from jaxbody.parsers.sdf_values import (
    check_supported,
    child_text,
    read_bool,
    read_number,
    read_numbers,
)
from jaxbody.parsers.xml_reader import read_scalar, read_string

_JOINT_TAGS = {"axis", "axis2", "child", "drake:rotor_inertia", "drake:gear_ratio",
               "drake:controller_gains", "drake:mimic", "parent", "pose", "screw_thread_pitch"}
_LIMIT_TAGS = {"drake:acceleration", "effort", "lower", "stiffness", "upper", "velocity"}
_ORTHONORMAL_TOL = 128 * np.finfo(float).eps  # Drake's RotationMatrix::IsValid tolerance


class WeldGroups:
    """Which bodies are welded together so far (union-find over body keys)."""

    def __init__(self):
        self.parent = {}

    def find(self, key):
        root = key
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        return root

    def union(self, a, b):
        self.parent[self.find(a)] = self.find(b)

    def welded_to_world(self, key):
        return self.find(key) == self.find(WORLD)


def read_joint(reader, record, key, welds, into=None):
    """Appends the joint ``key`` (with its actuator and spring) to ``record`` (or, for a
    world-level joint, ``record`` is None and it goes to ``into``)."""
    g, n = reader.graph, reader.graph.nodes[key]
    xml, diag = n.xml, n.diag
    desc = (into or record).desc
    scope = record.key if record is not None else ""
    name = key.rsplit(SCOPE, 1)[-1]
    kind = (xml.get("type") or "").strip()
    if not kind:
        diag.error(xml, f"joint '{name}' is missing the type attribute")
    check_supported(xml, _JOINT_TAGS, diag)
    mimic = xml.find("drake:mimic")
    if mimic is not None:  # a coupler constraint (discrete plants; see the builder)
        target = read_string(mimic, "joint", diag, required=True, what=(
            f"joint '{name}' drake:mimic element is missing the required 'joint' attribute"))
        if target == name:
            diag.error(mimic, f"joint '{name}' drake:mimic element specifies joint '{target}'; "
                              "joints cannot mimic themselves")
        desc.couplers.append(CouplerDescription(
            name, target, read_scalar(mimic, "multiplier", diag, default=1.0),
            read_scalar(mimic, "offset", diag, default=0.0), diag.location(mimic)))
    P, C = g.body(reader.joint_parent[key]), g.body(n.attached)
    X_CJ = g.relative(C, key)
    if P == WORLD:
        X_PJ = compose(reader.X_WM(record), g.relative(scope or WORLD, key))
    else:
        X_PJ = g.relative(P, key)
    exact_identity = np.array_equal(X_PJ[0], np.eye(3)) and not np.any(X_PJ[1])
    j = JointDescription(name, "", P, C, diag.location(xml), X_PF=None if exact_identity else X_PJ,
                         X_BM=X_CJ, after_frames=record is None)
    if record is None and kind != "fixed":
        diag.error(xml, "Only fixed joints are permitted in world joints.")
    if record is not None and record.static and kind != "fixed":
        diag.error(record.node, "Only fixed joints are permitted in static models.")
    axis = xml.find("axis")
    if kind == "fixed":
        j.kind = "weld"
        welds.union(P, C)
    elif kind in ("revolute", "continuous", "prismatic", "screw"):
        if axis is None:
            diag.error(xml, f"An axis must be specified for joint '{name}'")
        j.kind = "revolute" if kind == "continuous" else kind
        j.axis = _axis(reader, scope, key, axis, diag, record)
        j.damping = np.array([_damping(axis, name, diag)])
        if kind == "screw":
            j.pitch = _screw_pitch(xml, name, diag)
        else:
            _limits(axis, j, kind == "continuous", diag)
            _spring(axis, j, kind, desc, diag)
        _actuator(xml, axis, j, desc, diag)
        if xml.find("axis2") is not None:
            diag.warning(xml, f"An axis2 may not be specified for 1-dof joint '{name}' and "
                              "will be ignored")
    elif kind == "ball":
        j.kind = "ball_rpy"
        j.damping = np.full(3, _damping(axis, name, diag))
        if axis is not None:
            diag.warning(xml, "A ball joint axis will be ignored. Only the dynamic parameters "
                              "and limits will be considered.")
            if _effort(axis, diag) != 0:
                diag.warning(xml, f"Actuation (via non-zero effort limits) for ball joint "
                                  f"'{name}' is not implemented yet and will be ignored.")
    elif kind == "universal":
        _universal(reader, scope, key, j, X_PJ, X_CJ, record, diag)
    elif kind in ("gearbox", "revolute2"):
        diag.error(xml, f"Joint type ({kind}) not supported for joint '{name}'.")
    else:
        diag.error(xml, f"joint '{name}' has unrecognized type: '{kind}'")
    desc.joints.append(j)


def _universal(reader, scope, key, j, X_PJ, X_CJ, record, diag):
    xml = reader.graph.nodes[key].xml
    axis, axis2 = xml.find("axis"), xml.find("axis2")
    if axis is None or axis2 is None:
        diag.error(xml, f"Both axis and axis2 must be specified for joint '{j.name}'")
    Ix = _axis(reader, scope, key, axis, diag, record)
    Iy = _axis(reader, scope, key, axis2, diag, record)
    R_JI = np.column_stack([Ix, Iy, np.cross(Ix, Iy)])
    if np.abs(R_JI.T @ R_JI - np.eye(3)).max() > _ORTHONORMAL_TOL:
        diag.error(xml, f"axis and axis2 must be orthogonal for joint '{j.name}'")
    X_JI = (R_JI, np.zeros(3))
    j.kind, j.X_PF, j.X_BM = "universal", compose(X_PJ, X_JI), compose(X_CJ, X_JI)
    damping = _damping(axis, j.name, diag)
    damping2 = _damping(axis2, j.name, diag)
    if damping2 != damping:
        diag.warning(xml, f"Joint damping must be equal for both axes for joint {j.name}. The "
                          f"damping coefficient for 'axis' ({damping:g}) is used. The value "
                          f"for 'axis2' ({damping2:g}) is ignored.")
    j.damping = np.full(2, damping)
    if _effort(axis, diag) != 0 or _effort(axis2, diag) != 0:
        diag.warning(xml, f"Actuation (via non-zero effort limits) for universal joint "
                          f"'{j.name}' is not implemented yet and will be ignored.")


def _axis(reader, scope, key, axis, diag, record):
    """The unit axis, expressed in the joint frame J."""
    xyz_node = axis.find("xyz")
    xyz = read_numbers(axis, "xyz", 3, diag, default=(0, 0, 1))
    expressed_in = "" if xyz_node is None else xyz_node.get("expressed_in", "").strip()
    version = record.version if record is not None else (1, 9)
    if axis.find("use_parent_model_frame") is not None:
        if version >= (1, 7):
            diag.error(axis.find("use_parent_model_frame"), "<use_parent_model_frame> is not "
                       "part of SDFormat 1.7 and later; use <xyz expressed_in=\"__model__\">")
        if read_bool(axis, "use_parent_model_frame", diag):
            expressed_in = MODEL_FRAME
    norm = np.linalg.norm(xyz)
    if not norm > 0:
        diag.error(xyz_node if xyz_node is not None else axis, "The norm of the xyz vector "
                                                               "cannot be zero")
    if expressed_in:
        E = reader.graph.resolve(scope, expressed_in, xyz_node, diag, "expressed_in")
        xyz = reader.graph.relative(key, E)[0] @ xyz
    return xyz / np.linalg.norm(xyz)


def _damping(axis, name, diag):
    if axis is None:
        return 0.0
    dynamics = axis.find("dynamics")
    damping = 0.0 if dynamics is None else read_number(dynamics, "damping", diag, default=0.0)
    if damping < 0:
        diag.error(dynamics, f"Joint damping is negative for joint '{name}'. Joint damping "
                             "must be a non-negative number.")
    return damping


def _effort(axis, diag):
    limit = axis.find("limit")
    effort = np.inf if limit is None else read_number(limit, "effort", diag, default=np.inf)
    return np.inf if effort < 0 else effort


def _limits(axis, j, continuous, diag):
    limit = axis.find("limit")
    lower, upper, velocity, acceleration = -np.inf, np.inf, np.inf, np.inf
    if limit is not None:
        check_supported(limit, _LIMIT_TAGS, diag)
        lower = read_number(limit, "lower", diag, default=-np.inf)
        upper = read_number(limit, "upper", diag, default=np.inf)
        velocity = read_number(limit, "velocity", diag, default=np.inf)
        velocity = np.inf if velocity < 0 else velocity
        acceleration = read_number(limit, "drake:acceleration", diag, default=np.inf)
        if lower > upper:
            diag.error(limit, f"The lower limit must be lower (or equal) than the upper limit "
                              f"for joint '{j.name}'.")
        if acceleration < 0:
            diag.error(limit, f"Acceleration limit is negative for joint '{j.name}'.")
    if continuous:
        lower, upper = -np.inf, np.inf
    j.pos_lower, j.pos_upper = np.array([lower]), np.array([upper])
    j.vel_lower, j.vel_upper = np.array([-velocity]), np.array([velocity])
    j.acc_lower, j.acc_upper = np.array([-acceleration]), np.array([acceleration])


def _spring(axis, j, kind, desc, diag):
    dynamics = axis.find("dynamics")
    if dynamics is None:
        return
    stiffness = read_number(dynamics, "spring_stiffness", diag, default=0.0)
    reference = read_number(dynamics, "spring_reference", diag, default=0.0)
    if stiffness < 0:
        diag.error(dynamics, f"The stiffness specified for joint '{j.name}' must be "
                             "non-negative.")
    if stiffness > 0:
        spring_kind = "prismatic" if kind == "prismatic" else "revolute"
        desc.springs.append(SpringDescription(spring_kind, j.name, reference, stiffness,
                                              diag.location(dynamics)))


def _actuator(xml, axis, j, desc, diag):
    effort = _effort(axis, diag)
    if effort == 0:
        return
    a = ActuatorDescription(j.name, j.name, diag.location(xml), effort)
    for tag, attr in (("drake:rotor_inertia", "rotor_inertia"), ("drake:gear_ratio",
                                                                "gear_ratio")):
        if xml.find(tag) is not None:
            setattr(a, attr, read_number(xml, tag, diag))
    if a.rotor_inertia is not None and a.rotor_inertia < 0:
        diag.error(xml.find("drake:rotor_inertia"), "the rotor inertia must be >= 0")
    if xml.find("drake:controller_gains") is not None:
        diag.warning(xml.find("drake:controller_gains"), "<drake:controller_gains> is not "
                     "supported by jaxbody yet and is ignored")
    desc.actuators.append(a)


def _screw_pitch(xml, name, diag):
    if xml.find("screw_thread_pitch") is not None:
        return read_number(xml, "screw_thread_pitch", diag)
    if xml.find("thread_pitch") is not None:
        thread_pitch = read_number(xml, "thread_pitch", diag)
        if thread_pitch == 0:
            diag.error(xml.find("thread_pitch"), f"joint '{name}': thread_pitch cannot be 0")
        return -2 * np.pi / thread_pitch
    return 1.0


def read_drake_joint(reader, record, xml):
    """A ``<drake:joint type="planar">`` between two frames of the plant."""
    diag = record.ws.diag
    check_supported(xml, {"drake:parent", "drake:child", "drake:damping", "pose"}, diag)
    kind, name = xml.get("type"), xml.get("name")
    if not kind:
        diag.error(xml, "<drake:joint>: Unable to find the 'type' attribute.")
    if not name:
        diag.error(xml, "<drake:joint>: Unable to find the 'name' attribute.")
    if xml.find("pose") is not None:
        diag.error(xml, "<drake:joint> does not yet support the <pose> child tag.")
    frames, bodies = [], []
    for role in ("drake:parent", "drake:child"):
        text = child_text(xml, role)
        if not text:
            diag.error(xml, f"<drake:joint>: Unable to find the <{role}> child tag.")
        instance, _, local = (record.key + SCOPE + text).rpartition(SCOPE)
        key = reader.graph.resolve(instance, local, xml, diag, f"<{role}>")
        if reader.graph.nodes[key].kind not in ("link", "frame", "model"):
            diag.error(xml, f"<drake:joint>: Frame '{text}' specified for <{role}> does not "
                            "exist in the model.")
        frames.append((reader.instance_of(key) if local != MODEL_FRAME else key, local))
        bodies.append(reader.graph.body(key))
    if kind != "planar":
        diag.error(xml, f"<drake:joint> '{name}' has unrecognized value for 'type' attribute: "
                        f"{kind}")
    damping = read_numbers(xml, "drake:damping", 3, diag, required=True)
    if np.any(damping < 0):
        diag.error(xml, f"<drake:joint> '{name}': damping must be >= 0")
    record.desc.joints.append(JointDescription(
        name, "planar", bodies[0], bodies[1], diag.location(xml), X_PF=None, damping=damping,
        frames=tuple(frames), after_frames=True))


def static_welds(reader, record, welds):
    """Welds each link of a static model not yet welded to the world, at its pose."""
    for key in record.links:
        if welds.welded_to_world(key):
            continue
        name = key.rsplit(SCOPE, 1)[-1]
        X_WL = compose(reader.X_WM(record), reader.graph.relative(record.key, key))
        record.desc.joints.append(JointDescription(
            f"sdformat_model_static_world_welds_to_{name}", "weld", WORLD, key,
            record.ws.diag.location(record.node), X_PF=None, X_FM=X_WL, after_frames=True))
        welds.union(WORLD, key)
