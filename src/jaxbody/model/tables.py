"""Typed per-element tables of a compiled `Model`: NumPy arrays indexed by body, joint, actuator
or model instance, and the names that error messages quote. Built by
`jaxbody.plant.compile_model`; never traced, never mutated."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class BodyTable(NamedTuple):
    """Bodies in BodyIndex order.

    Attributes:
        names: each body's name.
        instance: (nb,) ModelInstanceIndex of each body.
        gravity_disabled: (k,) BodyIndex of the bodies whose model instance has gravity off.
    """

    names: tuple
    instance: np.ndarray
    gravity_disabled: np.ndarray


class FrameTable(NamedTuple):
    """Frames in FrameIndex order (their poses in their bodies are parameters).

    Attributes:
        names: each frame's name.
        instance: (nf,) ModelInstanceIndex of each frame.
        body: (nf,) BodyIndex of the body each frame is fixed to.
    """

    names: tuple
    instance: np.ndarray
    body: np.ndarray


class JointTable(NamedTuple):
    """Joints in JointIndex order, and the plant's stacked limits.

    Attributes:
        names, type_names: each joint's name and Drake type name.
        kinds: each joint's `JointKind` class.
        instance: (nj,) ModelInstanceIndex of each joint.
        q_start, nq, v_start, nv: (nj,) each joint's coordinates in q and v.
        node: (nj,) the tree node the joint moves.
        q_lower, q_upper: (nq_total,) position limits, in q order.
        v_lower, v_upper: (nv_total,) velocity limits, in v order.
        a_lower, a_upper: (nv_total,) acceleration limits, in v order (reported, not enforced,
            as in Drake).
        random_samplers: each joint's random distribution of its positions for
            ``SetRandomState`` (a pure-JAX callable PRNG key -> (nq,)), or None.
    """

    names: tuple
    type_names: tuple
    kinds: tuple
    instance: np.ndarray
    q_start: np.ndarray
    nq: np.ndarray
    v_start: np.ndarray
    nv: np.ndarray
    node: np.ndarray
    q_lower: np.ndarray
    q_upper: np.ndarray
    v_lower: np.ndarray
    v_upper: np.ndarray
    a_lower: np.ndarray
    a_upper: np.ndarray
    random_samplers: tuple


class ActuatorTable(NamedTuple):
    """Joint actuators in JointActuatorIndex order.

    Attributes:
        names: each actuator's name.
        instance: (nu,) ModelInstanceIndex of each actuator.
        dof: (nu,) the velocity index its (single-dof) joint drives.
        q: (nu,) the position index of that joint.
        effort_limit: (nu,) the effort limit (inf: none).
        has_pd: (nu,) bool, whether it has PD controller gains.
    """

    names: tuple
    instance: np.ndarray
    dof: np.ndarray
    q: np.ndarray
    effort_limit: np.ndarray
    has_pd: np.ndarray

    @property
    def pd(self) -> np.ndarray:
        """The actuator indices with PD gains, in actuator order."""
        return np.flatnonzero(self.has_pd)

    def actuation_matrix(self, nv: int) -> np.ndarray:
        """B (nv, nu): B[dof(a), a] = 1."""
        B = np.zeros((nv, self.dof.shape[0]))
        B[self.dof, np.arange(self.dof.shape[0])] = 1.0
        return B


class InstanceTable(NamedTuple):
    """Model instances in ModelInstanceIndex order.

    Attributes:
        names: each instance's name.
        q_index, v_index, actuator_index: per instance, its entries of q, v and u, in plant
            order.
    """

    names: tuple
    q_index: tuple
    v_index: tuple
    actuator_index: tuple
