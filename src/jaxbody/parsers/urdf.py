"""URDF into a `ModelDescription`, following Drake's URDF parser (detail_urdf_parser.cc).

Read: ``<link>`` (``<inertial>``, ``<visual>``, ``<collision>``; a link named ``world`` is the
plant's world body), ``<joint>`` of type revolute, continuous, prismatic, fixed, floating
(ignored with a warning: the child stays a free body) and planar, Drake's ``<drake:joint>`` of
type ball, universal, screw (with ``<drake:screw_thread_pitch value>``) and planar, with
``<origin>``, ``<axis>``, ``<limit lower upper velocity effort drake:acceleration>`` and
``<dynamics damping>``; ``<transmission>`` (SimpleTransmission) into joint actuators with the
joint's effort limit and optional ``drake:rotor_inertia`` / ``drake:gear_ratio``; Drake's
``<frame>``; ``<mimic>`` (validated as Drake does) into a coupler constraint
(``AddCouplerConstraint(joint, mimicked joint, multiplier, offset)``) on a discrete plant, and
ignored with a warning on a continuous one, as Drake does.

Frames as in Drake: a joint's frame F is fixed in the parent link at the joint origin (named
``<joint>_parent``); its frame M is the child link's frame (for a planar joint, a frame
``<joint>_child`` whose z axis is the joint axis).

Where jaxbody differs from Drake's parser: numbers must be finite decimal literals (Drake reads
``1x`` as 1); a negative mass or a clearly negative diagonal moment of inertia is an error
(Drake warns and substitutes); lower > upper limits and negative velocity limits are errors
(pydrake aborts the process); conflicting visual ``<material>`` definitions are warnings
(Drake errors; they only affect drawing); collision filter groups, tendon constraints and
controller gains are read past with a warning (jaxbody does not model them yet); kinematic
loops are errors. Drake's ``<drake:linear_bushing_rpy>``, ``<drake:linear_spring_damper>`` and
``<drake:ball_constraint>`` are read as Drake reads them (`jaxbody.parsers.drake_elements`).
"""

from __future__ import annotations

import numpy as np

from jaxbody.parsers.drake_elements import read_drake_force_elements
from jaxbody.parsers.inertia import INERTIA_SIGN_TOLERANCE, spatial_inertia_from_inertial
from jaxbody.parsers.model_description import (
    JOINT_SIZES,
    WORLD,
    ActuatorDescription,
    BodyDescription,
    CouplerDescription,
    FrameDescription,
    JointDescription,
    ModelDescription,
)
from jaxbody.parsers.urdf_geometry import read_collision, read_material, read_origin, read_visual
from jaxbody.parsers.xml_reader import parse_numbers, read_scalar, read_string, read_vector

# Drake extensions jaxbody does not model yet: read past with a warning.
_UNSUPPORTED_EXTENSIONS = ("drake:collision_filter_group", "drake:tendon_constraint")
_CUSTOM_TYPES = ("ball", "screw", "universal", "curvilinear")


def read_urdf(root, ws, model_name=None) -> ModelDescription:
    """The `ModelDescription` of the ``<robot>`` element ``root``.

    Args:
        root: the document's root `XmlElement`.
        ws: the `ParsingWorkspace` (diagnostics, package map, file folder).
        model_name: overrides ``<robot name>`` if given.
    """
    diag = ws.diag
    if root.tag != "robot":
        diag.error(root, "URDF does not contain a robot tag")
    if "version" in root.attrib:
        diag.warning(root, "the 'version' attribute of <robot> is not supported and is ignored")
    name = model_name or read_string(root, "name", diag, required=True, what=(
        "your robot must have a name attribute or a model name must be specified"))
    model = ModelDescription(name, diag.location(root))
    materials = {}
    for node in root.findall("material"):
        read_material(node, True, ws, materials)
    for node in root.findall("link"):
        _read_link(node, model, ws, materials)
    efforts, floating = {}, set()
    joint_nodes = [n for n in root.children if n.tag in ("joint", "drake:joint")]
    for node in joint_nodes:
        _read_joint(node, model, ws, efforts, floating)
    for node in joint_nodes:
        _check_mimic(node, model, diag, floating)
    for node in root.findall("transmission"):
        _read_transmission(node, model, diag, efforts)
    if root.find("loop_joint") is not None:
        diag.error(root.find("loop_joint"), "loop joints are not supported")
    for node in root.findall("frame"):
        frame_name = read_string(node, "name", diag, required=True)
        link = read_string(node, "link", diag, required=True,
                           what=f"missing link name for frame '{frame_name}'")
        model.frames.append(FrameDescription(frame_name, link, diag.location(node),
                                             read_origin(node, diag)))
    read_drake_force_elements(root, model, diag, _UrdfTags(diag))
    for tag in _UNSUPPORTED_EXTENSIONS:
        for node in root.findall(tag):
            diag.warning(node, f"<{tag}> is not supported by jaxbody yet and is ignored")
    return model


