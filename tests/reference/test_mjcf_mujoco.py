"""MJCF models through jaxbody and MuJoCo: the body poses (``xpos``, ``xmat``), the mass matrix
(``mj_fullM``, armature included), the bias forces (``qfrc_bias`` = C(q, v)·v − τ_g) and the
passive forces (``qfrc_passive``: joint damping and springs) agree to 1e-8 relative error at
random states.

Models: MuJoCo's humanoid from the ``mujoco`` wheel (mjx/test_data/humanoid/humanoid.xml: a
free base, 21 hinges, bodies with two and three hinges, capsules with ``fromto``, default
classes and ``childclass``, armature on every hinge) and a hand-written model that uses the
other features the reader supports (radian angles, ``eulerseq``, every orientation attribute,
ball and slide joints, ``ref``, springs, explicit inertials, geom ``mass`` and ``density``).
MuJoCo states are mapped to jaxbody's by `tests.parsers.mujoco_coordinates.MujocoCoordinates`.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

import jaxbody as jb  # noqa: E402
from tests.parsers.mjcf_text import SINK  # noqa: E402
from tests.parsers.mujoco_coordinates import MujocoCoordinates  # noqa: E402

pytestmark = pytest.mark.slow  # ~15 s per model, mostly XLA compiling the four quantities

REL_TOL = 1e-8  # relative to max(1, |MuJoCo's value|)
NUM_STATES = 4
HUMANOID = os.path.join(os.path.dirname(mujoco.__file__), "mjx", "test_data", "humanoid",
                        "humanoid.xml")


PENDULA = os.path.join(os.path.dirname(mujoco.__file__), "mjx", "test_data", "pendula.xml")
# name: (source, compare passive forces?). pendula.xml puts springs on ball joints, which
# jaxbody has no element for (the reader warns), so only M and the bias forces are compared.
MODELS = {"humanoid": (HUMANOID, True), "sink": (SINK, True), "pendula": (PENDULA, False)}
ERRORS = {}


def _load(source):
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    with pytest.warns(jb.ParseWarning) if source in (HUMANOID, PENDULA) else _no_warnings():
        if os.path.isfile(source):
            parser.AddModels(source)
        else:
            parser.AddModelsFromString(source, "xml")
    plant.Finalize()
    mj = (mujoco.MjModel.from_xml_path(source) if os.path.isfile(source)
          else mujoco.MjModel.from_xml_string(source))
    return plant, mj


class _no_warnings:
    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error", jb.ParseWarning)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def _dynamics(plant):
    def f(context, q, v):
        ctx = plant.SetVelocities(plant.SetPositions(context, q), v)
        return {"M": plant.CalcMassMatrix(ctx),
                "bias": plant.CalcBiasTerm(ctx) - plant.CalcGravityGeneralizedForces(ctx),
                "passive": plant.CalcForceElementsContribution(ctx).generalized_forces(),
                "poses": plant.CalcBodyPosesInWorld(ctx)}

    return jax.jit(jax.vmap(f, in_axes=(None, 0, 0)))


@pytest.fixture(scope="module", params=list(MODELS))
def model(request):
    source, passive = MODELS[request.param]
    if source != SINK and not os.path.isfile(source):
        pytest.skip(f"the mujoco wheel ships no {os.path.basename(source)}")
    plant, mj = _load(source)
    conv = MujocoCoordinates(mj, plant)
    rng = np.random.default_rng(7)
    qpos = np.stack([conv.random_qpos(mj, rng) for _ in range(NUM_STATES)])
    qvel = rng.normal(size=(NUM_STATES, mj.nv))
    T = np.stack([conv.T(x) for x in qpos])
    q = np.stack([conv.q(x) for x in qpos])
    v = np.einsum("kij,kj->ki", T, qvel)
    out = _dynamics(plant)(plant.CreateDefaultContext(jnp.float64), jnp.asarray(q), jnp.asarray(v))
    out = jax.tree_util.tree_map(np.asarray, out)
    return request.param, passive, plant, mj, qpos, qvel, T, out


def _check(name, what, a, b):
    err = np.abs(a - b).max() / max(1.0, np.abs(b).max())
    ERRORS.setdefault(name, {})[what] = max(err, ERRORS.get(name, {}).get(what, 0.0))
    assert err < REL_TOL, f"{name} {what}: relative error {err:.2e}"


def test_mass_matrix_bias_and_passive_forces_match_mujoco(model):
    name, passive, _, mj, qpos, qvel, T, out = model
    data = mujoco.MjData(mj)
    for k in range(NUM_STATES):
        data.qpos[:], data.qvel[:] = qpos[k], qvel[k]
        mujoco.mj_forward(mj, data)
        M = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, data, M)
        _check(name, "M", T[k].T @ out["M"][k] @ T[k], M)
        _check(name, "bias", T[k].T @ out["bias"][k], data.qfrc_bias)
        if passive:
            _check(name, "passive", T[k].T @ out["passive"][k], data.qfrc_passive)
        R_WB, p_WB = out["poses"][0][k], out["poses"][1][k]
        for i in range(1, mj.nbody):
            b = int(_body(plant_of(model), mj, i).index())
            _check(name, "X_WB", np.concatenate([R_WB[b].ravel(), p_WB[b]]),
                   np.concatenate([data.xmat[i], data.xpos[i]]))


def plant_of(model):
    return model[2]


def _body(plant, mj, i):
    return plant.GetBodyByName(mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, i) or f"body{i}")


def test_body_inertias_match_mujoco(model):
    """Every MuJoCo body has a jaxbody body of the same name and spatial inertia (MuJoCo keeps
    it as mass, COM, principal moments and their frame)."""
    _, _, plant, mj, *_ = model
    for i in range(1, mj.nbody):
        M = _body(plant, mj, i).default_spatial_inertia()
        m, c = float(M.get_mass()), np.asarray(M.get_com())
        I = m * (np.asarray(M.get_unit_inertia().CopyToFullMatrix3()) - (c @ c * np.eye(3)
                                                                        - np.outer(c, c)))
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, mj.body_iquat[i])
        R = R.reshape(3, 3)
        scale = max(1.0, mj.body_mass[i])
        assert abs(m - mj.body_mass[i]) <= 1e-12 * scale
        np.testing.assert_allclose(c, mj.body_ipos[i], atol=1e-12)
        np.testing.assert_allclose(I, R @ np.diag(mj.body_inertia[i]) @ R.T, atol=1e-12 * scale)


def test_zz_report_accuracy():
    """Prints the largest relative error per model and quantity (run with -s)."""
    print()
    for name, errs in ERRORS.items():
        print(f"{name:9s} " + "  ".join(f"{k}={e:.1e}" for k, e in sorted(errs.items())))
