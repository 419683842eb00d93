"""The discrete step of a plant with ``time_step > 0``: SAP contact and joint limits (Drake's
``SapDriver`` with ``DiscreteContactApproximation.kSap``).

One step from x₀ = (q₀, v₀), as Drake's discrete update:
    A = M(q₀) + δt·D,                        (implicit joint damping; M with reflected inertia)
    v* = v₀ + δt·A⁻¹ k(x₀),                  (every non-constraint force at x₀, damping −D v₀)
    v = argmin ℓ(v)  (SAP: `jaxbody.contact.solve`, warm start v₀),
    q = q₀ + δt·N(q₀) v,   t = t₀ + δt.
Constraints: one compliant friction cone per penetrating point contact (φ₀ < 0, Drake's point
contact), and a near-rigid limit constraint (k = 1e12, τ = δt, β = 0.1) for each 1-dof joint with
a finite limit inside the window q₀ ± 2δt·max(|v₀|, |v*|) (Drake's rule).
Everything is a pure function of the Context: ``jax.jit``, ``jax.vmap`` and ``jax.grad`` apply,
and the gradient of the solution comes from the implicit function theorem (`sap_solver`).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import crba, energy, rnea
from jaxbody.contact import constraints as C
from jaxbody.contact.contact_jacobian import contact_frames, contact_jacobian
from jaxbody.contact.sap_problem import SapProblem, SapSolverParameters
from jaxbody.contact.sap_solver import SapStatistics, solve  # noqa: F401 (re-exported)
from jaxbody.contact.tree_jacobian import TreeJacobian
from jaxbody.math.cholesky import spd_solve

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
        vc: (P, 3) contact velocities of A relative to B in C at the next velocities.
        tau_contact: (nv,) generalized contact forces Jᵀγ/δt.
        limit_impulses: (L,) joint-limit impulses (N·s or N·m·s).
        overflow: () True when more points penetrated than ``set_max_active_contacts`` allows.
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


class DiscreteStepResult(NamedTuple):
    """Output of `DiscreteAPI.CalcDiscreteStep`: the next context, contacts and solver stats."""

    context: object
    contact: ContactSolution
    stats: SapStatistics


@partial(jax.jit, static_argnums=(0, 1))
def _jitted_step(plant, solver_parameters, context, actuation, kwargs):
    """`CalcDiscreteStep` compiled once per (plant, solver parameters); the remaining keyword
    arguments (applied forces, ``v_guess``) are traced inputs, so each call honors its own."""
    return plant.CalcDiscreteStep(context, actuation, solver_parameters=solver_parameters,
                                  **kwargs)


class DiscreteAPI:
    """Mixin of `MultibodyPlant`: the SAP discrete step."""

    # --- Static data, compiled once per plant --------------------------------------------------
    def _discrete_static(self):
        cached = getattr(self, "_discrete_cache", None)
        if cached is not None:
            return cached
        topo = self._topology
        # Tree (depth-1 ancestor node) of each node; 0 for the world.
        tree = np.zeros(topo.num_nodes, np.int64)
        for node in range(1, topo.num_nodes):
            n = node
            while topo.parent[n] != 0:
                n = topo.parent[n]
            tree[node] = n
        dofs, lo, hi, qi = [], [], [], []
        for j in self._joints:
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
        dof_map, dof_slot, pair_slot = TreeJacobian.layout(tree_index[topo.dof_node],
                                                           owners.size)
        cached = dict(tree=tree, dof_tree=tree[topo.dof_node], tree_index=tree_index,
                      dof_map=dof_map, dof_slot=dof_slot, pair_slot=pair_slot,
                      limit_dof=np.asarray(dofs, np.int64), limit_q=np.asarray(qi, np.int64),
                      limit_lo=np.asarray(lo), limit_hi=np.asarray(hi))
        self._discrete_cache = cached
        return cached

    def _contact_points(self, context):
        """`PointContacts` of the context's configuration, or None without candidate pairs."""
        pairs = getattr(self, "_collision_pairs", None)
        if pairs is None or len(pairs[0]) == 0:
            return None
        pc = self.CalcPointContacts(context)
        P = pc.phi.shape[0]
        if not P:
            return None
        cap = getattr(self, "_max_active_contacts", None)
        if cap is not None and cap < P:
            # Keep the `cap` deepest valid slots: the SAP problem's size, not the number of
            # candidate points, then sets the cost of the step.
            score = jnp.where(pc.valid, -pc.phi, -jnp.inf)
            _, idx = jax.lax.top_k(score, cap)
            pc = pc._replace(**{f: getattr(pc, f)[idx] for f in pc._fields
                                if jnp.ndim(getattr(pc, f)) and getattr(pc, f).shape[0] == P})
        return pc

    def set_max_active_contacts(self, n):
        """Caps the contact constraints of a discrete step at the ``n`` deepest point slots
        (default: every slot of the collision query). Steps are unchanged as long as at most
        ``n`` points penetrate; ``CalcDiscreteStep(...).contact.overflow`` says when more did.
        Call before Finalize()."""
        self._require_not_finalized("set_max_active_contacts")
        n = int(n)
        if n < 1:
            raise ValueError(f"set_max_active_contacts: n must be >= 1, got {n}")
        self._max_active_contacts = n

    # --- The step -------------------------------------------------------------------------------
    def _free_motion(self, context, actuation, applied_forces, applied_generalized_force,
                     applied_spatial_force):
        topo, dt = self._topology, self._time_step
        dk = self._dk(context, "CalcDiscreteStep")
        tau, F_O = self._dynamics_inputs(context, dk, actuation, applied_forces,
                                         applied_generalized_force, applied_spatial_force,
                                         for_aba=False)
        M = crba.mass_matrix(topo, dk, self._reflected_inertia(context))
        gparams = self._gravity_parameters(context.parameters)
        k0 = (tau + energy.gravity_generalized_forces(topo, dk, gparams)
              - rnea.inverse_dynamics(topo, dk, jnp.zeros_like(context.v), F_O))
        A = M + dt * jnp.diag(context.parameters.damping)
        v_star = context.v + dt * spd_solve(A, k0)
        return dk, A, v_star

    def _build_problem(self, context, dk, A, v_star):
        topo, dt, st = self._topology, self._time_step, self._discrete_static()
        dtype = context.v.dtype
        nv = topo.nv
        inv_diag_A = 1.0 / jnp.diagonal(A)
        participating = jnp.zeros(topo.num_nodes, dtype)
        pc = self._contact_points(context)
        if pc is None:
            Jc = TreeJacobian.from_dense(jnp.zeros((0, 3, nv), dtype))
            Rc = vhat_c = jnp.zeros((0, 3), dtype)
            mu = active_c = phi = jnp.zeros((0,), dtype)
            p_WC = n = jnp.zeros((0, 3), dtype)
            R_WC = jnp.zeros((0, 3, 3), dtype)
        else:
            body_node = jnp.asarray(topo.body_node)
            na, nb = body_node[pc.body_a], body_node[pc.body_b]
            p_WC, n, phi = pc.p_WC, pc.nhat_BA_W, pc.phi
            R_WC = contact_frames(n)
            Jc = contact_jacobian(topo, dk.pk, st, na, nb, p_WC, R_WC)
            active_c = (pc.valid & (phi <= 0)).astype(dtype)
            w = C.delassus_estimate(Jc, inv_diag_A)
            Rc, vhat_c = C.cone_regularization(w, pc.k, pc.tau, phi, dt, NEAR_RIGID_THRESHOLD,
                                               FRICTION_SIGMA)
            mu = pc.mu
            tree = jnp.asarray(st["tree"])
            participating = participating.at[tree[na]].max(active_c)
            participating = participating.at[tree[nb]].max(active_c)
        # Joint limits: a lower and an upper equation per limited 1-dof joint.
        ld = st["limit_dof"]
        if ld.size:
            q0, v0 = context.q[st["limit_q"]], context.v[ld]
            dq = dt * jnp.maximum(jnp.abs(v0), jnp.abs(v_star[ld]))
            lo, hi = jnp.asarray(st["limit_lo"], dtype), jnp.asarray(st["limit_hi"], dtype)
            on_lo = np.isfinite(st["limit_lo"]) & True
            on_hi = np.isfinite(st["limit_hi"])
            act_lo = jnp.where(on_lo, lo >= q0 - LIMIT_WINDOW_FACTOR * dq, False)
            act_hi = jnp.where(on_hi, hi <= q0 + LIMIT_WINDOW_FACTOR * dq, False)
            g0 = jnp.concatenate([jnp.where(on_lo, q0 - lo, 0.0), jnp.where(on_hi, hi - q0, 0.0)])
            eye = np.eye(nv)[ld]
            Jl = jnp.asarray(np.concatenate([eye, -eye]), dtype)
            active_l = jnp.concatenate([act_lo, act_hi]).astype(dtype)
            w_l = jnp.concatenate([inv_diag_A[ld], inv_diag_A[ld]])
            Rl, vhat_l = C.limit_regularization(w_l, g0, dt, LIMIT_STIFFNESS, dt, LIMIT_BETA)
            trees = st["dof_tree"][np.concatenate([ld, ld])]
            participating = participating.at[trees].max(active_l)
        else:
            Jl = jnp.zeros((0, nv), dtype)
            Rl = vhat_l = active_l = jnp.zeros((0,), dtype)
        scale_mask = participating[st["dof_tree"]]
        problem = SapProblem(A, v_star, Jc, Rc, vhat_c, mu, active_c, Jl, Rl, vhat_l, active_l,
                             scale_mask)
        return problem, (p_WC, n, phi, R_WC)

    def CalcDiscreteStep(self, context, actuation=None, applied_forces=None, *,
                         applied_generalized_force=None, applied_spatial_force=None,
                         solver_parameters: SapSolverParameters | None = None,
                         v_guess=None) -> DiscreteStepResult:
        """One SAP step of a discrete plant (see the module docstring).

        Args:
            context: the state x₀ at time t₀ (and the parameters).
            actuation, applied_forces, applied_generalized_force, applied_spatial_force: as in
                `CalcGeneralizedAccelerations` (held over the step).
            solver_parameters: `SapSolverParameters` (Drake's defaults if None).
            v_guess: warm start (default v₀, as Drake).

        Returns:
            `DiscreteStepResult` (next context, `ContactSolution`, `SapStatistics`).
        """
        if not self.is_discrete():
            raise ValueError("CalcDiscreteStep: the plant is continuous (time_step = 0); build "
                             "it with MultibodyPlant(time_step > 0)")
        self._check_context(context, "CalcDiscreteStep")
        dk, A, v_star = self._free_motion(context, actuation, applied_forces,
                                          applied_generalized_force, applied_spatial_force)
        problem, (p_WC, n, phi, R_WC) = self._build_problem(context, dk, A, v_star)
        guess = context.v if v_guess is None else v_guess
        v, stats = solve(problem, guess, solver_parameters)
        vc = problem.Jc.apply(v)
        gamma = C.cone_impulses(vc, problem.Rc, problem.vhat_c, problem.mu, problem.active_c)
        gl = C.limit_impulses(problem.Jl @ v, problem.Rl, problem.vhat_l, problem.active_l)
        dt = self._time_step
        tau_c = problem.Jc.apply_transpose(gamma) / dt
        q = context.q + dt * self.MapVelocityToQDot(context, v)
        nxt = context.replace(time=context.time + dt, q=q, v=v)
        cap = getattr(self, "_max_active_contacts", None)
        overflow = jnp.asarray(False)
        if cap is not None and self._contact_points(context) is not None:
            pc_all = self.CalcPointContacts(context)
            overflow = jnp.sum(pc_all.valid & (pc_all.phi <= 0)) > cap
        self._check_nonsingular(context, v, "CalcDiscreteStep")
        return DiscreteStepResult(nxt, ContactSolution(problem.active_c, p_WC, n, phi, R_WC,
                                                       gamma, vc, tau_c, gl, overflow), stats)

    def CalcDiscreteVariableUpdate(self, context, actuation=None, **kwargs):
        """The next context x(t₀ + δt) (Drake's discrete update); see `CalcDiscreteStep`."""
        return self.CalcDiscreteStep(context, actuation, **kwargs).context

    def CalcGeneralizedContactForces(self, context, model_instance=None, actuation=None,
                                     **kwargs):
        """τ_contact = Jᵀγ/δt of the step from ``context`` (Drake's generalized contact forces
        output port): (num_velocities,), or the entries of ``model_instance``'s velocities."""
        tau = self.CalcDiscreteStep(context, actuation, **kwargs).contact.tau_contact
        return tau if model_instance is None else self.GetVelocitiesFromArray(model_instance, tau)

    def CalcContactResults(self, context, actuation=None, **kwargs):
        """`ContactResults` (Drake's ``PointPairContactInfo`` per active point) of the step from
        ``context``. Host-side (not traceable): it builds Python records; use
        `CalcDiscreteStep` inside jitted code."""
        from jaxbody.contact.contact_results import ContactResults, make_contact_results

        self._check_context(context, "CalcContactResults")
        solver_parameters = kwargs.pop("solver_parameters", None)
        result = _jitted_step(self, solver_parameters, context, actuation, kwargs)
        pc = self._contact_points(context)
        if pc is None:
            return ContactResults([], result.contact.tau_contact)
        return make_contact_results(pc, result.contact, self._time_step)
