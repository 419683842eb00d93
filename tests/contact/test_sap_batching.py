"""A vmapped SAP solve (`contact.sap_batching`: member by member on CPU) goes through each
member's serial iterations: same answer, same statistics, same implicit gradients, with
unbatched arguments, members already optimal at the guess, and nested vmaps."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbody.contact import solve
from tests.contact.test_sap_solver import random_problem


def _members():
    ps = [random_problem(s) for s in range(5)]
    # member 1 has no active constraint: optimal at the guess (no iteration);
    # member 3 starts from far away (more iterations than the others)
    ps[1] = dataclasses.replace(ps[1], active_c=jnp.zeros(4), active_l=jnp.zeros(2),
                                scale_mask=jnp.zeros(6))
    ps[3] = dataclasses.replace(ps[3], v_star=10.0 * ps[3].v_star)
    return ps


def _stack(xs):
    return jax.tree_util.tree_map(lambda *x: jnp.stack(x), *xs)


@pytest.fixture(scope="module")
def serial():
    ps = _members()
    f = jax.jit(solve)
    return ps, [f(p, jnp.zeros(6)) for p in ps]


def test_vmapped_solve_equals_the_serial_solves(serial):
    ps, out = serial
    vb, sb = jax.jit(jax.vmap(solve))(_stack(ps), jnp.zeros((5, 6)))
    for i, (v, s) in enumerate(out):
        np.testing.assert_allclose(vb[i], v, rtol=1e-12, atol=1e-14)
        for name, a, b in zip(s._fields, s, sb):
            # the residual at the optimum is round-off of the momentum scale's size
            atol = 1e-12 * max(1.0, float(s.scale)) if name == "residual" else 1e-300
            np.testing.assert_allclose(b[i], a, rtol=1e-9, atol=atol, err_msg=name)
    iterations = np.asarray(sb.iterations)
    assert iterations[1] == 0 and iterations.max() > 1


def test_unbatched_guess_and_nested_vmap(serial):
    ps, out = serial
    batch = _stack(ps[:4])
    vb, _ = jax.jit(jax.vmap(lambda p: solve(p, jnp.zeros(6))))(batch)
    nested = jax.tree_util.tree_map(lambda x: x.reshape((2, 2) + x.shape[1:]), batch)
    vn, sn = jax.jit(jax.vmap(jax.vmap(lambda p: solve(p, jnp.zeros(6)))))(nested)
    for i in range(4):
        np.testing.assert_allclose(vb[i], out[i][0], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(vn.reshape(4, 6)[i], out[i][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(sn.iterations.reshape(4), [s.iterations for _, s in out[:4]])


def test_vmapped_implicit_gradient_equals_the_serial_one(serial):
    # reverse mode under vmap against forward mode, member by member
    ps, _ = serial

    def v_of(scale, p):
        return solve(dataclasses.replace(p, v_star=scale * p.v_star), jnp.zeros(6))[0]

    grad = jax.jit(jax.vmap(jax.grad(lambda s, p: jnp.sum(v_of(s, p) ** 2)),
                            in_axes=(None, 0)))(1.0, _stack(ps))
    one = jax.jit(jax.jacfwd(v_of))
    for i, p in enumerate(ps):
        d = one(1.0, p)
        np.testing.assert_allclose(grad[i], 2 * v_of(1.0, p) @ d, rtol=1e-10, atol=1e-12)
