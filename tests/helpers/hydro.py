"""pydrake scenes and extent-field interpolation shared by the hydroelastic mesh tests
(tests/geometry/test_hydro_*.py). pydrake is imported inside the functions (a skip without it), so
the tests that do not call them run without pydrake."""

from __future__ import annotations

import math

import numpy as np
import pytest


def with_neighbours(hints):
    """Each hint and the floats one ulp either side of it."""
    out = []
    for h in hints:
        out += [float(np.nextafter(h, 0.0)), h, float(np.nextafter(h, np.inf))]
    return out


def sphere_level_hint(radius, level):
    """The hint at which a sphere's refinement switches between ``level`` and ``level + 1``
    (the largest hint giving ``level``: that level's equator chord)."""
    return 2.0 * radius * math.sin(math.pi / 2 ** (level + 2))


# ---------------------------------------------------------------------------------------------
# Drake's meshes and contact surfaces (pydrake).


def drake_hydro_mesh(shape, resolution_hint=1.0, modulus=None):
    """The hydroelastic mesh that a bare SceneGraph builds for ``shape`` anchored at the world
    origin: rigid (a TriangleSurfaceMesh) or, with a ``modulus``, compliant (a VolumeMesh)."""
    dg = pytest.importorskip("pydrake.geometry")
    from pydrake.math import RigidTransform

    sg = dg.SceneGraph()
    source = sg.RegisterSource("test")
    props = dg.ProximityProperties()
    if modulus is None:
        dg.AddRigidHydroelasticProperties(resolution_hint, props)
    else:
        dg.AddCompliantHydroelasticProperties(resolution_hint, modulus, props)
    instance = dg.GeometryInstance(RigidTransform(), shape, "g")
    instance.set_proximity_properties(props)
    gid = sg.RegisterAnchoredGeometry(source, instance)
    return sg.model_inspector().maybe_get_hydroelastic_mesh(gid)


def drake_compliant_mesh(shape, resolution_hint):
    """Drake's compliant hydroelastic VolumeMesh for ``shape`` (the modulus does not change it)."""
    return drake_hydro_mesh(shape, resolution_hint, modulus=1e5)


def mesh_arrays(mesh):
    """(vertices (V, 3), elements (E, 3 or 4)) of a Drake TriangleSurfaceMesh or VolumeMesh."""
    import pydrake.geometry as dg

    V = np.array([np.asarray(v) for v in mesh.vertices()], dtype=float).reshape(-1, 3)
    if isinstance(mesh, dg.TriangleSurfaceMesh):
        E = [[t.vertex(i) for i in range(3)] for t in mesh.triangles()]
    else:
        E = [[t.vertex(i) for i in range(4)] for t in mesh.tetrahedra()]
    return V, np.array(E, dtype=np.int64)


def assert_same_volume_mesh(ours, theirs, scale):
    """Our VolumeMesh is Drake's ``theirs``: the same tetrahedra, vertices within 1e-12·scale."""
    vertices, tets = mesh_arrays(theirs)
    assert ours.vertices.shape == vertices.shape and ours.tetrahedra.shape == tets.shape
    np.testing.assert_array_equal(ours.tetrahedra, tets)
    np.testing.assert_allclose(ours.vertices, vertices, rtol=0, atol=1e-12 * scale)


def drake_half_space_contact_surface(shape, hint, modulus, R_WG, p_WG):
    """Drake's polygonal contact surface between ``shape`` (compliant, on a free body at X_WG)
    and the rigid half-space z ≤ 0 of the world: its vertices in W and its pressures there."""
    pytest.importorskip("pydrake")
    import pydrake.geometry as dg
    import pydrake.math as dm
    import pydrake.multibody.plant as dp
    import pydrake.multibody.tree as dt
    from pydrake.systems.framework import DiagramBuilder

    builder = DiagramBuilder()
    plant, sg = dp.AddMultibodyPlantSceneGraph(builder, 0.0)
    body = plant.AddRigidBody("b", dt.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    props = dg.ProximityProperties()
    dg.AddCompliantHydroelasticProperties(hint, modulus, props)
    gid = plant.RegisterCollisionGeometry(body, dm.RigidTransform(), shape, "soft", props)
    rigid = dg.ProximityProperties()
    dg.AddRigidHydroelasticProperties(rigid)
    plant.RegisterCollisionGeometry(plant.world_body(), dm.RigidTransform(), dg.HalfSpace(),
                                    "ground", rigid)
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    plant.SetFreeBodyPose(plant.GetMyContextFromRoot(context), body,
                          dm.RigidTransform(dm.RotationMatrix(R_WG), p_WG))
    query = sg.get_query_output_port().Eval(sg.GetMyContextFromRoot(context))
    surfaces = query.ComputeContactSurfaces(dg.HydroelasticContactRepresentation.kPolygon)
    assert len(surfaces) == 1 and gid in (surfaces[0].id_M(), surfaces[0].id_N())
    mesh, field = surfaces[0].poly_mesh_W(), surfaces[0].poly_e_MN()
    p_WV = np.array([mesh.vertex(i) for i in range(mesh.num_vertices())])
    pressure = np.array([field.EvaluateAtVertex(i) for i in range(mesh.num_vertices())])
    return p_WV, pressure


# ---------------------------------------------------------------------------------------------
# The piecewise-linear extent field.


def interpolate_extent(soft, points, tol=1e-9):
    """The extent field of ``soft`` interpolated linearly at points (N, 3) of the mesh's frame,
    each in the tetrahedron whose smallest barycentric coordinate there is largest (that
    coordinate must be ≥ −tol: the point is in the mesh)."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    v = soft.mesh.vertices[soft.mesh.tetrahedra]                         # (T, 4, 3)
    inverse = np.linalg.inv(np.transpose(v[:, 1:] - v[:, :1], (0, 2, 1)))
    w = np.einsum("tij,ntj->nti", inverse, points[:, None, :] - v[None, :, 0])   # (N, T, 3)
    bary = np.concatenate([1.0 - w.sum(-1, keepdims=True), w], axis=-1)          # (N, T, 4)
    worst = bary.min(-1)
    t = np.argmax(worst, axis=1)
    assert np.all(worst[np.arange(len(points)), t] >= -tol), "a point is in no tetrahedron"
    return np.einsum("ni,ni->n", bary[np.arange(len(points)), t],
                     soft.extent[soft.mesh.tetrahedra[t]])
