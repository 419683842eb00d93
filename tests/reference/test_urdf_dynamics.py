"""Real robots from their URDF files through jaxbody, pydrake and Pinocchio: mass matrix, C·v,
gravity forces, inverse and forward dynamics agree to 1e-10 relative error at random states.

The same file is parsed by all three engines, with two documented adjustments:

- ``<mimic>`` elements are removed for all three engines: talos_reduced.urdf has some on fixed
  joints, which Drake (and so jaxbody) rejects, and on a continuous-time plant Drake's coupler
  constraints (panda's fingers) make ``CalcTimeDerivatives`` throw. jaxbody and Pinocchio
  ignore mimic elements anyway.
- Drake replaces a physically invalid ``<inertial>`` (e.g. anymal_c's depth-camera link breaks
  the triangle inequality) with a solid water sphere, with a warning, and jaxbody matches Drake;
  Pinocchio keeps the raw numbers, so Pinocchio is given Drake's replacement for those links.

Fixed-base robots whose root link floats in Drake (panda) are welded to the world in jaxbody
and pydrake and built without a root joint in Pinocchio. Comparisons with Pinocchio go through
`benchmarks.models.PinocchioCoordinates`, the one converter of free-flyer coordinates.
"""

import re
import types
import warnings
import xml.etree.ElementTree as ET  # test-side only: rewrites trusted, installed files

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
pytest.importorskip("pydrake")

import jaxbody as jb  # noqa: E402
from benchmarks import models  # noqa: E402
from tests.parsers import robot_files  # noqa: E402

pytestmark = pytest.mark.slow  # ~20-30 s per robot, mostly XLA compiling the five quantities

REL_TOL = 1e-10  # relative to max(1, |reference|)
NUM_STATES = 3

# name: (file under example-robot-data's robots/, root link to weld to the world or None)
ROBOTS = {
    "panda": ("panda_description/urdf/panda.urdf", "panda_link0"),
    "ur5": ("ur_description/urdf/ur5_robot.urdf", None),
    "iiwa": (None, None),  # neither wheel ships it (Drake's iiwa lives in drake_models)
    "anymal_c": ("anymal_c_simple_description/urdf/anymal.urdf", None),
    "a1": ("a1_description/urdf/a1.urdf", None),
    "go1": ("go1_description/urdf/go1.urdf", None),
    "talos": ("talos_data/robots/talos_reduced.urdf", None),
    "g1": ("g1_description/urdf/g1_29dof_rev_1_0.urdf", None),
}
ERRORS = {}  # robot -> {quantity: max relative error}, printed at the end


def _rel_err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    return np.abs(a - b).max(initial=0.0) / max(1.0, np.abs(b).max(initial=0.0))


def _check(robot, what, a, b):
    err = _rel_err(a, b)
    ERRORS.setdefault(robot, {})[what] = max(err, ERRORS.get(robot, {}).get(what, 0.0))
    assert err < REL_TOL, f"{robot} {what}: relative error {err:.2e} >= {REL_TOL:.0e}"


# ---- building the three engines --------------------------------------------------------------
def _drop_mimic(text):
    root = ET.fromstring(text)
    for joint in root.iter("joint"):
        for mimic in joint.findall("mimic"):
            joint.remove(mimic)
    return ET.tostring(root, encoding="unicode")


def _with_inertials_of(text, plant, links):
    """``text`` with the ``<inertial>`` of each link in ``links`` replaced by the jaxbody body's
    (Drake's stand-in): COM origin, mass, central inertia."""
    root = ET.fromstring(text)
    for link in root.iter("link"):
        if link.get("name") not in links:
            continue
        M = plant.GetBodyByName(link.get("name")).default_spatial_inertia()
        m, c = float(M.get_mass()), np.asarray(M.get_com())
        I = m * (np.asarray(M.get_unit_inertia().CopyToFullMatrix3())
                 - (c @ c * np.eye(3) - np.outer(c, c)))
        inertial = link.find("inertial")
        for child in list(inertial):
            inertial.remove(child)
        ET.SubElement(inertial, "origin", xyz=" ".join(map(_num, c)), rpy="0 0 0")
        ET.SubElement(inertial, "mass", value=_num(m))
        ET.SubElement(inertial, "inertia", ixx=_num(I[0, 0]), iyy=_num(I[1, 1]), izz=_num(I[2, 2]),
                      ixy=_num(I[0, 1]), ixz=_num(I[0, 2]), iyz=_num(I[1, 2]))
    return ET.tostring(root, encoding="unicode")


def _num(x):
    return format(float(x), ".17g")


def _build(name):
    relpath, weld = ROBOTS[name]
    path = robot_files.robot(relpath) if relpath else None
    if path is None:
        pytest.skip(f"{name}: no URDF in the installed wheels")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = _drop_mimic(text)
    jplant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(jplant)
    robot_files.add_packages(parser.package_map())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", jb.ParseWarning)
        parser.AddModelsFromString(text, "urdf")
    replaced = {m.group(1) for w in caught
                if (m := re.search(r"link '([^']+)': the (rotational inertia|mass)", str(w.message)))}

    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    dplant = MultibodyPlant(0.0)
    dparser = Parser(dplant)
    robot_files.add_packages(dparser.package_map())
    dparser.AddModelsFromString(text, "urdf")
    for plant in (jplant, dplant):
        if weld:
            plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(weld))
        plant.Finalize()
    pin_text = _with_inertials_of(text, jplant, replaced)
    model = (pin.buildModelFromXML(pin_text) if weld or not _floats(dplant)
             else pin.buildModelFromXML(pin_text, pin.JointModelFreeFlyer()))
    model.gravity = pin.Motion(np.array([0.0, 0.0, -9.81]), np.zeros(3))
    return _engines(name, jplant, dplant, model), replaced


def _floats(dplant):
    return any(dplant.get_joint(j).type_name() == "quaternion_floating"
               for j in dplant.GetJointIndices())


def _engines(name, jplant, dplant, model):
    """A `benchmarks.models.Engines` for a URDF model: spec.bodies[i] describes Pinocchio joint
    i + 1 by its Drake joint name, so `PinocchioCoordinates` applies unchanged."""
    bodies, q_perm, free_v = [], np.zeros(model.nq, np.int64), []
    for i in range(1, model.njoints):
        jm = model.joints[i]
        if jm.shortname() == "JointModelFreeFlyer":
            (dj,) = [dplant.get_joint(j) for j in dplant.GetJointIndices()
                     if dplant.get_joint(j).type_name() == "quaternion_floating"]
            s = dj.position_start()
            q_perm[jm.idx_q:jm.idx_q + 7] = s + np.array([4, 5, 6, 1, 2, 3, 0])
            free_v.append((dj.velocity_start(), jm.idx_v))
            bodies.append(types.SimpleNamespace(name=dj.name(), joint="free"))
        else:
            assert (jm.nq, jm.nv) == (1, 1), (name, model.names[i], jm.shortname())
            q_perm[jm.idx_q] = dplant.GetJointByName(model.names[i]).position_start()
            bodies.append(types.SimpleNamespace(name=model.names[i], joint="revolute"))
    for j in dplant.GetJointIndices():  # jaxbody and Drake share one q/v layout
        dj = dplant.get_joint(j)
        jj = jplant.GetJointByName(dj.name())
        assert (dj.position_start(), dj.velocity_start()) == (jj.position_start(),
                                                              jj.velocity_start()), dj.name()
    spec = types.SimpleNamespace(name=name, bodies=tuple(bodies))
    return models.Engines(spec, (jplant, None), (dplant, None), model, q_perm, free_v)


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
