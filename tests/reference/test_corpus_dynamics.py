"""The dynamics of every model file shipped in the ``mujoco`` wheel (MJCF) and in Drake's wheel
(SDFormat, URDF), through jaxbody and through the engine that ships it: M, C·v, the gravity
generalized forces τ_g and the unconstrained accelerations agree to 1e-10 relative at random
states (float64). Run with -s for a summary line per corpus and every file not compared.

MuJoCo: contacts, constraints (limits, equalities, friction loss) and actuation are disabled, so
``qacc`` = M⁻¹(qfrc_passive − qfrc_bias); jaxbody's plant has contact disabled, and its
`CalcGeneralizedAccelerations` (zero actuation) holds gravity, damping and force elements.
MuJoCo gives C·v and τ_g through ``qfrc_bias`` = C·v − τ_g at v and at v = 0. States are mapped
by `tests.parsers.mujoco_coordinates.MujocoCoordinates` (ball and free joints included). What
jaxbody's reader drops with a ParseWarning naming it (tendons, ball-joint armature and
stiffness) is removed from MuJoCo's model too, so the comparison covers what jaxbody loads.

Drake: pydrake's continuous plant without SceneGraph, zero actuation, against jaxbody's
continuous plant with contact disabled, at the same q (within finite joint limits) and v.
"""

import glob
import logging
import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
pytest.importorskip("pydrake")

import jaxbody as jb  # noqa: E402
from tests.parsers import robot_files  # noqa: E402
from tests.parsers.mujoco_coordinates import MujocoCoordinates  # noqa: E402

jax.config.update("jax_enable_x64", True)
pytestmark = pytest.mark.slow  # ~65 s on 2 shared cores, mostly XLA compiling 47 plants

REL_TOL = 1e-10  # relative to max(1, |reference|∞)
NUM_STATES = 2
# The time budget: compiling the four quantities costs seconds per model and grows with its size.
# MuJoCo's mjx/test_data/humanoid/NN_humanoids.xml (N = 1..10) are N copies of humanoid.xml,
# which is compared; they are not. (Nothing else in the wheel has more dofs than MAX_DOFS.)
MAX_DOFS = 30
REPLICAS = "_humanoids.xml"
# Files whose disagreement has an established cause, printed but not asserted.
KNOWN = {"mjx/test_data/convex.xml": "MuJoCo keeps the near-isotropic dodecahedron's principal "
         "moments from its own eigensolver, ~3e-9 off the exact ones (test_mjcf_corpus.py, "
         "MESH_INERTIA_TOL), and C·v = ω × Iω of a near-isotropic body magnifies that"}
# Accelerations are compared where M is well conditioned: their error bound is about
# cond(M)·ε relative, so 1e-10 needs cond(M) below about 1e6. (Drake's Acrobot_no_collision.urdf
# floats a base with no mass: cond(M) ≈ 1e16, and both engines' v̇ are rounding noise.)
MAX_CONDITION = 1e6
MJ_DIR = os.path.dirname(mujoco.__file__)
MJCF_FILES = sorted(glob.glob(os.path.join(MJ_DIR, "**", "*.xml"), recursive=True))
DRAKE = robot_files.drake_share_dir()
DRAKE_FILES = sorted(f for ext in ("sdf", "urdf")
                     for f in glob.glob(os.path.join(DRAKE or "", "**", f"*.{ext}"),
                                        recursive=True)) if DRAKE else []


def _rel_err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    return np.abs(a - b).max(initial=0.0) / max(1.0, np.abs(b).max(initial=0.0))


def _dynamics(plant):
    """One jitted function of (q, v) per plant: M, C·v, τ_g, v̇ (zero actuation)."""
    context = plant.CreateDefaultContext(jnp.float64)

    def f(q, v):
        ctx = plant.SetVelocities(plant.SetPositions(context, q), v)
        return {"M": plant.CalcMassMatrix(ctx), "Cv": plant.CalcBiasTerm(ctx),
                "g": plant.CalcGravityGeneralizedForces(ctx),
                "vdot": plant.CalcGeneralizedAccelerations(ctx)}

    fn = jax.jit(f)
    return lambda q, v: {k: np.asarray(x) for k, x in fn(jnp.asarray(q), jnp.asarray(v)).items()}


