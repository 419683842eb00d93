"""Externally applied spatial forces (Drake's ``ExternallyAppliedSpatialForce``).

A force ``F_Bq_W = [τ; f]`` (torque and force, expressed in World) applied at point Bq of a
body, with ``p_BoBq_B`` the point's position in the body frame. On the body origin it is
    F_Bo_W = [τ + (R_WB p_BoBq_B) × f; f].
A list of them is the argument ``applied_spatial_force`` of the plant's dynamics methods; a
pytree (the body index is static), so lists pass through ``jit`` and ``vmap``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.core.checks import check_shape


@jax.tree_util.register_pytree_node_class
class ExternallyAppliedSpatialForce:
    """One applied spatial force, as pydrake's (attributes may also be set after construction).

    Args:
        body_index: `BodyIndex` of the body the force acts on (static).
        p_BoBq_B: (3,) the application point Bq in the body frame (m).
        F_Bq_W: `SpatialForce` or (6,) ``[τ; f]`` at Bq, expressed in World (N·m, N).
    """

    def __init__(self, body_index=None, p_BoBq_B=None, F_Bq_W=None):
        self.body_index = body_index
        self.p_BoBq_B = jnp.zeros(3) if p_BoBq_B is None else p_BoBq_B
        self.F_Bq_W = jnp.zeros(6) if F_Bq_W is None else F_Bq_W

    def tree_flatten(self):
        return (self.p_BoBq_B, self.F_Bq_W), self.body_index

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(aux, *children)

    def __repr__(self):
        return f"ExternallyAppliedSpatialForce(body_index={self.body_index})"


def spatial_forces_to_body_forces(num_bodies, R_WB, F, forces, dtype):
    """Adds a list of `ExternallyAppliedSpatialForce` into ``F`` (num_bodies, 6) ``F_Bo_W`` rows.

    Args:
        num_bodies: the model's number of bodies (to check the indices).
        R_WB: (num_bodies, 3, 3) body orientations in BodyIndex order.
        F: (num_bodies, 6) accumulator.
        forces: list (or tuple) of `ExternallyAppliedSpatialForce`.

    Raises:
        ValueError: for a bad body index or a wrongly sized point or force.
    """
    if isinstance(forces, ExternallyAppliedSpatialForce):
        forces = [forces]
    nb = int(num_bodies)
    for k, item in enumerate(forces):
        if not isinstance(item, ExternallyAppliedSpatialForce):
            raise TypeError(f"applied_spatial_force[{k}]: expected an ExternallyAppliedSpatialForce, "
                            f"got {type(item).__name__}")
        if item.body_index is None or not 0 <= int(item.body_index) < nb:
            raise ValueError(f"applied_spatial_force[{k}]: body_index {_as_int(item.body_index)} is not a "
                             f"body of the plant (expected 0 <= index < {nb})")
        c = item.F_Bq_W.get_coeffs() if hasattr(item.F_Bq_W, "get_coeffs") else item.F_Bq_W
        c = check_shape(f"applied_spatial_force[{k}].F_Bq_W", c, (6,)).astype(dtype)
        p = check_shape(f"applied_spatial_force[{k}].p_BoBq_B", item.p_BoBq_B, (3,)).astype(dtype)
        b = int(item.body_index)
        f = c[3:]
        F = F.at[b].add(jnp.concatenate([c[:3] + jnp.cross(R_WB[b] @ p, f), f]))
    return F


def _as_int(index):
    try:
        return int(index)
    except (TypeError, ValueError):
        return index
