"""Articulated-body algorithm for forward dynamics [Featherstone 2008, Table 7.1].

About the world origin (see `spatial.py`); gravity enters as the world's acceleration
A_0 = [0; −g]. With S_b the (6 × m) subspace of body b's joint:

    tip to base, per level:   U = IA S,  D = Sᵀ U + diag(reflected),  u = τ − Sᵀ pA
                              Ia = IA − U D⁻¹ Uᵀ,  pa = pA + Ia c + U D⁻¹ u
                              IA_parent += Ia,      pA_parent += pa
    base to tip, per level:   a' = A_parent + c,  v̇ = D⁻¹ (u − Uᵀ a'),  A = a' + S v̇

initialized with IA = M, pA = V ×* M V − Fapp. The Python loops run over static tree levels and,
within a level, over the distinct joint sizes m (so a 1-dof joint never pays for a 6 × 6 solve).
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.algorithms.spatial import force_cross, matvec


def forward_dynamics(topo, dk, tau, gravity, Fapp_O=None, reflected_inertia=None):
    """v̇ (nv,) for generalized forces ``tau`` (nv,), gravity (3,), applied wrenches (n, 6)."""
    IA = dk.M_O
    pA = force_cross(dk.V_O, matvec(dk.M_O, dk.V_O))
    if Fapp_O is not None:
        pA = pA - Fapp_O
    c = dk.c_O
    saved = []
    # ---- tip to base: articulated inertias ------------------------------------------------
    for groups in reversed(topo.level_groups):
        for nodes, vidx in groups:
            par = topo.parent[nodes]
            IA_i, pA_i, c_i = IA[nodes], pA[nodes], c[nodes]
            if vidx.shape[1] == 0:
                Ia, pa = IA_i, pA_i + matvec(IA_i, c_i)
                saved.append(None)
            else:
                S = jnp.swapaxes(dk.S_O[vidx], 1, 2)  # (k, 6, m)
                U = IA_i @ S
                D = jnp.swapaxes(S, 1, 2) @ U
                if reflected_inertia is not None:
                    D = D + jnp.einsum("ki,ij->kij", reflected_inertia[vidx],
                                       jnp.eye(vidx.shape[1], dtype=D.dtype))
                Dinv = jnp.linalg.inv(D)
                u = tau[vidx] - jnp.einsum("kim,ki->km", S, pA_i)
                UDinv = U @ Dinv
                Ia = IA_i - UDinv @ jnp.swapaxes(U, 1, 2)
                pa = pA_i + matvec(Ia, c_i) + jnp.einsum("kim,km->ki", UDinv, u)
                saved.append((S, U, Dinv, u))
            IA = IA.at[par].add(Ia)
            pA = pA.at[par].add(pa)
    # ---- base to tip: accelerations -----------------------------------------------------------
    n = topo.num_nodes
    A = jnp.zeros((n, 6), dk.V_O.dtype).at[0, 3:].set(-gravity)
    vdot = jnp.zeros(topo.nv, dk.V_O.dtype)
    saved = iter(reversed(saved))
    for groups in topo.level_groups:
        for nodes, vidx in reversed(groups):
            par = topo.parent[nodes]
            a = A[par] + c[nodes]
            s = next(saved)
            if s is not None:
                S, U, Dinv, u = s
                vd = jnp.einsum("kmj,kj->km", Dinv, u - jnp.einsum("kim,ki->km", U, a))
                vdot = vdot.at[vidx.reshape(-1)].set(vd.reshape(-1))
                a = a + jnp.einsum("kim,km->ki", S, vd)
            A = A.at[nodes].set(a)
    return vdot
