"""The contact problem of one discrete step (Drake's ``SapDriver`` with kSap): assembly from the
free motion and the point contacts, the solve, and the contact outputs.

Given the free motion (A = M + δt·D, v*, `free_motion`) of the plant at x₀ = (q₀, v₀) and its `PointContacts`:
- one compliant friction cone per penetrating point (φ₀ ≤ 0; Drake's point contact), with its
  per-tree Jacobian (`contact_jacobian`) and Drake's regularization from the Delassus estimate;
- a near-rigid limit constraint (k = 1e12, τ = δt, β = 0.1) for each 1-dof joint with a finite
  limit inside the window q₀ ± 2δt·max(|v₀|, |v*|) (Drake's rule);
- the implicit PD-controlled actuators (`pd_controllers`) and the bilateral rows of the
  coupler, distance, ball and weld constraints (`holonomic_constraints`), in Drake's order;
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
from jaxbody.contact import holonomic_constraints as H
from jaxbody.contact import hunt_crossley
from jaxbody.contact import sap_problem as sp
from jaxbody.contact.contact_jacobian import contact_frames, contact_jacobian, empty_contact_jacobian
from jaxbody.contact.discrete_layout import DiscreteLayout
from jaxbody.contact.pd_controllers import pd_part
from jaxbody.contact.sap_problem import SapProblem, SelectionRows
from jaxbody.contact.sap_solver import solve
from jaxbody.math.cholesky import spd_solve, spd_solve_by_blocks

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
        distance_impulses: (D,) distance-constraint impulses along p̂ = p_PQ/‖p_PQ‖, on B at Q
            (−γp̂ on A at P); positive pushes the points apart.
        weld_impulses: (W, 6) weld-constraint spatial impulses (angular, translational) in
            World on B at the midpoint M (−it on A).
        pd_impulses: (P,) the PD-controlled actuators' impulses δt·u (u the actuation they
            applied, effort limit included), zero for disarmed controllers.
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
    distance_impulses: jax.Array | None = None
    weld_impulses: jax.Array | None = None
    pd_impulses: jax.Array | None = None


class StepData(NamedTuple):
    """The inputs of one step's SAP problem that do not depend on the contact slots.

    Attributes:
        topo: the model's `Topology`; layout: its `DiscreteLayout`; dt: the time step (s).
        dk: the dynamics kinematics at q₀ (its poses ``pk``).
        A: M + δt·D as `free_motion` gives it: (nv, nv), or its tree blocks (T+1, d, d) on a
            plant of several trees; v_star: (nv,) the free-motion velocities.
        q0, v0: the state at the start of the step.
        constraints: the Context's constraint parameters (``Parameters.constraints``).
        pd_inputs: (q_d, v_d, u_ff, armed), each (P,), of the PD-controlled actuators, or None.
    """

    topo: object
    layout: DiscreteLayout
    dt: float
    dk: object
    A: jax.Array
    v_star: jax.Array
    q0: jax.Array
    v0: jax.Array
    constraints: dict | None = None
    pd_inputs: tuple | None = None


def free_motion(topo, layout, dt, dk, tau, F_O, gravity_parameters, reflected_inertia,
                damping, v0):
    """(A, v*) of the step from x₀: A = M(q₀) + δt·D (M with the reflected rotor inertia, D the
    joint damping, implicit) and v* = v₀ + δt·A⁻¹ k(x₀), k = τ + τ_g − C v₀ − Σ Jᵀ F_app.

    A is dense (nv, nv) on a plant of one tree; on a plant of several trees it is block diagonal
    by tree and given as its tree blocks (T+1, d, d) (`crba.mass_matrix_tree_blocks`, rows
    ``layout.trees.dof_map``): O(T·d²) to make and to solve with, where the dense matrix cost
    O(nv²) per pass (on 12 free spheres, batched: 30 of a step's 52 µs per member).

    Args:
        dk: `DynamicsKinematics` at x₀; tau: (nv,) generalized forces (actuation, damping
            −D v₀, force elements, applied); F_O: (n, 6) applied wrenches about Wo, or None;
        gravity_parameters: as `energy.gravity_generalized_forces` takes them;
        reflected_inertia, damping, v0: (nv,).
    """
    diagonal = reflected_inertia + dt * damping
    k0 = crba.equations_rhs(topo, dk, tau, gravity_parameters, F_O)
    dof_map = layout.trees.dof_map
    if dof_map.shape[0] > 2:  # several trees: A is block diagonal by tree
        A_tree = crba.mass_matrix_tree_blocks(topo, dk, dof_map, diagonal)
        return A_tree, v0 + dt * spd_solve_by_blocks(A_tree, k0, dof_map)
    A = crba.mass_matrix(topo, dk, diagonal)
    return A, v0 + dt * spd_solve(A, k0)


def _contact_part(topo, layout, dt, dk, inv_diag_A, pc, dtype, v0):
    """(Jc, Rc, v̂c, μ, active, R_WC, nodes a, b, Hunt & Crossley data or None) of the point
    slots ``pc`` (None: no slots). ``layout.hunt_crossley`` ("similar", "lagged" or None:
    kSap) picks the constraint."""
    model = layout.hunt_crossley
    if pc is None:
        z3 = jnp.zeros((0, 3), dtype)
        z = jnp.zeros((0,), dtype)
        hc = None if model is None else hunt_crossley.make(
            dt, z, z, z, z, z, z, layout.stiction_tolerance, FRICTION_SIGMA,
            model == "lagged")
        return (empty_contact_jacobian(topo, layout, dtype), z3, z3, z, z,
                jnp.zeros((0, 3, 3), dtype), None, None, hc)
    body_node = jnp.asarray(topo.body_node)
    na, nb = body_node[pc.body_a], body_node[pc.body_b]
    R_WC = contact_frames(pc.nhat_BA_W)
    Jc = contact_jacobian(topo, dk.pk, layout, na, nb, pc.p_WC, R_WC)
    active = (pc.valid & (pc.phi <= 0)).astype(dtype)
    w = C.delassus_estimate(Jc, inv_diag_A)
    Rc, vhat = C.cone_regularization(w, pc.k, pc.tau, pc.phi, dt, NEAR_RIGID_THRESHOLD,
                                     FRICTION_SIGMA)
    hc = None
    if model is not None:  # Drake's DiscreteContactPair: fₑ₀ = k·x₀, vn₀ = (J v₀)ₙ
        fe0 = pc.k * jnp.maximum(-pc.phi, 0.0)
        vn0 = Jc.apply(v0)[:, 2]
        hc = hunt_crossley.make(dt, w, pc.k, pc.d, fe0, vn0, pc.mu,
                                layout.stiction_tolerance, FRICTION_SIGMA, model == "lagged")
    return Jc, Rc, vhat, pc.mu, active, R_WC, na, nb, hc


def _limit_part(layout, dt, q0, v0, v_star, inv_diag_A, dtype, nv):
    """(Jl, Rl, v̂l, active, dofs) of the joint-limit constraints (a lower and an upper row per
    limited 1-dof joint)."""
    ld = layout.limits.dof
    if not ld.size:
        z = jnp.zeros((0,), dtype)
        return jnp.zeros((0, nv), dtype), z, z, z, ld
    q, v = q0[layout.limits.q], v0[ld]
    dq = dt * jnp.maximum(jnp.abs(v), jnp.abs(v_star[ld]))
    lo_np, hi_np = layout.limits.lo, layout.limits.hi
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


class ConstraintRows(NamedTuple):
    """One kind's block of scalar constraint rows (n rows).

    Attributes:
        kind: "pd", "coupler", "distance", "ball" or "weld".
        J: (n, nv) the rows' Jacobian; R: (n,) regularization; vhat: (n,) bias velocities;
        active: (n,) 1 where the row acts, else 0.
        lower, upper: (n,) the impulse bounds (−∞ and +∞ where unbounded).
        trees: (n, 2) static tree nodes each row couples (Drake's participating velocities).
    """

    kind: str
    J: jax.Array
    R: jax.Array
    vhat: jax.Array
    active: jax.Array
    lower: jax.Array
    upper: jax.Array
    trees: np.ndarray


def _constraint_rows(topo, layout, dt, dk, q0, inv_diag_A, constraints, pd_inputs, dtype,
                     nv):
    """The scalar rows after the joint limits, in Drake's order (PD controllers, couplers,
    distances, balls, welds): a list of `ConstraintRows`, one per kind present."""
    rows, tree = [], layout.trees.tree

    def add(kind, J, R, vhat, active, trees, lower=None, upper=None):
        n = R.shape[0]
        rows.append(ConstraintRows(kind, J, R, vhat, active,
                                   jnp.full(n, -jnp.inf, dtype) if lower is None else lower,
                                   jnp.full(n, jnp.inf, dtype) if upper is None else upper,
                                   trees))

    if layout.pd.dof.shape[0]:
        J, R, vhat, active, lo, hi, dofs = pd_part(layout, dt, q0, inv_diag_A, constraints,
                                                   *pd_inputs, dtype, nv)
        t = layout.trees.dof_tree[dofs]
        add("pd", J, R, vhat, active, np.stack([t, t], 1), lo, hi)
    if layout.couplers.dof.shape[0]:
        J, R, vhat, active, dofs = H.coupler_part(layout, dt, q0, inv_diag_A, constraints,
                                                  dtype, nv)
        add("coupler", J, R, vhat, active, layout.trees.dof_tree[dofs.reshape(-1, 2)])
    if layout.distances.nodes.shape[0]:
        J, R, vhat, active, _ = H.distance_part(topo, layout, dt, dk.pk, inv_diag_A,
                                                constraints, dtype)
        add("distance", J, R, vhat, active, tree[layout.distances.nodes])
    if layout.balls.nodes.shape[0]:
        J, R, vhat, active = H.ball_part(topo, layout, dt, dk.pk, inv_diag_A, constraints,
                                         dtype)
        add("ball", J, R, vhat, active, np.repeat(tree[layout.balls.nodes], 3, 0))
    if layout.welds.nodes.shape[0]:
        J, R, vhat, active = H.weld_part(topo, layout, dt, dk.pk, inv_diag_A, constraints,
                                         dtype)
        add("weld", J, R, vhat, active, np.repeat(tree[layout.welds.nodes], 6, 0))
    return rows


def build_problem(data: StepData, pc):
    """The `SapProblem` of a step and the slots' contact frames R_WC; ``pc``: `PointContacts`
    of the slots, or None."""
    topo, layout, dt, dk, A, v_star, q0, v0, constraints, pd_inputs = data
    dtype, nv = v_star.dtype, topo.nv
    A_tree = None
    if A.ndim == 3:  # tree blocks
        A, A_tree = None, A
        inv_diag_A = 1.0 / jnp.diagonal(A_tree, axis1=1, axis2=2).reshape(-1)[
            layout.trees.dof_slot]
    else:
        inv_diag_A = 1.0 / jnp.diagonal(A)
    Jc, Rc, vhat_c, mu, active_c, R_WC, na, nb, hc = _contact_part(
        topo, layout, dt, dk, inv_diag_A, pc, dtype, v0)
    Jl, Rl, vhat_l, active_l, limit_dofs = _limit_part(layout, dt, q0, v0, v_star, inv_diag_A,
                                                       dtype, nv)
    t = layout.trees.dof_tree[limit_dofs]
    row_trees, row_active = np.stack([t, t], 1).reshape(-1, 2), active_l
    rows = _constraint_rows(topo, layout, dt, dk, q0, inv_diag_A, constraints, pd_inputs,
                            dtype, nv)
    lower_l = upper_l = None
    if rows:
        lower_l = jnp.concatenate([jnp.zeros(Rl.shape, dtype)] + [r.lower for r in rows])
        if any(r.kind == "pd" for r in rows):
            upper_l = jnp.concatenate([jnp.full(Rl.shape, jnp.inf, dtype)]
                                      + [r.upper for r in rows])
        Jl = jnp.concatenate([Jl] + [r.J for r in rows])
        Rl = jnp.concatenate([Rl] + [r.R for r in rows])
        vhat_l = jnp.concatenate([vhat_l] + [r.vhat for r in rows])
        active_l = row_active = jnp.concatenate([active_l] + [r.active for r in rows])
        row_trees = np.concatenate([row_trees] + [r.trees for r in rows])
    # Drake's "participating" velocities: those of trees with an active constraint.
    participating = jnp.zeros(topo.num_nodes, dtype)
    if na is not None:
        tree = jnp.asarray(layout.trees.tree)
        participating = participating.at[tree[na]].max(active_c)
        participating = participating.at[tree[nb]].max(active_c)
    if row_trees.shape[0]:  # the world's tree, 0, has no dofs
        participating = participating.at[row_trees[:, 0]].max(row_active)
        participating = participating.at[row_trees[:, 1]].max(row_active)
    scale_mask = participating[layout.trees.dof_tree]
    problem = SapProblem(A, v_star, Jc, Rc, vhat_c, mu, active_c, Jl, Rl, vhat_l, active_l,
                         scale_mask, A_tree=A_tree, lower_l=lower_l, upper_l=upper_l, hc=hc,
                         selection_rows=SelectionRows(2 * len(layout.limits.dof)))
    return problem, R_WC


def _solve_slots(data: StepData, pc, v_guess, params):
    """(v, stats, per-slot (active, γ, vc), τ_contact, the scalar rows' impulses) with the
    slots ``pc``."""
    problem, _ = build_problem(data, pc)
    v, stats = solve(problem, v_guess, params)
    vc = problem.Jc.apply(v)
    gamma = sp.contact_impulses(problem, vc)
    gl = C.limit_impulses(problem.Jl @ v, problem.Rl, problem.vhat_l, problem.active_l,
                          problem.lower_l, problem.upper_l)
    tau_c = problem.Jc.apply_transpose(gamma) / data.dt
    active = problem.active_c
    return v, stats, (active, gamma, vc * active[:, None]), tau_c, gl


def solve_step(data: StepData, pc, v_guess, params=None, capacity=None):
    """The next velocities of a discrete step: (v (nv,), `ContactSolution` (overflow False),
    `SapStatistics`), from the `StepData`, the slots ``pc`` (`PointContacts` or None), the
    warm start and the `SapSolverParameters`.

    ``capacity``: solve with the ``capacity`` deepest slots of ``pc`` when, over the whole
    ``vmap`` batch, no more points penetrate (`capacity.batch_all`); the full problem otherwise.
    Both give the same solution. None: always every slot.
    """
    def run(slots):
        return _solve_slots(data, slots, v_guess, params)

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
    sizes = list(data.layout.constraint_sizes)  # the blocks' sizes, as assembled
    n_lim = gl.shape[0] - sum(sizes)
    parts = jnp.split(gl[n_lim:], np.cumsum(sizes)[:-1]) if sum(sizes) else [gl[n_lim:]] * 5
    g_pd, g_coupler, g_distance, g_ball, g_weld = parts
    return v, ContactSolution(active, *frames, gamma, vc, tau_c, gl[:n_lim], jnp.asarray(False),
                              g_coupler, g_ball.reshape(-1, 3), g_distance,
                              g_weld.reshape(-1, 6), g_pd), stats
