"""Drake's compliant hydroelastic sphere: a tetrahedral mesh and its linear extent field.

The mesh starts from an octahedron inscribed in the unit sphere (six surface vertices on the
±axes plus the center, eight tetrahedra that each end with the center). Each refinement level
splits every surface triangle into four at its edge midpoints, pushes those midpoints out onto
the unit sphere, and fans the four new triangles to the center again (Drake's default
"single interior vertex" tessellation), so level L has 8·4^L tetrahedra and 4^(L+1) + 3
vertices. The level is the smallest one (capped at 8) whose equator chords, 2r·sin(π / 2^(L+2)),
are no longer than ``resolution_hint``; the unit mesh is then scaled by the radius.

The extent is e = (r − |x|)/r at each vertex: 1 at the center, 0 on the surface (values
within 1e-14 of 0 are snapped to 0, as Drake does), linear within each tetrahedron.
"""

from __future__ import annotations

import math

import numpy as np

from jaxbody.geometry.hydroelastic.meshes import SoftMesh, VolumeMesh, volume_mesh

MAX_REFINEMENT_LEVEL = 8
"""Drake's cap: level 8 has 8·4^8 = 524288 tetrahedra."""

EXTENT_SNAP = 1e-14
"""Extents (relative distances) this close to zero are set to exactly zero."""


def check_positive(name: str, value) -> float:
    """``value`` as a float, or a ValueError naming ``name`` unless it is finite and > 0."""
    try:
        x = float(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a positive number; given {value!r}") from err
    if not (x > 0.0 and math.isfinite(x)):
        raise ValueError(f"{name} must be positive and finite; given {value!r}")
    return x


def check_resolution_hint(value) -> float:
    """The resolution hint as a float; positive (``inf`` allowed: the coarsest mesh)."""
    try:
        x = float(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"resolution_hint must be a positive number; given {value!r}") from err
    if not x > 0.0:
        raise ValueError(f"resolution_hint must be positive; given {value!r}")
    return x


def sphere_refinement_level(radius: float, resolution_hint: float) -> int:
    """The refinement level Drake picks for a sphere of ``radius`` and a mesh edge-length hint.

    At level L the equator is cut into 4·2^L chords of length 2r·sin(θ/2), θ = π / 2^(L+1);
    this is the least L ≥ 0 with chord ≤ hint, i.e. ⌈log₂(π / asin(h / 2r))⌉ − 2 with
    h = min(hint, 2r), capped at `MAX_REFINEMENT_LEVEL`.
    """
    radius = check_positive("radius", radius)
    hint = check_resolution_hint(resolution_hint)
    half_angle = math.asin(min(hint, 2.0 * radius) / (2.0 * radius))
    if half_angle == 0.0:  # the hint underflowed against the radius: finest mesh
        return MAX_REFINEMENT_LEVEL
    level = int(math.ceil(math.log2(math.pi / half_angle)) - 2)
    return min(max(0, level), MAX_REFINEMENT_LEVEL)


def _octahedron() -> tuple[np.ndarray, np.ndarray]:
    """Level 0: center (index 0), the six axis points, and the eight tetrahedra (center last)."""
    vertices = np.array([[0.0, 0.0, 0.0],
                         [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0],
                         [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]])
    # Upper half (+z pole 5) then lower half (-z pole 6); the first three indices of each
    # tetrahedron form its surface triangle.
    tets = np.array([[1, 5, 2, 0], [2, 5, 3, 0], [3, 5, 4, 0], [4, 5, 1, 0],
                     [2, 6, 1, 0], [3, 6, 2, 0], [4, 6, 3, 0], [1, 6, 4, 0]], dtype=np.int64)
    return vertices, tets


def _refine_surface(vertices: np.ndarray, tets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One level: split every surface triangle (a, b, c) of a center-fan mesh into four.

    New vertices are numbered after the old ones in the order their edges are first met,
    scanning tetrahedra in order and, within one, the edges ab, ac, bc. The tetrahedron
    (a, b, c, 0) becomes (a, ab, ac, 0), (b, bc, ab, 0), (c, ac, bc, 0), (ab, bc, ac, 0).
    """
    n = vertices.shape[0]
    a, b, c = tets[:, 0], tets[:, 1], tets[:, 2]
    ends = np.stack([np.stack([a, b], 1), np.stack([a, c], 1), np.stack([b, c], 1)], 1)
    ends = np.sort(ends.reshape(-1, 2), axis=1)       # (3T, 2), edges in scan order
    keys = ends[:, 0] * n + ends[:, 1]
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(uniq.size, dtype=np.int64)
    order = np.argsort(first, kind="stable")        # unique edges in first-seen order
    rank[order] = np.arange(uniq.size)
    mid_index = (n + rank[inverse.reshape(-1)]).reshape(-1, 3)
    ab, ac, bc = mid_index[:, 0], mid_index[:, 1], mid_index[:, 2]

    new_ends = ends[first[order]]
    mid = (vertices[new_ends[:, 0]] + vertices[new_ends[:, 1]]) / 2.0
    x, y, z = mid[:, 0], mid[:, 1], mid[:, 2]
    mid = mid / np.sqrt(x * x + y * y + z * z)[:, None]   # onto the unit sphere

    center = tets[:, 3]
    new_tets = np.stack([np.stack([a, ab, ac, center], 1),
                         np.stack([b, bc, ab, center], 1),
                         np.stack([c, ac, bc, center], 1),
                         np.stack([ab, bc, ac, center], 1)], 1).reshape(-1, 4)
    return np.concatenate([vertices, mid]), new_tets


def unit_sphere_mesh(level: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (V, 3) and tetrahedra (T, 4) of Drake's unit-sphere mesh at ``level`` ≥ 0.

    Vertex 0 is the center and the last index of every tetrahedron; the first three indices
    are a surface triangle.
    """
    if int(level) != level or level < 0:
        raise ValueError(f"level must be a non-negative integer; given {level!r}")
    vertices, tets = _octahedron()
    for _ in range(int(level)):
        vertices, tets = _refine_surface(vertices, tets)
    return vertices, tets


def sphere_volume_mesh(radius: float, resolution_hint: float) -> VolumeMesh:
    """Drake's compliant-sphere volume mesh (``MakeSphereVolumeMesh``, single interior vertex).

    Args:
      radius: the sphere's radius (> 0).
      resolution_hint: the target edge length (> 0); any value ≥ 2·radius gives the
        octahedron, and smaller values refine up to level 8.
    """
    radius = check_positive("radius", radius)
    level = sphere_refinement_level(radius, resolution_hint)
    vertices, tets = unit_sphere_mesh(level)
    return volume_mesh(vertices * radius, tets)


def sphere_extent(radius: float, vertices: np.ndarray) -> np.ndarray:
    """The extent (r − |x|)/r at points x (N, 3), with |(r − |x|)/r| < 1e-14 snapped to 0."""
    radius = check_positive("radius", radius)
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    x, y, z = v[:, 0], v[:, 1], v[:, 2]
    distance = radius - np.sqrt(x * x + y * y + z * z)
    extent = distance / radius
    return np.where(np.abs(distance / radius) < EXTENT_SNAP, 0.0, extent)


def sphere_soft_mesh(radius: float, resolution_hint: float) -> SoftMesh:
    """Drake's compliant hydroelastic sphere: `sphere_volume_mesh` and its extent field
    (Drake's pressure = hydroelastic modulus × extent)."""
    mesh = sphere_volume_mesh(radius, resolution_hint)
    return SoftMesh(mesh, sphere_extent(radius, mesh.vertices))
