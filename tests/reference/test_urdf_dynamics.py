"""Real robots from their URDF files through jaxbody, pydrake and Pinocchio: mass matrix, C·v,
gravity forces, inverse and forward dynamics agree to 1e-10 relative error at random states.

The same file is parsed by all three engines by `benchmarks.urdf_models.build` (shared with the
dynamics benchmark), whose docstring lists the adjustments (mimic elements dropped, Drake's
stand-in inertias given to Pinocchio, fixed-base robots welded). Comparisons with Pinocchio go
through `benchmarks.models.PinocchioCoordinates`, the one converter of free-flyer coordinates.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
pytest.importorskip("pydrake")

import jaxbody as jb  # noqa: E402
from benchmarks import models, urdf_models  # noqa: E402

pytestmark = pytest.mark.slow  # ~20-30 s per robot, mostly XLA compiling the five quantities

REL_TOL = 1e-10  # relative to max(1, |reference|)
NUM_STATES = 3

ROBOTS = urdf_models.ROBOTS
ERRORS = {}  # robot -> {quantity: max relative error}, printed at the end


def _rel_err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    return np.abs(a - b).max(initial=0.0) / max(1.0, np.abs(b).max(initial=0.0))


def _check(robot, what, a, b):
    err = _rel_err(a, b)
    ERRORS.setdefault(robot, {})[what] = max(err, ERRORS.get(robot, {}).get(what, 0.0))
    assert err < REL_TOL, f"{robot} {what}: relative error {err:.2e} >= {REL_TOL:.0e}"


def _build(name):
    try:
        return urdf_models.build(name)
    except urdf_models.Unavailable as e:
        pytest.skip(str(e))


def _jaxbody_all(plant):
    def f(context, q, v, vdot, tau):
        ctx = plant.SetVelocities(plant.SetPositions(context, q), v)
        return {"M": plant.CalcMassMatrix(ctx), "Cv": plant.CalcBiasTerm(ctx),
                "g": plant.CalcGravityGeneralizedForces(ctx),
                "id": plant.CalcInverseDynamics(ctx, vdot, jb.MultibodyForces(plant)),
                "fd": plant.CalcGeneralizedAccelerations(
                    ctx, applied_forces=jb.MultibodyForces(plant, tau))}

    return jax.jit(jax.vmap(f, in_axes=(None, 0, 0, 0, 0)))


@pytest.fixture(scope="module", params=list(ROBOTS))
def robot(request):
    engines, replaced = _build(request.param)
    rng = np.random.default_rng(sum(map(ord, request.param)))
    q = models.random_q(engines, rng, NUM_STATES)
    v, vdot, tau = (rng.normal(size=(NUM_STATES, engines.nv)) for _ in range(3))
    jplant = engines.jaxbody[0]
    out = _jaxbody_all(jplant)(jplant.CreateDefaultContext(jnp.float64),
                               *(jnp.asarray(x) for x in (q, v, vdot, tau)))
    out = {k: np.asarray(x) for k, x in out.items()}
    return request.param, engines, (q, v, vdot, tau), out


# ---- the cross-checks ---------------------------------------------------------------------------
def test_against_pydrake(robot):
    name, engines, (q, v, vdot, tau), out = robot
    dplant = engines.drake[0]
    from pydrake.multibody.tree import MultibodyForces

    ctx = dplant.CreateDefaultContext()
    if dplant.num_actuators():
        dplant.get_actuation_input_port().FixValue(ctx, np.zeros(dplant.num_actuators()))
    for k in range(NUM_STATES):
        dplant.SetPositions(ctx, q[k])
        dplant.SetVelocities(ctx, v[k])
        _check(name, "M vs Drake", out["M"][k], dplant.CalcMassMatrix(ctx))
        _check(name, "Cv vs Drake", out["Cv"][k], dplant.CalcBiasTerm(ctx))
        _check(name, "g vs Drake", out["g"][k], dplant.CalcGravityGeneralizedForces(ctx))
        _check(name, "ID vs Drake", out["id"][k],
               dplant.CalcInverseDynamics(ctx, vdot[k], MultibodyForces(dplant)))
        dplant.get_applied_generalized_force_input_port().FixValue(ctx, tau[k])
        derivatives = dplant.AllocateTimeDerivatives()
        dplant.CalcTimeDerivatives(ctx, derivatives)
        _check(name, "FD vs Drake", out["fd"][k],
               derivatives.get_generalized_velocity().CopyToVector())


def test_against_pinocchio(robot):
    name, engines, (q, v, vdot, tau), out = robot
    jplant, model = engines.jaxbody[0], engines.pinocchio
    data = model.createData()
    conv = models.PinocchioCoordinates(engines, q)
    a_pin = conv.vdot(vdot, v)
    Tdot_v = conv.vdot(np.zeros_like(v), v)
    damping = np.concatenate([np.broadcast_to(np.asarray(j.default_damping_vector()),
                                              (j.num_velocities(),)) for j in _by_v(jplant)])
    for k in range(NUM_STATES):
        q_pin, v_pin = conv.q[k], conv.v(v)[k]
        M = pin.crba(model, data, q_pin).copy()
        _check(name, "M vs Pinocchio", conv.M(out["M"])[k], np.triu(M) + np.triu(M, 1).T)
        _check(name, "g vs Pinocchio", conv.tau(-out["g"])[k],
               pin.computeGeneralizedGravity(model, data, q_pin))
        nle = conv.tau(out["Cv"] - out["g"])[k] - conv.M(out["M"])[k] @ Tdot_v[k]
        _check(name, "Cv vs Pinocchio", nle, pin.nonLinearEffects(model, data, q_pin, v_pin))
        _check(name, "ID vs Pinocchio", conv.tau(out["id"] - out["g"])[k],
               pin.rnea(model, data, q_pin, v_pin, a_pin[k]))
        tau_pin = conv.tau(tau - damping * v)[k]  # Pinocchio's ABA has no joint damping
        _check(name, "FD vs Pinocchio", conv.vdot(out["fd"], v)[k],
               pin.aba(model, data, q_pin, v_pin, tau_pin))


def _by_v(plant):
    return sorted((plant.get_joint(j) for j in plant.GetJointIndices()),
                  key=lambda j: j.velocity_start())


def test_zz_report_accuracy():
    """Prints the largest relative error per robot and quantity (run with -s to see it)."""
    print()
    for robot, errs in ERRORS.items():
        print(f"{robot:9s} " + "  ".join(f"{k}={e:.1e}" for k, e in sorted(errs.items())))
