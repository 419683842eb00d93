"""How many contact slots a SAP problem holds: slot selection and the batch-wide capacity test.

A collision query has P point slots (every candidate pair times its points), but only the
penetrating ones are constraints: in a settled pile of 27 spheres, 30 of 486. Every per-slot
part of a Newton iteration (J v, Jᵀγ, JᵀGJ, the line search) costs O(P), so a discrete step
solves the problem restricted to its K deepest slots. That is exact whenever at most K points
penetrate (inactive slots have γ = 0 and G = 0); when more do, the step solves the full problem
instead. Under ``jax.vmap`` the choice is made once for the whole batch (`batch_all`): the
compact problem when every member fits, the full one otherwise, so a batch never runs both.

    idx = deepest_slots(phi, valid, K)         (K,) slot indices, penetrating ones first
    pc = keep_deepest(pc, limit)               a user's cap: the deepest slots, overflow flagged
    fits = batch_all(n_penetrating <= K)       unbatched under vmap: a real ``lax.cond``
    K = default_capacity(P, num_bodies)        the library's choice (None: no compaction)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.math.batching import batch_all  # noqa: F401 (re-exported)

POINTS_PER_BODY = 3  # default capacity per body that can touch something
MIN_CAPACITY = 32


def deepest_slots(phi, valid, k):
    """(k,) indices of the ``k`` deepest valid slots (smallest φ first); invalid slots last."""
    score = jnp.where(valid, -phi, -jnp.inf)
    return jax.lax.top_k(score, k)[1]


def take_slots(pc, idx):
    """The `PointContacts` ``pc`` restricted to the slots ``idx`` (per-slot fields gathered;
    scalars such as ``overflow`` kept)."""
    P = pc.phi.shape[0]
    return pc._replace(**{f: getattr(pc, f)[idx] for f in pc._fields
                          if jnp.ndim(getattr(pc, f)) and getattr(pc, f).shape[0] == P})


def keep_deepest(pc, limit):
    """``pc`` restricted to its ``limit`` deepest valid slots (``set_max_active_contacts``), with
    ``overflow`` set when more than ``limit`` points penetrate (a contact is then dropped)."""
    dropped = num_penetrating(pc.phi, pc.valid) > limit
    kept = take_slots(pc, deepest_slots(pc.phi, pc.valid, limit))
    return kept._replace(overflow=jnp.asarray(pc.overflow) | dropped)


def num_penetrating(phi, valid):
    """Number of valid slots with φ ≤ 0 (the contact constraints of a step)."""
    return jnp.sum(valid & (phi <= 0))


def default_capacity(num_slots: int, num_bodies: int, extra: int = 0) -> int | None:
    """The library's capacity for P = ``num_slots`` slots and ``num_bodies`` bodies that can
    touch: max(`MIN_CAPACITY`, `POINTS_PER_BODY` · bodies) + ``extra`` (the hydroelastic
    quadrature points expected) rounded up to a multiple of 8, or None (solve every slot) when
    that is more than half of P (compaction would not pay)."""
    k = max(MIN_CAPACITY, POINTS_PER_BODY * int(num_bodies)) + int(extra)
    k = -(-k // 8) * 8
    return None if 2 * k > num_slots else k
