"""Small models for the identification tests: a spatial 3-link arm and a pendulum."""

from __future__ import annotations

import numpy as np

import jaxbody as jb
from jaxbody import identification as ident

TOOL_MASS = 0.3  # kg, a known tool welded to the last link (not identified)


def three_link_arm(damping=0.0, tool=False):
    """Three boxes on revolute joints about z, y, x with offsets: (plant, [link indices])."""
    plant = jb.MultibodyPlant(0.0)
    specs = [(1.5, (0.08, 0.1, 0.3), (0.02, 0.0, 0.12)), (1.0, (0.06, 0.25, 0.06), (0.0, 0.1, 0.01)),
             (0.6, (0.2, 0.05, 0.05), (0.08, -0.01, 0.02))]
    links = []
    for i, (m, dims, com) in enumerate(specs):
        M = jb.SpatialInertia.SolidBoxWithMass(m, *dims).Shift(-np.asarray(com))  # COM at ``com``
        links.append(plant.AddRigidBody(f"link{i + 1}", M))
    parent = plant.world_frame()
    offsets = [(0.0, 0.0, 0.1), (0.05, 0.0, 0.25), (0.0, 0.22, 0.03)]
    for i, (body, axis, p) in enumerate(zip(links, ([0, 0, 1], [0, 1, 0], [1, 0, 0]), offsets)):
        F = plant.AddFrame(jb.FixedOffsetFrame(f"F{i + 1}", parent, jb.RigidTransform(
            jb.RollPitchYaw([0.1 * i, -0.2, 0.3]), list(p))))
        plant.AddJoint(jb.RevoluteJoint(f"j{i + 1}", F, body.body_frame(), axis, damping=damping))
        parent = body.body_frame()
    if tool:
        t = plant.AddRigidBody("tool", jb.SpatialInertia.PointMass(TOOL_MASS, np.array([0.1, 0.0, 0.0])))
        plant.WeldFrames(links[-1].body_frame(), t.body_frame(),
                         jb.RigidTransform(p=[0.2, 0.0, 0.0]))
    plant.Finalize()
    return plant, [b.index() for b in links]


def pendulum_about_y():
    """One box on a revolute joint about y through its origin, COM off the axis."""
    plant = jb.MultibodyPlant(0.0)
    M = jb.SpatialInertia.SolidBoxWithMass(2.0, 0.1, 0.2, 0.3).Shift(-np.array([0.1, 0.05, -0.4]))
    b = plant.AddRigidBody("link", M)
    plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), b.body_frame(), [0, 1, 0]))
    plant.Finalize()
    return plant, [b.index()]


def fourier_samples(nv, num, seed=0, harmonics=3, period=4.0, amplitude=0.8):
    """(q, v, vdot), each (num, nv): a random finite Fourier series and its derivatives."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, period, num, endpoint=False)
    w = 2 * np.pi / period * np.arange(1, harmonics + 1)
    a, b = amplitude * rng.uniform(-1, 1, (2, nv, harmonics)) / np.arange(1, harmonics + 1)
    S, C = np.sin(np.outer(t, w)), np.cos(np.outer(t, w))
    return (S @ a.T + C @ b.T, (C * w) @ a.T - (S * w) @ b.T, -(S * w**2) @ a.T - (C * w**2) @ b.T)


def random_inertial_parameters(rng, k):
    """π (k, 10): random physically consistent bodies (log-Cholesky of random θ)."""
    theta = rng.normal(0.0, 0.5, (k, 10))
    theta[:, 1:4] -= 2.0  # radii of gyration ~ e^-2 m
    theta[:, 7:] *= 0.3  # COM within ~0.15 m
    return np.asarray(ident.inertial_parameters_from_log_cholesky(theta))
