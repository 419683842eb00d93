"""Shapes, contact properties and geometry registration on the plant (Drake's API and rules)."""

import numpy as np
import pytest

import jaxbody as jb
from jaxbody.geometry import GeometryProperties, MakePhongIllustrationProperties

CUBE_OBJ = "\n".join(
    [f"v {x} {y} {z}" for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    + ["f 1 2 4", "f 1 4 3", "f 5 7 8", "f 5 8 6", "f 1 5 6", "f 1 6 2",
       "f 3 4 8", "f 3 8 7", "f 1 3 7", "f 1 7 5", "f 2 6 8", "f 2 8 4"]) + "\n"


# ---- shapes -------------------------------------------------------------------------------------
def test_shape_accessors_equality_and_repr():
    box = jb.Box(0.1, 0.2, 0.3)
    np.testing.assert_array_equal(box.size(), [0.1, 0.2, 0.3])
    assert (box.width(), box.depth(), box.height()) == (0.1, 0.2, 0.3)
    assert jb.Box.MakeCube(2.0) == jb.Box(2, 2, 2) and box != jb.Box(0.1, 0.2, 0.4)
    assert repr(jb.Sphere(0.5)) == "Sphere(radius=0.5)" and jb.Sphere(0).radius() == 0.0
    assert (jb.Cylinder(1, 2).radius(), jb.Cylinder(1, 2).length()) == (1.0, 2.0)
    assert (jb.Capsule(1, 2).radius(), jb.Capsule(1, 2).length()) == (1.0, 2.0)
    assert (jb.Ellipsoid(1, 2, 3).a(), jb.Ellipsoid(1, 2, 3).c()) == (1.0, 3.0)
    assert jb.HalfSpace() == jb.HalfSpace() and jb.HalfSpace().type_name() == "HalfSpace"
    assert len({jb.Sphere(1), jb.Sphere(1), jb.Box(1, 1, 1)}) == 2


@pytest.mark.parametrize("make", [
    lambda: jb.Sphere(-1), lambda: jb.Sphere(np.nan), lambda: jb.Box(0, 1, 1),
    lambda: jb.Box(1, np.inf, 1), lambda: jb.Cylinder(0, 1), lambda: jb.Capsule(1, -1),
    lambda: jb.Ellipsoid(1, 1, 0), lambda: jb.Sphere("big"), lambda: jb.Mesh("m.obj", 0.0),
    lambda: jb.Mesh("m.obj", [1, 2]), lambda: jb.Convex("", 1.0), lambda: jb.Mesh("m.obj", np.nan),
])
def test_invalid_shapes_raise(make):
    with pytest.raises(ValueError):
        make()


def test_mesh_reads_vertices_hull_and_bounding_box(tmp_path):
    path = tmp_path / "cube.obj"
    path.write_text(CUBE_OBJ)
    mesh = jb.Mesh(str(path), [1.0, 2.0, 3.0])
    assert mesh.extension() == ".obj" and mesh.filename() == str(path)
    np.testing.assert_array_equal(mesh.scale3(), [1, 2, 3])
    with pytest.raises(ValueError, match="not uniform"):
        mesh.scale()
    lower, upper = mesh.CalcAxisAlignedBoundingBox()
    np.testing.assert_allclose(lower, [-1, -2, -3])
    np.testing.assert_allclose(upper, [1, 2, 3])
    V, F = jb.Convex(str(path), 0.5).GetConvexHull()
    assert V.shape == (8, 3) and F.shape == (12, 3)
    np.testing.assert_allclose(np.abs(V), 0.5)
    assert jb.Mesh(str(path)).faces().shape == (12, 3) and jb.Mesh(str(path)).scale() == 1.0


def test_unreadable_mesh_raises_on_use(tmp_path):
    missing = jb.Mesh(str(tmp_path / "missing.obj"))  # construction does not read the file
    with pytest.raises(ValueError, match="cannot be read"):
        missing.vertices()
    bad = tmp_path / "bad.obj"
    bad.write_text("this is not a mesh\n")
    with pytest.raises(ValueError, match="Mesh file"):
        jb.Mesh(str(bad)).vertices()


# ---- properties ---------------------------------------------------------------------------------
def test_coulomb_friction_rules_and_combination():
    mu = jb.CalcContactFrictionFromSurfaceProperties(jb.CoulombFriction(0.5, 0.4),
                                                     jb.CoulombFriction(1.0, 0.8))
    assert mu.static_friction() == pytest.approx(2 * 0.5 / 1.5, abs=1e-15)
    assert mu.dynamic_friction() == pytest.approx(2 * 0.32 / 1.2, abs=1e-15)
    zero = jb.CalcContactFrictionFromSurfaceProperties(jb.CoulombFriction(), jb.CoulombFriction())
    assert zero == jb.CoulombFriction(0, 0)
    for bad in ((0.5, 0.6), (-1, -1), (np.inf, 1)):
        with pytest.raises(ValueError):
            jb.CoulombFriction(*bad)


def test_proximity_properties_table():
    p = jb.ProximityProperties()
    assert p.GetGroupNames() == {GeometryProperties.default_group_name()} and p.num_groups() == 1
    p.AddProperty("material", "point_contact_stiffness", 1e5)
    with pytest.raises(ValueError, match="already exists"):
        p.AddProperty("material", "point_contact_stiffness", 2e5)
    p.UpdateProperty("material", "point_contact_stiffness", 2e5)
    assert p.GetProperty("material", "point_contact_stiffness") == 2e5
    assert p.HasProperty("material", "point_contact_stiffness") and p.HasGroup("material")
    assert p.GetPropertyOrDefault("material", "relaxation_time", 0.1) == 0.1
    with pytest.raises(ValueError, match="no property"):
        p.GetProperty("material", "relaxation_time")
    assert p.GetPropertiesInGroup("material") == {"point_contact_stiffness": 2e5}
    assert p.RemoveProperty("material", "point_contact_stiffness")
    assert not p.RemoveProperty("material", "point_contact_stiffness")
    q = jb.AddContactMaterial(0.5, 1e6, jb.CoulombFriction(1, 0.5))
    assert q.GetProperty("material", "hunt_crossley_dissipation") == 0.5
    for args in ((-1, None, None), (None, 0.0, None), (None, None, "friction")):
        with pytest.raises((ValueError, TypeError)):
            jb.AddContactMaterial(*args)
    with pytest.raises(ValueError, match="color"):
        MakePhongIllustrationProperties([1, 0, 0, 2])


# ---- registration on the plant ------------------------------------------------------------------
@pytest.fixture
def plant_and_ball():
    plant = jb.MultibodyPlant(0.0)
    ball = plant.AddRigidBody("ball", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    return plant, ball


def test_register_collision_and_visual_geometry(plant_and_ball):
    plant, ball = plant_and_ball
    X_BG = jb.RigidTransform(p=[0.0, 0.0, 0.1])
    g1 = plant.RegisterCollisionGeometry(ball, X_BG, jb.Sphere(0.1), "c1",
                                         jb.CoulombFriction(0.8, 0.6))
    props = jb.AddContactMaterial(point_stiffness=1e5, friction=jb.CoulombFriction(1, 1))
    g2 = plant.RegisterCollisionGeometry(ball, jb.RigidTransform(), jb.Box(1, 1, 1), "c2", props)
    props.UpdateProperty("material", "point_contact_stiffness", 7.0)  # the plant keeps a copy
    g3 = plant.RegisterVisualGeometry(ball, jb.RigidTransform(), jb.Sphere(0.1), "c1",
                                      [1, 0, 0, 1])
    g4 = plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                         "ground", jb.CoulombFriction(1, 1))
    assert plant.GetCollisionGeometriesForBody(ball) == [g1, g2]
    assert plant.GetVisualGeometriesForBody(ball) == [g3]
    assert plant.GetCollisionGeometriesForBody(plant.world_body()) == [g4]
    assert (plant.num_collision_geometries(), plant.num_visual_geometries()) == (3, 1)
    G = plant.GetGeometry(g1)
    assert G.body() is ball and G.shape() == jb.Sphere(0.1) and G.name() == "c1"
    assert G.role() is jb.Role.kProximity and G.GetIllustrationProperties() is None
    np.testing.assert_array_equal(np.asarray(G.pose_in_body().translation()), [0, 0, 0.1])
    friction = G.properties().GetProperty("material", "coulomb_friction")
    assert friction == jb.CoulombFriction(0.8, 0.6)
    assert plant.GetGeometry(g2).GetProximityProperties().GetProperty(
        "material", "point_contact_stiffness") == 1e5
    np.testing.assert_array_equal(plant.GetGeometry(g3).diffuse_color(), [1, 0, 0, 1])
    assert [g.geometry_id() for g in plant.GetGeometries(jb.Role.kProximity)] == [g1, g2, g4]


def test_geometry_names_are_scoped_by_model_instance():
    plant = jb.MultibodyPlant(0.0)
    mi = plant.AddModelInstance("robot")
    body = plant.AddRigidBody("b", mi, jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    gid = plant.RegisterVisualGeometry(body, jb.RigidTransform(), jb.Sphere(0.1), "v")
    assert plant.GetGeometry(gid).name() == "robot::v"


def test_registration_errors(plant_and_ball):
    plant, ball = plant_and_ball
    X = jb.RigidTransform()
    plant.RegisterCollisionGeometry(ball, X, jb.Sphere(0.1), "c", jb.ProximityProperties())
    with pytest.raises(ValueError, match="already been used"):
        plant.RegisterCollisionGeometry(ball, X, jb.Sphere(0.1), "c", jb.ProximityProperties())
    with pytest.raises(TypeError, match="ProximityProperties"):
        plant.RegisterCollisionGeometry(ball, X, jb.Sphere(0.1), "d", {"mu": 1})
    with pytest.raises(TypeError, match="Shape"):
        plant.RegisterVisualGeometry(ball, X, "sphere", "v")
    with pytest.raises(TypeError, match="RigidTransform"):
        plant.RegisterVisualGeometry(ball, np.eye(4), jb.Sphere(0.1), "v")
    with pytest.raises(ValueError, match="name"):
        plant.RegisterVisualGeometry(ball, X, jb.Sphere(0.1), "")
    other = jb.MultibodyPlant(0.0).AddRigidBody("x", jb.SpatialInertia.SolidSphereWithMass(1, 1))
    with pytest.raises(ValueError, match="not in this plant"):
        plant.RegisterVisualGeometry(other, X, jb.Sphere(0.1), "v")
    with pytest.raises(ValueError, match="no geometry with id"):
        plant.GetGeometry(99)
    plant.Finalize()
    with pytest.raises(RuntimeError, match="Post-finalize"):
        plant.RegisterVisualGeometry(ball, X, jb.Sphere(0.1), "late")
