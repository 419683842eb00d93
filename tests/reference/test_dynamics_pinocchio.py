"""Cross-check of the dynamics against Pinocchio: ``pin.rnea``, ``pin.crba``, ``pin.aba``,
``pin.computeGeneralizedGravity`` and ``pin.nonLinearEffects``, on the three benchmark models
and on random trees of unaligned revolute and prismatic joints with random placements and
inertias (fixed base, and below a free-flyer base), at random states, in float64.

Every comparison is made in Pinocchio's coordinates through the one converter,
`benchmarks.models.PinocchioCoordinates` (free-flyer velocities in the body frame, so
τ_pin = T τ, M_pin = T M Tᵀ, v̇_pin = T v̇ + Ṫ v). Pinocchio's ``rnea`` includes gravity
(``M a + C v - τ_g``) and its generalized gravity is ``-τ_g``; jaxbody follows Drake, whose
``CalcInverseDynamics`` excludes gravity and whose ``τ_g`` is on the right-hand side.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
pytest.importorskip("pydrake")  # models.build also builds the Drake plant (layout check)

import jaxbody as jb  # noqa: E402
from benchmarks import models  # noqa: E402

REL_TOL = 1e-10  # relative to max(1, |reference|)
NUM_STATES = 3
GUARD_MIN_ERROR = 1e4 * REL_TOL  # a deliberately wrong conversion must miss by this much


def _rel_err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    return np.abs(a - b).max(initial=0.0) / max(1.0, np.abs(b).max(initial=0.0))


def _close(a, b, what):
    err = _rel_err(a, b)
    assert err < REL_TOL, f"{what}: relative error {err:.3e} >= {REL_TOL:.0e}"


# ---- random trees ------------------------------------------------------------------------------
def _random_rotation(rng):
    return models._rot(rng.normal(size=3), rng.uniform(-np.pi, np.pi))


def random_spec(rng, num_bodies, free_base, world_fraction=0.2):
    """A `models.ModelSpec` of unaligned revolute/prismatic joints (plus a free-flyer root if
    ``free_base``), random joint placements, masses, centers of mass and central inertias.

    Bodies come in depth-first order (each parent is on the path from the world to the last
    body): Pinocchio's CRBA assumes every subtree's dofs are contiguous and silently returns a
    wrong M otherwise (``pin.crba`` != RNEA columns for joints added with parents [0, 0, 1]).
    """
    bodies, path = [], []  # path: the last body and its ancestors, root first
    for i in range(num_bodies):
        if i == 0 and free_base:
            parent, joint = -1, "free"
        else:
            to_world = (i == 0 or rng.uniform() < world_fraction) and not free_base
            parent = -1 if to_world else int(rng.choice(path))
            joint = str(rng.choice(["revolute", "prismatic"]))
        path = (path[:path.index(parent) + 1] if parent >= 0 else []) + [i]
        axis = rng.normal(size=3)
        mass = float(rng.uniform(0.5, 3.0))
        a, b, c = rng.uniform(0.05, 0.5, size=3)  # a solid ellipsoid's semi-axes
        R = _random_rotation(rng)
        I_com = R @ np.diag(mass / 5 * np.array([b * b + c * c, a * a + c * c,
                                                 a * a + b * b])) @ R.T
        bodies.append(models.BodySpec(
            name=f"body{i}", parent=parent, joint=joint, axis=axis / np.linalg.norm(axis),
            R_PJ=_random_rotation(rng), p_PJ=rng.uniform(-0.5, 0.5, 3), mass=mass,
            com=rng.uniform(-0.2, 0.2, 3), I_com=I_com))
    return models.ModelSpec(f"random{num_bodies}{'-free' if free_base else ''}", tuple(bodies))


CASES = {  # id: ModelSpec factory
    **{name: factory for name, factory in models.MODELS.items()},
    "random8-fixed": lambda: random_spec(np.random.default_rng(10), 8, free_base=False),
    "random12-free": lambda: random_spec(np.random.default_rng(11), 12, free_base=True),
    "random20-fixed": lambda: random_spec(np.random.default_rng(12), 20, free_base=False,
                                          world_fraction=0.3),
}


# ---- jaxbody, jitted once per model ------------------------------------------------------------
def _jaxbody_all(plant):
    """``f(context, q, v, vdot, tau) -> dict`` of every compared quantity (jaxbody layout)."""

    def f(context, q, v, vdot, tau):
        ctx = plant.SetVelocities(plant.SetPositions(context, q), v)
        g = plant.CalcGravityGeneralizedForces(ctx)
        applied = jb.MultibodyForces(plant, tau)
        return {"M": plant.CalcMassMatrix(ctx),
                "id": plant.CalcInverseDynamics(ctx, vdot, jb.MultibodyForces(plant)),
                "g": g, "Cv": plant.CalcBiasTerm(ctx),
                "aba": plant.CalcGeneralizedAccelerations(ctx, applied_forces=applied,
                                                          method="aba"),
                "crba": plant.CalcGeneralizedAccelerations(ctx, applied_forces=applied,
                                                           method="crba")}

    return jax.jit(jax.vmap(f, in_axes=(None, 0, 0, 0, 0)))


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    engines = models.build(CASES[request.param]())
    rng = np.random.default_rng(hash(request.param) % 2**32)
    q = models.random_q(engines, rng, NUM_STATES)
    v, vdot, tau = (rng.normal(size=(NUM_STATES, engines.nv)) for _ in range(3))
    plant, _ = engines.jaxbody
    out = _jaxbody_all(plant)(plant.CreateDefaultContext(jnp.float64),
                              *(jnp.asarray(x) for x in (q, v, vdot, tau)))
    out = {k: np.asarray(x) for k, x in out.items()}
    return engines, models.PinocchioCoordinates(engines, q), (q, v, vdot, tau), out


def _pin_states(case):
    """Yields (k, model, data, q_pin, v_pin) per state."""
    engines, conv, (_, v, _, _), _ = case
    model = engines.pinocchio
    data = model.createData()
    for k in range(NUM_STATES):
        yield k, model, data, conv.q[k], conv.v(v)[k]


# ---- the cross-checks --------------------------------------------------------------------------
def test_layouts_match(case):
    engines, conv, _, _ = case
    plant, _ = engines.jaxbody
    assert (plant.num_positions(), plant.num_velocities()) == (engines.nq, engines.nv)
    T = conv.T
    np.testing.assert_allclose(T @ np.swapaxes(T, 1, 2), np.broadcast_to(np.eye(engines.nv),
                                                                          T.shape), atol=1e-14)


def test_mass_matrix(case):
    _, conv, _, out = case
    for k, model, data, q, _ in _pin_states(case):
        M = pin.crba(model, data, q).copy()
        M = np.triu(M) + np.triu(M, 1).T  # Pinocchio fills the upper triangle only
        _close(conv.M(out["M"])[k], M, f"crba, state {k}")


def test_inverse_dynamics(case):
    _, conv, (_, v, vdot, _), out = case
    a_pin = conv.vdot(vdot, v)
    for k, model, data, q, v_pin in _pin_states(case):
        tau_pin = pin.rnea(model, data, q, v_pin, a_pin[k]).copy()  # includes gravity
        _close(conv.tau(out["id"] - out["g"])[k], tau_pin, f"rnea, state {k}")


def test_gravity_and_nonlinear_effects(case):
    """nle = rnea at v̇_pin = 0, i.e. at v̇ = -Tᵀ Ṫ v: T (C v - τ_g) - M_pin Ṫ v."""
    _, conv, (_, v, _, _), out = case
    Tdot_v = conv.vdot(np.zeros_like(v), v)
    nle_jb = conv.tau(out["Cv"] - out["g"]) - np.einsum("kij,kj->ki", conv.M(out["M"]), Tdot_v)
    for k, model, data, q, v_pin in _pin_states(case):
        g_pin = pin.computeGeneralizedGravity(model, data, q).copy()
        _close(conv.tau(-out["g"])[k], g_pin, f"computeGeneralizedGravity, state {k}")
        nle = pin.nonLinearEffects(model, data, q, v_pin).copy()
        _close(nle_jb[k], nle, f"nonLinearEffects, state {k}")


@pytest.mark.parametrize("method", ["aba", "crba"])
def test_forward_dynamics(case, method):
    _, conv, (_, v, _, tau), out = case
    a_jb = conv.vdot(out[method], v)
    tau_pin = conv.tau(tau)
    for k, model, data, q, v_pin in _pin_states(case):
        a_pin = pin.aba(model, data, q, v_pin, tau_pin[k]).copy()
        _close(a_jb[k], a_pin, f"aba vs jaxbody {method}, state {k}")


def test_converter_acceleration_term_is_exercised(case):
    """Guards the check: on a free base, dropping Ṫ v from v̇_pin makes ABA disagree."""
    engines, conv, (_, v, _, tau), out = case
    if not engines.free_v:
        pytest.skip("fixed base: Ṫ = 0")
    model = engines.pinocchio
    data = model.createData()
    q_pin, v_pin, tau_pin = conv.q[0], conv.v(v)[0], conv.tau(tau)[0]
    a_pin = pin.aba(model, data, q_pin, v_pin, tau_pin)
    assert _rel_err(conv.v(out["aba"])[0], a_pin) > GUARD_MIN_ERROR
