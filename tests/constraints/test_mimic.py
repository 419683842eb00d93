"""URDF ``<mimic>`` becomes a coupler constraint on a discrete plant, as in Drake's parser (and
is ignored with a warning on a continuous one); the panda from example-robot-data, whose second
finger mimics the first, stepped by jaxbody and pydrake under gravity from a random state."""

import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb

URDF = """<robot name="r">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0"
    ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0"
    ixz="0" iyz="0"/></inertial></link>
  <joint name="ja" type="prismatic"><parent link="base"/><child link="a"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="jb" type="prismatic"><parent link="base"/><child link="b"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
    <mimic joint="ja" multiplier="-2" offset="0.1"/></joint>
</robot>"""


def test_mimic_is_a_coupler_on_a_discrete_plant():
    plant = jb.MultibodyPlant(time_step=1e-3)
    jb.Parser(plant).AddModelsFromString(URDF, "urdf")
    plant.Finalize()
    (cid,) = plant.GetConstraintIds()
    spec = plant.get_coupler_constraint_specs(cid)
    assert plant.get_joint(jb.JointIndex(spec.joint0_index)).name() == "jb"
    assert plant.get_joint(jb.JointIndex(spec.joint1_index)).name() == "ja"
    assert (spec.gear_ratio, spec.offset) == (-2.0, 0.1)


SDF = """<sdf version="1.9"><model name="m">
  <link name="a"><inertial><mass>1</mass></inertial></link>
  <link name="b"><inertial><mass>1</mass></inertial></link>
  <joint name="ja" type="revolute"><parent>world</parent><child>a</child>
    <axis><xyz>0 0 1</xyz></axis></joint>
  <joint name="jb" type="revolute"><parent>world</parent><child>b</child>
    <axis><xyz>0 0 1</xyz></axis>
    <drake:mimic joint="{target}" multiplier="3" offset="-0.5"/></joint>
</model></sdf>"""


def test_sdformat_drake_mimic_is_a_coupler():
    plant = jb.MultibodyPlant(time_step=1e-3)
    jb.Parser(plant).AddModelsFromString(SDF.format(target="ja"), "sdf")
    plant.Finalize()
    spec = plant.get_coupler_constraint_specs(plant.GetConstraintIds()[0])
    assert (spec.gear_ratio, spec.offset) == (3.0, -0.5)
    assert plant.get_joint(jb.JointIndex(spec.joint1_index)).name() == "ja"
    with pytest.raises(jb.ParseError, match=r":8:.*specifies joint 'zz' which does not exist"):
        jb.Parser(jb.MultibodyPlant(time_step=1e-3)).AddModelsFromString(
            SDF.format(target="zz"), "sdf")


MJCF = """<mujoco model="m"><compiler angle="radian"/><worldbody>
  <body name="a"><joint name="ja" type="hinge" axis="0 0 1" ref="0.2"/>
    <geom type="sphere" size="0.1" contype="0" conaffinity="0"/></body>
  <body name="b" pos="1 0 0"><joint name="jb" type="slide" axis="1 0 0"/>
    <geom type="sphere" size="0.1" contype="0" conaffinity="0"/></body>
</worldbody><equality>
  <joint joint1="jb" joint2="ja" polycoef="0.3 -2 0 0 0"/>
  <joint joint1="ja" joint2="jb" polycoef="0 1 0.5 0 0"/>
  <connect body1="a" body2="b" anchor="0 0 0"/>
</equality></mujoco>"""


def test_mjcf_joint_equality_is_a_coupler():
    plant = jb.MultibodyPlant(time_step=1e-3)
    with pytest.warns(jb.ParseWarning) as caught:
        jb.Parser(plant).AddModelsFromString(MJCF, "xml")
    messages = " ".join(str(w.message) for w in caught)
    assert "degree at most 1" in messages and "<equality><connect>" not in messages
    plant.Finalize()
    cid, ball = plant.GetConstraintIds()
    assert plant.num_ball_constraints() == 1
    spec = plant.get_coupler_constraint_specs(cid)
    # (q_b − 0) = 0.3 − 2 (q_a − 0.2):  q_b = −2 q_a + 0.7
    assert spec.gear_ratio == -2.0 and spec.offset == pytest.approx(0.7)
    assert plant.get_joint(jb.JointIndex(spec.joint0_index)).name() == "jb"


