"""Drake's compliant hydroelastic ellipsoid: a tetrahedral mesh and its linear extent field.

The mesh is Drake's unit-sphere mesh (see `sphere_mesh`) stretched by diag(a, b, c). Its
refinement level is the one a unit sphere gets for the hint divided by the largest semi-axis,
so the chords along the three principal great ellipses are no longer than ``resolution_hint``
(the coarsest mesh, the stretched octahedron, for hints ≥ 2·max(a, b, c)).

The extent is e = 1 − |(x/a, y/b, z/c)| at each vertex: 1 at the center, 0 on the surface
(values within 1e-14 of 0 snapped to 0, as Drake does), linear within each tetrahedron.
"""

from __future__ import annotations

import numpy as np

from jaxbody.geometry.hydroelastic.meshes import SoftMesh, VolumeMesh, volume_mesh
from jaxbody.geometry.hydroelastic.sphere_mesh import (
    EXTENT_SNAP,
    check_positive,
    check_resolution_hint,
    sphere_refinement_level,
    unit_sphere_mesh,
)


def _semi_axes(a, b, c) -> np.ndarray:
    return np.array([check_positive("a", a), check_positive("b", b), check_positive("c", c)])


def ellipsoid_refinement_level(a: float, b: float, c: float, resolution_hint: float) -> int:
    """The unit-sphere refinement level Drake uses for the ellipsoid (a, b, c)."""
    axes = _semi_axes(a, b, c)
    hint = check_resolution_hint(resolution_hint)
    return sphere_refinement_level(1.0, hint / float(axes.max()))


def ellipsoid_volume_mesh(a: float, b: float, c: float, resolution_hint: float) -> VolumeMesh:
    """Drake's compliant-ellipsoid volume mesh (``MakeEllipsoidVolumeMesh``, single interior
    vertex) for semi-axes a, b, c along x, y, z (all > 0) and edge-length hint (> 0)."""
    axes = _semi_axes(a, b, c)
    vertices, tets = unit_sphere_mesh(ellipsoid_refinement_level(a, b, c, resolution_hint))
    return volume_mesh(vertices * axes, tets)


def ellipsoid_extent(a: float, b: float, c: float, vertices: np.ndarray) -> np.ndarray:
    """The extent 1 − |(x/a, y/b, z/c)| at points (N, 3), with |e| < 1e-14 snapped to 0."""
    axes = _semi_axes(a, b, c)
    u = np.asarray(vertices, dtype=np.float64).reshape(-1, 3) * (1.0 / axes)
    x, y, z = u[:, 0], u[:, 1], u[:, 2]
    extent = 1.0 - np.sqrt(x * x + y * y + z * z)
    return np.where(np.abs(extent) < EXTENT_SNAP, 0.0, extent)


def ellipsoid_soft_mesh(a: float, b: float, c: float, resolution_hint: float) -> SoftMesh:
    """Drake's compliant hydroelastic ellipsoid: `ellipsoid_volume_mesh` and its extent field
    (Drake's pressure = hydroelastic modulus × extent)."""
    mesh = ellipsoid_volume_mesh(a, b, c, resolution_hint)
    return SoftMesh(mesh, ellipsoid_extent(a, b, c, mesh.vertices))
