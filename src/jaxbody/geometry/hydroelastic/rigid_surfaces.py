"""Triangle surface meshes of RIGID hydroelastic primitives, as Drake builds them
(``MakeRigidRepresentation``).

Drake builds the rigid sphere, ellipsoid, cylinder and capsule as the boundary of the same
tetrahedral volume mesh that their compliant versions use, with the same resolution-hint rule
(``ConvertVolumeToSurfaceMesh`` of ``MakeSphereVolumeMesh`` (single interior vertex),
``MakeEllipsoidVolumeMesh``, ``MakeCylinderVolumeMeshWithMa``, ``MakeCapsuleVolumeMesh``). So
here each is `boundary_surface` of the volume mesh of `sphere_mesh`, `ellipsoid_mesh`,
`cylinder_mesh` or `capsule_mesh`, and matches Drake's vertex for vertex and triangle for
triangle. The ordering rules of that conversion decide the output: the surface keeps the volume
vertices that lie on a boundary face, in increasing volume index; its triangles are the faces
used by exactly one tetrahedron, sorted by their sorted vertex triple, each wound as that
tetrahedron's face (outward) and starting where the tetrahedron's face starts.

The box (``MakeBoxSurfaceMeshWithSymmetricTriangles``) has Drake's 14 vertex positions (corners
and face centers) and 24 triangles (each face a fan of four around its center), built directly;
its vertex order, triangle order and the vertex each triangle starts at differ from Drake's
(which follow Drake's medial-axis construction), none of which changes the geometry.

NumPy only: built once when a plant is finalized.
"""

from __future__ import annotations

import numpy as np

from .capsule_mesh import capsule_volume_mesh
from .cylinder_mesh import cylinder_volume_mesh
from .ellipsoid_mesh import ellipsoid_volume_mesh
from .meshes import TriangleSurfaceMesh, surface_mesh
from .sphere_mesh import sphere_volume_mesh

# The four faces of a tetrahedron (a, b, c, d) wound outward, indexed by the vertex they omit
# (a tetrahedron has (b − a) × (c − a) pointing toward d).
_TET_FACES = np.array([[1, 2, 3], [3, 2, 0], [1, 3, 0], [2, 1, 0]])


def boundary_surface(vertices, tetrahedra) -> TriangleSurfaceMesh:
    """The boundary of a tetrahedral mesh with Drake's ordering (``ConvertVolumeToSurfaceMesh``;
    see the module docstring)."""
    V = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    tets = np.asarray(tetrahedra, dtype=np.int64).reshape(-1, 4)
    faces = tets[:, _TET_FACES].reshape(-1, 3)
    keys = np.sort(faces, axis=1)
    n = len(V)
    if n < 2**21:  # one int64 per sorted triple keeps its lexicographic order
        codes = (keys[:, 0] * n + keys[:, 1]) * n + keys[:, 2]
        order = np.argsort(codes, kind="stable")
        repeated = codes[order[1:]] == codes[order[:-1]]
    else:
        order = np.lexsort((keys[:, 2], keys[:, 1], keys[:, 0]))
        repeated = np.all(keys[order[1:]] == keys[order[:-1]], axis=1)
    shared = np.zeros(len(order), dtype=bool)
    shared[1:] |= repeated
    shared[:-1] |= repeated
    triangles = faces[order[~shared]]
    on_boundary = np.zeros(n, dtype=bool)
    on_boundary[triangles] = True
    new_index = np.cumsum(on_boundary) - 1
    return surface_mesh(V[on_boundary], new_index[triangles])


def _boundary_of(mesh) -> TriangleSurfaceMesh:
    return boundary_surface(mesh.vertices, mesh.tetrahedra)


def sphere_surface_mesh(radius, resolution_hint) -> TriangleSurfaceMesh:
    """Drake's rigid hydroelastic sphere (``MakeSphereSurfaceMesh``): the boundary of
    `sphere_volume_mesh`, 8·4^L triangles with L the refinement level picked from
    ``resolution_hint`` (the maximal chord length on the equator; see
    `sphere_mesh.sphere_refinement_level`)."""
    return _boundary_of(sphere_volume_mesh(radius, resolution_hint))


