"""``jaxbody demo``: builds a 7-joint arm, evaluates forward kinematics and the end-effector
Jacobian for a batch of random configurations with ``jit(vmap(...))``, and prints the results
and timings."""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

import jaxbody as jb


def run(batch: int) -> None:
    """Prints the demo's results and timings."""
    plant = jb.MultibodyPlant(0.0)
    parent = plant.world_body()
    axes = [[0, 0, 1], [0, 1, 0], [0, 0, 1], [0, -1, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1]]
    for i, axis in enumerate(axes):
        link = plant.AddRigidBody(f"link{i + 1}", jb.SpatialInertia.SolidCylinderWithMass(
            2.0, 0.05, 0.3, [0, 0, 1]))
        X_PF = jb.RigidTransform(p=[0.0, 0.0, 0.3 if i else 0.1])
        F = plant.AddFrame(jb.FixedOffsetFrame(f"joint{i + 1}_parent", parent.body_frame(), X_PF))
        plant.AddJoint(jb.RevoluteJoint(f"joint{i + 1}", F, link.body_frame(), axis))
        parent = link
    plant.Finalize()
    ee = parent.body_frame()
    W = plant.world_frame()
    ctx = plant.CreateDefaultContext()

    def fk_and_jacobian(q):
        c = plant.SetPositions(ctx, q)
        X = plant.EvalBodyPoseInWorld(c, parent)
        J = plant.CalcJacobianSpatialVelocity(c, jb.JacobianWrtVariable.kV, ee, jnp.zeros(3), W, W)
        return X.translation(), J

    f = jax.jit(jax.vmap(fk_and_jacobian))
    qs = jnp.asarray(np.random.default_rng(0).uniform(-1, 1, size=(batch, 7)))
    t0 = time.perf_counter()
    compiled = f.lower(qs).compile()
    t1 = time.perf_counter()
    p, J = compiled(qs)
    jax.block_until_ready(J)
    t2 = time.perf_counter()
    print(f"jaxbody {jb.__version__}: 7-dof arm, {plant.num_bodies()} bodies, "
          f"nq={plant.num_positions()}")
    print(f"end-effector position at q[0]: {np.asarray(p[0]).round(4)}")
    print(f"Jacobian batch shape: {J.shape}")
    print(f"compile {1e3 * (t1 - t0):.1f} ms, run ({batch} configurations) "
          f"{1e3 * (t2 - t1):.2f} ms")
