"""Compliant hydroelastic boxes: Drake's medial-axis tetrahedral mesh and its extent field.

The pressure of a compliant box is a scaled distance to its boundary, e = d/H with H the smallest
half size. That function is linear on every piece of the box cut by its medial axis (MA), so a mesh
whose tetrahedra never straddle the MA represents it exactly with a handful of tetrahedra. This is
the tessellation Drake uses for compliant boxes whatever the resolution hint
(``MakeBoxVolumeMeshWithMaAndSymmetricTriangles``). Its vertices are the 8 corners, the vertices
of the MA's central piece and the 6 face centers. That piece is

* a point (a cube: 15 vertices, 24 tetrahedra), the box center;
* a segment (two equal short sides: 17 vertices, 40 tetrahedra), built with the long side along
  z: its two ends and its midpoint (the box center), then rotated so z lands on the long axis;
* a rectangle (18 vertices, 44 tetrahedra), built with the short side along x: its 4 corners,
  then rotated so x lands on the short axis.

The tetrahedra are generated from that geometry. The MA cuts the box into 6 convex face regions
(the points nearest each face: pyramids, frusta and hip roofs). Two regions meet on the planar
"edge facet" of the box edge they share: the edge plus the MA vertices nearest both faces (one
vertex, or a ridge of 2 or 3 collinear ones parallel to the edge); the two frusta of a rectangle
MA also meet on the rectangle itself. Every such facet is fanned into triangles from one of its MA
vertices, the apex: on an edge facet the one nearest the edge's midpoint (ties, at the rectangle's
ridges, going to the end at +y or +z), on the rectangle its corner at (-y, +z). Each triangle is
joined to the centers of the two faces whose regions it separates, which cones every region from
its face center (so each face is split into four triangles around its center, each joined to the
apex of its edge's facet). Tetrahedra with a negative signed volume get two vertices swapped.

The extent at a vertex is Drake's signed distance to the box (interior points take the nearest
face; points within 1e-14·max(1, h) of a face count as on it) divided by H; it is 0 on the
surface and 1 on the MA.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from jaxbody.geometry.hydroelastic.meshes import SoftMesh, VolumeMesh, volume_mesh

__all__ = ["box_extent", "box_soft_mesh", "box_volume_mesh", "signed_distance_to_box"]

_SIGNS = (-1, 1)
# Vertex keys in the canonical frame: ("corner", s) at s·h and ("ma", t) at t·m for sign triples
# s, t (t_k = 0 along the axes where the MA has no extent), ("face", (k, σ)) the center of the
# face x_k = σ·h_k. Corners go x slowest and z fastest (minus before plus); faces -x, +x, ..., +z.
_CORNERS = [("corner", s) for s in itertools.product(_SIGNS, repeat=3)]
_FACES = [("face", (k, sign)) for k in range(3) for sign in _SIGNS]
# The MA's vertices: the center; the segment's ends (+z, -z) and midpoint; the rectangle's corners
# (-y+z, +y+z, -y-z, +y-z).
_POINT_MA = [(0, 0, 0)]
_SEGMENT_MA = [(0, 0, 1), (0, 0, -1), (0, 0, 0)]
_RECTANGLE_MA = [(0, -1, 1), (0, 1, 1), (0, -1, -1), (0, 1, -1)]


def _fan(polygon: list, apex, faces: list) -> list[tuple]:
    """The triangles fanning the convex ``polygon`` (cyclic, containing ``apex``) from ``apex``,
    each joined to the center of every face in ``faces``."""
    i = polygon.index(apex)
    ring = polygon[i + 1:] + polygon[:i]
    return [(apex, a, b, ("face", f)) for a, b in zip(ring, ring[1:]) for f in faces]


def _tetrahedra(ma: list[tuple[int, int, int]]) -> list[tuple]:
    """The mesh's tetrahedra as 4-tuples of vertex keys (not yet oriented), for the MA vertices
    ``ma`` (sign triples) in the canonical frame."""
    extent_axes = [k for k in range(3) if any(t[k] for t in ma)]

    def nearest_to(t, k, sign):  # MA vertex t is nearest the face x_k = sign·h_k
        return k not in extent_axes or t[k] == sign

    tets = []
    for j in range(3):  # the box edges along axis j
        a, b = (k for k in range(3) if k != j)
        for sa, sb in itertools.product(_SIGNS, repeat=2):
            ends = []
            for sj in _SIGNS:
                s = [0, 0, 0]
                s[j], s[a], s[b] = sj, sa, sb
                ends.append(("corner", tuple(s)))
            ridge = sorted((t for t in ma if nearest_to(t, a, sa) and nearest_to(t, b, sb)),
                           key=lambda t: -t[j])
            # Nearest the edge's midpoint: smallest |t_j|, ties to the + end.
            apex = min(ridge, key=lambda t: (abs(t[j]), -t[j]))
            tets += _fan(ends + [("ma", t) for t in ridge], ("ma", apex), [(a, sa), (b, sb)])
    if len(extent_axes) == 2:  # the rectangle, between the two frusta
        (i,) = set(range(3)) - set(extent_axes)
        u, v = extent_axes

        def ma_corner(su, sv):
            t = [0, 0, 0]
            t[u], t[v] = su, sv
            return ("ma", tuple(t))

        rectangle = [ma_corner(-1, 1), ma_corner(1, 1), ma_corner(1, -1), ma_corner(-1, -1)]
        tets += _fan(rectangle, rectangle[0], [(i, -1), (i, 1)])
    return tets


def _position(key, h, m) -> list[float]:
    kind, s = key
    if kind == "face":
        p = [0.0, 0.0, 0.0]
        p[s[0]] = s[1] * h[s[0]]
        return p
    return [si * x for si, x in zip(s, h if kind == "corner" else m)]


def _canonical_mesh(h, m, ma) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (corners, MA vertices ``ma``, face centers) and tetrahedra in the canonical frame
    of half sizes ``h`` and MA half sizes ``m``."""
    keys = _CORNERS + [("ma", t) for t in ma] + _FACES
    index = {key: n for n, key in enumerate(keys)}
    vertices = np.array([_position(key, h, m) for key in keys], dtype=np.float64)
    tets = np.array([[index[key] for key in tet] for tet in _tetrahedra(ma)], dtype=np.int32)
    return vertices, tets


