"""Real robots from example-robot-data's URDF files, built in jaxbody, pydrake and Pinocchio.

The same file is parsed by all three engines, with documented adjustments:

- ``<mimic>`` elements are removed for all three engines: talos_reduced.urdf has some on fixed
  joints, which Drake (and so jaxbody) rejects, and on a continuous-time plant Drake's coupler
  constraints (panda's fingers) make ``CalcTimeDerivatives`` throw. jaxbody and Pinocchio
  ignore mimic elements anyway.
- Drake replaces a physically invalid ``<inertial>`` (e.g. anymal_c's depth-camera link breaks
  the triangle inequality) with a solid water sphere, with a warning, and jaxbody matches Drake;
  Pinocchio keeps the raw numbers, so Pinocchio is given Drake's replacement for those links.
- Joints listed in `BENCHMARK_MODELS` (panda's fingers) are turned into fixed joints.

Fixed-base robots whose root link floats in Drake (panda) are welded to the world in jaxbody
and pydrake and built without a root joint in Pinocchio. The result is a
`benchmarks.models.Engines` whose ``spec.bodies[i]`` describes Pinocchio joint i + 1 by its
Drake joint name, so `benchmarks.models.PinocchioCoordinates` applies unchanged.
"""

from __future__ import annotations

import re
import types
import warnings
import xml.etree.ElementTree as ET  # rewrites trusted, installed files only

import numpy as np

from benchmarks import models, robot_files

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
# the benchmark's real models: name -> (robot of `ROBOTS`, joints made fixed)
BENCHMARK_MODELS = {
    "panda": ("panda", ("panda_finger_joint1", "panda_finger_joint2")),  # the 7-dof arm
    "go1": ("go1", ()),  # floating quadruped, nv = 18
    "g1": ("g1", ()),  # floating humanoid, nv = 35
}
MAPPING_TOL = 1e-9  # Pinocchio vs Drake through the converter, relative to max(1, |Drake|)


class Unavailable(LookupError):
    """The robot's URDF is not in the installed wheels."""


def _drop_mimic(root):
    for joint in root.iter("joint"):
        for mimic in joint.findall("mimic"):
            joint.remove(mimic)


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


def urdf_text(name, fixed=()):
    """The robot's URDF text, mimic elements removed and the ``fixed`` joints made fixed."""
    relpath = ROBOTS[name][0]
    path = robot_files.robot(relpath) if relpath else None
    if path is None:
        raise Unavailable(f"{name}: no URDF in the installed wheels")
    with open(path, encoding="utf-8") as f:
        root = ET.fromstring(f.read())
    _drop_mimic(root)
    for joint in root.iter("joint"):
        if joint.get("name") in fixed:
            joint.set("type", "fixed")
    return ET.tostring(root, encoding="unicode")


def build(name, fixed=()):
    """``(Engines, replaced)``: robot ``name`` of `ROBOTS` in the three engines, and the links
    whose inertia Drake (and jaxbody) replaced. Raises `Unavailable` without the file."""
    import pinocchio as pin
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    import jaxbody as jb

    text, weld = urdf_text(name, fixed), ROBOTS[name][1]
    jplant = jb.MultibodyPlant(0.0)
    jplant.set_contact_enabled(False)  # pure dynamics: Drake's plant has no SceneGraph
    parser = jb.Parser(jplant)
    robot_files.add_packages(parser.package_map())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", jb.ParseWarning)
        parser.AddModelsFromString(text, "urdf")
    replaced = {m.group(1) for w in caught
                if (m := re.search(r"link '([^']+)': the (rotational inertia|mass)", str(w.message)))}
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
    return engines_of(name, jplant, dplant, model), replaced


def build_benchmark_model(name):
    """`Engines` of a `BENCHMARK_MODELS` entry, its q/v mapping checked (`check_mapping`)."""
    robot, fixed = BENCHMARK_MODELS[name]
    engines, _ = build(robot, fixed)
    engines.spec.name = name
    check_mapping(engines, np.random.default_rng(sum(map(ord, name))))
    return engines


def build_engines(name):
    """The three engines for a model of `BENCHMARK_MODELS` or of `benchmarks.models.MODELS`."""
    return build_benchmark_model(name) if name in BENCHMARK_MODELS else models.build(name)


def _floats(dplant):
    return any(dplant.get_joint(j).type_name() == "quaternion_floating"
               for j in dplant.GetJointIndices())


def engines_of(name, jplant, dplant, model):
    """A `benchmarks.models.Engines` for finalized jaxbody and Drake plants and a `pin.Model`
    of the same URDF; asserts that jaxbody and Drake share one q/v layout."""
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
    assert dplant.num_positions() == model.nq and dplant.num_velocities() == model.nv, name
    spec = types.SimpleNamespace(name=name, bodies=tuple(bodies))
    return models.Engines(spec, (jplant, None), (dplant, None), model, q_perm, free_v)


def check_mapping(engines, rng, num_states=2):
    """Raises AssertionError unless Pinocchio's mass matrix and inverse dynamics (crba, rnea)
    equal Drake's through `PinocchioCoordinates` at random states, to `MAPPING_TOL`."""
    import pinocchio as pin
    from pydrake.multibody.tree import MultibodyForces

    dplant, model = engines.drake[0], engines.pinocchio
    ctx, data = dplant.CreateDefaultContext(), model.createData()
    q = models.random_q(engines, rng, num_states)
    v, vdot = rng.normal(size=(2, num_states, engines.nv))
    conv = models.PinocchioCoordinates(engines, q)
    a_pin, v_pin = conv.vdot(vdot, v), conv.v(v)
    for k in range(num_states):
        dplant.SetPositions(ctx, q[k])
        dplant.SetVelocities(ctx, v[k])
        tau = (dplant.CalcInverseDynamics(ctx, vdot[k], MultibodyForces(dplant))
               - dplant.CalcGravityGeneralizedForces(ctx))
        M, T = pin.crba(model, data, conv.q[k]).copy(), conv.T[k]
        for what, ours, ref in (
                ("mass matrix", np.triu(M) + np.triu(M, 1).T, T @ dplant.CalcMassMatrix(ctx) @ T.T),
                ("inverse dynamics", pin.rnea(model, data, conv.q[k], v_pin[k], a_pin[k]), T @ tau)):
            err = np.abs(ours - ref).max() / max(1.0, np.abs(ref).max())
            if not err < MAPPING_TOL:
                raise AssertionError(f"{engines.spec.name}: Pinocchio's {what} differs from "
                                     f"Drake's by {err:.2e} through the q/v mapping")
