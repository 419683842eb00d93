"""Every URDF shipped by example-robot-data and by Drake's wheel, parsed by pydrake and by
jaxbody: the same files load, and each loaded model matches pydrake's element for element
(frames and their poses, inertias, joints with their q/v slots, limits and damping, actuators,
default positions, and collision/visual geometry with names, shapes, poses and properties).

"pydrake accepts a file" means: pydrake's Parser loads it into a MultibodyPlant, and every
mesh/texture URI in it resolves with pydrake's PackageMap (Drake resolves these whenever a
SceneGraph is attached; jaxbody always registers geometry). We do not require pydrake's
SceneGraph to accept the file, because Drake's proximity engine refuses .stl/.dae collision
meshes (``MakeConvexHull only applies to .obj, .vtk, and .gltf``), a geometry-engine limit
unrelated to parsing. Geometry is compared on the files pydrake+SceneGraph does load.
"""

import logging
import os
import warnings
import xml.etree.ElementTree as ET  # test-side only: reads trusted, installed files

import numpy as np
import pytest

pytest.importorskip("pydrake")

import jaxbody as jb  # noqa: E402
from tests.parsers import robot_files  # noqa: E402
from tests.parsers.drake_compare import shape_key  # noqa: E402

POSE_TOL = 1e-14  # frame and geometry poses: the same numbers through the same formulas
INERTIA_TOL = 1e-12  # mass, COM, unit inertia, relative to max(1, mass)

FILES = robot_files.all_urdfs()
# The corpus as installed on 2026-11-25 (example-robot-data and Drake's wheel): 83 URDFs, 74 of
# which both engines load. A smaller corpus would make the comparisons below quietly weaker.
MIN_FILES, MIN_LOADED = 80, 70
pytestmark = pytest.mark.skipif(not FILES, reason="no robot description wheels installed")


def _uris_resolve(path, package_map):
    """None if every mesh/texture URI of ``path`` resolves with pydrake's PackageMap, else why."""
    root = ET.parse(path).getroot()
    for el in root.iter():
        uri = el.get("filename")
        if el.tag not in ("mesh", "texture") or not uri:
            continue
        try:
            if "://" in uri:
                resolved = package_map.ResolveUrl(uri)
            else:
                resolved = os.path.join(os.path.dirname(path), uri)
            if not os.path.isfile(resolved):
                return f"URI '{uri}' resolved to a missing file"
        except Exception as e:  # pydrake raises RuntimeError or ValueError
            return f"URI '{uri}': {str(e).splitlines()[0]}"
    return None


def _pydrake_plant(path, scene_graph=False):
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
    from pydrake.systems.framework import DiagramBuilder

    if scene_graph:
        plant, sg = AddMultibodyPlantSceneGraph(DiagramBuilder(), 0.0)
    else:
        plant, sg = MultibodyPlant(0.0), None
    parser = Parser(plant)
    robot_files.add_packages(parser.package_map())
    parser.AddModels(path)
    return plant, sg, parser.package_map()


def _jaxbody_plant(path):
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    robot_files.add_packages(parser.package_map())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.ParseWarning)
        parser.AddModels(path)
    return plant


@pytest.fixture(scope="module")
def corpus():
    """{path: (pydrake plant or None, pydrake's reason, jaxbody plant or None, jaxbody's reason)}"""
    logging.getLogger("drake").setLevel(logging.CRITICAL)
    out = {}
    for path in FILES:
        try:
            dp, _, package_map = _pydrake_plant(path)
            why_not = _uris_resolve(path, package_map)
            ref = (dp, None) if why_not is None else (None, why_not)
        except Exception as e:
            ref = (None, str(e).splitlines()[0])
        try:
            got = (_jaxbody_plant(path), None)
        except jb.ParseError as e:
            got = (None, e.reason)
        out[path] = ref + got
    return out


def test_the_same_files_load(corpus):
    loaded = [p for p, (_, _, jp, _) in corpus.items() if jp is not None]
    accepted = [p for p, (dp, *_) in corpus.items() if dp is not None]
    print(f"\n{len(loaded)} of {len(corpus)} URDFs load in jaxbody; pydrake accepts {len(accepted)}")
    for path, (_, why_ref, jp, why) in corpus.items():
        if jp is None:
            print(f"  rejected {robot_files.short_name(path)}: {why}\n    (pydrake: {why_ref})")
    assert len(corpus) >= MIN_FILES and len(loaded) >= MIN_LOADED, (
        f"the corpus shrank: {len(corpus)} URDFs, {len(loaded)} loaded (expected at least "
        f"{MIN_FILES} and {MIN_LOADED}); check the installed robot description wheels")
    missing = [robot_files.short_name(p) for p in accepted if corpus[p][2] is None]
    assert not missing, f"pydrake accepts but jaxbody rejects: {missing}"
    # A documented difference (docs/differences_from_drake.md, "Model file URIs"): jaxbody reads
    # package:///name/... (talos's meshes) in the known package 'name'; Drake refuses the URI.
    # And ("Partial and reduced URDFs"): a mimic on a fixed joint and a transmission of a
    # joint not in the file are warnings here, errors in Drake.
    lenient = ("which has 0 DOF cannot mimic joint", "transmission specifies joint")
    empty_name = [p for p in loaded if corpus[p][0] is None
                  and (corpus[p][1].startswith("URI 'package:///")
                       or any(x in corpus[p][1] for x in lenient))]
    extra = [robot_files.short_name(p) for p in loaded
             if corpus[p][0] is None and p not in empty_name]
    assert not extra, f"jaxbody accepts but pydrake rejects: {extra}"


