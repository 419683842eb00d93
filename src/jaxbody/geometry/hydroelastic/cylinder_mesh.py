"""Compliant hydroelastic cylinders: Drake's medial-axis tetrahedral mesh and its extent field.

The cylinder (radius R, length L, axis z, centered) is approximated by the inscribed prism on n =
max(3, ⌈2πR/h⌉) rim points per cap, h the resolution hint (``MakeCylinderVolumeMeshWithMa``).
Vertices: the two cap centers, then the rim points alternating bottom/top at angles 2πk/n, then
the interior vertices on the medial axis (MA), which depends on how L/2 compares with R (equal
within 1e-14·max(1, min(L/2, R))):

* long (L/2 > R): two MA points (0, 0, ∓(L/2 − R)); per rim edge a bottom cone tetrahedron, a
  top cone tetrahedron and a prism (3 tetrahedra) between them: 5n tetrahedra;
* medium (L/2 = R): the center; two cone tetrahedra and a side pyramid (2 tetrahedra): 4n;
* short (L/2 < R): the center and a medial circle of radius R − L/2 (n points at the rim's
  angles); per rim edge two frustum prisms and a side prism: 9n tetrahedra.

The extent is Drake's: the distance to the cylinder's boundary (nearest of the side and the two
caps in the (r, z) cross section, ties to the side) over min(R, L/2), capped at 1, and exactly 0
at every vertex on a boundary face.
"""

from __future__ import annotations

import math

import numpy as np

from jaxbody.geometry.hydroelastic.box_mesh import signed_distance_to_box
from jaxbody.geometry.hydroelastic.meshes import SoftMesh, VolumeMesh, volume_mesh

__all__ = ["boundary_vertices", "cylinder_extent", "cylinder_soft_mesh", "cylinder_volume_mesh",
           "positive_lengths", "split_prism", "split_pyramid"]


def split_prism(v0, v1, v2, v3, v4, v5) -> np.ndarray:
    """Three tetrahedra filling the (topological) triangular prism with triangles (v0, v1, v2) and
    (v3, v4, v5), all sharing the diagonal v0–v5. Arguments may be index arrays (broadcast);
    returns (..., 3, 4)."""
    return np.stack([np.stack([v3, v4, v0, v5], -1), np.stack([v4, v1, v0, v5], -1),
                     np.stack([v1, v2, v0, v5], -1)], -2)


def split_pyramid(v0, v1, v2, v3, v4) -> np.ndarray:
    """Two tetrahedra filling the pyramid with apex v4 over the quadrilateral (v0, v1, v2, v3), cut
    along the diagonal v0–v2; returns (..., 2, 4)."""
    return np.stack([np.stack([v3, v4, v0, v2], -1), np.stack([v4, v1, v0, v2], -1)], -2)


def boundary_vertices(tetrahedra) -> np.ndarray:
    """Sorted indices of the vertices on faces that belong to a single tetrahedron."""
    t = np.asarray(tetrahedra)
    faces = np.sort(t[:, [[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]]].reshape(-1, 3), axis=1)
    unique, counts = np.unique(faces, axis=0, return_counts=True)
    return np.unique(unique[counts == 1])


def positive_lengths(**values) -> tuple[float, ...]:
    """The values as floats; a ValueError naming the first that is not a positive number (finite,
    except for ``resolution_hint``, which may be +inf: the coarsest mesh)."""
    out = []
    for name, value in values.items():
        try:
            x = math.nan if isinstance(value, str | bytes) else float(value)
        except (TypeError, ValueError):
            x = math.nan
        may_be_inf = name == "resolution_hint"
        if not (x > 0.0 and (math.isfinite(x) or may_be_inf)):
            kind = "positive number" if may_be_inf else "positive finite number"
            raise ValueError(f"{name} must be a {kind}; got {value!r}")
        out.append(x)
    return tuple(out)


def _classify(radius: float, length: float) -> str:
    half = length / 2.0
    tol = 1e-14 * max(1.0, min(half, radius))
    if half - radius > tol:
        return "long"
    if radius - half > tol:
        return "short"
    return "medium"


