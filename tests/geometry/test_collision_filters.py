"""Collision candidates after Finalize: Drake's filtering rules (same body, adjacent bodies,
welded subgraphs, user filter groups), checked against pydrake's SceneGraph, and the
`GeometrySet` / filter-group API."""

import numpy as np
import pytest

import jaxbody as jb
from jaxbody.geometry import GeometrySet


def _build(engine, adjacent=True):
    """The same scene in jaxbody or pydrake; returns (plant, scene_graph, ids in registration
    order) where scene_graph is None for jaxbody."""
    if engine == "drake":
        import pydrake.geometry as dg
        import pydrake.math as dm
        import pydrake.multibody.plant as dp
        import pydrake.multibody.tree as dt
        from pydrake.systems.framework import DiagramBuilder
        plant, sg = dp.AddMultibodyPlantSceneGraph(DiagramBuilder(), 0.001)
        M = dt.SpatialInertia.SolidSphereWithMass(1.0, 0.1)
        X, mu = dm.RigidTransform(), dp.CoulombFriction(0.5, 0.5)
        Sphere, HalfSpace = dg.Sphere, dg.HalfSpace
        Rev, Quat, Rpy = dt.RevoluteJoint, dt.QuaternionFloatingJoint, dt.RpyFloatingJoint
    else:
        plant, sg = jb.MultibodyPlant(0.001), None
        M = jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1)
        X, mu = jb.RigidTransform(), jb.CoulombFriction(0.5, 0.5)
        Sphere, HalfSpace = jb.Sphere, jb.HalfSpace
        Rev, Quat, Rpy = jb.RevoluteJoint, jb.QuaternionFloatingJoint, jb.RpyFloatingJoint
    plant.set_adjacent_bodies_collision_filters(adjacent)
    body = {n: plant.AddRigidBody(n, M) for n in (
        "base", "link1", "link2", "link3", "arm", "free1", "free2", "rpy1", "loose")}
    W = plant.world_frame()
    f = {n: b.body_frame() for n, b in body.items()}
    plant.WeldFrames(W, f["base"])
    plant.AddJoint(Rev("j1", f["base"], f["link1"], [0, 0, 1]))
    plant.AddJoint(Rev("j2", f["link1"], f["link2"], [0, 1, 0]))
    plant.WeldFrames(f["link2"], f["link3"])
    plant.AddJoint(Rev("j_arm", W, f["arm"], [1, 0, 0]))
    plant.AddJoint(Quat("q12", f["free1"], f["free2"]))
    plant.AddJoint(Rpy("r1", f["free1"], f["rpy1"]))
    ids = [plant.RegisterCollisionGeometry(plant.world_body(), X, HalfSpace(), "ground", mu),
           plant.RegisterCollisionGeometry(plant.world_body(), X, Sphere(0.1), "post", mu)]
    for n in body:
        ids.append(plant.RegisterCollisionGeometry(body[n], X, Sphere(0.1), n, mu))
    ids.append(plant.RegisterCollisionGeometry(body["link1"], X, Sphere(0.1), "link1_b", mu))
    # User groups: free2 vs the arm (between); {free1, link3, loose} (within, same name).
    if engine == "drake":
        cfm = sg.collision_filter_manager()
        fid = lambda b: plant.GetBodyFrameIdOrThrow(b.index())  # noqa: E731
        cfm.Apply(dg.CollisionFilterDeclaration().ExcludeBetween(
            dg.GeometrySet([ids[8]]), dg.GeometrySet([fid(body["arm"])])))
        cfm.Apply(dg.CollisionFilterDeclaration().ExcludeWithin(
            dg.GeometrySet([ids[7], ids[5]], [fid(body["loose"])])))
    else:
        plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(
            ("a", GeometrySet([ids[8]])), ("b", GeometrySet(body["arm"])))
        s = GeometrySet([ids[7], ids[5]], [body["loose"]])
        plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(("self", s), ("self", s))
    plant.Finalize()
    return plant, sg, ids


def _pairs(engine, adjacent):
    plant, sg, ids = _build(engine, adjacent)
    order = {int(g.get_value()): i for i, g in enumerate(ids)}
    if engine == "drake":
        cands = sg.model_inspector().GetCollisionCandidates()
    else:
        cands = plant.GetCollisionCandidates()
    return {tuple(sorted((order[int(a.get_value())], order[int(b.get_value())])))
            for a, b in cands}, plant, sg, ids


@pytest.mark.parametrize("adjacent", [True, False], ids=["adjacent-filtered", "adjacent-kept"])
def test_candidates_equal_drakes(adjacent):
    pytest.importorskip("pydrake")
    ours, plant, _, ids = _pairs("jaxbody", adjacent)
    theirs, _, sg, dids = _pairs("drake", adjacent)
    assert ours == theirs
    # The same, pair by pair, through CollisionFiltered.
    inspector = sg.model_inspector()
    for i in range(len(ids)):
        for j in range(i + 1, len(ids)):
            assert plant.CollisionFiltered(ids[i], ids[j]) == inspector.CollisionFiltered(
                dids[i], dids[j]), (i, j)


def test_rules_in_jaxbody_terms():
    pairs, plant, _, ids = _pairs("jaxbody", True)
    names = ["ground", "post", "base", "link1", "link2", "link3", "arm", "free1", "free2", "rpy1",
             "loose", "link1_b"]
    has = lambda a, b: tuple(sorted((names.index(a), names.index(b)))) in pairs  # noqa: E731
    assert not has("ground", "post")  # same body (anchored)
    assert not has("ground", "base")  # welded to the world
    assert not has("base", "link1") and not has("link1", "link2")  # adjacent
    assert not has("link2", "link3")  # welded subgraph
    assert not has("link1", "link1_b")  # same body
    assert has("link1", "link3") and has("base", "link2")  # neither adjacent nor welded
    assert has("arm", "ground")  # joints to the world never filter
    assert has("free1", "free2") and not has("free1", "rpy1")  # quaternion floating: kept
    assert not has("free2", "arm") and not has("free1", "link3") and not has("free1", "loose")
    assert has("free2", "loose")


def test_geometry_set_api_and_errors():
    s = GeometrySet()
    s.Add([jb.GeometryId(2), 3])
    assert s.geometry_ids() == {jb.GeometryId(2), jb.GeometryId(3)} and s.num_frames() == 0
    with pytest.raises(TypeError, match="GeometryIds and bodies"):
        GeometrySet("ground")
    with pytest.raises(TypeError, match="at most 2"):
        GeometrySet([], [], [])
    plant = jb.MultibodyPlant(0.0)
    b = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    s.Add(b)
    assert "'b'" in repr(s) and s.bodies() == [b]
    with pytest.raises(ValueError, match="no geometry with id 2"):
        plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(("x", s), ("x", s))
    with pytest.raises(TypeError, match="GeometrySet"):
        plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(("x", [1]), ("y", s))
    plant.Finalize()
    with pytest.raises(RuntimeError, match="before Finalize"):
        plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(("x", s), ("x", s))
    with pytest.raises(RuntimeError, match="finalized"):
        plant.set_adjacent_bodies_collision_filters(False)
    assert np.asarray(plant.GetCollisionCandidates()).size == 0
