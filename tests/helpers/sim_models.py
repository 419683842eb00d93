"""Simulation test models, built identically in jaxbody and pydrake.

- `acrobot`: Drake's Acrobot parameters (``examples/acrobot``: m = 1, l1 = 1, lc = 0.5 / 1,
  Ic = 0.083 / 0.33, damping 0.1) as two revolute links about y, actuated at the elbow.
- `bushing_body`: a free box tied to the world by a damped `LinearBushingRollPitchYaw`.
- `arm7`: the benchmark 7-dof arm (`benchmarks.models.arm7`) with an actuator on every joint.
"""

from __future__ import annotations

import numpy as np

from tests.helpers.force_models import _inertia, _modules

# Critically damped at ω = 10 rad/s for the effective inertias 1/(M⁻¹)_ii at q = 0:
# Kp = m ω², Kd = 2 m ω, so that the closed loop's fastest rate (≈ 50/s) keeps RK4 at
# dt = 1 ms far inside its stability region (the arm's M is badly conditioned).
_ARM_M_EFF = np.array([0.004956, 0.4275, 0.002472, 0.04916, 0.002194, 0.01828, 0.000774])
ARM_KP = _ARM_M_EFF * 100.0
ARM_KD = _ARM_M_EFF * 20.0
ARM_Q_DESIRED = np.array([0.5, -0.4, 0.3, 0.8, -0.2, 0.6, 0.1])


def acrobot(engine):
    tree, math, plant_mod = _modules(engine)
    plant = plant_mod.MultibodyPlant(0.0)
    l1, lc1, lc2, Ic1, Ic2 = 1.0, 0.5, 1.0, 0.083, 0.33
    M1 = tree.SpatialInertia.MakeFromCentralInertia(1.0, np.array([0, 0, -lc1]),
                                                    tree.RotationalInertia(Ic1, Ic1, Ic1))
    M2 = tree.SpatialInertia.MakeFromCentralInertia(1.0, np.array([0, 0, -lc2]),
                                                    tree.RotationalInertia(Ic2, Ic2, Ic2))
    link1, link2 = plant.AddRigidBody("link1", M1), plant.AddRigidBody("link2", M2)
    plant.AddJoint(tree.RevoluteJoint("shoulder", plant.world_frame(), link1.body_frame(),
                                      [0, 1, 0], 0.1))
    F = plant.AddFrame(tree.FixedOffsetFrame("elbow_frame", link1.body_frame(),
                                             math.RigidTransform([0, 0, -l1])))
    elbow = plant.AddJoint(tree.RevoluteJoint("elbow", F, link2.body_frame(), [0, 1, 0], 0.1))
    plant.AddJointActuator("elbow", elbow)
    plant.Finalize()
    return plant


def bushing_body(engine):
    tree, math, plant_mod = _modules(engine)
    plant = plant_mod.MultibodyPlant(0.0)
    body = plant.AddRigidBody("box", _inertia(tree, 2.0, [0.05, 0.0, -0.02], 0.4, 0.3, 0.2))
    W = plant.AddFrame(tree.FixedOffsetFrame("anchor", plant.world_frame(), math.RigidTransform(
        math.RollPitchYaw([0.1, 0.0, 0.3]), [0.0, 0.0, 1.0])))
    C = plant.AddFrame(tree.FixedOffsetFrame("attach", body.body_frame(), math.RigidTransform(
        [0.0, 0.0, 0.15])))
    plant.AddForceElement(tree.LinearBushingRollPitchYaw(
        W, C, [40.0, 50.0, 60.0], [0.5, 0.6, 0.7], [500.0, 600.0, 700.0], [5.0, 6.0, 7.0]))
    plant.Finalize()
    return plant


def bushing_body_state(plant):
    """Initial (q, v): tilted and displaced, spinning."""
    q = np.zeros(plant.num_positions())
    axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    q[:4] = np.concatenate([[np.cos(0.2)], np.sin(0.2) * axis])
    q[4:] = [0.05, -0.03, 0.9]
    return q, np.array([0.5, -1.0, 2.0, 0.1, 0.2, -0.3])


def arm7(engine):
    from benchmarks.models import arm7 as arm7_spec

    tree, math, plant_mod = _modules(engine)
    spec = arm7_spec()
    plant = plant_mod.MultibodyPlant(0.0)
    bodies = []
    for b in spec.bodies:
        c = b.com
        G = b.I_com / b.mass + (c @ c * np.eye(3) - np.outer(c, c))
        bodies.append(plant.AddRigidBody(b.name, tree.SpatialInertia(
            b.mass, b.com, tree.UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2]))))
    for b, body in zip(spec.bodies, bodies):
        P = plant.world_body() if b.parent < 0 else bodies[b.parent]
        J = plant.AddFrame(tree.FixedOffsetFrame(f"{b.name}_J", P.body_frame(), math.RigidTransform(
            math.RotationMatrix(b.R_PJ), b.p_PJ)))
        joint = plant.AddJoint(tree.RevoluteJoint(b.name, J, body.body_frame(), b.axis, 0.05))
        plant.AddJointActuator(b.name, joint)
    plant.Finalize()
    return plant


def arm_pd(t, x, params):
    """u = Kp (q_d − q) − Kd v (the 7-dof arm's PD controller); ``params`` unused."""
    q, v = x[:7], x[7:]
    return ARM_KP * (ARM_Q_DESIRED - q) - ARM_KD * v
