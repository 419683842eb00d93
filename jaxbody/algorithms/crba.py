"""Composite-rigid-body algorithm for the mass matrix M(q) [Featherstone 2008, Table 6.2].

About the world origin, composite inertias are plain subtree sums, and every entry is
    M[k, l] = S_lᵀ Ic_{b(k)} S_k      for b(l) ⪯ b(k)   (b(l) is b(k) or one of its ancestors),
M[l, k] by symmetry, and 0 where neither body supports the other. All pairs are computed at once
(one (nv × 6) @ (6 × nv) product) and masked by the static ancestor relation: no O(n²) loop.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.algorithms.dynamics_kinematics import subtree_sum
from jaxbody.algorithms.spatial import matvec


def mass_matrix(topo, dk, reflected_inertia=None):
    """M(q): (nv, nv), symmetric positive definite; plus diag(reflected rotor inertia) if given."""
    Ic = subtree_sum(topo, dk.M_O)  # (n, 6, 6)
    own = topo.dof_node
    F = matvec(Ic[own], dk.S_O)  # (nv, 6): Ic_{b(k)} S_k
    full = F @ dk.S_O.T  # full[k, l] = S_lᵀ Ic_{b(k)} S_k
    anc = topo.ancestor[own][:, own]  # anc[k, l]: b(l) ⪯ b(k)
    M = jnp.where(anc, full, jnp.where(anc.T, full.T, 0.0))
    if reflected_inertia is not None:
        M = M + jnp.diag(reflected_inertia)
    return M