def test_mimic_on_a_continuous_plant_is_ignored_with_a_warning():
    plant = jb.MultibodyPlant(time_step=0.0)
    with pytest.warns(UserWarning, match="mimic elements are only supported by a discrete"):
        jb.Parser(plant).AddModelsFromString(URDF, "urdf")
    assert plant.num_constraints() == 0


def test_mimic_on_a_fixed_joint_is_ignored_with_a_warning():
    """Reduced models fix joints that mimicked others (example-robot-data's talos_reduced keeps
    its grippers' <mimic> on fixed joints): a warning naming the line, no coupler. Drake
    refuses the file ("0 DOF cannot mimic")."""
    text = URDF.replace('<joint name="jb" type="prismatic">', '<joint name="jb" type="fixed">')
    plant = jb.MultibodyPlant(time_step=1e-3)
    with pytest.warns(jb.ParseWarning, match=r":11: <mimic>: warning: joint 'jb' is fixed "
                      r"\(0 DOF\): its mimic of joint 'ja' has nothing to move and is ignored"):
        jb.Parser(plant).AddModelsFromString(text, "urdf")
    plant.Finalize()
    assert plant.num_constraints() == 0 and plant.num_velocities() == 7  # floating + ja


ROBOTS = {  # path, root link, q0 of the gripper joints (one off its mimic by ~1 cm)
    "panda": ("panda_description/urdf/panda.urdf", "panda_link0"),
    "baxter": ("baxter_description/urdf/baxter.urdf", "base"),
}


@pytest.mark.parametrize("name", ["panda", "baxter"])
def test_gripper_mimic_joints_coupled_as_in_drake(name):
    """The panda (second finger mimics the first) and Baxter (each gripper's right finger
    mimics its left, multiplier −1) from example-robot-data, welded at their root and stepped
    under gravity from a random state with the mimicking fingers off by ~1 cm: velocities equal
    pydrake's over 200 steps to 1e-8 of the largest speed."""
    pytest.importorskip("pydrake")
    from tests.parsers.robot_files import add_packages, robot

    rel, root = ROBOTS[name]
    path = robot(rel)
    if path is None:
        pytest.skip("example-robot-data is not installed")
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import DiscreteContactApproximation, MultibodyPlant
    from pydrake.systems.analysis import Simulator

    dt, steps = 2e-3, 200
    dplant = MultibodyPlant(time_step=dt)
    dplant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
    parser = DrakeParser(dplant)
    add_packages(parser.package_map())
    parser.AddModels(path)
    dplant.WeldFrames(dplant.world_frame(), dplant.GetFrameByName(root))
    dplant.Finalize()
    plant = jb.MultibodyPlant(time_step=dt)
    jparser = jb.Parser(plant)
    add_packages(jparser.package_map())
    jparser.AddModels(path)
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(root))
    # Drake's plant has no SceneGraph, hence no contact: filter every pair here too (the
    # panda's 450-edge convex hulls would also cost the point-contact query far too much).
    links = jb.GeometrySet([plant.get_body(jb.BodyIndex(i)) for i in range(plant.num_bodies())])
    plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(("all", links), ("all", links))
    plant.Finalize()
    assert plant.num_constraints() == dplant.num_constraints() >= 1
    nq, nv = plant.num_positions(), plant.num_velocities()
    assert (nq, nv) == (dplant.num_positions(), dplant.num_velocities())
    rng = np.random.default_rng(0)
    lo = np.maximum(np.asarray(plant.GetPositionLowerLimits()), -1.0)
    hi = np.minimum(np.asarray(plant.GetPositionUpperLimits()), 1.0)
    q0 = lo + (hi - lo) * rng.uniform(0.3, 0.7, nq)
    for cid in plant.GetConstraintIds():  # the mimicking joint ~1 cm (or 0.05 rad) off
        spec = plant.get_coupler_constraint_specs(cid)
        j0, j1 = (plant.get_joint(jb.JointIndex(i)) for i in (spec.joint0_index,
                                                               spec.joint1_index))
        q0[j0.position_start()] = (spec.gear_ratio * q0[j1.position_start()] + spec.offset
                                   + 0.2 * (hi - lo)[j0.position_start()])
    v0 = rng.uniform(-0.3, 0.3, nv)
    sim = Simulator(dplant)
    ctx = sim.get_mutable_context()
    dplant.SetPositions(ctx, q0)
    dplant.SetVelocities(ctx, v0)
    dplant.get_actuation_input_port().FixValue(ctx, np.zeros(dplant.num_actuators()))
    sim.Initialize()
    vd = []
    for k in range(steps):
        sim.AdvanceTo((k + 1) * dt)
        vd.append(dplant.GetVelocities(ctx).copy())
    vd = np.asarray(vd)
    c = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    r = jb.discrete_rollout(plant, c, num_steps=steps)
    vj = np.asarray(r.states[1:, nq:])
    assert np.all(np.asarray(r.converged) == 1.0)
    assert np.abs(vj - vd).max() < 1e-8 * np.abs(vd).max()


