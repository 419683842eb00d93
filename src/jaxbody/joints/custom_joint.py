"""User-defined mobilizers: `CustomJoint` (X_FM(q) as a JAX function) and Simbody's
`FunctionBasedJoint` (each of the six spatial coordinates a function of q).

Simbody's Custom mobilizer asks its author for X_FM(q), H, Ḣ and the q̇ maps by hand. Here the
author writes only q ↦ X_FM; the kind derives the rest by automatic differentiation:

    J(q) = [ω_i; ∂p/∂q_i] with [ω_i]× = ∂R/∂q_i Rᵀ (one column per q),
    H(q) = J(q) N(q)        (V_FM_F = H v, about Mo, as every kind),
    Ḣv   = d/dt (H(q) v) at fixed v, along q̇ = N(q) v (one forward-mode product),

with N(q) the identity (v = q̇, the default) or the author's q̇ map, and N⁺ its
pseudo-inverse unless given. The columns are not assumed to move rigidly (``moves = None``), so
the plant differentiates these joints by forward-mode autodiff instead of the analytic RNEA
derivatives. Everything else is as for the built-in kinds: every algorithm, batched (joints of
one kind are evaluated together with `jax.vmap`; the batch-minor kernels take them) and
differentiable.

A kind is made once per distinct definition (the same function objects, sizes and names), so
joints built from one definition share a kind and are evaluated together.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.joints.joint import Joint
from jaxbody.joints.kinds import JointKind
from jaxbody.math.so3 import axis_angle_to_rotation, unskew

_KINDS = {}
_COUNTER = itertools.count()


def _as_pose(out, what):
    """(R (3, 3), p (3,)) from a `RigidTransform` or an (R, p) pair."""
    if hasattr(out, "rotation") and hasattr(out, "translation"):
        R = out.rotation()
        R = R.matrix() if hasattr(R, "matrix") else R
        return jnp.asarray(R), jnp.asarray(out.translation())
    try:
        R, p = out
    except (TypeError, ValueError):
        raise TypeError(f"{what}: X_FM(q) must return a RigidTransform or a pair (R_FM (3, 3), "
                        f"p_FM (3,)), got {type(out).__name__}") from None
    return jnp.asarray(R), jnp.asarray(p)


def _make_kind(X_FM, nq, nv, qdot_map, velocity_map, has_quaternion, names, default_q):
    label = getattr(X_FM, "__name__", "X_FM").replace("<", "").replace(">", "")

    def pose(q):
        return _as_pose(X_FM(q), f"CustomJoint kind '{label}'")

    def N_one(q):
        if qdot_map is None:
            return jnp.eye(nq, nv, dtype=q.dtype)
        return jnp.asarray(qdot_map(q), q.dtype).reshape(nq, nv)

    def Nplus_one(q):
        if velocity_map is not None:
            return jnp.asarray(velocity_map(q), q.dtype).reshape(nv, nq)
        if qdot_map is None:
            return jnp.eye(nv, nq, dtype=q.dtype)
        return jnp.linalg.pinv(N_one(q))

    def J_one(q):
        """(6, nq): the twist of X_FM per unit q̇_i, about Mo, in F."""
        R, p = pose(q)
        dR, dp = jax.jacfwd(pose)(q)  # (3, 3, nq), (3, nq)
        W = jnp.einsum("ijk,lj->kil", dR, R)  # ∂R/∂q_k Rᵀ, (nq, 3, 3)
        w = unskew(0.5 * (W - jnp.swapaxes(W, -1, -2)))  # (nq, 3)
        return jnp.concatenate([w.T, dp], 0)

    def H_one(q):
        return J_one(q) @ N_one(q)

    def Hdot_v_one(q, v):
        qdot = N_one(q) @ v
        return jax.jvp(lambda x: H_one(x) @ v, (q,), (qdot,))[1]

    class Custom(JointKind):
        name = f"custom:{label}#{next(_COUNTER)}"
        suffixes = names
        moves = None

        @classmethod
        def default_q(cls):
            return list(default_q)

        @staticmethod
        def transform(q, c):
            return jax.vmap(pose)(q)

        @staticmethod
        def subspace(q, c):
            return jax.vmap(H_one)(q)

        @staticmethod
        def subspace_dot_v(q, v, c):
            return jax.vmap(Hdot_v_one)(q, v)

        @staticmethod
        def N(q, c):
            return jax.vmap(N_one)(q)

        @staticmethod
        def Nplus(q, c):
            return jax.vmap(Nplus_one)(q)

    Custom.nq, Custom.nv, Custom.has_quaternion = nq, nv, has_quaternion
    return Custom


def custom_kind(X_FM, num_positions, num_velocities=None, *, qdot_map=None, velocity_map=None,
                has_quaternion=False, position_names=None, velocity_names=None,
                default_positions=None):
    """The `JointKind` of a user mobilizer (made once per distinct definition); see
    `CustomJoint` for the arguments."""
    nq = int(num_positions)
    nv = nq if num_velocities is None else int(num_velocities)
    if nq < 1 or nv < 1 or nv > 6 or nv > nq:
        raise ValueError(f"CustomJoint: need 1 <= num_velocities <= min(6, num_positions), got "
                         f"num_positions={num_positions}, num_velocities={num_velocities}")
    if nv != nq and qdot_map is None:
        raise ValueError(f"CustomJoint: num_positions ({nq}) != num_velocities ({nv}) needs "
                         "qdot_map, q ↦ N(q) (nq, nv) with q̇ = N(q) v")
    names = (tuple(position_names or (f"q{i}" for i in range(nq))),
             tuple(velocity_names or (f"v{i}" for i in range(nv))))
    if len(names[0]) != nq or len(names[1]) != nv:
        raise ValueError(f"CustomJoint: {nq} position names and {nv} velocity names expected, "
                         f"got {len(names[0])} and {len(names[1])}")
    if default_positions is None:
        default_positions = [1.0, 0, 0, 0] + [0.0] * (nq - 4) if has_quaternion else [0.0] * nq
    default_q = tuple(float(x) for x in np.asarray(default_positions, float).reshape(-1))
    if len(default_q) != nq:
        raise ValueError(f"CustomJoint: default_positions must have {nq} entries, "
                         f"got {len(default_q)}")
    key = (X_FM, nq, nv, qdot_map, velocity_map, bool(has_quaternion), names, default_q)
    if key not in _KINDS:
        _KINDS[key] = _make_kind(X_FM, nq, nv, qdot_map, velocity_map, bool(has_quaternion),
                                 names, default_q)
    return _KINDS[key]


def _check_definition(kind, name):
    """X_FM at the default q: right shapes, a rotation, finite (a clear error, not a JAX one)."""
    q = jnp.asarray(kind.default_q(), jnp.float64)[None]
    try:
        R, p = kind.transform(q, {})
    except TypeError as e:
        raise TypeError(f"CustomJoint '{name}': {e}") from None
    if R.shape != (1, 3, 3) or p.shape != (1, 3):
        raise ValueError(f"CustomJoint '{name}': X_FM(q) must give R_FM (3, 3) and p_FM (3,), "
                         f"got {R.shape[1:]} and {p.shape[1:]}")
    R = np.asarray(R[0])
    if not np.all(np.isfinite(R)) or np.abs(R @ R.T - np.eye(3)).max() > 1e-9 \
            or np.linalg.det(R) < 0:
        raise ValueError(f"CustomJoint '{name}': X_FM(q) at the default q {kind.default_q()} "
                         f"has a rotation that is not orthonormal (R Rᵀ − I up to "
                         f"{np.abs(R @ R.T - np.eye(3)).max():.1e}) or not proper")


class CustomJoint(Joint):
    """A joint whose motion is any smooth X_FM(q), written as a JAX function.

    Args:
        name, frame_on_parent, frame_on_child: as every joint (F on the parent, M on the child).
        X_FM: q (num_positions,) ↦ the pose of M in F, a `RigidTransform` or (R_FM, p_FM); it
            must be traceable by JAX (jnp operations) and smooth where the joint moves.
        num_positions: nq.
        num_velocities: nv (default nq, with v = q̇).
        qdot_map: q ↦ N(q) (nq, nv), q̇ = N(q) v; needed when nv != nq. The columns of
            H = ∂(X_FM)/∂q · N must be independent where the joint moves.
        velocity_map: q ↦ N⁺(q) (nv, nq); default the pseudo-inverse of N.
        has_quaternion: q[:4] is a quaternion that integrators keep normalized.
        position_names, velocity_names: suffixes of the state names (default q0.., v0..).
        default_positions: the default q (default zeros, or the identity quaternion first).
        damping: viscous damping per velocity (N·m·s or N·s).

    Example (a revolute joint about z, written as a custom joint)::

        def X_FM(q):
            return jaxbody.RigidTransform(jaxbody.RotationMatrix.MakeZRotation(q[0]), jnp.zeros(3))
        joint = plant.AddJoint(CustomJoint("hinge", F, M, X_FM, 1))
    """

    def __init__(self, name, frame_on_parent, frame_on_child, X_FM, num_positions,
                 num_velocities=None, *, qdot_map=None, velocity_map=None, has_quaternion=False,
                 position_names=None, velocity_names=None, default_positions=None, damping=0.0):
        if not callable(X_FM):
            raise TypeError(f"CustomJoint '{name}': X_FM must be a function q ↦ X_FM, "
                            f"got {type(X_FM).__name__}")
        self.kind = custom_kind(X_FM, num_positions, num_velocities, qdot_map=qdot_map,
                                velocity_map=velocity_map, has_quaternion=has_quaternion,
                                position_names=position_names, velocity_names=velocity_names,
                                default_positions=default_positions)
        _check_definition(self.kind, name)
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)


def _unit(a, what):
    a = np.asarray(a, float)
    n = np.linalg.norm(a)
    if a.shape != (3,) or not np.isfinite(n) or n < 1e-12:
        raise ValueError(f"FunctionBasedJoint: {what} must be a nonzero 3-vector, got {a!r}")
    return a / n


def _function_based_pose(functions, indices, rot_axes, trans_axes):
    rot_axes = tuple(jnp.asarray(a) for a in rot_axes)
    trans_axes = tuple(jnp.asarray(a) for a in trans_axes)

    def X_FM(q):
        s = [f(q[jnp.asarray(ix, dtype=int)]) if len(ix) else f(q[:0])
             for f, ix in zip(functions, indices)]
        s = [jnp.reshape(jnp.asarray(x, q.dtype), ()) for x in s]
        R = jnp.eye(3, dtype=q.dtype)
        for a, angle in zip(rot_axes, s[:3]):
            R = R @ axis_angle_to_rotation(a.astype(q.dtype), angle)
        p = sum((a.astype(q.dtype) * x for a, x in zip(trans_axes, s[3:])),
                jnp.zeros(3, q.dtype))
        return R, p

    X_FM.__name__ = "function_based"
    return X_FM


_FUNCTION_BASED = {}


class FunctionBasedJoint(CustomJoint):
    """Simbody's FunctionBased mobilizer (OpenSim's CustomJoint): nq = nv = ``num_mobilities``
    coordinates, v = q̇, and six spatial coordinates s_i = fᵢ(q[coordinate_indices[i]]):

        R_FM = R(s₁, a₁)·R(s₂, a₂)·R(s₃, a₃)   (a body-fixed sequence about axes given in F),
        p_FM = s₄ t₁ + s₅ t₂ + s₆ t₃          (in F).

    Args:
        functions: six JAX functions, each of a 1-D array (the selected coordinates) to a
            scalar (e.g. ``lambda x: x[0]``, or a spline of a knee angle).
        coordinate_indices: six lists of indices into this joint's q (default: ``[[0], [1],
            ...]`` for the first ``num_mobilities`` functions and ``[]`` for the rest, which then
            get an empty array).
        rotation_axes, translation_axes: three each (default x, y, z), made unit.
    """

    def __init__(self, name, frame_on_parent, frame_on_child, num_mobilities, functions,
                 coordinate_indices=None, rotation_axes=None, translation_axes=None, *,
                 position_names=None, default_positions=None, damping=0.0):
        n = int(num_mobilities)
        if len(functions) != 6 or not all(callable(f) for f in functions):
            raise ValueError(f"FunctionBasedJoint '{name}': six functions expected (three "
                             f"rotations, three translations), got {len(functions)}")
        if coordinate_indices is None:
            coordinate_indices = [[i] if i < n else [] for i in range(6)]
        if len(coordinate_indices) != 6:
            raise ValueError(f"FunctionBasedJoint '{name}': six coordinate index lists expected")
        indices = tuple(tuple(int(i) for i in ix) for ix in coordinate_indices)
        for ix in indices:
            if any(i < 0 or i >= n for i in ix):
                raise ValueError(f"FunctionBasedJoint '{name}': coordinate index out of range "
                                 f"[0, {n}) in {list(ix)}")
        eye = np.eye(3)
        rot = tuple(_unit(a, "a rotation axis") for a in (rotation_axes or eye))
        trans = tuple(_unit(a, "a translation axis") for a in (translation_axes or eye))
        key = (tuple(functions), indices, tuple(a.tobytes() for a in rot + trans))
        if key not in _FUNCTION_BASED:  # one pose function, hence one kind, per definition
            _FUNCTION_BASED[key] = _function_based_pose(tuple(functions), indices, rot, trans)
        super().__init__(name, frame_on_parent, frame_on_child, _FUNCTION_BASED[key], n,
                         position_names=position_names, default_positions=default_positions,
                         damping=damping)


__all__ = ["CustomJoint", "FunctionBasedJoint", "custom_kind"]
