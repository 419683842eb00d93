"""Drake's force-element and constraint tags of URDF and SDFormat models, as Drake's parsers
read them (detail_urdf_parser.cc, detail_sdf_parser.cc):

    <drake:linear_bushing_rpy>     a `LinearBushingRollPitchYaw` between frames A and C:
        <drake:bushing_frameA>, <drake:bushing_frameC>, <drake:bushing_torque_stiffness>,
        <drake:bushing_torque_damping>, <drake:bushing_force_stiffness>,
        <drake:bushing_force_damping> (3 numbers each)
    <drake:linear_spring_damper>   a `LinearSpringDamper` between P on body A and Q on body B:
        <drake:linear_spring_damper_body_A>, ..._body_B, ..._p_AP, ..._p_BQ (3 numbers),
        ..._free_length, ..._stiffness, ..._damping (1 number)
    <drake:ball_constraint>        `AddBallConstraint(A, p_AP, B, p_BQ)`:
        <drake:ball_constraint_body_A>, ..._body_B, ..._p_AP, ..._p_BQ

Every child is required. URDF names a frame or body by the child's ``name`` attribute and gives
numbers by ``value``; SDFormat writes both as the child's text. The format readers pass a
``tags`` adapter with ``name(node, tag)`` and ``numbers(node, tag, size)`` and resolvers from
names to plant frames ``(instance, name)`` and body keys; errors name the element and line.

The ball constraint needs a discrete plant, as jaxbody's `AddBallConstraint`: on a continuous
plant the builder raises (pydrake's parser adds it there, and its continuous plant then refuses
to compute time derivatives).
"""

from __future__ import annotations

import numpy as np

from jaxbody.parsers.model_description import (
    WORLD,
    WORLD_INSTANCE,
    BodyConstraintDescription,
    BushingDescription,
    LinearSpringDamperDescription,
)
from jaxbody.parsers.sdf_frames import MODEL_FRAME, SCOPE
from jaxbody.parsers.sdf_values import child_text, read_numbers

_BUSHING_GAINS = ("torque_stiffness", "torque_damping", "force_stiffness", "force_damping")


def read_drake_force_elements(root, model, diag, tags, frame=None, body=None):
    """Appends the bushings, spring-dampers and ball constraints under ``root`` to ``model``.

    Args:
        root: the ``<robot>`` or ``<model>`` element.
        model: the `ModelDescription` being read.
        tags: the format's adapter (see the module docstring).
        frame: ``(node, tag, name) -> (instance, frame name)``; default: a link or ``<frame>``
            of ``model`` (URDF).
        body: ``(node, tag, name) -> body key``; default: a link of ``model`` (URDF).
    """
    frame = frame or _urdf_frame(model, diag)
    body = body or _urdf_body(model, diag)
    for node in root.findall("drake:linear_bushing_rpy"):
        frames = [frame(node, t, tags.name(node, t))
                  for t in ("drake:bushing_frameA", "drake:bushing_frameC")]
        gains = [_nonnegative(node, f"drake:bushing_{g}", tags.numbers(
            node, f"drake:bushing_{g}", 3), diag) for g in _BUSHING_GAINS]
        model.bushings.append(BushingDescription(*frames, *gains, diag.location(node)))
    for node in root.findall("drake:ball_constraint"):
        t = "drake:ball_constraint_"
        A, B = (body(node, t + r, tags.name(node, t + r)) for r in ("body_A", "body_B"))
        p_AP, p_BQ = (tags.numbers(node, t + r, 3) for r in ("p_AP", "p_BQ"))
        model.body_constraints.append(BodyConstraintDescription(
            "ball", A, B, tuple(p_AP), None, diag.location(node), p_BQ=tuple(p_BQ),
            drake_tag=True))
    for node in root.findall("drake:linear_spring_damper"):
        t = "drake:linear_spring_damper_"
        A, B = (body(node, t + r, tags.name(node, t + r)) for r in ("body_A", "body_B"))
        p_AP, p_BQ = (tags.numbers(node, t + r, 3) for r in ("p_AP", "p_BQ"))
        length, k, c = (float(tags.numbers(node, t + r, 1)[0])
                        for r in ("free_length", "stiffness", "damping"))
        if length <= 0:
            diag.error(node, f"<{t}free_length> must be positive, got {length}")
        _nonnegative(node, f"{t}stiffness", np.array([k]), diag)
        _nonnegative(node, f"{t}damping", np.array([c]), diag)
        model.spring_dampers.append(LinearSpringDamperDescription(
            A, p_AP, B, p_BQ, length, k, c, diag.location(node)))


def _nonnegative(node, tag, values, diag):
    if np.any(values < 0):
        diag.error(node, f"<{tag}> must be nonnegative, got {' '.join(map(str, values))}")
    return values


def _urdf_frame(model, diag):
    names = {b.name for b in model.bodies} | {f.name for f in model.frames}

    def frame(node, tag, name):
        if name not in names:
            diag.error(node, f"Frame: {name} specified for <{tag}> does not exist in the model.")
        return (WORLD_INSTANCE, name) if name == WORLD else (model.name, name)

    return frame


def _urdf_body(model, diag):
    names = {b.name for b in model.bodies}

    def body(node, tag, name):
        if name not in names:
            diag.error(node, f"Body: {name} specified for <{tag}> does not exist in the model.")
        return model.key(name)

    return body


def read_sdf_drake_elements(reader, record):
    """The tags of SDFormat model ``record`` (an `sdf.ModelRecord` of `sdf._Reader`): names
    are child text, resolved in the model's scope as ``<drake:joint>``'s frames are."""
    diag, graph = record.ws.diag, reader.graph

    class Tags:
        @staticmethod
        def name(node, tag):
            text = child_text(node, tag)
            if not text:
                diag.error(node, f"Unable to find the <{tag}> child tag.")
            return text

        @staticmethod
        def numbers(node, tag, size):
            return read_numbers(node, tag, size, diag, required=True)

    def resolve(node, tag, text, kinds, what):
        instance, _, local = (record.key + SCOPE + text).rpartition(SCOPE)
        key = graph.resolve(instance, local, node, diag, f"<{tag}>")
        if graph.nodes[key].kind not in kinds:
            diag.error(node, f"{what}: {text} specified for <{tag}> does not exist in the "
                             "model.")
        return key, local

    def frame(node, tag, text):
        key, local = resolve(node, tag, text, ("link", "frame", "model"), "Frame")
        return (reader.instance_of(key) if local != MODEL_FRAME else key, local)

    def body(node, tag, text):
        return resolve(node, tag, text, ("link",), "Body")[0]

    read_drake_force_elements(record.node, record.desc, diag, Tags, frame, body)
