"""Derivatives of forward dynamics by the implicit function theorem (a `jax.custom_jvp` rule).

Forward dynamics v̇ = FD(x) (x: state, parameters, inputs) solves the velocity residual of the
equations of motion,
    r(x, v̇) = M(q) v̇ + C(q, v) v − τ(x) = 0,
so by the implicit function theorem its tangent at any x is (as Pinocchio's
computeABADerivatives uses it [Carpentier & Mansard 2018])
    dv̇ = −M⁻¹ ∂r/∂x · dx          (∂r/∂v̇ = M).
∂r/∂x · dx is the tangent of an inverse-dynamics evaluation at a fixed v̇: one RNEA pass
linearized, much cheaper than linearizing the articulated-body recursion (whose
articulated inertias and their tangents are 6 × 6 per node and per direction). Under
``jax.jacfwd`` the rule's primal work (v̇, M and M⁻¹) is done once per sample and only the
RNEA tangent and one matrix product run per direction; reverse mode transposes the same linear
map. Inputs without a tangent (``symbolic_zeros``) are left out of the linearization, so
differentiating w.r.t. (q, v) only never touches the parameters' part of the graph.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero

from jaxbody.math.cholesky import spd_solve


def _is_traceable(x):
    return isinstance(x, (jax.Array, np.ndarray, np.generic, float, int, complex, bool))


def implicit_forward_dynamics(solve, residual, mass_matrix, args):
    """``solve(args)`` (v̇, (nv,)) with the tangent rule above.

    Args:
        solve: ``args -> v̇``, any forward-dynamics algorithm.
        residual: ``(args, v̇) -> r`` (nv,), zero at the solution, with ∂r/∂v̇ = ``mass_matrix``.
        mass_matrix: ``args -> M`` (nv, nv), symmetric positive definite.
        args: a pytree; its array leaves are the differentiable inputs, other leaves are static.
    """
    leaves, treedef = jax.tree_util.tree_flatten(args)
    dynamic = [i for i, x in enumerate(leaves) if _is_traceable(x)]

    def rebuild(values):
        full = list(leaves)
        for i, x in zip(dynamic, values):
            full[i] = x
        return jax.tree_util.tree_unflatten(treedef, full)

    @jax.custom_jvp
    def fd(*values):
        return solve(rebuild(values))

    def fd_jvp(primals, tangents):
        vdot = fd(*primals)
        active = [k for k, t in enumerate(tangents) if not isinstance(t, SymbolicZero)]
        if not active:
            return vdot, jnp.zeros_like(vdot)

        def r_active(*xs):
            values = list(primals)
            for k, x in zip(active, xs):
                values[k] = x
            return residual(rebuild(values), vdot)

        _, r_dot = jax.jvp(r_active, [primals[k] for k in active], [tangents[k] for k in active])
        M = mass_matrix(rebuild(primals))
        M_inv = spd_solve(M, jnp.eye(M.shape[0], dtype=M.dtype))
        return vdot, -(M_inv @ r_dot)

    fd.defjvp(fd_jvp, symbolic_zeros=True)

    return fd(*[leaves[i] for i in dynamic])
