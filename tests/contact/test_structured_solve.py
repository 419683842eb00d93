"""SAP's structured Newton solve on plants with several trees: the element-wise block inverse,
the tree-blocked Hessian operator and its block-Jacobi preconditioner, conjugate gradients, and
the solver with ``linear_solver="pcg"`` against the dense Cholesky path (solution, implicit
gradients forward and reverse, vmap equal to the serial solve)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from jaxbody.contact import SapProblem, SapSolverParameters, sap_newton, solve
from jaxbody.contact import constraints as C
from jaxbody.contact import sap_problem as sp
from jaxbody.contact.pcg import pcg
from jaxbody.contact.sap_newton import DENSE_MAX_NV
from jaxbody.contact.tree_jacobian import TreeJacobian
from jaxbody.math.small_spd import block_matvec, spd_block_inverse

DT = 1e-3
DOF_TREE = np.array([0, 2, 1, 0, 2, 2, 0, 1, 2, 2, 3, 3, 3])  # 4 uneven trees, interleaved
NV = DOF_TREE.size
PCG = SapSolverParameters(linear_solver="pcg")
DENSE = SapSolverParameters(linear_solver="dense")


def _spd(rng, d, shift=0.5):
    L = rng.normal(size=(d, d))
    return L @ L.T + shift * np.eye(d)


def multi_tree_problem(seed, n=8, mu=0.5):
    """A SAP problem on 4 trees: A block diagonal by tree, n contacts between random tree pairs
    (some with the world, T), penetrating, and two limit rows on single dofs."""
    rng = np.random.default_rng(seed)
    T = DOF_TREE.max() + 1
    dof_map, dof_slot, pair_slot = TreeJacobian.layout(DOF_TREE, T)
    A = np.zeros((NV, NV))
    for t in range(T):
        idx = np.flatnonzero(DOF_TREE == t)
        A[np.ix_(idx, idx)] = _spd(rng, idx.size)
    trees = np.stack([rng.integers(0, T, n), rng.integers(0, T + 1, n)], 1)
    trees[:, 1] = np.where(trees[:, 1] == trees[:, 0], T, trees[:, 1])
    blocks = rng.normal(size=(n, 2, 3, dof_map.shape[1]))
    blocks = np.where((dof_map[trees] == NV)[:, :, None, :], 0.0, blocks)
    Jc = TreeJacobian(jnp.asarray(blocks), jnp.asarray(trees), jnp.asarray(dof_map),
                      jnp.asarray(dof_slot), jnp.asarray(pair_slot))
    w = C.delassus_estimate(Jc, 1.0 / jnp.diagonal(jnp.asarray(A)))
    phi0 = -np.abs(rng.normal(size=n)) * 1e-3
    Rc, vhat = C.cone_regularization(w, jnp.full(n, 1e5), jnp.full(n, 0.01), jnp.asarray(phi0),
                                     DT, 1.0, 1e-3)
    Jl = np.zeros((2, NV))
    Jl[0, 3], Jl[1, 8] = 1.0, -1.0
    return SapProblem(jnp.asarray(A), jnp.asarray(rng.normal(size=NV)), Jc, Rc, vhat,
                      jnp.full(n, mu), jnp.ones(n), jnp.asarray(Jl), jnp.full(2, 1e-3),
                      jnp.asarray(rng.normal(size=2) * 0.1), jnp.ones(2), jnp.ones(NV))


@pytest.fixture(scope="module")
def jsolve():
    return jax.jit(solve, static_argnums=2)


def test_block_inverse_is_the_inverse_and_differentiates():
    rng = np.random.default_rng(0)
    for d in (1, 2, 3, 6, 7):
        A = np.stack([_spd(rng, d, 0.01) for _ in range(4)])
        np.testing.assert_allclose(spd_block_inverse(A) @ A, np.broadcast_to(np.eye(d), A.shape),
                                   atol=1e-10)
    np.testing.assert_allclose(spd_block_inverse(np.diag([2.0, 4.0, 0.5])),
                               np.diag([0.5, 0.25, 2.0]), atol=1e-15)  # closed form
    A = jnp.asarray(np.stack([_spd(rng, 3) for _ in range(2)]))
    check_grads(jax.jit(lambda A: spd_block_inverse(A + jnp.swapaxes(A, -1, -2))), (A / 2,), order=2,
                modes=["fwd", "rev"])
    with pytest.raises(ValueError, match=r"\(\.\.\., d, d\)"):
        spd_block_inverse(np.ones((2, 3)))


def test_tree_hessian_operator_and_preconditioner_equal_the_dense_hessian():
    p = sp.with_tree_blocks(multi_tree_problem(1))
    v = jnp.asarray(np.random.default_rng(2).normal(size=NV))
    H = np.asarray(sp.hessian(p, v))
    Ht = sp.tree_hessian(p, v)
    x = np.random.default_rng(3).normal(size=NV)
    got = p.Jc.from_tree(Ht.matvec(p.Jc.to_tree(jnp.asarray(x))))
    np.testing.assert_allclose(got, H @ x, rtol=1e-12, atol=1e-9 * np.abs(H).max())
    Minv = np.asarray(Ht.block_jacobi_inverse())
    dof_map = np.asarray(p.Jc.dof_map)
    for t in range(dof_map.shape[0] - 1):
        idx = dof_map[t][dof_map[t] < NV]
        k = idx.size
        np.testing.assert_allclose(Minv[t][:k, :k], np.linalg.inv(H[np.ix_(idx, idx)]),
                                   rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(Minv[t][k:, k:], np.eye(Minv.shape[1] - k))  # pads
    np.testing.assert_array_equal(p.Jc.from_tree(p.Jc.to_tree(v)), v)  # round trip
    np.testing.assert_allclose(sp.mul_A(p, v), np.asarray(p.A) @ np.asarray(v), atol=1e-12)


def test_pcg_solves_an_spd_system():
    rng = np.random.default_rng(4)
    H = _spd(rng, 12, 0.1)
    b = rng.normal(size=12)
    x, it = pcg(lambda x: jnp.asarray(H) @ x, lambda r: r / jnp.diagonal(jnp.asarray(H)),
                jnp.asarray(b), 1e-12, 100)
    np.testing.assert_allclose(x, np.linalg.solve(H, b), rtol=1e-9)
    assert 0 < int(it) <= 100
    # A block-diagonal H is solved in one iteration by its exact block-Jacobi preconditioner.
    Hb = np.stack([_spd(rng, 3) for _ in range(4)])
    bb = rng.normal(size=(4, 3))
    Minv = spd_block_inverse(Hb)
    x, it = pcg(lambda x: block_matvec(jnp.asarray(Hb), x), lambda r: block_matvec(Minv, r),
                jnp.asarray(bb), 1e-12, 50)
    np.testing.assert_allclose(x, np.linalg.solve(Hb, bb[..., None])[..., 0], rtol=1e-10)
    assert int(it) == 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pcg_solve_equals_the_dense_solve(jsolve, seed):
    p = multi_tree_problem(seed)
    v0 = jnp.zeros(NV)
    v_pcg, st_pcg = jsolve(p, v0, PCG)
    v_dense, st_dense = jsolve(p, v0, DENSE)
    assert float(st_pcg.converged) == 1.0 and float(st_dense.converged) == 1.0
    scale = float(jnp.abs(v_dense).max())
    np.testing.assert_allclose(v_pcg, v_dense, atol=1e-10 * scale)
    assert float(st_pcg.linear_iterations) >= float(st_pcg.iterations)
    # "auto" picks the dense Cholesky on a small plant (nv <= DENSE_MAX_NV), several trees or not.
    assert NV <= DENSE_MAX_NV
    v_auto, st_auto = jsolve(p, v0, SapSolverParameters())
    np.testing.assert_array_equal(v_auto, v_dense)
    # ... and conjugate gradients on a larger one (the threshold lowered here, traced afresh).
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sap_newton, "DENSE_MAX_NV", NV - 1)
        v_big, st_big = jax.jit(lambda p, v: solve(p, v, SapSolverParameters()))(p, v0)
    np.testing.assert_allclose(v_big, v_pcg, rtol=1e-13, atol=1e-15 * scale)
    assert float(st_big.linear_iterations) == float(st_pcg.linear_iterations)
    # Optimality: the momentum residual vanishes at the solution.
    assert float(jnp.abs(sp.gradient(p, v_pcg)).max()) < 1e-8 * float(jnp.abs(p.A).max())


def test_pcg_implicit_gradients_forward_and_reverse():
    p = multi_tree_problem(5)
    v0 = jnp.zeros(NV)

    def g(params, v_star, vhat_n, A_scale):
        q = SapProblem(p.A * A_scale, v_star, p.Jc, p.Rc, p.vhat_c.at[:, 2].set(vhat_n), p.mu,
                       p.active_c, p.Jl, p.Rl, p.vhat_l, p.active_l, p.scale_mask)
        return solve(q, v0, params)[0]

    args = (p.v_star, p.vhat_c[:, 2], jnp.asarray(1.0))
    f = jax.jit(lambda *a: g(PCG, *a))
    check_grads(f, args, order=1, modes=["fwd", "rev"], atol=1e-5, rtol=1e-5)
    # The same derivative as the dense path's (reverse mode through pcg, forward through LAPACK).
    J_pcg = jax.jit(jax.jacrev(f, argnums=(0, 1, 2)))(*args)
    J_dense = jax.jit(jax.jacfwd(lambda *a: g(DENSE, *a), argnums=(0, 1, 2)))(*args)
    for a, b in zip(J_pcg, J_dense):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9 * float(jnp.abs(b).max()))


def test_vmapped_pcg_solve_equals_the_serial_solves(jsolve):
    probs = [multi_tree_problem(s) for s in (6, 7, 8)]
    batch = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *probs)
    v0 = jnp.zeros((3, NV))
    vb, stb = jax.jit(jax.vmap(lambda p, v: solve(p, v, PCG)))(batch, v0)
    for i, p in enumerate(probs):
        v, st = jsolve(p, v0[i], PCG)
        np.testing.assert_allclose(vb[i], v, atol=1e-12 * float(jnp.abs(v).max()))
        assert float(stb.iterations[i]) == float(st.iterations)


def test_bad_linear_solver_settings_are_refused():
    p = multi_tree_problem(0)
    with pytest.raises(ValueError, match="linear_solver must be"):
        solve(p, jnp.zeros(NV), SapSolverParameters(linear_solver="qr"))
    with pytest.raises(ValueError, match="cg_forcing must be 'exact' or 'adaptive'"):
        solve(p, jnp.zeros(NV), SapSolverParameters(cg_forcing="loose"))
    for bad in (dict(cg_tolerance=0.0), dict(cg_max_iterations=-1)):
        with pytest.raises(ValueError, match="cg_tolerance must be > 0"):
            solve(p, jnp.zeros(NV), SapSolverParameters(**bad))
    dense = SapProblem(p.A, p.v_star, TreeJacobian.from_dense(p.Jc.to_dense()), p.Rc, p.vhat_c,
                       p.mu, p.active_c, p.Jl, p.Rl, p.vhat_l, p.active_l, p.scale_mask)
    with pytest.raises(ValueError, match="tree form"):
        solve(dense, jnp.zeros(NV), PCG)


ADAPTIVE = SapSolverParameters(linear_solver="pcg", cg_forcing="adaptive")
TIGHT = SapSolverParameters(linear_solver="dense", rel_tolerance=1e-13)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_adaptive_forcing_reaches_the_optimum(jsolve, seed):
    """Inexact Newton steps (CG to η = min(0.1, r)) end with a tight step: the answer is the
    optimum that a far tighter dense solve finds, to the dense solve's own accuracy."""
    p = multi_tree_problem(seed)
    v0 = jnp.zeros(NV)
    v_ad, st_ad = jsolve(p, v0, ADAPTIVE)
    v_ref, st_ref = jsolve(p, v0, TIGHT)
    v_dense, _ = jsolve(p, v0, DENSE)
    assert float(st_ad.converged) == 1.0 and float(st_ref.converged) == 1.0
    scale = float(jnp.abs(v_ref).max())
    err_ad = float(jnp.abs(v_ad - v_ref).max())
    assert err_ad < 1e-10 * scale
    assert err_ad <= max(float(jnp.abs(v_dense - v_ref).max()), 1e-13 * scale)


