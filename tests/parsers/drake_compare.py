"""Element-by-element comparison of a model parsed by pydrake and by jaxbody: model instances,
bodies and inertias, frames (index, name, body, instance, pose in the body), joints (type,
frames, axis, pitch, limits, damping, weld pose, q/v slots), actuators, joint springs and
collision/visual geometry (name, shape, pose, friction and contact properties, color)."""

from __future__ import annotations

import logging
import os
import warnings

import numpy as np

import jaxbody as jb
from tests.parsers import robot_files

POSE_TOL = 1e-14  # frame and geometry poses: the same numbers through the same formulas
INERTIA_TOL = 1e-12  # mass, COM, unit inertia, relative to max(1, mass)


def pydrake_plant(source, file_type="sdf", scene_graph=True, packages=None):
    """``(plant, scene_graph or None)`` with ``source`` (a path, or text of ``file_type``)
    added by pydrake's Parser (raises what pydrake raises); ``packages``: {name: folder}."""
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
    from pydrake.systems.framework import DiagramBuilder

    logging.getLogger("drake").setLevel(logging.CRITICAL)
    if scene_graph:
        plant, sg = AddMultibodyPlantSceneGraph(DiagramBuilder(), 0.0)
    else:
        plant, sg = MultibodyPlant(0.0), None
    parser = Parser(plant)
    robot_files.add_packages(parser.package_map())
    for name, folder in (packages or {}).items():
        parser.package_map().Add(name, str(folder))
    if os.path.isfile(str(source)):
        parser.AddModels(str(source))
    else:
        parser.AddModelsFromString(source, file_type)
    return plant, sg


def jaxbody_plant(source, file_type="sdf", packages=None):
    """A jaxbody plant with ``source`` added (ParseWarnings silenced)."""
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    robot_files.add_packages(parser.package_map())
    for name, folder in (packages or {}).items():
        parser.package_map().Add(name, str(folder))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.ParseWarning)
        if os.path.isfile(str(source)):
            parser.AddModels(source)
        else:
            parser.AddModelsFromString(source, file_type)
    return plant


def _pose_err(X_a, X_b):
    return np.abs(X_a.GetAsMatrix4() - np.asarray(X_b.GetAsMatrix4())).max()


def compare_plants(dp, sg, jp, name=""):
    """Asserts that pydrake's ``dp`` (with SceneGraph ``sg`` or None) and jaxbody's ``jp``
    hold the same model; finalizes both."""
    from pydrake.multibody.tree import BodyIndex, ForceElementIndex, FrameIndex, JointIndex

    assert dp.num_model_instances() == jp.num_model_instances(), name
    for i in range(2, dp.num_model_instances()):
        from pydrake.multibody.tree import ModelInstanceIndex

        assert dp.GetModelInstanceName(ModelInstanceIndex(i)) == jp.GetModelInstanceName(
            jb.ModelInstanceIndex(i)), name
    assert (dp.num_bodies(), dp.num_frames(), dp.num_joints(), dp.num_actuators()) == (
        jp.num_bodies(), jp.num_frames(), jp.num_joints(), jp.num_actuators()), name
    for i in range(1, dp.num_bodies()):
        a, b = dp.get_body(BodyIndex(i)), jp.get_body(i)
        assert (a.name(), int(a.model_instance())) == (b.name(), int(b.model_instance())), name
        Ma, Mb = a.default_spatial_inertia(), b.default_spatial_inertia()
        err = max(abs(Ma.get_mass() - float(Mb.get_mass())),
                  np.abs(Ma.get_com() - np.asarray(Mb.get_com())).max(),
                  np.abs(Ma.get_unit_inertia().CopyToFullMatrix3()
                         - np.asarray(Mb.get_unit_inertia().CopyToFullMatrix3())).max())
        assert err <= INERTIA_TOL * max(1.0, Ma.get_mass()), (name, a.name(), err)
    for i in range(dp.num_frames()):
        a, b = dp.get_frame(FrameIndex(i)), jp.get_frame(i)
        assert (a.name(), a.body().name(), int(a.model_instance())) == (
            b.name(), b.body().name(), int(b.model_instance())), (name, i)
        err = _pose_err(a.GetFixedPoseInBodyFrame(), b.GetFixedPoseInBodyFrame())
        assert err <= POSE_TOL, (name, a.name(), err)
    for i in range(dp.num_joints()):
        _compare_joint(dp.get_joint(JointIndex(i)), jp.get_joint(i), name)
    for index in dp.GetJointActuatorIndices():
        a = dp.get_joint_actuator(index)
        b = jp.get_joint_actuator(int(index))
        assert (a.name(), a.joint().name(), a.effort_limit(), a.default_rotor_inertia(),
                a.default_gear_ratio()) == (b.name(), b.joint().name(), b.effort_limit(),
                                            b.default_rotor_inertia(), b.default_gear_ratio())
    assert dp.num_force_elements() == jp.num_force_elements(), name
    for i in range(1, dp.num_force_elements()):
        a, b = dp.get_force_element(ForceElementIndex(i)), jp.get_force_element(i)
        assert type(a).__name__ == type(b).__name__, name
        getters = (("default_nominal_angle", "default_stiffness") if type(a).__name__ ==
                   "RevoluteSpring" else ("nominal_position", "stiffness"))
        assert [a.joint().name()] + [getattr(a, g)() for g in getters] == [
            b.joint().name()] + [getattr(b, g)() for g in getters], name
    if sg is not None:
        _compare_geometry(dp, sg, jp, name)
    dp.Finalize()
    jp.Finalize()
    assert dp.num_joints() == jp.num_joints(), name
    for i in range(dp.num_joints()):  # by name: the floating joints Finalize adds may be
        a = dp.get_joint(JointIndex(i))  # indexed in another order (same q/v slots)
        b = jp.GetJointByName(a.name(), jb.ModelInstanceIndex(int(a.model_instance())))
        assert (a.type_name(), a.position_start(), a.velocity_start()) == (
            b.type_name(), b.position_start(), b.velocity_start()), (name, a.name())
    # default positions, free bodies' default poses (SDFormat link poses) included
    np.testing.assert_allclose(np.asarray(jp.GetDefaultPositions()), dp.GetDefaultPositions(),
                               atol=POSE_TOL, err_msg=name)


