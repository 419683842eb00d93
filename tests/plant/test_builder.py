"""MultibodyPlant construction, Finalize validation, counters and lookups."""

import warnings

import numpy as np
import pytest

import jaxbody as jb
from tests.helpers.models import box_inertia


@pytest.fixture
def plant():
    return jb.MultibodyPlant(0.0)


def _chain(plant, n=3, instance=None):
    bodies, parent = [], plant.world_body()
    for i in range(n):
        args = (f"link{i}",) + ((instance,) if instance is not None else ()) + (box_inertia(),)
        b = plant.AddRigidBody(*args)
        plant.AddJoint(jb.RevoluteJoint(f"joint{i}", parent.body_frame(), b.body_frame(), [0, 0, 1]))
        bodies.append(b)
        parent = b
    return bodies


def test_new_plant_has_world_only(plant):
    assert plant.num_bodies() == 1 and plant.num_frames() == 1 and plant.num_joints() == 0
    assert plant.world_body().name() == "world"
    assert plant.world_frame().is_world_frame()
    assert plant.num_model_instances() == 2
    assert plant.time_step() == 0.0 and not plant.is_discrete()
    assert jb.MultibodyPlant(0.01).is_discrete()


def test_counters_and_lookups(plant):
    robot = plant.AddModelInstance("robot")
    bodies = _chain(plant, 3, robot)
    free = plant.AddRigidBody("free", robot, box_inertia())
    plant.AddJointActuator("motor0", plant.GetJointByName("joint0"), 10.0)
    plant.Finalize()
    assert plant.num_bodies() == 5
    assert plant.num_joints() == 4  # 3 revolute + 1 floating added at Finalize
    assert plant.num_positions() == 3 + 7 and plant.num_velocities() == 3 + 6
    assert plant.num_multibody_states() == 19
    assert plant.num_positions(robot) == 10 and plant.num_velocities(robot) == 9
    assert plant.num_positions(jb.default_model_instance()) == 0
    assert plant.num_actuators() == 1 and plant.num_actuated_dofs() == 1
    assert plant.num_actuators(robot) == 1
    assert plant.GetModelInstanceByName("robot") == robot
    assert plant.GetModelInstanceName(robot) == "robot"
    assert plant.GetBodyByName("link1") is bodies[1]
    assert plant.GetBodyByName("link1", robot) is bodies[1]
    assert plant.HasBodyNamed("free") and not plant.HasBodyNamed("nope")
    assert plant.HasJointNamed("joint2") and plant.HasJointNamed("free", robot)
    assert plant.GetJointByName("free").type_name() == "quaternion_floating"
    assert plant.GetFrameByName("link0").body() is bodies[0]
    assert plant.GetBodyIndices(robot) == [b.index() for b in bodies + [free]]
    assert len(plant.GetJointIndices(robot)) == 4
    assert free.is_floating() and not bodies[0].is_floating()
    assert plant.GetFloatingBaseBodies() == {free.index()}
    assert plant.get_body(jb.BodyIndex(2)) is bodies[1]
    assert plant.GetJointActuatorByName("motor0").joint().name() == "joint0"


def test_lookup_errors(plant):
    other = plant.AddModelInstance("other")
    plant.AddRigidBody("a", other, box_inertia())
    third = plant.AddModelInstance("third")
    plant.AddRigidBody("a", third, box_inertia())
    with pytest.raises(ValueError, match="several model instances"):
        plant.GetBodyByName("a")
    with pytest.raises(ValueError, match="no element named 'b'"):
        plant.GetBodyByName("b")
    with pytest.raises(ValueError, match="no model instance named"):
        plant.GetModelInstanceByName("missing")
    with pytest.raises(ValueError, match="invalid model instance"):
        plant.GetBodyIndices(jb.ModelInstanceIndex(17))
    with pytest.raises(IndexError, match="out of range"):
        plant.get_body(jb.BodyIndex(99))