def cylinder_volume_mesh(radius, length, resolution_hint) -> VolumeMesh:
    """Drake's compliant cylinder mesh (axis along z, centered) for the given resolution hint
    (the target length of a rim edge)."""
    R, L, hint = positive_lengths(radius=radius, length=length, resolution_hint=resolution_hint)
    n = max(3, math.ceil(2.0 * math.pi * R / hint))
    top_z = L / 2.0
    step = 2.0 * math.pi / n
    rim = np.array([(R * math.cos(step * k), R * math.sin(step * k)) for k in range(n)])
    vertices = [np.array([[0.0, 0.0, -top_z], [0.0, 0.0, top_z]])]
    rim_bottom_top = np.empty((n, 2, 3))
    rim_bottom_top[:, :, :2] = rim[:, None, :]
    rim_bottom_top[:, 0, 2], rim_bottom_top[:, 1, 2] = -top_z, top_z
    vertices.append(rim_bottom_top.reshape(-1, 3))
    bc, tc = 0, 1
    j = np.arange(n)
    i = (j - 1) % n  # the rim edge (i, j), starting with (n-1, 0)
    bot_i, bot_j, top_i, top_j = 2 + 2 * i, 2 + 2 * j, 3 + 2 * i, 3 + 2 * j
    first = 2 + 2 * n  # the first interior vertex
    full = np.zeros(n, dtype=np.int64)  # broadcasts a single index over the rim edges
    kind = _classify(R, L)
    if kind == "long":
        z = top_z - R
        vertices.append(np.array([[0.0, 0.0, -z], [0.0, 0.0, z]]))
        m0, m1 = full + first, full + first + 1
        tets = [np.stack([full + bc, bot_i, bot_j, m0], -1)[:, None],
                np.stack([full + tc, top_j, top_i, m1], -1)[:, None],
                split_prism(m0, bot_i, bot_j, m1, top_i, top_j)]
    elif kind == "medium":
        vertices.append(np.zeros((1, 3)))
        m = full + first
        tets = [np.stack([full + bc, bot_i, bot_j, m], -1)[:, None],
                np.stack([full + tc, top_j, top_i, m], -1)[:, None],
                split_pyramid(top_i, top_j, bot_j, bot_i, m)]
    else:
        scale = (R - L / 2.0) / R
        medial = np.zeros((n, 3))
        medial[:, :2] = rim * scale
        vertices += [np.zeros((1, 3)), medial]
        c, med_i, med_j = full + first, first + 1 + i, first + 1 + j
        tets = [split_prism(full + bc, bot_i, bot_j, c, med_i, med_j),
                split_prism(c, med_i, med_j, full + tc, top_i, top_j),
                split_prism(bot_i, med_i, top_i, bot_j, med_j, top_j)]
    return volume_mesh(np.concatenate(vertices), np.concatenate(tets, axis=1).reshape(-1, 4))


def _distance_inside(R: float, L: float, p) -> float:
    """Drake's (positive inside) distance from p to the cylinder's boundary, computed in the
    (r, z) cross section; points within 1e-14·max(1, R) of the axis take the +x half plane."""
    x, y, z = (float(c) for c in p)
    r = math.sqrt(x * x + y * y)
    ux, uy = (1.0, 0.0) if r < 1e-14 * max(1.0, R) else (x / r, y / r)
    (nr, nz), (gr, gz) = signed_distance_to_box((R, L / 2.0), (r, z))
    signed = gr * ux * (x - nr * ux) + gr * uy * (y - nr * uy) + gz * (z - nz)
    return -signed


def cylinder_extent(radius, length, mesh: VolumeMesh) -> np.ndarray:
    """The extent at the vertices of ``mesh`` (Drake's cylinder pressure field divided by E)."""
    R, L = positive_lengths(radius=radius, length=length)
    H = min(R, L / 2.0)
    extent = np.array([min(_distance_inside(R, L, v) / H, 1.0) for v in mesh.vertices])
    extent[boundary_vertices(mesh.tetrahedra)] = 0.0
    return extent


def cylinder_soft_mesh(radius, length, resolution_hint) -> SoftMesh:
    """The compliant cylinder's mesh and extent field (pressure = E·extent)."""
    mesh = cylinder_volume_mesh(radius, length, resolution_hint)
    return SoftMesh(mesh, cylinder_extent(radius, length, mesh))
