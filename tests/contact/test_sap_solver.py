"""The SAP solver on synthetic problems: projection, Hessian blocks, optimality, gradients."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads
from scipy.optimize import minimize

from jaxbody.contact import SapProblem, SapSolverParameters, solve
from jaxbody.contact import constraints as C
from jaxbody.contact import sap_problem as sp
from jaxbody.contact.tree_jacobian import TreeJacobian

DT = 1e-3


def random_problem(seed, nv=6, nc=4, nl=2, mu=0.6):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(nv, nv))
    A = L @ L.T + nv * np.eye(nv)
    Jc = rng.normal(size=(nc, 3, nv))
    w = C.delassus_estimate(jnp.asarray(Jc), 1.0 / jnp.diagonal(jnp.asarray(A)))
    phi0 = -np.abs(rng.normal(size=nc)) * 1e-3
    R, vhat = C.cone_regularization(w, jnp.full(nc, 1e5), jnp.full(nc, 0.05), jnp.asarray(phi0),
                                    DT, 1.0, 1e-3)
    Jl = rng.normal(size=(nl, nv))
    Rl = jnp.full(nl, 1e-3)
    vhat_l = jnp.asarray(rng.normal(size=nl))
    v_star = jnp.asarray(rng.normal(size=nv))
    return SapProblem(jnp.asarray(A), v_star, TreeJacobian.from_dense(Jc), R, vhat, jnp.full(nc, mu),
                      jnp.ones(nc), jnp.asarray(Jl), Rl, vhat_l, jnp.ones(nl), jnp.ones(nv))


@pytest.fixture(scope="module")
def jsolve():
    return jax.jit(solve)


def test_projection_is_the_R_norm_projection_on_the_cone():
    rng = np.random.default_rng(0)
    mu = 0.7
    for _ in range(30):
        y = rng.normal(size=3)
        R = np.array([0.3, 0.3, 2.0]) * rng.uniform(0.1, 3)
        g = np.asarray(C.cone_impulses(jnp.asarray(-R * y)[None], jnp.asarray(R)[None],
                                       jnp.zeros((1, 3)), jnp.array([mu]), jnp.ones(1)))[0]
        # Numerical projection: min ½(γ−y)ᵀR(γ−y) s.t. ‖γt‖ ≤ μγn.
        res = minimize(lambda x, R=R, y=y: 0.5 * np.sum(R * (x - y) ** 2), np.array([0, 0, 1.0]),
                       constraints=[{"type": "ineq",
                                     "fun": lambda x: mu * x[2] - np.sqrt(x[0]**2 + x[1]**2 + 1e-14)}],
                       method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
        np.testing.assert_allclose(g, res.x, atol=2e-5)
        assert np.hypot(g[0], g[1]) <= mu * g[2] + 1e-9


def test_hessian_blocks_equal_autodiff_of_the_projection():
    rng = np.random.default_rng(1)
    R = jnp.array([[0.01, 0.01, 0.5]])
    vhat = jnp.array([[0.0, 0.0, 0.2]])
    mu = jnp.array([0.5])
    modes = set()
    for i in range(60):
        vc = rng.normal(size=(1, 3)) * 0.3
        if i % 3 == 0:  # small slip: stiction
            vc[0, :2] *= 1e-3
        vc = jnp.asarray(vc)
        G = C.cone_hessian(vc, R, vhat, mu, jnp.ones(1))[0]
        J = jax.jacfwd(lambda x: C.cone_impulses(x[None], R, vhat, mu, jnp.ones(1))[0])(vc[0])
        np.testing.assert_allclose(G, -J, rtol=1e-6, atol=1e-8)
        g = C.cone_impulses(vc, R, vhat, mu, jnp.ones(1))[0]
        modes.add("sep" if not np.any(g) else ("stick" if np.allclose(
            g, (vhat - vc)[0] / R[0]) else "slide"))
        assert np.all(np.linalg.eigvalsh(0.5 * (G + G.T)) > -1e-12)  # G is PSD
    assert modes == {"sep", "stick", "slide"}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_solution_satisfies_optimality_and_minimizes_the_cost(jsolve, seed):
    p = random_problem(seed)
    v, stats = jsolve(p, jnp.zeros(p.v_star.shape))
    assert stats.converged == 1.0 and 1 <= stats.iterations < 30
    d = 1.0 / np.sqrt(np.diagonal(p.A))  # Drake's scaled criterion
    g = sp.gradient(p, v)
    jc = p.A @ v - p.A @ p.v_star - g
    scale = max(np.linalg.norm(d * (p.A @ v)), np.linalg.norm(d * jc))
    assert np.linalg.norm(d * g) <= 1e-6 * scale
    # The solver's residual is ∇ℓ at the iterate it carried (J v and A(v − v*) updated along
    # each step), so it equals the fresh one to round-off of the momentum scale.
    np.testing.assert_allclose(stats.residual, np.linalg.norm(d * g), rtol=1e-6,
                               atol=1e-12 * scale)
    ell = sp.cost(p, v)
    rng = np.random.default_rng(seed)
    for _ in range(20):  # convex: every perturbation raises the cost
        assert sp.cost(p, v + 1e-3 * jnp.asarray(rng.normal(size=v.shape))) > ell


def test_tight_tolerance_reaches_machine_precision(jsolve):
    p = random_problem(5)
    v, stats = solve(p, jnp.zeros(6), SapSolverParameters(rel_tolerance=1e-13))
    assert np.linalg.norm(sp.gradient(p, v)) < 1e-10
    assert stats.iterations < 40


def test_no_constraints_gives_free_motion(jsolve):
    p = random_problem(0)
    p = dataclasses.replace(p, active_c=jnp.zeros(4), active_l=jnp.zeros(2),
                            scale_mask=jnp.zeros(6))
    v, stats = jsolve(p, jnp.ones(6))
    np.testing.assert_array_equal(v, p.v_star)
    assert stats.iterations == 0


def test_vmap_equals_loop(jsolve):
    ps = [random_problem(s) for s in range(3)]
    batched = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *ps)
    vb, sb = jax.jit(jax.vmap(solve))(batched, jnp.zeros((3, 6)))
    for i, p in enumerate(ps):
        v, s = jsolve(p, jnp.zeros(6))
        np.testing.assert_allclose(vb[i], v, rtol=1e-9, atol=1e-12)


def _solution_of(theta, p):
    """v as a function of (v*, μ, A scale, contact stiffness-like R scale)."""
    q = dataclasses.replace(p, v_star=theta[:6], mu=jnp.full(4, theta[6]), A=p.A * theta[7],
                            Rc=p.Rc * theta[8])
    return solve(q, jnp.zeros(6), SapSolverParameters(rel_tolerance=1e-13))[0]


def test_implicit_gradients_match_finite_differences():
    p = random_problem(3)
    theta = jnp.concatenate([p.v_star, jnp.array([0.6, 1.0, 1.0])])
    f = jax.jit(lambda t: _solution_of(t, p))
    J = jax.jit(jax.jacfwd(lambda t: _solution_of(t, p)))(theta)
    Jr = jax.jit(jax.jacrev(lambda t: _solution_of(t, p)))(theta)
    np.testing.assert_allclose(J, Jr, rtol=1e-8, atol=1e-10)
    eps = 1e-6
    for i in range(theta.size):
        e = jnp.zeros_like(theta).at[i].set(eps)
        fd = (f(theta + e) - f(theta - e)) / (2 * eps)
        np.testing.assert_allclose(J[:, i], fd, rtol=2e-4, atol=2e-6)
    check_grads(f, (theta,), order=1, modes=["fwd", "rev"],
                atol=1e-4, rtol=1e-4, eps=1e-6)


def test_gradient_is_finite_at_contact_onset():
    """A particle exactly at the stiction/separation boundary: gradients exist and are finite."""
    A = jnp.eye(3)
    Jc = TreeJacobian.from_dense(jnp.eye(3)[None])

    def f(vz):
        p = SapProblem(A, jnp.array([0.0, 0.0, vz]), Jc, jnp.array([[1e-3, 1e-3, 1e-2]]),
                       jnp.zeros((1, 3)), jnp.array([0.5]), jnp.ones(1), jnp.zeros((0, 3)),
                       jnp.zeros(0), jnp.zeros(0), jnp.zeros(0), jnp.ones(3))
        return solve(p, jnp.zeros(3))[0]

    jf, jr = jax.jit(jax.jacfwd(f)), jax.jit(jax.jacrev(f))
    for vz in (0.0, 1e-12, -1e-12):
        assert np.all(np.isfinite(jf(vz))) and np.all(np.isfinite(jr(vz)))


def test_selection_rows_hessian_equals_the_dense_congruence():
    """`SelectionRows`: joint-limit rows (±1 on one velocity, two per dof) before a general row
    give the same H = A + JᵀGJ as the dense congruence, and the same solution."""
    p = random_problem(3, nv=6, nl=1)
    rng = np.random.default_rng(3)
    dofs = np.array([0, 2, 5])
    eye = np.eye(6)[dofs]
    Jl = jnp.asarray(np.concatenate([eye, -eye, rng.normal(size=(1, 6))]))
    nl = Jl.shape[0]
    p = dataclasses.replace(p, Jl=Jl, Rl=jnp.full(nl, 1e-3),
                            vhat_l=jnp.asarray(rng.normal(size=nl)), active_l=jnp.ones(nl))
    fast = dataclasses.replace(p, selection_rows=sp.SelectionRows(2 * len(dofs)))
    v = jnp.asarray(rng.normal(size=6))
    np.testing.assert_allclose(np.asarray(sp.hessian(fast, v)), np.asarray(sp.hessian(p, v)),
                               rtol=0, atol=1e-12)
    vf, _ = jax.jit(solve)(fast, p.v_star)
    vd, _ = jax.jit(solve)(p, p.v_star)
    np.testing.assert_allclose(np.asarray(vf), np.asarray(vd), atol=1e-12)