def _summary(name, errors, skipped):
    worst = max((max(e.values()) for p, e in errors.items() if p not in KNOWN), default=0.0)
    print(f"\n{name}: {len(errors)} files compared, worst relative error {worst:.1e} "
          f"({len(KNOWN.keys() & errors.keys())} known disagreements aside) "
          f"(tolerance {REL_TOL:.0e}); {len(skipped)} not compared")
    for path, why in skipped.items():
        print(f"  {path}: {why}")
    for path, e in errors.items():
        print(f"  {path}: " + "  ".join(f"{k}={x:.1e}" for k, x in e.items())
              + (f"  (known: {KNOWN[path]})" if path in KNOWN else ""))
    bad = {p: e for p, e in errors.items() if max(e.values()) >= REL_TOL and p not in KNOWN}
    assert not bad, f"{name}: disagreements {bad}"


# ---- MJCF vs MuJoCo ---------------------------------------------------------------------------
def _mjcf_pair(path):
    """(MuJoCo model, jaxbody plant, None) or (None, None, why not compared)."""
    with open(path, "rb") as f:
        if b"<mujoco" not in f.read(4096):
            return None, None, None
    try:
        mj = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # MuJoCo raises ValueError
        return None, None, f"MuJoCo refuses it: {str(e).splitlines()[0]}"
    plant = jb.MultibodyPlant(0.0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jb.ParseWarning)
            jb.Parser(plant).AddModels(path)
    except jb.ParseError as e:
        return None, None, f"jaxbody refuses it: {e.reason}"
    plant.set_contact_enabled(False)
    plant.Finalize()
    if path.endswith(REPLICAS):
        return None, None, "copies of humanoid.xml (time budget)"
    if mj.nv > MAX_DOFS:
        return None, None, f"{mj.nv} dofs > MAX_DOFS={MAX_DOFS} (time budget)"
    return mj, plant, None


def _drop_what_jaxbody_drops(mj):
    """MuJoCo's model less what jaxbody's reader ignores with a ParseWarning naming it, and
    with contact, constraints and actuation disabled."""
    mj.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
                               | mujoco.mjtDisableBit.mjDSBL_CONTACT
                               | mujoco.mjtDisableBit.mjDSBL_ACTUATION)
    mj.tendon_stiffness[:] = 0.0  # "<tendon> is not supported by jaxbody yet"
    mj.tendon_damping[:] = 0.0
    mj.tendon_armature[:] = 0.0
    for j in range(mj.njnt):  # "ball joint: armature and stiffness cannot be expressed"
        if mj.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
            mj.jnt_stiffness[j] = 0.0
            mj.dof_armature[mj.jnt_dofadr[j]:mj.jnt_dofadr[j] + 3] = 0.0


def _mujoco_reference(mj, qpos, qvel):
    data = mujoco.MjData(mj)
    data.qpos[:], data.qvel[:] = qpos, 0.0
    mujoco.mj_forward(mj, data)
    g = -data.qfrc_bias.copy()
    data.qvel[:] = qvel
    mujoco.mj_forward(mj, data)
    M = np.zeros((mj.nv, mj.nv))
    mujoco.mj_fullM(mj, data, M)
    return {"M": M, "Cv": data.qfrc_bias + g, "g": g, "vdot": data.qacc.copy()}


def test_mjcf_corpus_dynamics_match_mujoco():
    rng = np.random.default_rng(37)
    errors, skipped, singular = {}, {}, {}
    for path in MJCF_FILES:
        name = os.path.relpath(path, MJ_DIR)
        mj, plant, why = _mjcf_pair(path)
        if mj is None:
            if why is not None:
                skipped[name] = why
            continue
        try:
            conv = MujocoCoordinates(mj, plant)
        except Exception as e:  # a joint the converter cannot map
            skipped[name] = f"no coordinate map: {type(e).__name__}: {e}"
            continue
        _drop_what_jaxbody_drops(mj)
        fn, errs = _dynamics(plant), {}
        for _ in range(NUM_STATES):
            qpos = conv.random_qpos(mj, rng)
            qvel = rng.normal(size=mj.nv)
            T = conv.T(qpos)
            got = fn(conv.q(qpos), T @ qvel)
            ref = _mujoco_reference(mj, qpos, qvel)
            mapped = {"M": T.T @ got["M"] @ T, "Cv": T.T @ got["Cv"], "g": T.T @ got["g"],
                      "vdot": np.linalg.solve(T, got["vdot"]) if mj.nv else got["vdot"]}
            if mj.nv and np.linalg.cond(ref["M"]) > MAX_CONDITION:
                singular[name] = f"cond(M) = {np.linalg.cond(ref['M']):.1e}"
                del ref["vdot"]
            for k in ref:
                errs[k] = max(errs.get(k, 0.0), _rel_err(mapped[k], ref[k]))
        errors[name] = errs
    for name, why in singular.items():
        print(f"\n  {name}: accelerations not compared, {why}", end="")
    _summary("MJCF files of the mujoco wheel vs MuJoCo", errors, skipped)
    assert len(errors) >= 25


