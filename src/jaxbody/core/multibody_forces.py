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

    Body forces that were never given or added are known to be zero when the object is built
    (not only when it runs): `body_forces_if_any` is then None and the dynamics skip their
    terms (the wrenches, and in the derivatives their own change with the configuration).

    Args:
        plant: a finalized `MultibodyPlant` (sizes only), or None with the sizes given by the
            arrays (``num_bodies`` where ``body_forces`` is None).
    """

    def __init__(self, plant=None, generalized_forces=None, body_forces=None, dtype=None,
                 num_bodies=None):
        if plant is not None:
            plant._require_finalized("MultibodyForces")
            nv, num_bodies = plant.num_velocities(), plant.num_bodies()
            dtype = dtype or jnp.zeros(()).dtype
            if generalized_forces is None:
                generalized_forces = jnp.zeros(nv, dtype)
            generalized_forces = check_shape("MultibodyForces: generalized_forces",
                                              generalized_forces, (nv,))
            if body_forces is not None:
                body_forces = check_shape("MultibodyForces: body_forces", body_forces,
                                          (num_bodies, 6))
        if body_forces is not None:
            num_bodies = body_forces.shape[0]
        if num_bodies is None:
            raise ValueError("MultibodyForces: give a plant, body_forces or num_bodies")
        self._tau = generalized_forces
        self._F = body_forces
        self._nb = int(num_bodies)

    def tree_flatten(self):
        return (self._tau, self._F), self._nb

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(None, *children, num_bodies=aux)

    def generalized_forces(self):
        return self._tau

    def body_forces(self):
        """(num_bodies, 6) ``F_Bo_W`` rows (zeros where none was given or added)."""
        if self._F is None:
            return jnp.zeros((self._nb, 6), self._tau.dtype)
        return self._F

    def body_forces_if_any(self):
        """`body_forces`, or None where none was ever given or added (all zero)."""
        return self._F

    def num_bodies(self) -> int:
        return self._nb

    def num_velocities(self) -> int:
        return self._tau.shape[0]

    def SetZero(self):
        return MultibodyForces(None, jnp.zeros_like(self._tau), num_bodies=self._nb)

    def with_generalized_forces(self, tau):
        tau = check_shape("MultibodyForces: generalized_forces", tau, self._tau.shape)
        return MultibodyForces(None, tau.astype(self._tau.dtype), self._F,
                               num_bodies=self._nb)

    def AddInGeneralizedForces(self, tau):
        tau = check_shape("MultibodyForces: generalized_forces", tau, self._tau.shape)
        return MultibodyForces(None, self._tau + tau, self._F, num_bodies=self._nb)

    def AddInForceInWorld(self, body, F_Bo_W):
        """Adds a `SpatialForce` (or (6,) array) applied at Bo, expressed in World."""
        coeffs = F_Bo_W.get_coeffs() if hasattr(F_Bo_W, "get_coeffs") else F_Bo_W
        coeffs = check_shape("AddInForceInWorld: F_Bo_W", coeffs, (6,))
        return MultibodyForces(None, self._tau,
                               self.body_forces().at[int(body.index())].add(coeffs))

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
        if self._F is None and other._F is None:
            return MultibodyForces(None, self._tau + other._tau, num_bodies=self._nb)
        return MultibodyForces(None, self._tau + other._tau,
                               self.body_forces() + other.body_forces())