MJCF_BODIES = """<mujoco model="m"><worldbody>
  <body name="a" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.05 0.02" mass="1"/></body>
  <body name="b" pos="0.3 0 1" euler="0 0 30"><freejoint/>
    <geom type="sphere" size="0.05" mass="0.5"/></body>
  <body name="c" pos="0 0.5 1"><freejoint/><geom type="sphere" size="0.05" mass="0.5"/></body>
  <body name="d" pos="1 0 1"><freejoint/><geom type="sphere" size="0.05" mass="0.5"/></body>
</worldbody><equality>
  <weld body1="a" body2="b"/>
  <connect body1="c" anchor="0 0 0.1"/>
  <weld body1="d" relpose="0 0 -0.2 0 0 0 1"/>
  <weld body1="c" body2="a" relpose="0 -0.5 0 1 0 0 0" active="false"/>
  <connect site1="s1" site2="s2"/>
</equality></mujoco>"""


def test_mjcf_connect_and_weld_are_ball_and_weld_constraints():
    """``<weld>`` without relpose holds body2 at its qpos0 pose relative to body1; with relpose
    at that pose (here d's frame 0.2 m below the world origin's, turned by π about z, so d
    starts 1.2 m away and is pulled there); ``<connect>`` holds body1's anchor on the point of
    body2 (the world) it starts at."""
    plant = jb.MultibodyPlant(time_step=1e-3)
    with pytest.warns(jb.ParseWarning) as caught:
        jb.Parser(plant).AddModelsFromString(MJCF_BODIES, "xml")
    messages = " ".join(str(w.message) for w in caught)
    assert "inactive <equality><weld>" in messages and "site-based" in messages
    plant.Finalize()
    assert (plant.num_weld_constraints(), plant.num_ball_constraints()) == (2, 1)
    ctx = plant.CreateDefaultContext()
    r = jb.discrete_rollout(plant, ctx, num_steps=300)
    c = ctx.replace(q=r.final_state[:plant.num_positions()])
    X = {n: plant.EvalBodyPoseInWorld(c, plant.GetBodyByName(n)) for n in "abcd"}
    X0 = {n: plant.EvalBodyPoseInWorld(ctx, plant.GetBodyByName(n)) for n in "abcd"}
    rel = np.asarray(X["a"].InvertAndCompose(X["b"]).GetAsMatrix4())
    np.testing.assert_allclose(rel, np.asarray(X0["a"].InvertAndCompose(X0["b"]).GetAsMatrix4()),
                               atol=1e-5)
    assert float(X["a"].translation()[2]) < 0.6  # a and b fell together
    np.testing.assert_allclose(X["c"].translation(), X0["c"].translation(), atol=1e-5)
    X_Wd = np.asarray(X["d"].GetAsMatrix4())
    np.testing.assert_allclose(X_Wd[:3, 3], [0.0, 0.0, 0.2], atol=1e-4)  # p_dW = (0, 0, −0.2)
    np.testing.assert_allclose(X_Wd[:3, :3], np.diag([-1.0, -1.0, 1.0]), atol=1e-4)
