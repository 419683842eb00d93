"""Adds validated `ModelDescription`s to a `MultibodyPlant`, all or nothing.

`add_models` first checks what depends on the plant (the plant is not finalized; the model
instance names are free), then adds the model instances (in the given order), and then, model
by model in ``build_order``: bodies, frames marked ``before_joints``, joints with their frames,
actuators, springs, the other frames and geometry, in Drake's order, so element indices match
pydrake's. The whole addition runs in a `plant_transaction`: if anything still fails, every
element added so far is removed again and the plant is exactly as before.
"""

from __future__ import annotations

import contextlib

import numpy as np

from jaxbody.core.elements import FixedOffsetFrame
from jaxbody.forces import (
    GravityCompensation,
    LinearBushingRollPitchYaw,
    LinearSpringDamper,
    PrismaticSpring,
    RevoluteSpring,
)
from jaxbody.geometry import GeometrySet
from jaxbody.joints import (
    BallJoint,
    BallRpyJoint,
    PlanarJoint,
    PrismaticJoint,
    QuaternionFloatingJoint,
    RevoluteJoint,
    ScrewJoint,
    UniversalJoint,
    WeldJoint,
)
from jaxbody.math import RigidTransform, RotationMatrix, SpatialInertia, UnitInertia
from jaxbody.parsers.diagnostics import ParseError
from jaxbody.parsers.model_description import WORLD, WORLD_INSTANCE

# The plant's element lists, in the order they are appended to (all append-only before
# Finalize), so that truncating them undoes an addition.
_PLANT_LISTS = ("_instance_names", "_bodies", "_frames", "_joints", "_actuators", "_geometries",
                "_force_elements")


@contextlib.contextmanager
def plant_transaction(plant):
    """Undoes every element appended to ``plant`` inside the block if the block raises."""
    sizes = {name: len(getattr(plant, name)) for name in _PLANT_LISTS}
    try:
        yield
    except BaseException:
        for name, n in sizes.items():
            del getattr(plant, name)[n:]
        raise


def _transform(pose):
    R, p = pose
    return RigidTransform(RotationMatrix(np.asarray(R, float)), np.asarray(p, float))


def _make_joint(j, F, M):
    """The jaxbody joint object for description ``j`` between frames F and M."""
    damping = np.zeros(1) if j.damping is None else j.damping
    if j.kind == "revolute":
        joint = RevoluteJoint(j.name, F, M, j.axis, damping=float(damping[0]))
    elif j.kind == "prismatic":
        joint = PrismaticJoint(j.name, F, M, j.axis, damping=float(damping[0]))
    elif j.kind == "screw":
        joint = ScrewJoint(j.name, F, M, j.axis, j.pitch, float(damping[0]))
    elif j.kind == "weld":
        joint = WeldJoint(j.name, F, M, None if j.X_FM is None else _transform(j.X_FM))
    elif j.kind == "ball_rpy":
        joint = BallRpyJoint(j.name, F, M, float(damping[0]))
    elif j.kind == "universal":
        joint = UniversalJoint(j.name, F, M, float(damping[0]))
    elif j.kind == "planar":
        joint = PlanarJoint(j.name, F, M, damping)
    elif j.kind == "ball":
        joint = BallJoint(j.name, F, M, float(damping[0]))
    elif j.kind == "free":
        joint = QuaternionFloatingJoint(j.name, F, M, float(damping[0]), float(damping[-1]))
    else:  # pragma: no cover - descriptions only hold the kinds above
        raise ValueError(f"unknown joint kind '{j.kind}'")
    nq, nv = joint.num_positions(), joint.num_velocities()
    if j.pos_lower is not None:
        joint.set_position_limits(np.broadcast_to(j.pos_lower, nq), np.broadcast_to(j.pos_upper, nq))
    if j.vel_lower is not None:
        joint.set_velocity_limits(np.broadcast_to(j.vel_lower, nv), np.broadcast_to(j.vel_upper, nv))
    if j.acc_lower is not None:
        joint.set_acceleration_limits(np.broadcast_to(j.acc_lower, nv),
                                      np.broadcast_to(j.acc_upper, nv))
    if j.default_q is not None:
        joint.set_default_positions(j.default_q)
    return joint


def add_model(plant, model, instance_name):
    """Adds one ``model`` to ``plant`` as model instance ``instance_name``; returns its index.

    Raises:
        ParseError: as `add_models`.
    """
    return add_models(plant, [model], [instance_name])[0]


