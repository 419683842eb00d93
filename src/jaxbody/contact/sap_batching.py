"""How a ``vmap`` batch of SAP problems runs its Newton iterations, per platform (picked when
lowering, ``lax.platform_dependent``).

Elsewhere than on a CPU (a GPU): lock step, the ``vmap`` of `sap_newton.newton`, a vectorized
``while_loop`` in which finished members are held fixed until the slowest is done.

On a CPU: one solve per member in a loop (``sequential_vmap``), each member paying for its own
iterations. Lock step was measured slower there in every form tried (8 spheres, nv 48, batch 64,
float64, one core; per member and step):
- plain lock step, 3.0x slower (328 against 109 µs): over 200-step rollouts of 64 environments
  the lock-step Newton iteration count is 2.8x the useful one on 8 spheres and 3.2x on a
  12-sphere pile (1.9x and 1.85x even in chunks of 8), and the line search's inner loop adds its
  own lock-step waste;
- the first Newton iteration vectorized over the batch (nearly every member needs one, and 69 %
  of the steps need no other; 68 % on the pile, 85 % on the quadruped), the rest member by
  member: 117 against 109 µs on contact-rich states, 41 against 21 µs on states mostly in
  flight, 166 against 111 µs over a 100-step rollout;
- only the first Newton direction (Hessian and Cholesky) vectorized: 120 against 109 µs.
A member's own iteration cost ~35 µs in ~110 XLA operations then (~0.1 µs each, besides the
work); since, 88 per iteration plus 11 per line-search evaluation (4.5 per iteration: the whole
constraint pass one fusion) and 55 per solve, the 48 × 48 Cholesky 6.6 µs of it, and a 100-step
rollout of 64 runs at 90 µs per member and step (120 before). A batch-major vectorized
iteration costs a member more (Hessian assembly 9.4 µs, the per-member LAPACK
factor-and-solve loop 10.8 µs, the lock-step line search 10 µs); and a batch-minor Cholesky
unrolled over a 48 × 48 matrix (65 µs per member, 68 s to compile) is no alternative to LAPACK
(10.8 µs) at these sizes. Nor is a dense Jacobian in the member's loop (one (3nc × nv) matrix,
so each product is one dot): 180 against 110 µs per solve on 8 spheres, JᵀGJ alone 46 µs as a
dense product where the tree form's blocks take 5; with only the products J·x and Jᵀγ dense,
152 against 111 µs.
"""

from __future__ import annotations

import functools

import jax
from jax.custom_batching import sequential_vmap

from jaxbody.contact.sap_newton import newton
from jaxbody.contact.sap_problem import SapSolverParameters


def _newton(p, v_guess, params_tuple):
    return newton(p, v_guess, SapSolverParameters(*params_tuple))


def newton_batched(p, v_guess, params_tuple):
    """`sap_newton.newton` with ``SapSolverParameters(*params_tuple)``; under ``vmap``, a loop
    over the members on CPU and lock step elsewhere (see the module docstring):
    (v, `SapStatistics`)."""
    fn = functools.partial(_newton, params_tuple=params_tuple)
    return jax.lax.platform_dependent(p, v_guess, cpu=sequential_vmap(fn), default=fn)
