"""What an identification experiment measures: joint torques, or joint reaction wrenches.

A measurement function has the signature ``measure(plant, context, vdot) -> y`` (m,), reads q, v
and the parameters from the context, and is affine in each body's inertial parameters π (see
`inertial_parameters.py`), so that y = Y(q, v, v̇) π + y₀ (`regressor.py`).

- `joint_torques`: the generalized forces the actuators apply along a motion of the continuous
  plant (no contact, no force elements),
      τ = M(q) v̇ + C(q, v) v − τ_g(q) + D v,
  i.e. the ``applied_generalized_force`` under which `CalcGeneralizedAccelerations` returns v̇.
  Joint damping D and reflected rotor inertia are known parameters: they enter y₀.
- `joint_reaction_wrenches`: the spatial force each listed body's inboard joint (constraint
  plus actuation) applies to the subtree rooted at that body, about Bo and expressed in B, as a
  6-axis force/torque sensor at the joint would read it (Drake's ``reaction_forces`` port reports
  the same force at Jc, in Jc). About Wo, in W, for the subtree S(b) of body b [Featherstone
  2008, §5.3]:
      F_b = Σ_{c ∈ S(b)} (M_c (A_c − A_g) + V_c ×* M_c V_c),       A_g = [0; g],
  then shifted to Bo and re-expressed in B. Gravity acts on every body here (a gravity-disabled
  body is not modeled).
- `joint_torques_and_wrenches`: both, from one kinematics pass (τ_k = S_kᵀ F_k there).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import rnea
from jaxbody.algorithms.dynamics_kinematics import dynamics_kinematics, subtree_sum
from jaxbody.algorithms.spatial import matvec
from jaxbody.engine.forces import reflected_inertia


def joint_torques(plant, context, vdot):
    """τ (nv,) = M v̇ + C v − τ_g + D v (N·m or N), the actuator effort along the motion.

    Args:
        plant: a finalized `MultibodyPlant`.
        context: its `Context` (q, v and parameters).
        vdot: (nv,) generalized accelerations.

    Example:
        >>> import jax, numpy as np, jaxbody as jb
        >>> plant = jb.MultibodyPlant(0.0)
        >>> b = plant.AddRigidBody("b", jb.SpatialInertia.PointMass(2.0, np.array([1.0, 0, 0])))
        >>> _ = plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), b.body_frame(), [0, 1, 0]))
        >>> plant.Finalize()
        >>> tau = joint_torques(plant, plant.CreateDefaultContext(), np.zeros(1))
        >>> round(float(tau[0]), 6)  # holding 2 kg at 1 m against g = 9.81 m/s²
        -19.62
    """
    tau = plant.CalcInverseDynamics(context, vdot) - plant.CalcGravityGeneralizedForces(context)
    return tau + context.parameters.damping * context.v


def joint_reaction_wrenches(plant, context, vdot, *, bodies):
    """F_Bo_B (6·len(bodies),): for each body B of ``bodies`` in order, [torque (N·m); force (N)]
    that B's inboard joint applies to the subtree rooted at B, about Bo, expressed in B.

    Args:
        plant: a finalized `MultibodyPlant`.
        context: its `Context`.
        vdot: (nv,) generalized accelerations.
        bodies: body indices (keyword-only, so that ``functools.partial`` makes a measurement).

    Example:
        >>> import jax, numpy as np, jaxbody as jb
        >>> plant = jb.MultibodyPlant(0.0)
        >>> b = plant.AddRigidBody("b", jb.SpatialInertia.PointMass(2.0, np.array([1.0, 0, 0])))
        >>> _ = plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), b.body_frame(), [0, 1, 0]))
        >>> plant.Finalize()
        >>> F = joint_reaction_wrenches(plant, plant.CreateDefaultContext(), np.zeros(1), bodies=[1])
        >>> np.round(np.asarray(F), 6).tolist()  # the pin holds 19.62 N up and 19.62 N·m
        [0.0, -19.62, 0.0, 0.0, 0.0, 19.62]
    """
    return _torques_and_wrenches(plant, context, vdot, bodies, "joint_reaction_wrenches")[1]


def joint_torques_and_wrenches(plant, context, vdot, *, bodies):
    """[τ (nv,); F (6·len(bodies),)]: `joint_torques` then `joint_reaction_wrenches`, from one
    kinematics pass (equal to the two calls for a plant without gravity-disabled bodies)."""
    tau, F = _torques_and_wrenches(plant, context, vdot, bodies, "joint_torques_and_wrenches")
    return jnp.concatenate([tau, F])


def _torques_and_wrenches(plant, context, vdot, bodies, what):
    """(τ (nv,), F_Bo_B (6k,)) from one `dynamics_kinematics` and one RNEA force pass."""
    topo = plant._topology
    plant._check_context(context, what)
    P = context.parameters
    vdot = jnp.asarray(vdot, context.v.dtype)
    if vdot.shape != (topo.nv,):
        raise ValueError(f"{what}: vdot: expected shape ({topo.nv},), got {vdot.shape}")
    nodes = topo.body_node[np.asarray(bodies, np.int64).reshape(-1)]
    dk = dynamics_kinematics(topo, context.q, context.v, P)
    # Gravity as a uniform acceleration of the world: F_c −= M_c [0; g] (zero on the world node).
    A_g = jnp.concatenate([jnp.zeros(3, P.gravity.dtype), P.gravity])
    F_O = rnea.body_forces_for_vdot(topo, dk, vdot) - matvec(dk.M_O, A_g).at[0].set(0.0)
    tau = (rnea.project_to_joints(topo, dk, F_O) + P.damping * context.v
           + reflected_inertia(plant.compiled_model(), context) * vdot)
    F_sub = subtree_sum(topo, F_O)[nodes]  # about Wo, expressed in W
    p_WB, R_WB = dk.pk.p_WB[nodes], dk.pk.R_WB[nodes]
    t_Bo_W = F_sub[:, :3] - jnp.cross(p_WB, F_sub[:, 3:])
    R_BW = jnp.swapaxes(R_WB, -1, -2)
    F_Bo_B = jnp.concatenate([_matvec3(R_BW, t_Bo_W), _matvec3(R_BW, F_sub[:, 3:])], -1)
    return tau, F_Bo_B.reshape(-1)


def _matvec3(R, x):
    """Batched (..., 3, 3) @ (..., 3)."""
    return jnp.einsum("...ij,...j->...i", R, x)