def _both_loaded(corpus):
    return [(p, dp, jp) for p, (dp, _, jp, _) in corpus.items() if dp is not None and jp is not None]


def test_loaded_models_match_pydrake(corpus):
    from pydrake.multibody.tree import BodyIndex, FrameIndex

    for path, dp, jp in _both_loaded(corpus):
        name = robot_files.short_name(path)
        assert (dp.num_bodies(), dp.num_frames(), dp.num_joints(), dp.num_actuators()) == (
            jp.num_bodies(), jp.num_frames(), jp.num_joints(), jp.num_actuators()), name
        for i in range(dp.num_frames()):
            a, b = dp.get_frame(FrameIndex(i)), jp.get_frame(i)
            assert (a.name(), a.body().name(), int(a.model_instance())) == (
                b.name(), b.body().name(), int(b.model_instance())), name
            X_a = a.GetFixedPoseInBodyFrame().GetAsMatrix4()
            X_b = np.asarray(b.GetFixedPoseInBodyFrame().GetAsMatrix4())
            assert np.abs(X_a - X_b).max() <= POSE_TOL, (name, a.name())
        for i in range(1, dp.num_bodies()):
            Ma = dp.get_body(BodyIndex(i)).default_spatial_inertia()
            Mb = jp.get_body(i).default_spatial_inertia()
            err = max(abs(Ma.get_mass() - float(Mb.get_mass())),
                      np.abs(Ma.get_com() - np.asarray(Mb.get_com())).max(),
                      np.abs(Ma.get_unit_inertia().CopyToFullMatrix3()
                             - np.asarray(Mb.get_unit_inertia().CopyToFullMatrix3())).max())
            assert err <= INERTIA_TOL * max(1.0, Ma.get_mass()), (name, jp.get_body(i).name())
        _compare_finalized(dp, jp, name)


def _compare_finalized(dp, jp, name):
    dp.Finalize()
    jp.Finalize()
    for index in dp.GetJointIndices():
        a = dp.get_joint(index)
        b = jp.GetJointByName(a.name(), jp.GetModelInstanceByName(
            dp.GetModelInstanceName(a.model_instance())))
        assert (a.type_name(), a.position_start(), a.velocity_start()) == (
            b.type_name(), b.position_start(), b.velocity_start()), (name, a.name())
        for what in ("position_lower_limits", "position_upper_limits", "velocity_lower_limits",
                     "velocity_upper_limits", "acceleration_lower_limits",
                     "acceleration_upper_limits", "default_damping_vector"):
            np.testing.assert_array_equal(getattr(a, what)(), getattr(b, what)(),
                                          err_msg=f"{name}: {a.name()}.{what}")
    for index in dp.GetJointActuatorIndices():
        a = dp.get_joint_actuator(index)
        b = jp.GetJointActuatorByName(a.name())
        assert (a.joint().name(), a.effort_limit(), a.default_rotor_inertia(),
                a.default_gear_ratio()) == (b.joint().name(), b.effort_limit(),
                                            b.default_rotor_inertia(), b.default_gear_ratio())
    np.testing.assert_array_equal(dp.GetDefaultPositions(), np.asarray(jp.GetDefaultPositions()),
                                  err_msg=name)


def test_geometry_matches_pydrake_scene_graph(corpus):
    from pydrake.multibody.tree import BodyIndex

    compared = 0
    for path, (_, _, jp, _) in corpus.items():
        try:
            dp, sg, _ = _pydrake_plant(path, scene_graph=True)
        except Exception:
            continue  # e.g. .stl/.dae collision meshes: Drake's MakeConvexHull refuses them
        assert jp is not None, robot_files.short_name(path)
        inspector = sg.model_inspector()
        for i in range(dp.num_bodies()):
            for kind in ("Collision", "Visual"):
                ids_a = getattr(dp, f"Get{kind}GeometriesForBody")(dp.get_body(BodyIndex(i)))
                ids_b = getattr(jp, f"Get{kind}GeometriesForBody")(jp.get_body(i))
                assert len(ids_a) == len(ids_b)
                for ga, gb in zip(ids_a, ids_b):
                    _compare_geometry(inspector, ga, jp.GetGeometry(gb), kind)
                    compared += 1
    print(f"\n{compared} geometries compared with pydrake's SceneGraph")
    assert compared > 0


def _compare_geometry(inspector, ga, g, kind):
    assert inspector.GetName(ga) == g.name()
    assert shape_key(inspector.GetShape(ga)) == shape_key(g.shape()), g.name()
    X_a = inspector.GetPoseInFrame(ga).GetAsMatrix4()
    assert np.abs(X_a - np.asarray(g.pose_in_body().GetAsMatrix4())).max() <= POSE_TOL
    if kind == "Collision":
        pa, pb = inspector.GetProximityProperties(ga), g.properties()
        fa, fb = (p.GetProperty("material", "coulomb_friction") for p in (pa, pb))
        assert (fa.static_friction(), fa.dynamic_friction()) == (
            fb.static_friction(), fb.dynamic_friction()), g.name()
        for prop in ("point_contact_stiffness", "hunt_crossley_dissipation", "relaxation_time"):
            assert pa.GetPropertyOrDefault("material", prop, None) == pb.GetPropertyOrDefault(
                "material", prop, None), (g.name(), prop)
    else:
        rgba = inspector.GetIllustrationProperties(ga).GetPropertyOrDefault("phong", "diffuse",
                                                                              None)
        ours = g.diffuse_color()
        assert (rgba is None) == (ours is None), g.name()
        if rgba is not None:
            np.testing.assert_allclose([rgba.r(), rgba.g(), rgba.b(), rgba.a()], ours, atol=0)
