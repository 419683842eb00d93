"""The scenes ``jaxbody simulate`` and ``jaxbody info`` build in code when no model file is given.

- ``boxes`` (the default): a tower of three boxes dropped onto a ground half-space, a ball
  rolled into its base, a ball dropped onto its top, a tumbling box and a small ball thrown
  across: box-box, box-sphere, sphere-sphere and ground contacts within the first second.
  Its boxes meet by multi-point manifolds (``ContactQueryOptions(single_point=False)``), so the
  tower settles on its faces instead of rocking on single corners as with Drake's one point.
- ``pendulum``: a double pendulum swinging about y (no collision geometry).

Each builder returns a `Model`: the finalized plant, its initial `Context`, a name for the
summary and the geometry role to draw.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import jaxbody as jb
from jaxbody.geometry.collision import ContactQueryOptions

GROUND_RGBA = (0.78, 0.80, 0.78, 1.0)
FRICTION = (0.8, 0.6)  # static, dynamic


class Model(NamedTuple):
    """What ``jaxbody simulate`` runs: a finalized plant and its initial context."""

    plant: object
    context: object
    name: str
    camera: tuple | None = None  # (position, target) in World (m) for --html; None: automatic
    notes: list = []  # what loading changed, for the summary (joints clamped, base welded, ...)


def add_ground(plant, z=0.0, visual=True):
    """A ground half-space (collision and, with ``visual``, drawn) whose surface is z = ``z``."""
    X_WG = jb.RigidTransform(p=[0.0, 0.0, z])
    if visual:
        plant.RegisterVisualGeometry(plant.world_body(), X_WG, jb.HalfSpace(), "ground", GROUND_RGBA)
    plant.RegisterCollisionGeometry(plant.world_body(), X_WG, jb.HalfSpace(), "ground",
                                    jb.CoulombFriction(*FRICTION))


# (name, shape ("box", lx, ly, lz) or ("sphere", r), mass kg, p_WB m, rpy rad, V_WB [w; v], rgba)
_BODIES = (
    ("tower1", ("box", 0.30, 0.30, 0.15), 2.0, (0.0, 0.0, 0.085), (0, 0, 0), None,
     (0.85, 0.35, 0.15, 1)),
    ("tower2", ("box", 0.22, 0.22, 0.12), 1.0, (0.02, 0.01, 0.24), (0, 0, 0.3), None,
     (0.95, 0.70, 0.20, 1)),
    ("tower3", ("box", 0.15, 0.15, 0.10), 0.6, (-0.01, 0.02, 0.38), (0, 0, -0.25), None,
     (0.30, 0.55, 0.85, 1)),
    ("roller", ("sphere", 0.08), 3.0, (0.7, 0.04, 0.081), (0, 0, 0), (0, -25, 0, -2.0, 0, 0),
     (0.20, 0.70, 0.35, 1)),
    ("dropper", ("sphere", 0.05), 0.4, (0.03, -0.02, 0.9), (0, 0, 0), None,
     (0.60, 0.30, 0.75, 1)),
    ("tumbler", ("box", 0.20, 0.10, 0.06), 0.8, (-0.35, -0.35, 0.45), (0.6, 0.4, 0.2),
     (4, -3, 2, 0.4, 0.5, 0), (0.85, 0.20, 0.30, 1)),
    ("pebble", ("sphere", 0.04), 0.3, (-0.5, 0.4, 0.3), (0, 0, 0), (0, 0, 0, 1.5, -1.2, 1.0),
     (0.95, 0.90, 0.30, 1)),
)


def boxes(time_step=1e-3) -> Model:
    """The default contact scene (see the module docstring)."""
    plant = jb.MultibodyPlant(time_step)
    plant.set_contact_query_options(ContactQueryOptions(single_point=False))
    for name, shape, mass, p, rpy, _, rgba in _BODIES:
        if shape[0] == "box":
            geometry = jb.Box(*shape[1:])
            M = jb.SpatialInertia.SolidBoxWithMass(mass, *shape[1:])
        else:
            geometry = jb.Sphere(shape[1])
            M = jb.SpatialInertia.SolidSphereWithMass(mass, shape[1])
        body = plant.AddRigidBody(name, M)
        plant.RegisterVisualGeometry(body, jb.RigidTransform(), geometry, name, rgba)
        plant.RegisterCollisionGeometry(body, jb.RigidTransform(), geometry, name,
                                        jb.CoulombFriction(*FRICTION))
        plant.SetDefaultFreeBodyPose(body, jb.RigidTransform(jb.RollPitchYaw(list(rpy)), list(p)))
    add_ground(plant)  # last: a ground contact's body A is the body, so forces act on the bodies
    plant.Finalize()
    context = plant.CreateDefaultContext()
    for name, _, _, _, _, V, _ in _BODIES:
        if V is not None:
            context = plant.SetFreeBodySpatialVelocity(context, plant.GetBodyByName(name),
                                                       jb.SpatialVelocity(np.array(V[:3], float),
                                                                          np.array(V[3:], float)))
    return Model(plant, context, "boxes (built-in contact scene)", ([1.0, -0.85, 0.6], [0, 0, 0.12]))


def pendulum(time_step=1e-3) -> Model:
    """A double pendulum swinging about y from a 1.2 m high pivot (point masses at the link
    tips; capsule links and sphere bobs drawn), started at q = (2.0, -0.8) rad."""
    plant = jb.MultibodyPlant(time_step)
    W = plant.world_frame()
    lengths, masses, colors = (0.5, 0.4), (1.0, 0.6), ([0.2, 0.45, 0.85, 1], [0.9, 0.45, 0.1, 1])
    plant.RegisterVisualGeometry(plant.world_body(), jb.RigidTransform(p=[0, 0, 1.2]),
                                 jb.Box(0.08, 0.3, 0.05), "pivot", [0.3, 0.3, 0.3, 1])
    parent = plant.AddFrame(jb.FixedOffsetFrame("pivot", W, jb.RigidTransform(p=[0, 0, 1.2])))
    for i, (L, m, rgba) in enumerate(zip(lengths, masses, colors)):
        link = plant.AddRigidBody(f"link{i + 1}", jb.SpatialInertia.PointMass(m, np.array([0, 0, -L])))
        plant.RegisterVisualGeometry(link, jb.RigidTransform(p=[0, 0, -L / 2]),
                                     jb.Capsule(0.02, L), "rod", rgba)
        plant.RegisterVisualGeometry(link, jb.RigidTransform(p=[0, 0, -L]),
                                     jb.Sphere(0.05 + 0.02 * m), "bob", rgba)
        plant.AddJoint(jb.RevoluteJoint(f"joint{i + 1}", parent, link.body_frame(), [0, 1, 0]))
        parent = plant.AddFrame(jb.FixedOffsetFrame(f"link{i + 1}_tip", link.body_frame(),
                                                    jb.RigidTransform(p=[0, 0, -L])))
    plant.Finalize()
    plant.SetDefaultPositions(np.array([2.0, -0.8]))
    return Model(plant, plant.CreateDefaultContext(), "pendulum (built-in double pendulum)",
                 ([2.2, -2.2, 1.4], [0, 0, 0.8]))


SCENES = {"boxes": boxes, "pendulum": pendulum}
