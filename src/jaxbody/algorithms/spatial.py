"""Spatial algebra at the world origin Wo (Plücker coordinates in W) for the dynamics passes.

The dynamics algorithms work with every motion and force vector taken about Wo and expressed
in W, so quantities of different bodies add without shifting [Featherstone 2008, §2]:

- a body's twist about Wo:      V^O = [w; v_Bo + p_WBo × w]
- its Plücker acceleration:     A^O = d/dt V^O = [α; a_Bo + v_Bo × w + p_WBo × α]
  (`twist_about_origin` / `twist_about_body` and `acceleration_about_body` convert)
- a joint subspace column:      S^O = [h_w; h_v + p_WBo × h_w]
- a wrench about Wo:            F^O = [τ_Bo + p_WBo × f; f]
- a spatial inertia about Wo:   M^O = [[I_Bcm + m [c]×[c]×ᵀ, m [c]×], [m [c]×ᵀ, m 1]], c = p_WBcm
All arrays carry a leading node (or dof) axis. Rows are [angular; linear].
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.math.inertia import point_mass_unit_inertia
from jaxbody.math.so3 import skew


def twist_about_origin(V_WB, p_WB):
    """[w; v_Bo] about Bo -> [w; v_O] about Wo. (..., 6), (..., 3) -> (..., 6)."""
    w = V_WB[..., :3]
    return jnp.concatenate([w, V_WB[..., 3:] + jnp.cross(p_WB, w)], -1)


def twist_about_body(V_O, p_WB):
    """The inverse of `twist_about_origin`: [w; v_O] about Wo -> [w; v_Bo]."""
    w = V_O[..., :3]
    return jnp.concatenate([w, V_O[..., 3:] - jnp.cross(p_WB, w)], -1)


def acceleration_about_body(A_O, V_WB, p_WB):
    """Plücker [α; a_Bo + v_Bo × w + p_WBo × α] about Wo -> conventional [α; a_Bo] (the
    velocity V_WB = [w; v_Bo] about Bo)."""
    alpha, w, v = A_O[..., :3], V_WB[..., :3], V_WB[..., 3:]
    return jnp.concatenate([alpha, A_O[..., 3:] - jnp.cross(v, w) - jnp.cross(p_WB, alpha)], -1)


def wrench_about_origin(F_Bo_W, p_WB):
    """[τ_Bo; f] -> [τ_Bo + p_WBo × f; f]."""
    f = F_Bo_W[..., 3:]
    return jnp.concatenate([F_Bo_W[..., :3] + jnp.cross(p_WB, f), f], -1)


def inertia_about_origin(mass, com_B, G_BBo_B, R_WB, p_WB):
    """Spatial inertias M^O (n, 6, 6) of bodies with parameters in their own frames.

    Args:
        mass: (n,) kg; com_B: (n, 3) ``p_BoBcm_B``; G_BBo_B: (n, 3, 3) unit inertia about Bo;
        R_WB: (n, 3, 3); p_WB: (n, 3).
    """
    c_B = com_B
    eye = jnp.eye(3, dtype=mass.dtype)
    # Central rotational inertia in B, then in W.
    I_cm_B = mass[:, None, None] * (G_BBo_B - point_mass_unit_inertia(c_B))
    I_cm_W = R_WB @ I_cm_B @ jnp.swapaxes(R_WB, -1, -2)
    c = p_WB + jnp.einsum("nij,nj->ni", R_WB, c_B)  # p_WBcm
    C = skew(c)
    m = mass[:, None, None]
    I_O = I_cm_W + m * (C @ jnp.swapaxes(C, -1, -2))
    top = jnp.concatenate([I_O, m * C], -1)
    bot = jnp.concatenate([m * jnp.swapaxes(C, -1, -2), m * jnp.broadcast_to(eye, C.shape)], -1)
    return jnp.concatenate([top, bot], -2)


def motion_cross(V, M):
    """``V × M`` for motion vectors: [w × m_w; w × m_v + v × m_w]."""
    w, v = V[..., :3], V[..., 3:]
    mw, mv = M[..., :3], M[..., 3:]
    return jnp.concatenate([jnp.cross(w, mw), jnp.cross(w, mv) + jnp.cross(v, mw)], -1)


def motion_cross_matrix(V):
    """(..., 6) -> (..., 6, 6): the matrix of ``x ↦ V × x`` (`motion_cross`); the matrix of
    ``x ↦ V ×* x`` (`force_cross`) is minus its transpose."""
    w, u = skew(V[..., :3]), skew(V[..., 3:])
    z = jnp.zeros_like(w)
    return jnp.concatenate([jnp.concatenate([w, z], -1), jnp.concatenate([u, w], -1)], -2)


def force_cross(V, F):
    """``V ×* F`` for a force F: [w × n + v × f; w × f]."""
    w, v = V[..., :3], V[..., 3:]
    n, f = F[..., :3], F[..., 3:]
    return jnp.concatenate([jnp.cross(w, n) + jnp.cross(v, f), jnp.cross(w, f)], -1)


def matvec(M, x):
    """Batched (..., 6, 6) @ (..., 6)."""
    return jnp.einsum("...ij,...j->...i", M, x)