def add_models(plant, models, instance_names, build_order=None, diagnostics=None):
    """Adds ``models`` (validated together) to ``plant``; returns their `ModelInstanceIndex`es.

    Args:
        plant: the `MultibodyPlant`.
        models: `ModelDescription`s; model instances are created in this order.
        instance_names: the model instance name of each.
        build_order: the order in which the models' elements are added (default: in order);
            SDFormat adds nested models before their parents.
        diagnostics: the file's `Diagnostics`, for warnings about the plant (a ``<mimic>`` on
            a continuous plant); None: Python warnings.

    Raises:
        ParseError: the plant is finalized, an instance name is taken, or (unexpectedly) the
            plant rejects an element; the plant is then unchanged.
    """
    if plant.is_finalized():
        raise ParseError(models[0].loc, "the plant is finalized; models must be added before "
                                        "Finalize()")
    for model, name in zip(models, instance_names):
        if plant.HasModelInstanceNamed(name) or instance_names.count(name) > 1:
            raise ParseError(model.loc, f"this plant already contains a model instance named "
                                        f"'{name}'; model instance names must be unique (use "
                                        "Parser(plant, scope_name) or SetAutoRenaming(True))")
    order = range(len(models)) if build_order is None else build_order
    state = _BuildState(plant, diagnostics)
    try:
        with plant_transaction(plant):
            for model, name in zip(models, instance_names):
                state.instances[model.name] = plant.AddModelInstance(name)
            for i in order:
                state.add(models[i])
    except ParseError:
        raise
    except (ValueError, TypeError, RuntimeError) as e:
        raise ParseError((state.element or models[0]).loc, f"{type(e).__name__}: {e}") from e
    return [state.instances[m.name] for m in models]


