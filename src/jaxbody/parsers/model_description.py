"""The format-independent description of one model that a parser produces before touching the
plant, and the structural checks run on it.

A parser (URDF, SDFormat, MJCF) reads a file into one `ModelDescription` per model instance:
plain NumPy data and names, each element with its `SourceLocation`. `validate_structure` then
checks everything that does not depend on the plant (unique names, joint graph is a forest below
the world, references resolve), and `jaxbody.parsers.builder.add_models` adds the result to the
plant in one step. Nothing reaches the plant until the whole description is valid.

Names and references: a body of model ``m`` is known file-wide by its *key*
``m.scope + body.name`` (``scope`` is ``""`` for single-model formats such as URDF, and
``"outer::inner::"`` for a nested SDFormat model), and joints, frames and geometry refer to
bodies by key, or to the world by `WORLD`. A joint, its frames and its actuator belong to the
model instance of its child body (as in Drake); a frame belongs to its own model unless
``instance`` names another model of the file.

Poses are ``(R, p)`` NumPy pairs: ``R: (3, 3)`` rotation, ``p: (3,)`` position (m).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxbody.parsers.diagnostics import ParseError, SourceLocation

WORLD = "world"  # the link name that refers to the plant's world body (URDF)
WORLD_INSTANCE = ""  # the model name that refers to the plant's world model instance
IDENTITY = (np.eye(3), np.zeros(3))

# Joint kinds a description may hold: (nq, nv) of each.
JOINT_SIZES = {"revolute": (1, 1), "prismatic": (1, 1), "screw": (1, 1), "weld": (0, 0),
               "universal": (2, 2), "planar": (3, 3), "ball_rpy": (3, 3), "ball": (4, 3),
               "free": (7, 6)}


@dataclasses.dataclass
class BodyDescription:
    """A rigid body: mass (kg), ``com`` = p_BoBcm_B (m) and ``G`` = G_BBo_B (m²); or, with
    ``is_world``, the plant's world body (only geometry may be attached). ``X_WB`` (R, p), if
    given, is the pose the body starts at should it be left floating (Drake's parser records
    each SDFormat link's pose with ``SetDefaultFreeBodyPose``)."""

    name: str
    loc: SourceLocation
    mass: float = 0.0
    com: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(3))
    G: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((3, 3)))
    is_world: bool = False
    X_WB: tuple | None = None


@dataclasses.dataclass
class JointDescription:
    """A joint of ``kind`` (a key of `JOINT_SIZES`) between bodies ``parent`` and ``child``.

    Frame F is fixed in the parent at ``X_PF`` and named ``<name>_parent`` (or, if ``X_PF`` is
    None, is the parent's body frame); frame M is the child's body frame, or (if ``X_BM`` is
    given) a frame fixed in the child at ``X_BM`` named ``<name>_child``, as Drake's
    ``AddJoint`` names them. With ``frames = ((instance, F name), (instance, M name))`` the
    joint instead connects two frames added earlier (SDFormat's ``<drake:joint>``). ``X_FM`` is
    a weld's fixed pose (identity if None); a ``"ball"`` joint is jaxbody's quaternion
    `BallJoint`, a ``"free"`` joint a `QuaternionFloatingJoint` (default positions
    ``default_q``). A joint with ``after_frames`` is added after the model's frames.
    """

    name: str
    kind: str
    parent: str
    child: str
    loc: SourceLocation
    X_PF: tuple | None = IDENTITY
    X_BM: tuple | None = None
    X_FM: tuple | None = None
    default_q: np.ndarray | None = None
    frames: tuple | None = None
    after_frames: bool = False
    axis: np.ndarray | None = None
    pitch: float | None = None
    damping: np.ndarray | None = None  # (nv,); zeros if None
    pos_lower: np.ndarray | None = None  # (nq,); -inf if None
    pos_upper: np.ndarray | None = None
    vel_lower: np.ndarray | None = None  # (nv,)
    vel_upper: np.ndarray | None = None
    acc_lower: np.ndarray | None = None
    acc_upper: np.ndarray | None = None

    def frame_names(self):
        if self.frames is not None:
            return []
        return ([f"{self.name}_parent"] if self.X_PF is not None else []) + (
            [f"{self.name}_child"] if self.X_BM is not None else [])


@dataclasses.dataclass
class FrameDescription:
    """A frame named ``name`` fixed to body ``body`` (a key) at ``X_BF``, in the model instance
    of the model named ``instance`` (None: the model holding the description). A frame with
    ``before_joints`` is added before the model's joints (SDFormat's ``__model__`` frame)."""

    name: str
    body: str
    loc: SourceLocation
    X_BF: tuple = IDENTITY
    instance: str | None = None
    before_joints: bool = False


@dataclasses.dataclass
class SpringDescription:
    """A `RevoluteSpring` (``kind="revolute"``) or `PrismaticSpring` on joint ``joint`` of the
    same description: nominal position and stiffness >= 0."""

    kind: str
    joint: str
    nominal: float
    stiffness: float
    loc: SourceLocation


