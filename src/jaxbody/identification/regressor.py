"""The dynamics regressor: y = Y(q, v, v̇) π + y₀, by forward-mode autodiff of the dynamics.

Every measurement of `measurements.py` (joint torques, joint reaction wrenches) is affine in the
stacked inertial parameters π = (π_b₁, ..., π_b_k) ∈ R^{10k} of the identified bodies (the
classical result of [Atkeson, An & Hollerbach 1986; Khalil & Dombre 2002, ch. 12]: the
Newton-Euler equations are linear in (m, m c, I_Bo)). Instead of deriving Y by hand, jaxbody
differentiates its own inverse dynamics:

    Y = ∂y/∂π  (jax.jacfwd: 10k forward-mode tangents through RNEA),
    y₀ = y(π_ref) − Y π_ref           (the known part: other bodies, damping, rotor inertia).

Y does not depend on π (y is affine), so it is evaluated at a fixed π_ref with unit masses,
which keeps com = h / m well defined. With all bodies identified and no damping or rotor
inertia, y₀ = 0 and τ = Y π exactly.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.identification.inertial_parameters import NUM_PARAMETERS, context_with_inertial_parameters
from jaxbody.identification.measurements import joint_torques


class Regressor(NamedTuple):
    """y = Y π + offset.

    Attributes:
        Y: (..., m, 10k) regressor, columns in the order (body, `PARAMETER_NAMES`).
        offset: (..., m) y₀, the part of y that does not depend on π.
    """

    Y: jax.Array
    offset: jax.Array


def _reference_parameters(num_bodies, dtype):
    """π_ref (k·10,): unit mass at Bo with unit rotational inertia (any nonzero mass works)."""
    one = np.array([1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    return jnp.asarray(np.tile(one, num_bodies), dtype)


def dynamics_regressor(plant, context, vdot, bodies, measure=joint_torques) -> Regressor:
    """Y (m, 10k) and y₀ (m,) at one state, with ``measure(plant, context, vdot) = Y π + y₀``.

    Args:
        plant: a finalized `MultibodyPlant`.
        context: its `Context`; q, v and every parameter except the identified bodies'
            inertial parameters are taken from it.
        vdot: (nv,) generalized accelerations.
        bodies: indices of the k identified bodies.
        measure: a measurement function (default `joint_torques`, m = nv).

    Example:
        >>> import jax, numpy as np, jaxbody as jb
        >>> jax.config.update("jax_enable_x64", True)
        >>> from jaxbody.identification import inertial_parameters_from_context
        >>> plant = jb.MultibodyPlant(0.0)
        >>> b = plant.AddRigidBody("b", jb.SpatialInertia.SolidBoxWithMass(2.0, 0.1, 0.2, 0.3))
        >>> _ = plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), b.body_frame(), [0, 1, 0]))
        >>> plant.Finalize()
        >>> ctx = plant.SetPositions(plant.CreateDefaultContext(), np.array([0.4]))
        >>> Y, y0 = dynamics_regressor(plant, ctx, np.array([1.5]), [b.index()])
        >>> Y.shape
        (1, 10)
        >>> pi = inertial_parameters_from_context(ctx, [b.index()]).ravel()
        >>> bool(np.allclose(Y @ pi + y0, plant.CalcInverseDynamics(ctx, np.array([1.5]))))
        True
    """
    bodies = np.asarray(bodies, np.int64).reshape(-1)
    if vdot is None or jnp.shape(vdot) != (context.v.shape[0],):
        raise ValueError(f"dynamics_regressor: vdot: expected shape ({context.v.shape[0]},), "
                         f"got {jnp.shape(vdot)}")

    def y_of(pi_flat):
        pi = pi_flat.reshape(bodies.size, NUM_PARAMETERS)
        y = measure(plant, context_with_inertial_parameters(context, bodies, pi), vdot)
        return y, y

    pi_ref = _reference_parameters(bodies.size, context.v.dtype)
    Y, y_ref = jax.jacfwd(y_of, has_aux=True)(pi_ref)
    return Regressor(Y, y_ref - Y @ pi_ref)


def stacked_regressor(plant, context, q, v, vdot, bodies, measure=joint_torques) -> Regressor:
    """Y (N·m, 10k) and y₀ (N·m,) for N states stacked row-wise (sample-major), by ``vmap``.

    Args:
        q: (N, nq), v: (N, nv), vdot: (N, nv) samples of the motion.
        the others: as `dynamics_regressor`.
    """
    q, v, vdot = (jnp.asarray(x, context.v.dtype) for x in (q, v, vdot))
    nq, nv = context.q.shape[0], context.v.shape[0]
    for name, x, n in (("q", q, nq), ("v", v, nv), ("vdot", vdot, nv)):
        if x.ndim != 2 or x.shape != (q.shape[0], n):
            raise ValueError(f"stacked_regressor: {name}: expected shape ({q.shape[0]}, {n}), "
                             f"got {x.shape}")

    def one(qk, vk, ak):
        return dynamics_regressor(plant, context.replace(q=qk, v=vk), ak, bodies, measure)

    Y, y0 = jax.vmap(one)(q, v, vdot)
    return Regressor(Y.reshape(-1, Y.shape[-1]), y0.reshape(-1))