def test_duplicate_names_raise(plant):
    b = plant.AddRigidBody("b", box_inertia())
    with pytest.raises(ValueError, match="already has a body named 'b'"):
        plant.AddRigidBody("b", box_inertia())
    plant.AddJoint(jb.RevoluteJoint("j", plant.world_frame(), b.body_frame(), [0, 0, 1]))
    c = plant.AddRigidBody("c", box_inertia())
    with pytest.raises(ValueError, match="already has a joint named 'j'"):
        plant.AddJoint(jb.RevoluteJoint("j", b.body_frame(), c.body_frame(), [0, 0, 1]))
    with pytest.raises(ValueError, match="already exists"):
        plant.AddModelInstance("DefaultModelInstance")
    plant.AddFrame(jb.FixedOffsetFrame("f", b.body_frame(), jb.RigidTransform()))
    with pytest.raises(ValueError, match="already has a frame named 'f'"):
        plant.AddFrame(jb.FixedOffsetFrame("f", b.body_frame(), jb.RigidTransform()))
    plant.AddJointActuator("m", plant.GetJointByName("j"))
    with pytest.raises(ValueError, match="already exists"):
        plant.AddJointActuator("m", plant.GetJointByName("j"))


def test_default_instance_ambiguity(plant):
    plant.AddModelInstance("robot")
    with pytest.raises(ValueError, match="name the model instance"):
        plant.AddRigidBody("b", box_inertia())


def test_actuator_errors(plant):
    b = plant.AddRigidBody("b", box_inertia())
    ball = plant.AddJoint(jb.BallRpyJoint("ball", plant.world_frame(), b.body_frame()))
    with pytest.raises(ValueError, match="exactly one"):
        plant.AddJointActuator("m", ball)
    c = plant.AddRigidBody("c", box_inertia())
    rev = plant.AddJoint(jb.RevoluteJoint("rev", b.body_frame(), c.body_frame(), [1, 0, 0]))
    with pytest.raises(ValueError, match="effort_limit must be > 0"):
        plant.AddJointActuator("m", rev, 0.0)
    plant.AddJointActuator("m", rev)
    with pytest.raises(ValueError, match="already has an actuator"):
        plant.AddJointActuator("m2", rev)


def test_construction_after_finalize_raises(plant):
    b = _chain(plant, 1)[0]
    plant.Finalize()
    with pytest.raises(RuntimeError, match="finalized"):
        plant.AddRigidBody("x", box_inertia())
    with pytest.raises(RuntimeError, match="finalized"):
        plant.AddJoint(jb.RevoluteJoint("x", plant.world_frame(), b.body_frame(), [0, 0, 1]))
    with pytest.raises(RuntimeError, match="finalized"):
        plant.AddFrame(jb.FixedOffsetFrame("x", b.body_frame(), jb.RigidTransform()))
    with pytest.raises(RuntimeError, match="finalized"):
        plant.AddModelInstance("x")
    with pytest.raises(RuntimeError, match="already finalized"):
        plant.Finalize()
    with pytest.raises(RuntimeError, match="after Finalize"):
        plant.GetJointByName("joint0").set_position_limits([-1], [1])
    with pytest.raises(RuntimeError, match="finalized"):
        plant.mutable_gravity_field().set_gravity_vector([0, 0, -1])


def test_computation_before_finalize_raises(plant):
    b = _chain(plant, 1)[0]
    with pytest.raises(RuntimeError, match="call Finalize"):
        plant.CreateDefaultContext()
    with pytest.raises(RuntimeError, match="call Finalize"):
        plant.num_positions()
    with pytest.raises(RuntimeError, match="call Finalize"):
        plant.IsAnchored(b)


def test_invalid_time_step():
    with pytest.raises(ValueError, match="time_step"):
        jb.MultibodyPlant(-0.1)