@dataclasses.dataclass
class CouplerDescription:
    """A coupler constraint q_joint = multiplier · q_target + offset between two single-dof
    joints of the same description (URDF ``<mimic>``)."""

    joint: str
    target: str
    multiplier: float
    offset: float
    loc: SourceLocation


@dataclasses.dataclass
class BodyConstraintDescription:
    """A ball (``kind`` "ball": point ``p_AP`` of ``body_A`` on body B, Q where P is in the
    default configuration) or weld ("weld": frame ``X_AP`` of A on B's frame, or, when
    ``X_AP`` is None, B held at its default pose relative to A) constraint between two bodies
    of the description (MJCF ``<equality><connect>`` / ``<weld>``); ``body_B`` may be the
    world."""

    kind: str
    body_A: str
    body_B: str
    p_AP: tuple
    X_AP: np.ndarray | None
    loc: SourceLocation
    p_BQ: tuple | None = None  # ball: Q in B given explicitly (Drake's <drake:ball_constraint>)
    drake_tag: bool = False  # from <drake:ball_constraint>: an error on a continuous plant


@dataclasses.dataclass
class BushingDescription:
    """Drake's ``<drake:linear_bushing_rpy>``: a `LinearBushingRollPitchYaw` between plant
    frames A and C, each ``(instance, frame name)`` as `JointDescription.frames`, with its
    (3,) torque stiffness, torque damping, force stiffness and force damping."""

    frameA: tuple
    frameC: tuple
    torque_stiffness: np.ndarray
    torque_damping: np.ndarray
    force_stiffness: np.ndarray
    force_damping: np.ndarray
    loc: SourceLocation


@dataclasses.dataclass
class LinearSpringDamperDescription:
    """Drake's ``<drake:linear_spring_damper>``: a `LinearSpringDamper` between point P of body
    ``body_A`` and Q of ``body_B`` (body keys, as joints' ``parent``/``child``)."""

    body_A: str
    p_AP: np.ndarray
    body_B: str
    p_BQ: np.ndarray
    free_length: float
    stiffness: float
    damping: float
    loc: SourceLocation


@dataclasses.dataclass
class GravityCompensationDescription:
    """A `GravityCompensation` force (MJCF body ``gravcomp``) on body ``body``."""

    body: str
    factor: float
    loc: SourceLocation


@dataclasses.dataclass
class CollisionFilterDescription:
    """No collisions between the geometries of bodies ``bodies_a`` and those of ``bodies_b``
    (body names of this model), e.g. MuJoCo's parent-child filter."""

    bodies_a: tuple
    bodies_b: tuple
    loc: SourceLocation


@dataclasses.dataclass
class ActuatorDescription:
    """A joint actuator on single-dof joint ``joint``."""

    name: str
    joint: str
    loc: SourceLocation
    effort_limit: float = np.inf
    rotor_inertia: float | None = None
    gear_ratio: float | None = None


@dataclasses.dataclass
class GeometryDescription:
    """Collision (``role="collision"``) or visual geometry on body ``body`` at ``X_BG``.

    ``name`` is unscoped; ``properties`` is a `ProximityProperties` (collision) or an
    `IllustrationProperties` (visual).
    """

    body: str
    role: str
    name: str
    shape: object
    properties: object
    loc: SourceLocation
    X_BG: tuple = IDENTITY


@dataclasses.dataclass
class ModelDescription:
    """One model: ``name`` (unscoped) and its elements in the order Drake adds them."""

    name: str
    loc: SourceLocation
    bodies: list = dataclasses.field(default_factory=list)
    joints: list = dataclasses.field(default_factory=list)
    actuators: list = dataclasses.field(default_factory=list)
    frames: list = dataclasses.field(default_factory=list)
    geometries: list = dataclasses.field(default_factory=list)
    springs: list = dataclasses.field(default_factory=list)
    couplers: list = dataclasses.field(default_factory=list)
    body_constraints: list = dataclasses.field(default_factory=list)
    bushings: list = dataclasses.field(default_factory=list)
    spring_dampers: list = dataclasses.field(default_factory=list)
    gravity_compensation: list = dataclasses.field(default_factory=list)
    collision_filters: list = dataclasses.field(default_factory=list)
    gravity: np.ndarray | None = None  # (3,): set as the plant's gravity vector (MJCF <option>)
    gravity_enabled: bool = True  # False: gravity disabled on the model instance
    scope: str = ""

    def body_names(self):
        return {b.name for b in self.bodies if not b.is_world}

    def key(self, body_name):
        """The file-wide key of this model's body ``body_name``."""
        return WORLD if body_name == WORLD else self.scope + body_name