# ---- links --------------------------------------------------------------------------------
def _read_link(node, model, ws, materials):
    diag = ws.diag
    if node.get("drake_ignore") == "true":
        return
    if "type" in node.attrib:
        diag.warning(node, "the 'type' attribute of <link> is not supported and is ignored")
    name = read_string(node, "name", diag, required=True, what="link tag is missing name attribute")
    inertial = node.find("inertial")
    if name == WORLD:
        if inertial is not None:
            diag.warning(inertial, "the world link cannot have an <inertial>; it is ignored")
        model.bodies.append(BodyDescription(name, diag.location(node), is_world=True))
    else:
        body = BodyDescription(name, diag.location(node))
        if inertial is not None:
            body.mass, body.com, body.G = _read_inertial(inertial, name, diag)
        model.bodies.append(body)
    used = set()
    for visual in node.findall("visual"):
        model.geometries.append(read_visual(visual, name, ws, materials, used))
    used = set()  # geometry names are unique per role
    for collision in node.findall("collision"):
        model.geometries.append(read_collision(collision, name, ws, used))


def _read_inertial(node, link_name, diag):
    R, p = read_origin(node.find("origin"), diag)
    mass_node = node.find("mass")
    mass = 0.0 if mass_node is None else read_scalar(mass_node, "value", diag, default=0.0)
    if mass < 0:
        diag.error(mass_node, f"link '{link_name}' has a negative mass ({mass:g} kg)")
    I = {k: 0.0 for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
    inertia_node = node.find("inertia")
    if inertia_node is not None:
        for k in I:
            I[k] = read_scalar(inertia_node, k, diag, default=0.0)
        tol = INERTIA_SIGN_TOLERANCE * max(1.0, 0.5 * abs(I["ixx"] + I["iyy"] + I["izz"]))
        for k in ("ixx", "iyy", "izz"):
            if I[k] < -tol:
                diag.error(inertia_node, f"link '{link_name}' has a negative moment of inertia "
                                         f"{k} = {I[k]:g} kg·m²")
    mass, com, G, problem = spatial_inertia_from_inertial(
        mass, R, p, (I["ixx"], I["iyy"], I["izz"]), (I["ixy"], I["ixz"], I["iyz"]))
    if problem:
        diag.warning(node, f"link '{link_name}': {problem}")
    return mass, com, G


# ---- joints -------------------------------------------------------------------------------
def _read_joint(node, model, ws, efforts, floating):
    diag = ws.diag
    if node.get("drake_ignore") == "true":
        return
    for tag in ("calibration", "safety_controller"):
        if node.find(tag) is not None:
            diag.warning(node.find(tag), f"<{tag}> in <joint> is not supported and is ignored")
    name = read_string(node, "name", diag, required=True, what="joint tag is missing name attribute")
    kind = read_string(node, "type", diag, required=True,
                       what=f"joint '{name}' is missing type attribute")
    links = []
    for role in ("parent", "child"):
        link_node = node.find(role)
        if link_node is None:
            diag.error(node, f"joint '{name}' doesn't have a {role} element")
        links.append(read_string(link_node, "link", diag, required=True,
                                 what=f"joint '{name}': <{role}> has no link attribute"))
    is_custom = node.tag == "drake:joint"
    if kind in _CUSTOM_TYPES and not is_custom:
        diag.error(node, f"joint '{name}' of type {kind} is a custom joint type, and should be "
                         "a <drake:joint>")
    if kind not in _CUSTOM_TYPES + ("planar",) and is_custom:
        diag.error(node, f"joint '{name}' of type {kind} is a standard joint type, and should "
                         "be a <joint>")
    X_PB = read_origin(node.find("origin"), diag)
    axis = np.array([1.0, 0.0, 0.0])
    axis_node = node.find("axis")
    if axis_node is not None and kind not in ("fixed", "floating", "ball"):
        axis = read_vector(axis_node, "xyz", 3, diag, default=axis)
        if np.linalg.norm(axis) < 1e-8:
            diag.error(axis_node, f"joint '{name}' axis is zero")
        axis = axis / np.linalg.norm(axis)
    j = JointDescription(name, "", links[0], links[1], diag.location(node), X_PF=X_PB)
    effort = np.inf
    if kind in ("revolute", "continuous", "prismatic"):
        j.kind, j.axis = ("prismatic" if kind == "prismatic" else "revolute"), axis
        effort = _read_limits(node, j, diag)
        j.damping = np.array([_read_damping(node, name, diag)])
    elif kind == "fixed":
        j.kind = "weld"
    elif kind == "floating":
        diag.warning(node, f"joint '{name}' has type floating, which is not supported: link "
                           f"'{links[1]}' is left as a free body")
        floating.add(name)
        return
    elif kind in ("ball", "universal"):
        j.kind = "ball_rpy" if kind == "ball" else "universal"
        j.damping = np.full(3 if kind == "ball" else 2, _read_damping(node, name, diag))
    elif kind == "screw":
        j.kind, j.axis = "screw", axis
        j.damping = np.array([_read_damping(node, name, diag)])
        pitch_node = node.find("drake:screw_thread_pitch")
        if pitch_node is None:
            diag.error(node, "a screw joint is missing the <drake:screw_thread_pitch> tag")
        j.pitch = read_scalar(pitch_node, "value", diag, required=True)
    elif kind == "planar":
        j.kind = "planar"
        dyn = node.find("dynamics")
        damping = np.zeros(3) if dyn is None else read_vector(dyn, "damping", 3, diag,
                                                               default=np.zeros(3))
        if np.any(damping < 0):
            diag.error(dyn, f"joint '{name}': damping must be >= 0, got {damping}")
        j.damping = damping
        R_BM = _closest_rotation_to_identity_from_unit_z(axis)
        j.X_BM = (R_BM, np.zeros(3))
        j.X_PF = (X_PB[0] @ R_BM, X_PB[1].copy())
    elif kind == "curvilinear":
        diag.error(node, f"joint '{name}': curvilinear joints are not supported by jaxbody")
    else:
        diag.error(node, f"joint '{name}' has unrecognized type: '{kind}'")
    efforts[name] = effort
    model.joints.append(j)


def _read_limits(node, j, diag):
    """Sets ``j``'s position/velocity/acceleration limits from ``<limit>``; returns the effort
    limit (+inf if absent)."""
    limit = node.find("limit")
    if limit is None:
        return np.inf
    lower = read_scalar(limit, "lower", diag, default=-np.inf)
    upper = read_scalar(limit, "upper", diag, default=np.inf)
    velocity = read_scalar(limit, "velocity", diag, default=np.inf)
    acceleration = read_scalar(limit, "drake:acceleration", diag, default=np.inf)
    if lower > upper:
        diag.error(limit, f"joint '{j.name}': lower limit {lower:g} exceeds upper limit {upper:g}")
    for what, x in (("velocity", velocity), ("drake:acceleration", acceleration)):
        if x < 0:
            diag.error(limit, f"joint '{j.name}': the {what} limit must be >= 0, got {x:g}")
    j.pos_lower, j.pos_upper = np.array([lower]), np.array([upper])
    j.vel_lower, j.vel_upper = np.array([-velocity]), np.array([velocity])
    j.acc_lower, j.acc_upper = np.array([-acceleration]), np.array([acceleration])
    return read_scalar(limit, "effort", diag, default=np.inf)


def _read_damping(node, joint_name, diag):
    dyn = node.find("dynamics")
    if dyn is None:
        return 0.0
    damping = read_scalar(dyn, "damping", diag, default=0.0)
    if damping < 0:
        diag.error(dyn, f"joint '{joint_name}': damping must be >= 0, got {damping:g}")
    friction = read_scalar(dyn, "friction", diag, default=0.0)
    if friction != 0:
        diag.warning(dyn, "a non-zero joint 'friction' is not supported and is ignored")
    if read_scalar(dyn, "coulomb_window", diag) is not None:
        diag.warning(dyn, "the 'coulomb_window' attribute is not used and is ignored")
    return damping


def _closest_rotation_to_identity_from_unit_z(u):
    """Drake's ``RotationMatrix::MakeClosestRotationToIdentityFromUnitZ``: the smallest
    rotation taking z to the unit vector ``u`` (about x by π when ``u`` = -z)."""
    axis = np.cross([0.0, 0.0, 1.0], u)
    n = np.linalg.norm(axis)
    k = np.array([1.0, 0.0, 0.0]) if n < 1e-10 else axis / n
    angle = np.arctan2(n, u[2])
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def _check_mimic(node, model, diag, floating):
    """Drake's checks of ``<mimic>``; a valid one becomes a `CouplerDescription`."""
    mimic = node.find("mimic")
    if mimic is None:
        return
    name = node.get("name")
    target = read_string(mimic, "joint", diag, required=True, what=(
        f"joint '{name}' mimic element is missing the required 'joint' attribute"))
    joints = {j.name: j for j in model.joints}
    if target not in joints:
        diag.error(mimic, f"joint '{name}' mimic element specifies joint '{target}' which does "
                          "not exist")
    if target == name:
        diag.error(mimic, f"joint '{name}' mimic element specifies joint '{target}'; joints "
                          "cannot mimic themselves")
    multiplier = read_scalar(mimic, "multiplier", diag, default=1.0)
    offset = read_scalar(mimic, "offset", diag, default=0.0)
    if name in floating or name not in joints:
        diag.warning(mimic, f"the mimic element in joint '{name}' is ignored (it is supported "
                            "only for single-dof joints)")
        return
    nv, nv_target = JOINT_SIZES[joints[name].kind][1], JOINT_SIZES[joints[target].kind][1]
    if nv == 0:  # Drake refuses it; reduced models (talos_reduced) fix mimicking joints
        diag.warning(mimic, f"joint '{name}' is fixed (0 DOF): its mimic of joint '{target}' "
                            "has nothing to move and is ignored")
        return
    if nv != nv_target:
        diag.error(mimic, f"joint '{name}' which has {nv} DOF cannot mimic joint '{target}' "
                          f"which has {nv_target} DOF")
    model.couplers.append(CouplerDescription(name, target, multiplier, offset,
                                             diag.location(mimic)))


# ---- transmissions --------------------------------------------------------------------------
def _read_transmission(node, model, diag, efforts):
    for tag in ("leftActuator", "rightActuator", "flexJoint", "rollJoint", "gap_joint",
                "passive_joint", "use_simulated_gripper_joint"):
        if node.find(tag) is not None:
            diag.warning(node.find(tag), f"<{tag}> in <transmission> is not supported and is "
                                         "ignored")
    _warn_mechanical_reduction(node, diag)
    type_node = node.find("type")
    kind = type_node.text.strip() if type_node is not None else node.get("type")
    if not kind:
        diag.error(node, "transmission element is missing a type")
    if "SimpleTransmission" not in kind:
        diag.warning(node, f"transmission type '{kind}' is not SimpleTransmission; only "
                           "SimpleTransmission is supported, so it is ignored")
        return
    actuator = node.find("actuator")
    if actuator is None:
        diag.error(node, "transmission is missing an actuator element")
    _warn_mechanical_reduction(actuator, diag)
    actuator_name = read_string(actuator, "name", diag, required=True,
                                what="transmission is missing an actuator name")
    joint_node = node.find("joint")
    if joint_node is None:
        diag.error(node, "transmission is missing a joint element")
    joint_name = read_string(joint_node, "name", diag, required=True,
                             what="transmission is missing a joint name")
    joint = next((j for j in model.joints if j.name == joint_name), None)
    if joint is None:  # Drake refuses it; partial models (talos_left_arm) keep all of them
        diag.warning(joint_node, f"skipping transmission since it specifies joint "
                                 f"'{joint_name}' which does not exist")
        return
    if joint.kind == "weld":
        diag.warning(joint_node, f"skipping transmission since it's attached to a fixed joint "
                                 f"'{joint_name}'")
        return
    effort = efforts[joint_name]
    if effort < 0:
        diag.error(joint_node, f"transmission specifies joint '{joint_name}' which has a "
                               "negative effort limit")
    if effort == 0:
        diag.warning(joint_node, f"skipping transmission since joint '{joint_name}' has a zero "
                                 "effort limit")
        return
    a = ActuatorDescription(actuator_name, joint_name, diag.location(actuator), effort)
    for tag, attr in (("drake:rotor_inertia", "rotor_inertia"), ("drake:gear_ratio", "gear_ratio")):
        child = actuator.find(tag)
        if child is not None:
            setattr(a, attr, read_scalar(child, "value", diag, required=True))
    if a.rotor_inertia is not None and a.rotor_inertia < 0:
        diag.error(actuator.find("drake:rotor_inertia"), "the rotor inertia must be >= 0")
    if actuator.find("drake:controller_gains") is not None:
        diag.warning(actuator.find("drake:controller_gains"), "<drake:controller_gains> is not "
                     "supported by jaxbody yet and is ignored")
    model.actuators.append(a)


def _warn_mechanical_reduction(node, diag):
    child = node.find("mechanicalReduction")
    if child is None or not child.text.strip():
        return
    values = parse_numbers(child.text, diag, child, "<mechanicalReduction>")
    if values != [1.0]:
        diag.warning(child, f"a mechanicalReduction of '{child.text.strip()}' (other than 1) is "
                            "not supported and is ignored")


class _UrdfTags:
    """Drake's URDF spelling of the children of its force-element tags: a frame or body named
    by the ``name`` attribute, numbers by ``value``."""

    def __init__(self, diag):
        self.diag = diag

    def name(self, node, tag):
        child = node.find(tag)
        if child is None:
            self.diag.error(node, f"Unable to find the <{tag}> tag")
        return read_string(child, "name", self.diag, required=True, what=(
            f"Unable to read the 'name' attribute for the <{tag}> tag"))

    def numbers(self, node, tag, size):
        child = node.find(tag)
        if child is None:
            self.diag.error(node, f"Unable to find the <{tag}> tag")
        return read_vector(child, "value", size, self.diag, required=True)