def _oriented(vertices: np.ndarray, tets: np.ndarray) -> np.ndarray:
    """``tets`` with the first two vertices swapped where the signed volume is negative."""
    a, b, c, d = (vertices[tets[:, i]] for i in range(4))
    negative = np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) < 0.0
    tets = tets.copy()
    tets[negative, :2] = tets[negative, 1::-1]
    return tets


def _half_sizes(size) -> np.ndarray:
    try:
        h = np.asarray(size, dtype=np.float64)
    except (TypeError, ValueError):
        h = np.full(1, np.nan)
    if h.shape != (3,) or not np.all(np.isfinite(h)) or not np.all(h > 0.0):
        raise ValueError(f"size must be three positive finite lengths (width, depth, height); got {size!r}")
    return h / 2.0


def _central_ma_half_sizes(h: np.ndarray) -> np.ndarray:
    """Half sizes of the MA's central piece, h - min(h), with near-zero entries snapped to 0."""
    h_min = float(h.min())
    m = h - h_min
    return np.where(m > 1e-14 * max(1.0, h_min), m, 0.0)


def box_volume_mesh(size) -> VolumeMesh:
    """Drake's compliant box mesh for a box of full lengths ``size`` = (width, depth, height),
    centered on its frame's origin (independent of any resolution hint)."""
    h = _half_sizes(size)
    num_zero = int(np.count_nonzero(_central_ma_half_sizes(h) == 0.0))
    if num_zero == 3:
        L = float(size[0]) / 2.0
        p, tets = _canonical_mesh((L, L, L), (0.0, 0.0, 0.0), _POINT_MA)
    elif num_zero == 2:
        long_axis = int(np.argmax(h))
        L2 = float(h[long_axis])
        L1 = float(h[(long_axis + 1) % 3])
        p, tets = _canonical_mesh((L1, L1, L2), (0.0, 0.0, L2 - L1), _SEGMENT_MA)
        # Built with the long side along z; turn z onto the long axis.
        if long_axis == 0:
            p = np.stack([-p[:, 2], p[:, 1], p[:, 0]], axis=1)
        elif long_axis == 1:
            p = np.stack([p[:, 0], -p[:, 2], p[:, 1]], axis=1)
    else:
        short_axis = int(np.argmin(h))
        L1 = float(h[short_axis])
        # The two other half sizes, kept as they lie after the quarter turn below.
        L2 = float(h[0] if short_axis == 1 else h[1])
        L3 = float(h[0] if short_axis == 2 else h[2])
        p, tets = _canonical_mesh((L1, L2, L3), (0.0, L2 - L1, L3 - L1), _RECTANGLE_MA)
        # Built with the short side along x; turn x onto the short axis.
        if short_axis == 2:
            p = np.stack([-p[:, 2], p[:, 1], p[:, 0]], axis=1)
        elif short_axis == 1:
            p = np.stack([-p[:, 1], p[:, 0], p[:, 2]], axis=1)
    return volume_mesh(p, _oriented(p, tets))