def ellipsoid_surface_mesh(a, b, c, resolution_hint) -> TriangleSurfaceMesh:
    """Drake's rigid hydroelastic ellipsoid (``MakeEllipsoidSurfaceMesh``): the boundary of
    `ellipsoid_volume_mesh`, the unit sphere's mesh for hint / max(a, b, c) scaled by (a, b, c)
    along x, y, z."""
    return _boundary_of(ellipsoid_volume_mesh(a, b, c, resolution_hint))


def cylinder_surface_mesh(radius, length, resolution_hint) -> TriangleSurfaceMesh:
    """Drake's rigid hydroelastic cylinder (``MakeCylinderSurfaceMesh``) along z: the boundary of
    `cylinder_volume_mesh`. The bottom and top cap centers, then n = max(3, ⌈2π·radius /
    resolution_hint⌉) rim vertex pairs (bottom, top) at angles 2πi/n; 4n triangles (fans to the
    cap centers and the side quads split in two, as the medial-axis tetrahedra cut them)."""
    return _boundary_of(cylinder_volume_mesh(radius, length, resolution_hint))


def capsule_surface_mesh(radius, length, resolution_hint) -> TriangleSurfaceMesh:
    """Drake's rigid hydroelastic capsule (``MakeCapsuleSurfaceMesh``) along z: the boundary of
    `capsule_volume_mesh`. The top and bottom poles, then for each latitude ring i (from the
    equator up, polar angle π/2 − i·π/(2k)) and longitude j (angle 2πj/n) a (top, bottom) vertex
    pair; n = ⌊2π·radius / resolution_hint⌋ clamped to [3, 706] and k = ⌊n/2⌋ rings per
    hemisphere; the quads split in two and fans to the two poles."""
    return _boundary_of(capsule_volume_mesh(radius, length, resolution_hint))


def _box_triangles() -> np.ndarray:
    """(24, 3) triangles over the 8 corners (index x·4 + y·2 + z, each bit 1 on the + side) and
    the six face centers 8..13 (−x, +x, −y, +y, −z, +z): face by face, a fan of four triangles
    (center, corner k, corner k + 1) with the corners counterclockwise seen from outside."""
    tris = []
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3  # (e_u, e_v, e_axis) is right-handed
        for side in (0, 1):
            cycle = [(0, 0), (1, 0), (1, 1), (0, 1)]  # counterclockwise about +e_axis
            if side == 0:
                cycle = cycle[::-1]
            corners = []
            for cu, cv in cycle:
                bits = {axis: side, u: cu, v: cv}
                corners.append(4 * bits[0] + 2 * bits[1] + bits[2])
            center = 8 + 2 * axis + side
            tris += [(center, corners[k], corners[(k + 1) % 4]) for k in range(4)]
    return np.array(tris, dtype=np.int64)


_BOX_TRIANGLES = _box_triangles()


def box_surface_mesh(size) -> TriangleSurfaceMesh:
    """Drake's rigid hydroelastic box (``MakeBoxSurfaceMeshWithSymmetricTriangles``) for the full
    ``size`` (width, depth, height): 14 vertices (the 8 corners, index x·4 + y·2 + z with each
    bit 1 on the + side, then the face centers of −x, +x, −y, +y, −z, +z) and 24 triangles, face
    by face a fan of four around the face center, each starting at the center and wound
    counterclockwise seen from outside. Drake's vertices are the same points in another order
    and its triangles the same up to order and cyclic rotation."""
    try:
        s = np.asarray(size, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as e:
        raise ValueError(f"size must be three positive numbers, got {size!r}") from e
    if s.shape != (3,) or not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ValueError(f"size must be three finite numbers > 0, got {size!r}")
    half = s / 2.0
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    centers = np.zeros((6, 3))
    for axis in range(3):
        centers[2 * axis, axis] = -half[axis]
        centers[2 * axis + 1, axis] = half[axis]
    return surface_mesh(np.concatenate([signs * half, centers]), _BOX_TRIANGLES)
