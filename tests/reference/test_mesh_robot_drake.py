"""A falling mesh robot against Drake: example-robot-data's Panda, its links' STL collision
meshes given to both engines as the same OBJ convex hulls (Drake 1.51 reads no STL for
collision), free and limp, dropped 5 cm onto a ground half-space with Drake's default contact
properties; SAP steps of 1 ms, robot-robot pairs filtered. With jaxbody's default (Drake's one
point per geometry pair) the states after 0.5 s equal Drake's to 1e-3 m (and rad); measured
2.9e-5, the arm having folded by 1.4 rad and the base landed."""

import os
import re

import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("pydrake")
trimesh = pytest.importorskip("trimesh")

import jaxbody as jb  # noqa: E402
from jaxbody.cli.models import example_robot_data  # noqa: E402

DT, STEPS, DROP = 1e-3, 500, 0.05
ARM_Q = {"panda_joint2": 0.3, "panda_joint4": -1.5, "panda_joint6": 1.5,
         "panda_finger_joint1": 0.02, "panda_finger_joint2": 0.02}  # inside the joint limits


@pytest.fixture(scope="module")
def urdf(tmp_path_factory):
    erd = example_robot_data()
    if erd is None:
        pytest.skip("example-robot-data is not installed (the reference extra)")
    robot = os.path.join(erd, "robots", "panda_description")
    text = open(os.path.join(robot, "urdf", "panda.urdf")).read()
    folder = tmp_path_factory.mktemp("panda")
    text = re.sub(r"<visual>.*?</visual>", "", text, flags=re.S)  # collision geometry only

    def hull(match):
        name = match.group(1)
        path = folder / f"{name}.obj"
        trimesh.load(os.path.join(robot, "meshes", "collision", f"{name}.stl")).convex_hull.export(path)
        return f'filename="{path}"'

    text = re.sub(r'filename="package://example-robot-data/robots/panda_description/meshes/'
                  r'collision/(\w+)\.stl"', hull, text)
    path = folder / "panda_hulls.urdf"
    path.write_text(text)
    return str(path)


def _start(names_and_starts, nq):
    """q0 (nq,): ARM_Q by joint name, the free base lifted by DROP, identity elsewhere."""
    q = np.zeros(nq)
    for name, start, kind in names_and_starts:
        if kind == "free":
            q[start:start + 7] = [1, 0, 0, 0, 0, 0, DROP]
        elif name in ARM_Q:
            q[start] = ARM_Q[name]
    return q


def _jaxbody(urdf):
    plant = jb.MultibodyPlant(DT)
    jb.Parser(plant).AddModels(urdf)
    robot = [g.geometry_id() for g in plant.GetGeometries(jb.Role.kProximity)]
    group = ("robot", jb.GeometrySet(robot))
    plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(group, group)
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                    "ground", jb.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    joints = [plant.get_joint(jb.JointIndex(i)) for i in range(plant.num_joints())]
    q0 = _start([(j.name(), j.position_start(), "free" if j.num_positions() == 7 else "")
                 for j in joints if j.num_positions()], plant.num_positions())
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0))
    r = jb.discrete_rollout(plant, ctx, num_steps=STEPS, save_trajectory=False)
    assert np.all(np.asarray(r.converged) == 1.0)
    return q0, np.asarray(r.final_state[:plant.num_positions()])


def _drake(urdf):
    from pydrake.geometry import CollisionFilterDeclaration, GeometrySet, HalfSpace, Role
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import (
        AddMultibodyPlantSceneGraph,
        CoulombFriction,
        DiscreteContactApproximation,
    )
    from pydrake.systems.analysis import Simulator
    from pydrake.systems.framework import DiagramBuilder

    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, DT)
    plant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
    Parser(plant).AddModels(urdf)
    robot = list(scene_graph.model_inspector().GetAllGeometryIds(Role.kProximity))
    plant.RegisterCollisionGeometry(plant.world_body(), HalfSpace.MakePose([0, 0, 1], [0, 0, 0]),
                                    HalfSpace(), "ground", CoulombFriction(0.5, 0.5))
    plant.Finalize()
    scene_graph.collision_filter_manager().Apply(
        CollisionFilterDeclaration().ExcludeWithin(GeometrySet(robot)))
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    pc = plant.GetMyMutableContextFromRoot(context)
    joints = [plant.get_joint(j) for j in plant.GetJointIndices()]
    q0 = _start([(j.name(), j.position_start(), "free" if j.num_positions() == 7 else "")
                 for j in joints if j.num_positions()], plant.num_positions())
    plant.SetPositions(pc, q0)
    Simulator(diagram, context).AdvanceTo(STEPS * DT)
    return q0, plant.GetPositions(pc)


def test_a_falling_mesh_robot_equals_drake(urdf):
    q0_jb, q_jb = _jaxbody(urdf)
    q0_dk, q_dk = _drake(urdf)
    np.testing.assert_array_equal(q0_jb, q0_dk)  # the same coordinates, in the same order
    base_z = q_dk[6]
    assert base_z < DROP - 0.01  # it fell and landed
    err = np.abs(q_jb - q_dk).max()
    assert err < 1e-3, (err, q_jb - q_dk)