def signed_distance_to_box(h, p) -> tuple[list[float], list[float]]:
    """Drake's nearest boundary point N and unit gradient g of the signed distance from point p
    to the axis-aligned box [-h, h] (any dimension); the signed distance is g·(p − N).

    Coordinates within 1e-14·max(1, h_i) of ±h_i count as on the boundary. Inside, the nearest
    face wins, ties going to the first of +x, −x, +y, −y, ... ; a zero coordinate has sign +."""
    h = [float(x) for x in h]
    p = [float(x) for x in p]
    dim = len(h)
    sign = [-1.0 if x < 0.0 else 1.0 for x in p]
    on_face = [False] * dim
    outside = False
    N = list(p)
    for i in range(dim):
        tol = 1e-14 * max(1.0, h[i])
        if abs(p[i]) > h[i] + tol:
            outside = True
            N[i] = sign[i] * h[i]
        elif abs(p[i]) >= h[i] - tol:
            on_face[i] = True
            N[i] = sign[i] * h[i]
    g = [0.0] * dim
    if outside:
        d = [p[i] - N[i] for i in range(dim)]
        norm = math.sqrt(sum(x * x for x in d))
        g = [x / norm for x in d]
    elif any(on_face):
        g = [sign[i] if on_face[i] else 0.0 for i in range(dim)]
        norm = math.sqrt(sum(x * x for x in g))
        g = [x / norm for x in g]
    else:
        best, axis = math.inf, -1
        for i in range(dim):
            for bound in (h[i], -h[i]):
                if abs(bound - p[i]) < best:
                    best, axis = abs(bound - p[i]), i
        N[axis] = sign[axis] * h[axis]
        g[axis] = sign[axis]
    return N, g


def box_extent(size, vertices) -> np.ndarray:
    """The extent e = −(signed distance)/H at ``vertices`` (V, 3) of a box of full lengths
    ``size``, H its smallest half size (Drake's box pressure field divided by E)."""
    h = _half_sizes(size)
    h_min = float(h.min())
    extent = np.empty(len(vertices))
    for k, v in enumerate(np.asarray(vertices, dtype=np.float64)):
        N, g = signed_distance_to_box(h, v)
        signed_distance = sum(g[i] * (float(v[i]) - N[i]) for i in range(3))
        extent[k] = -signed_distance / h_min
    return extent + 0.0  # no negative zeros on the surface


def box_soft_mesh(size) -> SoftMesh:
    """The compliant box's mesh and extent field (pressure = E·extent)."""
    mesh = box_volume_mesh(size)
    return SoftMesh(mesh, box_extent(size, mesh.vertices))
