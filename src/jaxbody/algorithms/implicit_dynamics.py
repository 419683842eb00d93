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

With a `StatePart`, the (q, v) tangent of the part of r that inverse dynamics and gravity make up
comes from analytic matrices (`rnea_derivatives.py`) instead of a linearized RNEA per direction:
    ∂r/∂x · dx = ∂r_core/∂q dq + ∂r_core/∂v dv + [tangent of r with r_core's (q, v) frozen].
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero

from jaxbody.math.cholesky import cholesky_solve


class StatePart(NamedTuple):
    """The part of the residual whose (q, v) derivatives are known as matrices.

    Attributes:
        q, v: the leaves of ``args`` that hold the configuration and the velocities;
        residual_frozen: ``(args, v̇) -> r`` with the covered part's (q, v) dependence stopped
            (``lax.stop_gradient``), so its tangent carries everything else;
        jacobians: ``(args, v̇) -> (∂r/∂q (nv, nq), ∂r/∂v (nv, nv))`` of the covered part.
    """

    q: object
    v: object
    residual_frozen: Callable
    jacobians: Callable


def _is_traceable(x):
    return isinstance(x, (jax.Array, np.ndarray, np.generic, float, int, complex, bool))


def _flatten(args, state):
    """(dynamic leaves, rebuild, position of q and v among them or None)."""
    leaves, treedef = jax.tree_util.tree_flatten(args)
    dynamic = [i for i, x in enumerate(leaves) if _is_traceable(x)]
    kq = kv = None
    if state is not None:
        hq = [k for k, i in enumerate(dynamic) if leaves[i] is state.q]
        hv = [k for k, i in enumerate(dynamic) if leaves[i] is state.v]
        if len(hq) == 1 and len(hv) == 1 and hq != hv:
            kq, kv = hq[0], hv[0]

    def rebuild(values):
        full = list(leaves)
        for i, x in zip(dynamic, values):
            full[i] = x
        return jax.tree_util.tree_unflatten(treedef, full)

    return [_canonical(leaves[i]) for i in dynamic], rebuild, kq, kv


def _canonical(x):
    """``x`` as a JAX value. A NumPy constant vmapped inside jit reaches a custom_jvp as a batch
    tracer holding a NumPy array, which custom_jvp rejects ("non-canonical constant"); one add
    of zero (fused away in the compiled code) makes it a JAX array."""
    x = jnp.asarray(x)
    return x + jnp.zeros((), x.dtype) if jnp.issubdtype(x.dtype, jnp.inexact) else x


def _uses_state_jacobians(flat, tangents):
    """Whether the tangent rule takes the (q, v) part from the `StatePart`'s matrices."""
    _, _, kq, kv = flat
    return kq is not None and any(not isinstance(tangents[k], SymbolicZero) for k in (kq, kv))


def _residual_tangent(residual, state, flat, primals, tangents, at, jacobians=None):
    """∂r/∂x · dx of ``residual(args, at)`` at the primals, or None if no tangent is active;
    the (q, v) part from ``state.jacobians`` (or the given ``jacobians``) when it applies."""
    _, rebuild, kq, kv = flat
    active = [k for k, t in enumerate(tangents) if not isinstance(t, SymbolicZero)]
    if not active:
        return None
    analytic = _uses_state_jacobians(flat, tangents)
    r_fun = state.residual_frozen if analytic else residual

    def r_active(*xs):
        values = list(primals)
        for k, x in zip(active, xs):
            values[k] = x
        return r_fun(rebuild(values), at)

    _, r_dot = jax.jvp(r_active, [primals[k] for k in active], [tangents[k] for k in active])
    if analytic:
        Dq, Dv = state.jacobians(rebuild(primals), at) if jacobians is None else jacobians
        if kq in active:
            r_dot = r_dot + Dq @ tangents[kq]
        if kv in active:
            r_dot = r_dot + Dv @ tangents[kv]
    return r_dot


def implicit_forward_dynamics(solve, residual, mass_matrix_inverse, args, state=None,
                              factored_solve=None, fused=None):
    """``solve(args)`` (v̇, (nv,)) with the tangent rule above.

    Args:
        solve: ``args -> v̇``, any forward-dynamics algorithm.
        residual: ``(args, v̇) -> r`` (nv,), zero at the solution, with ∂r/∂v̇ = M.
        mass_matrix_inverse: ``args -> M⁻¹`` (nv, nv), M symmetric positive definite.
        args: a pytree; its array leaves are the differentiable inputs, other leaves are static.
        state: a `StatePart`, or None (every tangent through ``residual``).
        factored_solve: optional ``args -> (v̇, L)`` with L the Cholesky factor of M (a
            CRBA + Cholesky solve has it anyway): the tangent rule then solves with L instead of
            inverting M again (fewer operations in a differentiated scan body).
        fused: optional ``args -> (v̇, (∂r/∂q, ∂r/∂v), M⁻¹)``, what ``solve``,
            ``state.jacobians`` at v̇ and ``mass_matrix_inverse`` give, computed together
            (sharing their kinematics); used when the rule takes the `StatePart`'s matrices.
    """
    flat = _flatten(args, state)
    rebuild = flat[1]

    @jax.custom_jvp
    def fd(*values):
        return solve(rebuild(values))

    def fd_jvp(primals, tangents):
        if fused is not None and state is not None and _uses_state_jacobians(flat, tangents):
            vdot, jacobians, M_inv = fused(rebuild(primals))
            r_dot = _residual_tangent(residual, state, flat, primals, tangents, vdot, jacobians)
            return vdot, M_inv @ -r_dot  # the sign on the small operand (fused into its producer)
        if factored_solve is not None:
            vdot, L = factored_solve(rebuild(primals))
        else:
            vdot = fd(*primals)
        r_dot = _residual_tangent(residual, state, flat, primals, tangents, vdot)
        if r_dot is None:
            return vdot, jnp.zeros_like(vdot)
        if factored_solve is not None:
            M_inv = cholesky_solve(L, jnp.eye(vdot.shape[0], dtype=vdot.dtype))
        else:
            M_inv = mass_matrix_inverse(rebuild(primals))
        # an explicit inverse: under jacfwd one (nv, nv) product serves every direction
        return vdot, M_inv @ -r_dot  # the sign on the small operand (fused into its producer)

    fd.defjvp(fd_jvp, symbolic_zeros=True)
    return fd(*flat[0])


def with_state_jacobians(residual, args, state):
    """``residual(args, None)`` (e.g. inverse dynamics) with its (q, v) tangent from
    ``state.jacobians(args, None)`` and every other tangent through ``state.residual_frozen``."""
    flat = _flatten(args, state)
    rebuild = flat[1]

    @jax.custom_jvp
    def r(*values):
        return residual(rebuild(values), None)

    def r_jvp(primals, tangents):
        out = r(*primals)
        r_dot = _residual_tangent(residual, state, flat, primals, tangents, None)
        return out, jnp.zeros_like(out) if r_dot is None else r_dot

    r.defjvp(r_jvp, symbolic_zeros=True)
    return r(*flat[0])
