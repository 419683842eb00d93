"""Hydroelastic meshes of a `Convex` shape: the triangulated convex hull (rigid) and the
compliant tetrahedral mesh with its extent field, as Drake builds them.

Hull (Drake's ``Convex::GetConvexHull`` then ``MakeTriangleFromPolygonMesh``): qhull (through
scipy, which trimesh's hulls need too), with its default merging of coplanar facets, finds the
hull of the file's scaled vertices (for an OBJ every ``v`` line, used by a face or not, as Drake
reads it). Each facet is a convex polygon whose vertices are sorted by their angle about the
facet's vertex mean (seen along the outward normal, from a reference vertex, in (−π, π]) and cut
into a triangle fan from its first vertex. A planar cloud gets a helper point one unit off the
plane, put back on the plane at the cloud's mean afterwards (a flat, closed mesh). qhull's own
vertex and facet order is not available from Python: the vertices here keep the file's order
and the facets qhull's output order, so they are Drake's vertices, polygons and surface, possibly
numbered and fanned differently.

Compliant (``MakeConvexVolumeMesh`` + ``MakeVolumeMeshPressureField`` with zero margin): the
hull's vertices plus the centroid of the enclosed volume; one tetrahedron (centroid, a, b, c) per
surface triangle (a, b, c). The extent is distance-to-boundary normalized by its maximum over
the vertices: 0 on every hull vertex and 1 at the centroid. Inside the tetrahedron over a face
of plane n·x = d it is (d − n·x) / (d − n·centroid), the same whichever way the face is fanned.
"""

from __future__ import annotations

import numpy as np

from .meshes import SoftMesh, TriangleSurfaceMesh, surface_mesh, volume_mesh

_PLANAR_TOLERANCE = 1e-12      # m: a cloud within this of one plane is planar
_COINCIDENT_SQUARED = 1e-24    # m²: closer points (or a smaller cross product) are degenerate


def _cloud_normal(points):
    """A unit normal of the plane through points[0] and two others that span it (Drake's search:
    the first point far from points[0], then the first one after it off that line)."""
    d = points - points[0]
    far = np.flatnonzero(np.sum(d * d, axis=1) >= _COINCIDENT_SQUARED)
    if len(far) == 0:
        raise ValueError("shape: all the mesh's vertices are within 1e-12 m of one point; it has "
                         "no convex hull")
    a = d[far[0]] / np.linalg.norm(d[far[0]])
    rest = d[far[0]:]
    n = np.cross(a, rest)
    ok = np.flatnonzero((np.sum(rest * rest, axis=1) >= _COINCIDENT_SQUARED)
                        & (np.sum(n * n, axis=1) >= _COINCIDENT_SQUARED))
    if len(ok) == 0:
        raise ValueError("shape: the mesh's vertices are all on one line; it has no convex hull")
    return n[ok[0]] / np.linalg.norm(n[ok[0]])


def _hull_polygons(points):
    """(vertices, polygons) of the convex hull of ``points`` (n, 3), see the module docstring."""
    from scipy.spatial import ConvexHull, QhullError  # trimesh's hulls need scipy too

    normal = _cloud_normal(points)
    mean = points.mean(axis=0)
    planar = bool(np.all(np.abs((points - points[0]) @ normal) <= _PLANAR_TOLERANCE))
    cloud = np.concatenate([points, (mean + normal)[None]]) if planar else points
    # qhull's defaults (merged coplanar facets); scipy adds triangulated output, whose
    # triangles of one facet share that facet's hyperplane exactly.
    try:
        hull = ConvexHull(cloud, qhull_options="")
    except QhullError as e:
        raise ValueError(f"shape: qhull cannot build the convex hull of the mesh's vertices: "
                         f"{e}") from e
    plane_ids, first, facet_of = np.unique(hull.equations, axis=0, return_index=True,
                                           return_inverse=True)
    facet_of = facet_of.reshape(-1)
    used = np.unique(hull.simplices)
    index = np.full(len(cloud), -1)
    index[used] = np.arange(len(used))
    vertices = cloud[used].copy()
    if planar:
        apex = np.searchsorted(used, len(points))
        if apex < len(used) and used[apex] == len(points):
            vertices[apex] = mean
    polygons = []
    for f in np.argsort(first):  # facets in qhull's output order
        ids = np.unique(index[hull.simplices[facet_of == f]])
        n = plane_ids[f, :3]
        # Sorted by angle about the vertex mean from the first vertex, as Drake does.
        P = vertices[ids]
        center = P.mean(axis=0)
        r = P - center
        r /= np.linalg.norm(r, axis=1)[:, None]
        angle = np.arctan2(np.cross(r[0], r) @ n, r @ r[0])
        polygons.append(ids[np.argsort(angle, kind="stable")])
    return vertices, polygons