def validate_structure(models) -> None:
    """Raises `ParseError` (at the offending element) unless names are unique per kind and
    model instance, every reference resolves and the joints form a forest whose roots hang
    from the world.

    Args:
        models: a `ModelDescription`, or the list of those read from one file.
    """
    models = [models] if isinstance(models, ModelDescription) else list(models)
    owner = {WORLD: None}  # body key -> the model (instance) holding the body
    for model in models:
        seen = {}
        for b in model.bodies:
            key = WORLD if b.is_world else model.key(b.name)
            if b.name in seen or (key in owner and key != WORLD):
                raise ParseError(b.loc, f"model '{model.name}' already has a link named "
                                        f"'{b.name}' (link names must be unique within a model)")
            seen[b.name] = b
            if not b.is_world:
                owner[key] = model.name
    frames = {m.name: {b.name: b.loc for b in m.bodies if not b.is_world} for m in models}
    frames[WORLD_INSTANCE] = {}
    _check_joints(models, owner, frames)
    for model in models:
        for f in model.frames:
            if f.body not in owner:
                raise ParseError(f.loc, f"frame '{f.name}' refers to unknown link '{f.body}'")
            instance = model.name if f.instance is None else f.instance
            if instance not in frames:
                raise ParseError(f.loc, f"frame '{f.name}' refers to unknown model '{instance}'")
            _add_unique(frames[instance], f.name, f.loc, instance, "frame")
        _check_actuators(model)
        names = {}
        for g in model.geometries:
            if g.body not in owner:
                raise ParseError(g.loc, f"geometry '{g.name}' refers to unknown link '{g.body}'")
            key = (g.body, g.role, g.name)
            if key in names:
                raise ParseError(g.loc, f"link '{g.body}' already has {g.role} geometry named "
                                        f"'{g.name}' (line {names[key].line})")
            names[key] = g.loc


def _check_actuators(model):
    joints = {j.name: j for j in model.joints}
    actuated = {}
    for a in model.actuators:
        j = joints.get(a.joint)
        if j is None:
            raise ParseError(a.loc, f"actuator '{a.name}' refers to unknown joint '{a.joint}'")
        if JOINT_SIZES[j.kind][1] != 1:
            raise ParseError(a.loc, f"actuator '{a.name}': joint '{a.joint}' ({j.kind}) has "
                                    f"{JOINT_SIZES[j.kind][1]} degrees of freedom; an actuator "
                                    "needs a joint with exactly one")
        if a.joint in actuated:
            raise ParseError(a.loc, f"joint '{a.joint}' already has actuator "
                                    f"'{actuated[a.joint]}'")
        if a.name in actuated.values():
            raise ParseError(a.loc, f"model '{model.name}' already has an actuator named "
                                    f"'{a.name}'")
        actuated[a.joint] = a.name
    for s in model.springs:
        j = joints.get(s.joint)
        if j is None or j.kind != s.kind:
            raise ParseError(s.loc, f"a {s.kind} spring needs a {s.kind} joint; '{s.joint}' is "
                                    f"{'unknown' if j is None else j.kind}")


def _add_unique(frames, name, loc, model_name, what):
    if name in frames:
        raise ParseError(loc, f"model '{model_name}' already has a frame named '{name}' (frame, "
                              f"link and joint-frame names share one namespace; first at line "
                              f"{frames[name].line}); cannot add {what} '{name}'")
    frames[name] = loc


def _check_joints(models, owner, frames):
    joint_names, inboard = {}, {}
    for model in models:
        for j in model.joints:
            for role, link in (("parent", j.parent), ("child", j.child)):
                if link not in owner:
                    raise ParseError(j.loc, f"joint '{j.name}': {role} link '{link}' is not a "
                                            f"link of model '{model.name}'")
            if j.child == WORLD:
                raise ParseError(j.loc, f"joint '{j.name}' has the world as its child link")
            if j.child == j.parent:
                raise ParseError(j.loc, f"joint '{j.name}' joins link '{j.child}' to itself")
            instance = owner[j.child]  # a joint belongs to its child's model instance
            seen = joint_names.setdefault(instance, {})
            if j.name in seen:
                raise ParseError(j.loc, f"model '{instance}' already has a joint named "
                                        f"'{j.name}' (line {seen[j.name].line})")
            seen[j.name] = j.loc
            if j.child in inboard:
                raise ParseError(j.loc, f"link '{j.child}' is the child of joints "
                                        f"'{inboard[j.child].name}' and '{j.name}': this closes "
                                        "a kinematic loop, which a tree cannot hold")
            inboard[j.child] = j
            for name in j.frame_names():
                _add_unique(frames[instance], name, j.loc, instance,
                            f"the frame of joint '{j.name}'")
    for j in inboard.values():  # every chain of parents must end at the world or a free root
        link, path = j.child, [j.child]
        while link in inboard:
            link = inboard[link].parent
            if link in path:
                raise ParseError(j.loc, "the joints close a kinematic loop through links "
                                        + " -> ".join(path + [link]))
            path.append(link)
