"""Geometric Jacobians and bias accelerations of points fixed on a body, in World.

For a point Q fixed on body B (node b), the spatial-velocity Jacobian w.r.t. v is
    J_V_WQ_W[:, k] = [h_w(k); h_v(k) + h_w(k) × (p_WQ − p_WBk)]   if the joint of dof k supports B
and zero otherwise, where [h_w; h_v] = H_PB_W[:, k] is about Bk, the origin of the body whose
inboard joint owns dof k [Jain 2010, §2.3]. Support is a static ancestor mask, so the Jacobian of
every point is one vectorized expression (no loop over bodies or dofs).

Bias acceleration: A_WQ with v̇ = 0, i.e. J̇ v, from the acceleration pass with v̇ = 0 shifted to Q:
    α_WQ = α_WB,  a_WQ = a_WBo + α_WB × p_BoQ_W + w_WB × (w_WB × p_BoQ_W).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np


def point_jacobian_in_world(topo, pk, node, p_WQ):
    """``J_V_WQ_W``: (m, 6, nv) for m points ``p_WQ: (m, 3)`` fixed on tree node(s) ``node``.

    ``node`` is a static int (all points on one body) or a static (m,) array (one per point).
    """
    own = topo.dof_node
    mask = topo.ancestor[np.asarray(node)[..., None], own].astype(np.float64)  # (nv,)|(m, nv)
    mask = jnp.asarray(np.broadcast_to(mask, (p_WQ.shape[0], own.shape[0])), p_WQ.dtype)
    ang = pk.H_W[:, :3]  # (nv, 3)
    r = p_WQ[:, None, :] - pk.p_WB[own][None, :, :]  # (m, nv, 3)
    lin = pk.H_W[None, :, 3:] + jnp.cross(ang[None], r)
    J = jnp.concatenate([jnp.broadcast_to(ang[None], lin.shape), lin], -1)  # (m, nv, 6)
    return jnp.swapaxes(J * mask[:, :, None], 1, 2)


def shift_acceleration(A_WB, V_WB, p_BoQ_W):
    """Shifts (..., 6) accelerations about Bo to points Q: ``p_BoQ_W: (..., 3)``."""
    w, alpha = V_WB[..., :3], A_WB[..., :3]
    a = A_WB[..., 3:] + jnp.cross(alpha, p_BoQ_W) + jnp.cross(w, jnp.cross(w, p_BoQ_W))
    return jnp.concatenate([jnp.broadcast_to(alpha, a.shape), a], -1)


def shift_velocity(V_WB, p_BoQ_W):
    """Shifts (..., 6) spatial velocities about Bo to points Q."""
    w = V_WB[..., :3]
    v = V_WB[..., 3:] + jnp.cross(w, p_BoQ_W)
    return jnp.concatenate([jnp.broadcast_to(w, v.shape), v], -1)