def test_kinematic_loop_raises(plant):
    a = plant.AddRigidBody("a", box_inertia())
    b = plant.AddRigidBody("b", box_inertia())
    plant.AddJoint(jb.RevoluteJoint("ab", a.body_frame(), b.body_frame(), [0, 0, 1]))
    plant.AddJoint(jb.RevoluteJoint("ba", b.body_frame(), a.body_frame(), [0, 0, 1]))
    with pytest.raises(ValueError, match="Kinematic loop"):
        plant.Finalize()


def test_two_inboard_joints_raise(plant):
    a = plant.AddRigidBody("a", box_inertia())
    b = plant.AddRigidBody("b", box_inertia())
    plant.AddJoint(jb.RevoluteJoint("wa", plant.world_frame(), a.body_frame(), [0, 0, 1]))
    plant.AddJoint(jb.RevoluteJoint("wb", plant.world_frame(), b.body_frame(), [0, 0, 1]))
    plant.AddJoint(jb.RevoluteJoint("ab", a.body_frame(), b.body_frame(), [0, 0, 1]))
    with pytest.raises(ValueError, match="child of two joints, 'wb' and 'ab'"):
        plant.Finalize()


def test_world_as_child_is_a_reversed_joint(plant):
    """As in Drake: the joint's parent body hangs from the world (tests/plant/
    test_reversed_joints.py checks the dynamics against pydrake)."""
    a = plant.AddRigidBody("a", box_inertia())
    joint = plant.AddJoint(jb.RevoluteJoint("aw", a.body_frame(), plant.world_frame(),
                                            [0, 0, 1]))
    plant.Finalize()
    assert plant.num_positions() == 1 and joint.position_start() == 0
    ctx = joint.set_angle(plant.CreateDefaultContext(), 0.5)
    R = np.asarray(plant.EvalBodyPoseInWorld(ctx, a).rotation().matrix())
    np.testing.assert_allclose(R, jb.RotationMatrix.MakeZRotation(-0.5).matrix(), atol=1e-15)


@pytest.mark.parametrize("mass, com, G, match", [
    (-1.0, [0, 0, 0], np.eye(3) * 0.1, "mass must be finite and >= 0"),
    (np.inf, [0, 0, 0], np.eye(3) * 0.1, "mass must be finite"),
    (1.0, [np.nan, 0, 0], np.eye(3) * 0.1, "must be finite"),
    (1.0, [0, 0, 0], np.diag([0.1, 0.1, -0.5]), "not positive semi-definite"),
])
def test_invalid_inertia_raises(plant, mass, com, G, match):
    # A duck-typed inertia bypasses the value type's own validation to reach the plant's.
    with pytest.raises(ValueError, match=match):
        plant.AddRigidBody("bad", M_BBo_B=_FakeInertia(mass, com, G))


class _FakeInertia:
    def __init__(self, mass, com, G):
        self.mass, self.com, self.G = mass, np.asarray(com, float), G

    def get_mass(self):
        return self.mass

    def get_com(self):
        return self.com

    def get_unit_inertia(self):
        return _FakeUnit(self.G)


class _FakeUnit:
    def __init__(self, G):
        self.G = np.asarray(G, float)

    def CopyToFullMatrix3(self):
        return self.G


def test_triangle_inequality_warns_but_loads(plant):
    G = np.diag([0.1, 0.1, 0.5])  # 0.1 + 0.1 < 0.5
    M = jb.SpatialInertia(1.0, [0, 0, 0], jb.UnitInertia(*np.diag(G)), skip_validity_check=True)
    plant.AddRigidBody("thin", M)
    with pytest.warns(UserWarning, match="RigidBody 'thin'.*triangle inequality"):
        plant.Finalize()
    assert plant.num_positions() == 7