class _BuildState:
    """The plant elements added so far, by key, and the element being added (for errors)."""

    def __init__(self, plant, diagnostics=None):
        self.plant = plant
        self.diagnostics = diagnostics
        self.instances = {WORLD_INSTANCE: plant.world_body().model_instance()}
        self.bodies = {WORLD: plant.world_body()}
        self.element = None

    def add(self, model):
        plant, bodies = self.plant, self.bodies
        mi = self.instances[model.name]
        for self.element in model.bodies:
            if not self.element.is_world:
                b = self.element
                M = SpatialInertia(b.mass, b.com, _unit_inertia(b.G), skip_validity_check=True)
                bodies[model.key(b.name)] = body = plant.AddRigidBody(b.name, mi, M)
                if b.X_WB is not None:
                    plant.SetDefaultFreeBodyPose(body, _transform(b.X_WB))
        self._add_frames(model, [f for f in model.frames if f.before_joints])
        joints = {}
        for self.element in [j for j in model.joints if not j.after_frames]:
            joints[self.element.name] = self._add_joint(self.element)
        for self.element in model.actuators:
            a = self.element
            actuator = plant.AddJointActuator(a.name, joints[a.joint], a.effort_limit)
            if a.rotor_inertia is not None:
                actuator.set_default_rotor_inertia(a.rotor_inertia)
            if a.gear_ratio is not None:
                actuator.set_default_gear_ratio(a.gear_ratio)
        for self.element in model.springs:
            s = self.element
            cls = RevoluteSpring if s.kind == "revolute" else PrismaticSpring
            plant.AddForceElement(cls(joints[s.joint], s.nominal, s.stiffness))
        self._add_frames(model, [f for f in model.frames if not f.before_joints])
        for self.element in [j for j in model.joints if j.after_frames]:
            joints[self.element.name] = self._add_joint(self.element)
        for self.element in model.couplers:
            self._add_coupler(self.element, joints)
        for self.element in model.body_constraints:
            self._add_body_constraint(model, self.element)
        for self.element in model.bushings:
            b = self.element
            frames = [plant.GetFrameByName(name, self.instances[inst])
                      for inst, name in (b.frameA, b.frameC)]
            plant.AddForceElement(LinearBushingRollPitchYaw(
                *frames, b.torque_stiffness, b.torque_damping, b.force_stiffness,
                b.force_damping))
        for self.element in model.spring_dampers:
            d = self.element
            plant.AddForceElement(LinearSpringDamper(
                bodies[d.body_A], d.p_AP, bodies[d.body_B], d.p_BQ, d.free_length, d.stiffness,
                d.damping))
        for self.element in model.gravity_compensation:
            g = self.element
            plant.AddForceElement(GravityCompensation(bodies[model.key(g.body)], g.factor))
        for self.element in model.geometries:
            g = self.element
            body, X_BG = bodies[g.body], _transform(g.X_BG)
            if g.role == "collision":
                plant.RegisterCollisionGeometry(body, X_BG, g.shape, g.name, g.properties)
            else:
                plant.RegisterVisualGeometry(body, X_BG, g.shape, g.name, g.properties)
        if model.gravity is not None:  # Drake's MJCF parser sets the plant's gravity
            plant.mutable_gravity_field().set_gravity_vector(model.gravity)
        if not model.gravity_enabled:
            plant.mutable_gravity_field().set_enabled(mi, False)
        for k, self.element in enumerate(model.collision_filters):
            f = self.element
            sets = [GeometrySet([bodies[model.key(b)] for b in names])
                    for names in (f.bodies_a, f.bodies_b)]
            plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(
                (f"{model.name}::filter{k}a", sets[0]), (f"{model.name}::filter{k}b", sets[1]))

    def _add_coupler(self, c, joints):
        """Drake's parser: a coupler constraint on a discrete plant, a warning otherwise."""
        if c.target not in joints:
            raise ParseError(c.loc, f"joint '{c.joint}' mimic element specifies joint "
                                    f"'{c.target}' which does not exist")
        if not self.plant.is_discrete():
            why = (f"joint '{c.joint}' mimics joint '{c.target}', but mimic elements are only "
                   "supported by a discrete MultibodyPlant (time_step > 0); it is ignored")
            if self.diagnostics is None:
                import warnings

                warnings.warn(f"{c.loc}: {why}", stacklevel=4)
            else:
                self.diagnostics.warning_at(c.loc, why)
            return
        self.plant.AddCouplerConstraint(joints[c.joint], joints[c.target], c.multiplier,
                                        c.offset)

    def _add_body_constraint(self, model, c):
        """A ball or weld constraint on a discrete plant (MJCF equality), a warning otherwise."""
        if c.drake_tag and not self.plant.is_discrete():
            raise ParseError(c.loc, f"<drake:ball_constraint> between bodies '{c.body_A}' and "
                                    f"'{c.body_B}': constraints need a discrete MultibodyPlant "
                                    "(time_step > 0); Drake's continuous plant refuses to "
                                    "compute its dynamics with one")
        if not self.plant.is_discrete():
            why = (f"<equality> {c.kind} constraints between bodies '{c.body_A}' and "
                   f"'{c.body_B}' need a discrete MultibodyPlant (time_step > 0); ignored")
            if self.diagnostics is None:
                import warnings

                warnings.warn(f"{c.loc}: {why}", stacklevel=4)
            else:
                self.diagnostics.warning_at(c.loc, why)
            return
        key = (lambda k: k) if c.drake_tag else model.key
        A = self.bodies[key(c.body_A)]
        B = self.plant.world_body() if c.body_B == "world" else self.bodies[key(c.body_B)]
        if c.kind == "ball":
            self.plant.AddBallConstraint(A, np.asarray(c.p_AP), B,
                                         None if c.p_BQ is None else np.asarray(c.p_BQ))
        elif c.X_AP is None:
            self.plant.AddWeldConstraint(A, RigidTransform(), B)
        else:
            self.plant.AddWeldConstraint(A, RigidTransform(c.X_AP), B, RigidTransform())

    def _add_joint(self, j):
        plant = self.plant
        if j.frames is not None:
            F, M = (plant.GetFrameByName(name, self.instances[inst]) for inst, name in j.frames)
            return plant.AddJoint(_make_joint(j, F, M))
        child = self.bodies[j.child]
        F = self.bodies[j.parent].body_frame()
        if j.X_PF is not None:
            F = plant.AddFrame(FixedOffsetFrame(f"{j.name}_parent", F, _transform(j.X_PF),
                                                   model_instance=child.model_instance()))
        M = child.body_frame() if j.X_BM is None else plant.AddFrame(FixedOffsetFrame(
            f"{j.name}_child", child.body_frame(), _transform(j.X_BM)))
        return plant.AddJoint(_make_joint(j, F, M))

    def _add_frames(self, model, frames):
        for self.element in frames:
            f = self.element
            mi = self.instances[model.name if f.instance is None else f.instance]
            self.plant.AddFrame(FixedOffsetFrame(f.name, self.bodies[f.body].body_frame(),
                                                    _transform(f.X_BF), model_instance=mi))


def _unit_inertia(G):
    return UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2])