def _sphere_column(n):
    """n 1 kg spheres (r = 5 cm) in a vertical column on the ground, each 0.1 mm into the one
    below, sliding and spinning in alternate directions and falling at 0.5 m/s: n trees coupled
    in a chain of n contacts (ill-conditioned for CG) that stick, slide and separate."""
    from benchmarks.contact_scenes import FreeBody, Geom, Scene, build, initial_state

    r = 0.05
    bodies = [FreeBody(f"s{i}", 1.0, (1e-3,) * 3, (0.0, 0.0, r - 1e-4 + i * (2 * r - 1e-4)),
                       V_WB=(0.0, 0.0, 3.0 * (-1) ** i, 0.3 * (-1) ** i, 0.2, -0.5))
              for i in range(n)]
    geoms = [Geom("world", ("halfspace",))] + [Geom(f"s{i}", ("sphere", r)) for i in range(n)]
    scene = Scene(bodies, geoms)
    plant = build(scene, "jaxbody")[0]
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext(jnp.float64)
    return plant, plant.SetVelocities(plant.SetPositions(ctx, jnp.asarray(q0)), jnp.asarray(v0))


def test_adaptive_forcing_saves_cg_iterations_on_a_column_of_spheres():
    plant, ctx = _sphere_column(10)
    step = jax.jit(lambda c, prm: plant.CalcDiscreteStep(c, solver_parameters=prm),
                   static_argnums=1)
    exact = step(ctx, PCG)
    adaptive = step(ctx, ADAPTIVE)
    assert float(exact.stats.converged) == 1.0 and float(adaptive.stats.converged) == 1.0
    v_e, v_a = exact.context.v, adaptive.context.v
    assert float(jnp.abs(v_a - v_e).max()) < 1e-6 * float(jnp.abs(v_e).max())
    assert float(adaptive.stats.linear_iterations) < float(exact.stats.linear_iterations)


def test_vmapped_adaptive_solve_equals_the_serial_solves(jsolve):
    probs = [multi_tree_problem(s) for s in (6, 7)]
    batch = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *probs)
    v0 = jnp.zeros((2, NV))
    vb, _ = jax.jit(jax.vmap(lambda p, v: solve(p, v, ADAPTIVE)))(batch, v0)
    for i, p in enumerate(probs):
        np.testing.assert_allclose(vb[i], jsolve(p, v0[i], ADAPTIVE)[0],
                                   atol=1e-12 * float(jnp.abs(vb[i]).max()))
