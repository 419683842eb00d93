"""Forward dynamics (ABA) of a batch with the batch on the last axis.

`kinematics.dynamics_kinematics` and the articulated-body passes that the per-sample path
shares (`aba.articulated_body_passes`): the same math as `aba.forward_dynamics`, laid out so
that every spatial product is element-wise over the batch.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms.aba import articulated_body_passes
from jaxbody.algorithms.batch_minor.algebra import force_cross, gather_sum, mv, take
from jaxbody.algorithms.batch_minor.kinematics import (
    applied_about_origin,
    dynamics_kinematics,
    level_order,
)


def dof_inputs(topo, lo):
    """Static maps from level-ordered nodes to the dof tree's level order ``tree.order``:
    the bodies hanging from each dof, and the node whose joint each dof starts (or none)."""
    tree = topo.dof_tree
    attach, first = tree.attach[lo.nodes], tree.first[lo.nodes]  # (n, nv)
    hanging = [list(np.flatnonzero(attach[:, d])) for d in tree.order]
    starts = [list(np.flatnonzero(first[:, d])) for d in tree.order]
    return hanging, starts


def forward_dynamics(topo, q, v, tau, mass, com, unit_inertia, frame_R, frame_p, gravity,
                     refl, F_Bo_W=None):
    """v̇ (nv, B). q (nq, B), v and tau (nv, B); parameters as in
    `kinematics.dynamics_kinematics`; gravity (3, b), refl (nv, b); F_Bo_W: applied spatial
    forces (6, num_bodies, b) on each body at Bo in W, or None."""
    bk = dynamics_kinematics(topo, q, v, mass, com, unit_inertia, frame_R, frame_p)
    return forward_dynamics_of(topo, bk, tau, gravity, refl, F_Bo_W)


def forward_dynamics_of(topo, bk, tau, gravity, refl, F_Bo_W=None):
    """`forward_dynamics` from the batch's kinematics ``bk`` (`dynamics_kinematics`)."""
    lo = level_order(topo)
    tree = topo.dof_tree
    dtype = tau.dtype
    pA_b = force_cross(bk.V_O, mv(bk.M_O, bk.V_O))
    if F_Bo_W is not None:
        pA_b = pA_b - applied_about_origin(topo, lo, bk, F_Bo_W)
    hanging, starts = dof_inputs(topo, lo)
    order = tree.order
    refl = jnp.broadcast_to(refl, (tau.shape[0],) + refl.shape[1:])
    A_world = jnp.concatenate([jnp.zeros_like(gravity), -gravity.astype(dtype)])[:, None]
    vdot = articulated_body_passes(
        tree, gather_sum(bk.M_O, hanging), gather_sum(pA_b, hanging),
        gather_sum(bk.c_O, starts), bk.S_L, take(tau, order, 0),
        take(refl, order, 0), A_world, level_ordered=True)  # (6, 1, b) world acceleration
    return take(vdot, np.argsort(order), 0)