def _obj_vertices(path):
    """Every ``v`` line of a Wavefront OBJ file (x, y, z), used by a face or not, as Drake reads
    them for a hull (trimesh drops vertices that no face uses)."""
    points = []
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            for line in file:
                words = line.split()
                if len(words) >= 4 and words[0] == "v":
                    points.append((float(words[1]), float(words[2]), float(words[3])))
    except (OSError, ValueError) as e:
        raise ValueError(f"shape: cannot read the vertices of '{path}': {e}") from e
    return np.array(points, dtype=np.float64).reshape(-1, 3)


def _hull_points(shape):
    """The shape's scaled vertices, as Drake reads them for its convex hull."""
    if shape.extension() == ".obj":
        return _obj_vertices(shape.filename()) * shape.scale3()
    return np.asarray(shape.vertices(), dtype=np.float64).reshape(-1, 3)


def convex_hull_surface_mesh(shape) -> TriangleSurfaceMesh:
    """The rigid hydroelastic mesh of a `Convex` (or `Mesh`) shape: its convex hull with every
    facet polygon fanned from its first vertex, outward wound (Drake's
    ``MakeTriangleFromPolygonMesh(convex.GetConvexHull())``)."""
    if not all(callable(getattr(shape, m, None)) for m in ("vertices", "scale3", "extension")):
        raise ValueError(f"shape must be a Convex or Mesh shape, got {shape!r}")
    points = _hull_points(shape)
    if len(points) < 3:
        raise ValueError(f"shape: a convex hull needs at least three vertices, {shape!r} has "
                         f"{len(points)}")
    vertices, polygons = _hull_polygons(points)
    triangles = [(p[0], p[k], p[k + 1]) for p in polygons for k in range(1, len(p) - 1)]
    return surface_mesh(vertices, triangles)


def _enclosed_centroid(V, F):
    """(volume, centroid) of the region bounded by the closed, outward-wound triangles F."""
    p, q, r = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    six_volumes = np.einsum("ij,ij->i", np.cross(p, q), r)
    six_total = six_volumes.sum()
    return six_total / 6.0, (six_volumes[:, None] * (p + q + r)).sum(axis=0) / (4.0 * six_total)


def convex_soft_mesh(surface: TriangleSurfaceMesh) -> SoftMesh:
    """The compliant hydroelastic mesh of a convex body bounded by ``surface`` (closed, outward
    wound, every vertex on a triangle): the surface's vertices then the volume centroid, a
    tetrahedron (centroid, a, b, c) per triangle, extent 0 on the surface and 1 at the centroid
    (Drake's ``MakeConvexVolumeMesh`` + ``MakeVolumeMeshPressureField``, margin 0)."""
    if not isinstance(surface, TriangleSurfaceMesh):
        raise ValueError(f"surface must be a TriangleSurfaceMesh, got {type(surface).__name__}")
    V = np.asarray(surface.vertices, dtype=np.float64)
    F = np.asarray(surface.triangles, dtype=np.int64)
    if len(F) < 4 or not np.all(np.isfinite(V)):
        raise ValueError("surface must be a closed triangle mesh (at least 4 triangles, finite "
                         "vertices)")
    if np.unique(F).size != len(V):
        raise ValueError("surface has vertices on no triangle; every vertex must be on the "
                         "boundary")
    volume, centroid = _enclosed_centroid(V, F)
    if not volume > 0:
        raise ValueError(f"surface must enclose a positive volume (outward triangles), got "
                         f"{volume}")
    # Distance from the centroid to the boundary (convex: the nearest face plane) must be > 0.
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    n = np.cross(b - a, c - a)
    norms = np.linalg.norm(n, axis=1)
    real = norms > 0
    depth = np.einsum("ij,ij->i", n[real], a[real] - centroid) / norms[real]
    if not depth.min() > 0:
        raise ValueError("surface must be convex with its centroid strictly inside; the "
                         "centroid's distance to the boundary is not positive")
    vertices = np.concatenate([V, centroid[None]])
    center = len(V)
    tets = np.concatenate([np.full((len(F), 1), center), F], axis=1)
    extent = np.zeros(len(vertices))
    extent[center] = 1.0
    return SoftMesh(volume_mesh(vertices, tets), extent)
