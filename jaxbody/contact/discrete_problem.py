"""The contact problem of one discrete step (Drake's ``SapDriver`` with kSap): assembly from the
free motion and the point contacts, the solve, and the contact outputs.

Given the free motion (A = M + δt·D, v*, `free_motion`) of the plant at x₀ = (q₀, v₀) and its `PointContacts`:
- one compliant friction cone per penetrating point (φ₀ ≤ 0; Drake's point contact), with its
  per-tree Jacobian (`contact_jacobian`) and Drake's regularization from the Delassus estimate;
- a near-rigid limit constraint (k = 1e12, τ = δt, β = 0.1) for each 1-dof joint with a finite
  limit inside the window q₀ ± 2δt·max(|v₀|, |v*|) (Drake's rule);
- the near-rigid bilateral rows of the active coupler and ball constraints
  (`holonomic_constraints`);
then v = argmin ℓ(v) (`sap_solver.solve`, warm start). Only the K deepest slots enter the problem
when that is exact (`capacity`). Everything is pure: jit, vmap and grad apply.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import crba
from jaxbody.contact import capacity as cap
from jaxbody.contact import constraints as C
from jaxbody.contact.contact_jacobian import contact_frames, contact_jacobian
from jaxbody.contact.holonomic_constraints import ball_part, coupler_part
from jaxbody.contact.sap_problem import SapProblem
from jaxbody.contact.sap_solver import solve
from jaxbody.contact.tree_jacobian import TreeJacobian
from jaxbody.math.cholesky import block_diagonal_spd_solve, spd_solve

NEAR_RIGID_THRESHOLD = 1.0  # Drake's default sap_near_rigid_threshold β for contact
FRICTION_SIGMA = 1.0e-3  # Drake's σ
LIMIT_STIFFNESS = 1.0e12
LIMIT_BETA = 0.1
LIMIT_WINDOW_FACTOR = 2.0


class ContactSolution(NamedTuple):
    """What a discrete step knows about its contacts (arrays over the plant's point slots).

    Attributes:
        active: (P,) 1 where the point was a constraint of this step.
        p_WC: (P, 3) contact points; nhat_BA_W: (P, 3) normals (from B into A).
        phi: (P,) signed distances at the start of the step.
        R_WC: (P, 3, 3) contact frames, columns (t₁, t₂, n).
        gamma: (P, 3) impulses on A in C (N·s); f = γ/δt.
        vc: (P, 3) contact velocities of A relative to B in C at the next velocities (zero in
            slots that are not active).
        tau_contact: (nv,) generalized contact forces Jᵀγ/δt.
        limit_impulses: (L,) joint-limit impulses (N·s or N·m·s).
        coupler_impulses: (C,) coupler-constraint impulses on joint 0's dof (N·s or N·m·s;
            joint 1 receives −ρ times it), zero for inactive constraints.
        ball_impulses: (B, 3) ball-constraint impulses in World, on body B at Q (−it on A
            at P).
        overflow: () True when a contact may be missing from the step: more points penetrated
            than ``set_max_active_contacts`` allows, or the collision query's culling
            (``ContactQueryOptions.max_pairs_per_group``) dropped a pair whose bounding spheres
            touch.
    """

    active: jax.Array
    p_WC: jax.Array
    nhat_BA_W: jax.Array
    phi: jax.Array
    R_WC: jax.Array
    gamma: jax.Array
    vc: jax.Array
    tau_contact: jax.Array
    limit_impulses: jax.Array
    overflow: jax.Array
    coupler_impulses: jax.Array | None = None
    ball_impulses: jax.Array | None = None


def discrete_layout(topo, joints, couplers=(), balls=()) -> dict:
    """Static (NumPy) data of a plant's contact problems, built once per plant: the kinematic
    tree of every node (``tree``, ``tree_index``, ``dof_tree``), the `TreeJacobian` layout, the
    limited 1-dof joints (``limit_dof``, ``limit_q``, ``limit_lo``, ``limit_hi``) and the
    coupler constraints' dofs and positions (``coupler_dof`` (C, 2), ``coupler_q`` (C, 2)) from
    ``couplers``, pairs of 1-dof joints (joint0, joint1), and the ball constraints' body nodes
    and points (``ball_nodes`` (B, 2), ``ball_p_AP``, ``ball_p_BQ`` (B, 3)) from ``balls``,
    tuples (BodyIndex A, p_AP, BodyIndex B, p_BQ)."""
    tree = np.zeros(topo.num_nodes, np.int64)  # depth-1 ancestor of each node; 0: the world
    for node in range(1, topo.num_nodes):
        n = node
        while topo.parent[n] != 0:
            n = topo.parent[n]
        tree[node] = n
    dofs, lo, hi, qi = [], [], [], []
    for j in joints:
        if j.num_positions() == 1 and j.num_velocities() == 1:
            ql = float(np.asarray(j.position_lower_limits())[0])
            qu = float(np.asarray(j.position_upper_limits())[0])
            if np.isfinite(ql) or np.isfinite(qu):
                dofs.append(j.velocity_start())
                qi.append(j.position_start())
                lo.append(ql)
                hi.append(qu)
    # Trees that own dofs, numbered 0..T-1; T stands for the world and dof-less trees.
    owners = np.unique(tree[topo.dof_node])
    tree_index = np.full(topo.num_nodes, owners.size, np.int64)
    tree_index[np.isin(tree, owners)] = np.searchsorted(owners, tree[np.isin(tree, owners)])
    dof_map, dof_slot, pair_slot = TreeJacobian.layout(tree_index[topo.dof_node], owners.size)
    cdof = np.array([[j0.velocity_start(), j1.velocity_start()] for j0, j1 in couplers],
                    np.int64).reshape(-1, 2)
    cq = np.array([[j0.position_start(), j1.position_start()] for j0, j1 in couplers],
                  np.int64).reshape(-1, 2)
    return dict(tree=tree, dof_tree=tree[topo.dof_node], tree_index=tree_index,
                dof_map=dof_map, dof_slot=dof_slot, pair_slot=pair_slot,
                limit_dof=np.asarray(dofs, np.int64), limit_q=np.asarray(qi, np.int64),
                limit_lo=np.asarray(lo), limit_hi=np.asarray(hi), coupler_dof=cdof,
                coupler_q=cq,
                ball_nodes=np.asarray(topo.body_node)[np.array(
                    [[b[0], b[2]] for b in balls], np.int64).reshape(-1, 2)].reshape(-1, 2),
                ball_p_AP=np.array([b[1] for b in balls], float).reshape(-1, 3),
                ball_p_BQ=np.array([b[3] for b in balls], float).reshape(-1, 3))


def free_motion(topo, layout, dt, dk, tau, F_O, gravity_parameters, reflected_inertia,
                damping, v0):
    """(A, v*) of the step from x₀: A = M(q₀) + δt·D (M with the reflected rotor inertia, D the
    joint damping, implicit) and v* = v₀ + δt·A⁻¹ k(x₀), k = τ + τ_g − C v₀ − Σ Jᵀ F_app.

    Args:
        dk: `DynamicsKinematics` at x₀; tau: (nv,) generalized forces (actuation, damping
            −D v₀, force elements, applied); F_O: (n, 6) applied wrenches about Wo, or None;
        gravity_parameters: as `energy.gravity_generalized_forces` takes them;
        reflected_inertia, damping, v0: (nv,).
    """
    M, k0 = crba.forward_dynamics_system(topo, dk, tau, gravity_parameters, F_O,
                                         reflected_inertia)
    A = M + dt * jnp.diag(damping)
    dof_map = layout["dof_map"]
    if dof_map.shape[0] > 2:  # several trees: A is block diagonal by tree
        return A, v0 + dt * block_diagonal_spd_solve(A, k0, dof_map[:-1])
    return A, v0 + dt * spd_solve(A, k0)


def _contact_part(topo, layout, dt, dk, inv_diag_A, pc, dtype):
    """(Jc, Rc, v̂c, μ, active, R_WC, nodes a, b) of the point slots ``pc`` (None: no slots)."""
    if pc is None:
        z3 = jnp.zeros((0, 3), dtype)
        z = jnp.zeros((0,), dtype)
        return (TreeJacobian.from_dense(jnp.zeros((0, 3, topo.nv), dtype)), z3, z3, z, z,
                jnp.zeros((0, 3, 3), dtype), None, None)
    body_node = jnp.asarray(topo.body_node)
    na, nb = body_node[pc.body_a], body_node[pc.body_b]
    R_WC = contact_frames(pc.nhat_BA_W)
    Jc = contact_jacobian(topo, dk.pk, layout, na, nb, pc.p_WC, R_WC)
    active = (pc.valid & (pc.phi <= 0)).astype(dtype)
    w = C.delassus_estimate(Jc, inv_diag_A)
    Rc, vhat = C.cone_regularization(w, pc.k, pc.tau, pc.phi, dt, NEAR_RIGID_THRESHOLD,
                                     FRICTION_SIGMA)
    return Jc, Rc, vhat, pc.mu, active, R_WC, na, nb


def _limit_part(layout, dt, q0, v0, v_star, inv_diag_A, dtype, nv):
    """(Jl, Rl, v̂l, active, dofs) of the joint-limit constraints (a lower and an upper row per
    limited 1-dof joint)."""
    ld = layout["limit_dof"]
    if not ld.size:
        z = jnp.zeros((0,), dtype)
        return jnp.zeros((0, nv), dtype), z, z, z, ld
    q, v = q0[layout["limit_q"]], v0[ld]
    dq = dt * jnp.maximum(jnp.abs(v), jnp.abs(v_star[ld]))
    lo_np, hi_np = layout["limit_lo"], layout["limit_hi"]
    on_lo, on_hi = np.isfinite(lo_np), np.isfinite(hi_np)
    lo, hi = jnp.asarray(lo_np, dtype), jnp.asarray(hi_np, dtype)
    act_lo = jnp.where(on_lo, lo >= q - LIMIT_WINDOW_FACTOR * dq, False)
    act_hi = jnp.where(on_hi, hi <= q + LIMIT_WINDOW_FACTOR * dq, False)
    g0 = jnp.concatenate([jnp.where(on_lo, q - lo, 0.0), jnp.where(on_hi, hi - q, 0.0)])
    eye = np.eye(nv)[ld]
    Jl = jnp.asarray(np.concatenate([eye, -eye]), dtype)
    active = jnp.concatenate([act_lo, act_hi]).astype(dtype)
    w = jnp.concatenate([inv_diag_A[ld], inv_diag_A[ld]])
    Rl, vhat = C.limit_regularization(w, g0, dt, LIMIT_STIFFNESS, dt, LIMIT_BETA)
    return Jl, Rl, vhat, active, np.concatenate([ld, ld])


def build_problem(topo, layout, dt, dk, A, v_star, q0, v0, pc, constraints=None):
    """The `SapProblem` of a step and the slots' contact frames R_WC.

    Args:
        topo: the plant's topology; layout: `discrete_layout`; dt: the time step.
        dk: the dynamics kinematics at q₀ (its poses ``pk``); A (nv, nv), v_star (nv,): the free
            motion; q0, v0: the state; pc: `PointContacts` of the slots, or None.
        constraints: the Context's constraint parameters (``Parameters.constraints``).
    """
    dtype, nv = v_star.dtype, topo.nv
    inv_diag_A = 1.0 / jnp.diagonal(A)
    Jc, Rc, vhat_c, mu, active_c, R_WC, na, nb = _contact_part(topo, layout, dt, dk, inv_diag_A,
                                                               pc, dtype)
    Jl, Rl, vhat_l, active_l, limit_dofs = _limit_part(layout, dt, q0, v0, v_star, inv_diag_A,
                                                       dtype, nv)
    # Bilateral rows after the limits: couplers, then balls (γ unbounded below).
    bilateral = []
    row_active, row_dofs = active_l, limit_dofs
    if layout["coupler_dof"].shape[0]:
        Jk, Rk, vhat_k, active_k, k_dofs = coupler_part(layout, dt, q0, inv_diag_A,
                                                        constraints, dtype, nv)
        bilateral.append((Jk, Rk, vhat_k, active_k))
        row_active = jnp.concatenate([row_active, jnp.repeat(active_k, 2)])
        row_dofs = np.concatenate([row_dofs, k_dofs])
    if layout["ball_nodes"].shape[0]:
        bilateral.append(ball_part(topo, layout, dt, dk.pk, inv_diag_A, constraints, dtype))
    lower_l = None
    if bilateral:
        n_bi = sum(b[1].shape[0] for b in bilateral)
        lower_l = jnp.concatenate([jnp.zeros(Rl.shape, dtype), jnp.full(n_bi, -jnp.inf, dtype)])
        Jl = jnp.concatenate([Jl] + [b[0] for b in bilateral])
        Rl = jnp.concatenate([Rl] + [b[1] for b in bilateral])
        vhat_l = jnp.concatenate([vhat_l] + [b[2] for b in bilateral])
        active_l = jnp.concatenate([active_l] + [b[3] for b in bilateral])
    # Drake's "participating" velocities: those of trees with an active constraint.
    participating = jnp.zeros(topo.num_nodes, dtype)
    if na is not None:
        tree = jnp.asarray(layout["tree"])
        participating = participating.at[tree[na]].max(active_c)
        participating = participating.at[tree[nb]].max(active_c)
    if row_dofs.size:
        participating = participating.at[layout["dof_tree"][row_dofs]].max(row_active)
    if layout["ball_nodes"].shape[0]:  # both bodies' trees (the world's tree, 0, has no dofs)
        tree = jnp.asarray(layout["tree"])
        ball_active = jnp.asarray(constraints["ball_active"], dtype)
        for side in range(2):
            participating = participating.at[tree[layout["ball_nodes"][:, side]]].max(
                ball_active)
    scale_mask = participating[layout["dof_tree"]]
    problem = SapProblem(A, v_star, Jc, Rc, vhat_c, mu, active_c, Jl, Rl, vhat_l, active_l,
                         scale_mask, lower_l=lower_l)
    return problem, R_WC


def _solve_slots(topo, layout, dt, dk, A, v_star, q0, v0, pc, v_guess, params, constraints):
    """(v, stats, per-slot (active, γ, vc), τ_contact, limit and coupler impulses) with the
    slots ``pc``."""
    problem, _ = build_problem(topo, layout, dt, dk, A, v_star, q0, v0, pc, constraints)
    v, stats = solve(problem, v_guess, params)
    vc = problem.Jc.apply(v)
    gamma = C.cone_impulses(vc, problem.Rc, problem.vhat_c, problem.mu, problem.active_c)
    gl = C.limit_impulses(problem.Jl @ v, problem.Rl, problem.vhat_l, problem.active_l,
                          problem.lower_l)
    tau_c = problem.Jc.apply_transpose(gamma) / dt
    active = problem.active_c
    return v, stats, (active, gamma, vc * active[:, None]), tau_c, gl


def solve_step(topo, layout, dt, dk, A, v_star, q0, v0, pc, v_guess, params=None,
               capacity=None, constraints=None):
    """The next velocities of a discrete step: (v (nv,), `ContactSolution` (overflow False),
    `SapStatistics`).

    ``capacity``: solve with the ``capacity`` deepest slots of ``pc`` when, over the whole
    ``vmap`` batch, no more points penetrate (`capacity.batch_all`); the full problem otherwise.
    Both give the same solution. None: always every slot. ``constraints``: the Context's
    constraint parameters (``Parameters.constraints``).
    """
    def run(slots):
        return _solve_slots(topo, layout, dt, dk, A, v_star, q0, v0, slots, v_guess, params,
                            constraints)

    P = 0 if pc is None else pc.phi.shape[0]
    if pc is None or capacity is None or capacity >= P:
        v, stats, (active, gamma, vc), tau_c, gl = run(pc)
    else:
        idx = cap.deepest_slots(pc.phi, pc.valid, capacity)

        def compact():
            v, stats, per_slot, tau_c, gl = run(cap.take_slots(pc, idx))
            full = tuple(jnp.zeros((P,) + x.shape[1:], x.dtype).at[idx].set(x) for x in per_slot)
            return v, stats, full, tau_c, gl

        fits = cap.batch_all(cap.num_penetrating(pc.phi, pc.valid) <= capacity)
        v, stats, (active, gamma, vc), tau_c, gl = jax.lax.cond(fits, compact, lambda: run(pc))
    if pc is None:
        z = jnp.zeros((0,), v.dtype)
        frames = (jnp.zeros((0, 3), v.dtype), jnp.zeros((0, 3), v.dtype), z,
                  jnp.zeros((0, 3, 3), v.dtype))
    else:
        frames = (pc.p_WC, pc.nhat_BA_W, pc.phi, contact_frames(pc.nhat_BA_W))
    nk, nb = layout["coupler_dof"].shape[0], 3 * layout["ball_nodes"].shape[0]
    n_lim = gl.shape[0] - nk - nb
    gl, gk, gb = gl[:n_lim], gl[n_lim:n_lim + nk], gl[n_lim + nk:]
    return v, ContactSolution(active, *frames, gamma, vc, tau_c, gl, jnp.asarray(False),
                              gk, gb.reshape(-1, 3)), stats