def test_welds_and_anchoring(plant):
    a = plant.AddRigidBody("a", box_inertia())
    b = plant.AddRigidBody("b", box_inertia())
    c = plant.AddRigidBody("c", box_inertia())
    weld = plant.WeldFrames(plant.world_frame(), a.body_frame(),
                            jb.RigidTransform(p=[0, 0, 1.0]))
    assert weld.name() == "world_welds_to_a"
    plant.AddJoint(jb.RevoluteJoint("ab", a.body_frame(), b.body_frame(), [1, 0, 0]))
    plant.WeldFrames(b.body_frame(), c.body_frame())
    assert {x.name() for x in plant.GetBodiesWeldedTo(plant.world_body())} == {"world", "a"}
    assert {x.name() for x in plant.GetBodiesWeldedTo(c)} == {"b", "c"}
    plant.Finalize()
    assert plant.IsAnchored(a) and not plant.IsAnchored(b) and not plant.IsAnchored(c)
    assert plant.num_positions() == 1
    other = jb.MultibodyPlant(0.0)
    with pytest.raises(ValueError, match="not in this plant"):
        plant.GetBodiesWeldedTo(other.world_body())


def test_graphviz(plant):
    _chain(plant, 2)
    s = plant.GetTopologyGraphvizString()
    assert s.startswith("digraph MultibodyPlant {") and "link1" in s and "joint1 [revolute]" in s
    plant.Finalize()
    assert "DefaultModelInstance" in plant.GetTopologyGraphvizString()


def test_free_body_joint_name_clash(plant):
    a = plant.AddRigidBody("a", box_inertia())
    b = plant.AddRigidBody("b", box_inertia())
    plant.AddJoint(jb.RevoluteJoint("b", plant.world_frame(), a.body_frame(), [0, 0, 1]))
    plant.Finalize()
    assert plant.GetJointByName("_b").child_body() is b


def test_equal_models_compare_equal():
    def build():
        p = jb.MultibodyPlant(0.0)
        _chain(p, 2)
        p.Finalize()
        return p

    p1, p2 = build(), build()
    assert p1 == p2 and hash(p1) == hash(p2)
    p3 = jb.MultibodyPlant(0.0)
    _chain(p3, 3)
    p3.Finalize()
    assert p1 != p3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jb.MultibodyPlant(0.0) != jb.MultibodyPlant(0.0)  # unfinalized: identity


def test_plant_limits_vectors(plant):
    a = plant.AddRigidBody("a", box_inertia())
    b = plant.AddRigidBody("b", box_inertia())
    j1 = plant.AddJoint(jb.RevoluteJoint("j1", plant.world_frame(), a.body_frame(), [0, 0, 1],
                                         -1.0, 2.0))
    j2 = plant.AddJoint(jb.PrismaticJoint("j2", a.body_frame(), b.body_frame(), [1, 0, 0], -0.5, 0.5))
    j2.set_velocity_limits([-3.0], [3.0])
    j1.set_acceleration_limits([-10.0], [10.0])
    plant.AddJointActuator("m", j1, 7.0)
    with pytest.raises(RuntimeError, match="Finalize"):
        plant.GetPositionLowerLimits()
    plant.Finalize()
    np.testing.assert_array_equal(plant.GetPositionLowerLimits(), [-1.0, -0.5])
    np.testing.assert_array_equal(plant.GetPositionUpperLimits(), [2.0, 0.5])
    np.testing.assert_array_equal(plant.GetVelocityLowerLimits(), [-np.inf, -3.0])
    np.testing.assert_array_equal(plant.GetVelocityUpperLimits(), [np.inf, 3.0])
    np.testing.assert_array_equal(plant.GetAccelerationLowerLimits(), [-10.0, -np.inf])
    np.testing.assert_array_equal(plant.GetAccelerationUpperLimits(), [10.0, np.inf])
    np.testing.assert_array_equal(plant.GetEffortLowerLimits(), [-7.0])
    np.testing.assert_array_equal(plant.GetEffortUpperLimits(), [7.0])
