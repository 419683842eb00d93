"""The mesh types of hydroelastic contact: a compliant geometry's tetrahedral `VolumeMesh` with
its pressure field, and a rigid geometry's `TriangleSurfaceMesh`.

Both are static (NumPy) descriptions in the geometry's own frame G, built once per geometry
when the plant is finalized. A compliant geometry's pressure is p(x) = E·e(x): E its
hydroelastic modulus (Pa, a Context parameter, so it can be batched and differentiated) and
e the dimensionless *extent* field, piecewise linear on the tetrahedra, 0 on the surface and up
to 1 inside; `SoftMesh` stores e at the vertices. This is Drake's ``VolumeMeshFieldLinear``
with the modulus factored out.

Conventions (Drake's): a tetrahedron (a, b, c, d) has positive volume
((b − a) × (c − a))·(d − a) > 0; a triangle (a, b, c) of a surface mesh has its outward normal
along (b − a) × (c − a).
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True, eq=False)
class VolumeMesh:
    """A tetrahedral mesh: ``vertices`` (V, 3) float64 in G, ``tetrahedra`` (T, 4) int32."""

    vertices: np.ndarray
    tetrahedra: np.ndarray

    def num_vertices(self) -> int:
        return int(self.vertices.shape[0])

    def num_elements(self) -> int:
        return int(self.tetrahedra.shape[0])

    def volumes(self) -> np.ndarray:
        """(T,) signed volumes (positive for Drake's orientation)."""
        a, b, c, d = (self.vertices[self.tetrahedra[:, i]] for i in range(4))
        return np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) / 6.0


@dataclasses.dataclass(frozen=True, eq=False)
class TriangleSurfaceMesh:
    """A triangle mesh: ``vertices`` (V, 3) float64 in G, ``triangles`` (F, 3) int32, each
    wound counterclockwise seen from outside."""

    vertices: np.ndarray
    triangles: np.ndarray

    def num_vertices(self) -> int:
        return int(self.vertices.shape[0])

    def num_elements(self) -> int:
        return int(self.triangles.shape[0])

    def areas(self) -> np.ndarray:
        a, b, c = (self.vertices[self.triangles[:, i]] for i in range(3))
        return 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)


@dataclasses.dataclass(frozen=True, eq=False)
class SoftMesh:
    """A compliant geometry's hydroelastic representation: its volume mesh and the extent field
    e (V,) at the vertices (p = E·e; e = 0 on the boundary)."""

    mesh: VolumeMesh
    extent: np.ndarray


def volume_mesh(vertices, tetrahedra) -> VolumeMesh:
    """A `VolumeMesh` from array-likes (copies, float64 and int32)."""
    return VolumeMesh(np.array(vertices, dtype=np.float64).reshape(-1, 3),
                      np.array(tetrahedra, dtype=np.int32).reshape(-1, 4))


def surface_mesh(vertices, triangles) -> TriangleSurfaceMesh:
    """A `TriangleSurfaceMesh` from array-likes (copies, float64 and int32)."""
    return TriangleSurfaceMesh(np.array(vertices, dtype=np.float64).reshape(-1, 3),
                               np.array(triangles, dtype=np.int32).reshape(-1, 3))