def _compare_joint(a, b, name):
    assert (a.name(), a.type_name(), int(a.model_instance()), a.frame_on_parent().name(),
            a.frame_on_child().name()) == (b.name(), b.type_name(), int(b.model_instance()),
                                           b.frame_on_parent().name(), b.frame_on_child().name())
    for what in ("position_lower_limits", "position_upper_limits", "velocity_lower_limits",
                 "velocity_upper_limits", "acceleration_lower_limits",
                 "acceleration_upper_limits", "default_damping_vector"):
        np.testing.assert_array_equal(getattr(a, what)(), getattr(b, what)(),
                                      err_msg=f"{name}: {a.name()}.{what}")
    for what in ("revolute_axis", "translation_axis", "screw_axis"):
        if hasattr(a, what):
            np.testing.assert_allclose(getattr(a, what)(), getattr(b, what)(), atol=POSE_TOL,
                                       err_msg=f"{name}: {a.name()}.{what}")
    if a.type_name() == "screw":
        assert a.screw_pitch() == b.screw_pitch(), (name, a.name())
    if a.type_name() == "weld":
        assert _pose_err(a.X_FM(), b.X_FM()) <= POSE_TOL, (name, a.name())


def shape_key(shape):
    kind = type(shape).__name__
    if kind in ("Mesh", "Convex"):
        filename = shape.filename() if hasattr(shape, "filename") else shape.source().path()
        return kind, os.path.realpath(filename), tuple(shape.scale3())
    getters = {"Box": ("width", "depth", "height"), "Sphere": ("radius",),
               "Cylinder": ("radius", "length"), "Capsule": ("radius", "length"),
               "Ellipsoid": ("a", "b", "c"), "HalfSpace": ()}[kind]
    return (kind,) + tuple(getattr(shape, g)() for g in getters)


def _compare_geometry(dp, sg, jp, name):
    from pydrake.multibody.tree import BodyIndex

    inspector = sg.model_inspector()
    for i in range(dp.num_bodies()):
        for kind in ("Collision", "Visual"):
            ids_a = getattr(dp, f"Get{kind}GeometriesForBody")(dp.get_body(BodyIndex(i)))
            ids_b = getattr(jp, f"Get{kind}GeometriesForBody")(jp.get_body(i))
            assert len(ids_a) == len(ids_b), (name, kind, i)
            for ga, gb in zip(ids_a, ids_b):
                g = jp.GetGeometry(gb)
                assert inspector.GetName(ga) == g.name(), name
                assert shape_key(inspector.GetShape(ga)) == shape_key(g.shape()), (name, g.name())
                err = _pose_err(inspector.GetPoseInFrame(ga), g.pose_in_body())
                assert err <= POSE_TOL, (name, g.name(), err)
                if kind == "Collision":
                    _compare_proximity(inspector.GetProximityProperties(ga), g.properties(),
                                       g.name())
                else:
                    rgba = inspector.GetIllustrationProperties(ga).GetPropertyOrDefault(
                        "phong", "diffuse", None)
                    ours = g.diffuse_color()
                    assert (rgba is None) == (ours is None), (name, g.name())
                    if rgba is not None:
                        np.testing.assert_array_equal([rgba.r(), rgba.g(), rgba.b(), rgba.a()],
                                                      ours)


def _compare_proximity(pa, pb, name):
    fa, fb = (p.GetProperty("material", "coulomb_friction") for p in (pa, pb))
    assert (fa.static_friction(), fa.dynamic_friction()) == (fb.static_friction(),
                                                             fb.dynamic_friction()), name
    for prop in ("point_contact_stiffness", "hunt_crossley_dissipation", "relaxation_time"):
        assert pa.GetPropertyOrDefault("material", prop, None) == pb.GetPropertyOrDefault(
            "material", prop, None), (name, prop)
    for prop in ("compliance_type", "hydroelastic_modulus", "resolution_hint"):
        a = pa.GetPropertyOrDefault("hydroelastic", prop, None)
        b = pb.GetPropertyOrDefault("hydroelastic", prop, None)
        if prop == "compliance_type" and a is not None:
            a = str(a).rsplit(".", 1)[-1].lower().replace("ksoft", "compliant").lstrip("k")
        assert (a is None) == (b is None) and (a is None or a == b or str(a) == str(b)), (
            name, prop, a, b)
