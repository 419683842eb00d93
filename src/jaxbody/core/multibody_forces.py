"""`MultibodyForces`: applied generalized forces and body spatial forces, as Drake's class.

Immutable: the adders return a new object. It is a pytree, so it passes through jit and vmap.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.core.checks import check_shape


@jax.tree_util.register_pytree_node_class
class MultibodyForces:
    """Generalized forces τ (num_velocities,) and per-body spatial forces ``F_Bo_W``
    (num_bodies, 6) = [torque about Bo; force], expressed in World, in BodyIndex order.

    Args:
        plant: a finalized `MultibodyPlant` (sizes only), or None with both arrays given.
    """

    def __init__(self, plant=None, generalized_forces=None, body_forces=None, dtype=None):
        if plant is not None:
            plant._require_finalized("MultibodyForces")
            nv, nb = plant.num_velocities(), plant.num_bodies()
            dtype = dtype or jnp.zeros(()).dtype
            if generalized_forces is None:
                generalized_forces = jnp.zeros(nv, dtype)
            if body_forces is None:
                body_forces = jnp.zeros((nb, 6), dtype)
            generalized_forces = check_shape("MultibodyForces: generalized_forces",
                                              generalized_forces, (nv,))
            body_forces = check_shape("MultibodyForces: body_forces", body_forces, (nb, 6))
        self._tau = generalized_forces
        self._F = body_forces

    def tree_flatten(self):
        return (self._tau, self._F), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(None, *children)

    def generalized_forces(self):
        return self._tau

    def body_forces(self):
        """(num_bodies, 6) ``F_Bo_W`` rows."""
        return self._F

    def num_bodies(self) -> int:
        return self._F.shape[0]

    def num_velocities(self) -> int:
        return self._tau.shape[0]

    def SetZero(self):
        return MultibodyForces(None, jnp.zeros_like(self._tau), jnp.zeros_like(self._F))

    def with_generalized_forces(self, tau):
        tau = check_shape("MultibodyForces: generalized_forces", tau, self._tau.shape)
        return MultibodyForces(None, tau.astype(self._tau.dtype), self._F)

    def AddInGeneralizedForces(self, tau):
        tau = check_shape("MultibodyForces: generalized_forces", tau, self._tau.shape)
        return MultibodyForces(None, self._tau + tau, self._F)

    def AddInForceInWorld(self, body, F_Bo_W):
        """Adds a `SpatialForce` (or (6,) array) applied at Bo, expressed in World."""
        coeffs = F_Bo_W.get_coeffs() if hasattr(F_Bo_W, "get_coeffs") else F_Bo_W
        coeffs = check_shape("AddInForceInWorld: F_Bo_W", coeffs, (6,))
        return MultibodyForces(None, self._tau, self._F.at[int(body.index())].add(coeffs))

    def AddInForce(self, context, body, p_BoBq_B, F_Bq_E, frame_E):
        """Adds a spatial force applied at point Bq of ``body``, expressed in ``frame_E``."""
        plant = body.GetParentPlant()
        W = plant.world_frame()
        R_WE = plant.CalcRelativeRotationMatrix(context, W, frame_E).matrix()
        R_WB = plant.EvalBodyPoseInWorld(context, body).rotation().matrix()
        c = F_Bq_E.get_coeffs() if hasattr(F_Bq_E, "get_coeffs") else jnp.asarray(F_Bq_E)
        tau_W, f_W = R_WE @ c[:3], R_WE @ c[3:]
        p_BoBq_W = R_WB @ jnp.asarray(p_BoBq_B)
        F_Bo_W = jnp.concatenate([tau_W + jnp.cross(p_BoBq_W, f_W), f_W])
        return self.AddInForceInWorld(body, F_Bo_W)

    def __add__(self, other):
        return MultibodyForces(None, self._tau + other._tau, self._F + other._F)