# ---- SDFormat / URDF vs pydrake -----------------------------------------------------------------
def _drake_pair(path):
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    logging.getLogger("drake").setLevel(logging.CRITICAL)
    dp = MultibodyPlant(0.0)
    parser = Parser(dp)
    robot_files.add_packages(parser.package_map())
    try:
        parser.AddModels(path)
    except Exception as e:  # pydrake raises RuntimeError or ValueError
        return None, None, f"pydrake refuses it: {str(e).splitlines()[0]}"
    dp.Finalize()
    jp = jb.MultibodyPlant(0.0)
    parser = jb.Parser(jp)
    robot_files.add_packages(parser.package_map())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jb.ParseWarning)
            parser.AddModels(path)
    except jb.ParseError as e:
        return None, None, f"jaxbody refuses it: {e.reason}"
    jp.set_contact_enabled(False)
    jp.Finalize()
    return dp, jp, None


def _random_q(dp, rng):
    """Drake's default q with every 1-dof joint drawn within its finite limits (else [-1, 1])
    and every quaternion floating joint at a random pose."""
    q = dp.GetDefaultPositions().copy()
    lo, hi = dp.GetPositionLowerLimits(), dp.GetPositionUpperLimits()
    for index in dp.GetJointIndices():
        joint = dp.get_joint(index)
        s, n = joint.position_start(), joint.num_positions()
        if joint.type_name() == "quaternion_floating":
            quat = rng.normal(size=4)
            q[s:s + 4], q[s + 4:s + 7] = quat / np.linalg.norm(quat), rng.normal(size=3)
        elif n == 1:
            a = lo[s] if np.isfinite(lo[s]) else -1.0
            b = hi[s] if np.isfinite(hi[s]) else a + 2.0
            q[s] = rng.uniform(a, b)
        elif n:
            q[s:s + n] = rng.uniform(-1, 1, size=n)
    return q


def test_drake_corpus_dynamics_match_pydrake():
    rng = np.random.default_rng(37)
    errors, skipped, singular = {}, {}, {}
    for path in DRAKE_FILES:
        name = robot_files.short_name(path)
        dp, jp, why = _drake_pair(path)
        if dp is None:
            skipped[name] = why
            continue
        assert (dp.num_positions(), dp.num_velocities()) == (jp.num_positions(),
                                                             jp.num_velocities()), name
        ctx = dp.CreateDefaultContext()
        for i in range(dp.num_model_instances()):
            from pydrake.multibody.tree import ModelInstanceIndex

            port = dp.get_actuation_input_port(ModelInstanceIndex(i))
            port.FixValue(ctx, np.zeros(dp.num_actuated_dofs(ModelInstanceIndex(i))))
        fn, errs = _dynamics(jp), {}
        for _ in range(NUM_STATES):
            q, v = _random_q(dp, rng), rng.normal(size=dp.num_velocities())
            dp.SetPositions(ctx, q)
            dp.SetVelocities(ctx, v)
            got = fn(q, v)
            ref = {"M": dp.CalcMassMatrix(ctx), "Cv": dp.CalcBiasTerm(ctx),
                   "g": dp.CalcGravityGeneralizedForces(ctx)}
            if dp.num_velocities() and np.linalg.cond(ref["M"]) > MAX_CONDITION:
                singular[name] = f"cond(M) = {np.linalg.cond(ref['M']):.1e}"
            else:
                ref["vdot"] = dp.EvalTimeDerivatives(ctx).get_generalized_velocity().CopyToVector()
            for k in ref:
                errs[k] = max(errs.get(k, 0.0), _rel_err(got[k], ref[k]))
        errors[name] = errs
    for name, why in singular.items():
        print(f"\n  {name}: accelerations not compared, {why}", end="")
    _summary("SDFormat/URDF files of the drake wheel vs pydrake", errors, skipped)
    assert len(errors) >= 15
