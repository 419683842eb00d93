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


def point_jacobian_in_world(topo, pk, node, p_WQ, dofs=None):
    """``J_V_WQ_W``: (m, 6, nv) for m points ``p_WQ: (m, 3)`` fixed on tree node(s) ``node``.

    ``node`` is an int (all points on one body) or an (m,) array (one per point), static or
    traced (culled contact slots move between bodies). ``dofs`` (m, d), if given, selects the
    columns per point (index nv: a zero padding column), giving (m, 6, d).
    """
    nv, m = topo.nv, p_WQ.shape[0]
    own = np.append(topo.dof_node, 0)  # the padding dof "belongs" to the world; its H is 0
    anc = topo.ancestor[:, own]
    if dofs is None:
        dofs = np.broadcast_to(np.arange(nv), (m, nv))
    if isinstance(node, (int, np.integer, np.ndarray)) and isinstance(dofs, np.ndarray):
        node = np.broadcast_to(np.asarray(node), (m,))
        mask = jnp.asarray(anc[node[:, None], dofs], p_WQ.dtype)  # static: folded
    else:
        mask = jnp.asarray(anc, p_WQ.dtype)[jnp.broadcast_to(node, (m,))[:, None], dofs]
    H = jnp.concatenate([pk.H_W, jnp.zeros((1, 6), pk.H_W.dtype)])[dofs]  # (m, d, 6)
    r = p_WQ[:, None, :] - pk.p_WB[own][dofs]  # (m, d, 3)
    lin = H[..., 3:] + jnp.cross(H[..., :3], r)
    J = jnp.concatenate([H[..., :3], lin], -1)  # (m, d, 6)
    return jnp.swapaxes(J * mask[..., None], 1, 2)


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
