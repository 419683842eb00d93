"""Static (NumPy) shape data for the narrow phase: kind names, parameter dicts, polytope
tables, bounding spheres, and padding of parameter dicts into vmappable groups.

A geometry's kind is its Drake shape name; a `Mesh` is treated as its convex hull, as Drake's
point-contact query does. Parameter dicts hold only NumPy arrays (sizes are static; see the
design notes in `query.py`). Polytopes (Box, Convex, and the Cylinder's prism approximation in
polytope-polytope pairs) carry:

- ``vertices`` (V, 3), ``vertex_mask`` (V,): hull vertices in G;
- ``planes`` (F, 4), ``plane_mask``: face half spaces ``n·x <= d`` as rows (n, d), unit n;
- ``axes`` (NA, 3), ``axes_mask``: distinct face-normal directions (up to sign), for SAT;
- ``edges`` (E, 3), ``edges_mask``: distinct hull-edge directions (up to sign), for SAT;
- ``tri`` (T, 3, 3), ``tri_mask``: hull triangles (Convex only; point queries).
"""

from __future__ import annotations

import itertools

import numpy as np

from jaxbody.geometry.shapes import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Mesh, Sphere

# Kinds in the canonical order of a kernel's (A, B) arguments.
KINDS = ("Sphere", "HalfSpace", "Box", "Capsule", "Cylinder", "Ellipsoid", "Convex")
# Sides of the prism that stands in for a cylinder in polytope-polytope pairs.
CYLINDER_PRISM_SIDES = 16
_DIRECTION_DECIMALS = 9
_MASKS = {"vertices": "vertex_mask", "planes": "plane_mask", "axes": "axes_mask",
          "edges": "edges_mask", "tri": "tri_mask"}

_KIND_OF = {Sphere: "Sphere", HalfSpace: "HalfSpace", Box: "Box", Capsule: "Capsule",
            Cylinder: "Cylinder", Ellipsoid: "Ellipsoid", Convex: "Convex", Mesh: "Convex"}


def shape_kind(shape) -> str:
    """The narrow-phase kind of a `Shape` (``"Convex"`` for `Mesh` and `Convex`)."""
    kind = _KIND_OF.get(type(shape))
    if kind is None:
        raise ValueError(f"point contact does not support shapes of type {type(shape).__name__}")
    return kind


def _unique_directions(dirs):
    """Distinct unit directions up to sign, (k, 3)."""
    if len(dirs) == 0:
        return np.zeros((0, 3))
    d = dirs / np.linalg.norm(dirs, axis=1, keepdims=True)
    first = np.argmax(np.abs(d) > 1e-9, axis=1)
    d = d * np.sign(d[np.arange(len(d)), first])[:, None]
    _, idx = np.unique(np.round(d, _DIRECTION_DECIMALS), axis=0, return_index=True)
    return d[np.sort(idx)]


def polytope_data(points, with_triangles=True) -> dict:
    """The polytope tables (module docstring) of the convex hull of ``points`` (n, 3)."""
    import trimesh

    hull = trimesh.convex.convex_hull(np.asarray(points, float))
    V = np.asarray(hull.vertices, float)
    F = np.asarray(hull.faces, np.int64)
    normals = np.asarray(hull.face_normals, float)
    offsets = np.einsum("fi,fi->f", normals, V[F[:, 0]])
    key = np.round(np.c_[normals, offsets / max(1.0, np.abs(V).max())], _DIRECTION_DECIMALS)
    _, first, plane_of_face = np.unique(key, axis=0, return_index=True, return_inverse=True)
    plane_of_face = plane_of_face.reshape(-1)
    planes = np.c_[normals[first], offsets[first]]
    # Hull edges between faces of different planes (triangulation diagonals excluded).
    faces_of_edge = {}
    for f, tri in enumerate(F):
        for i, j in ((0, 1), (1, 2), (2, 0)):
            faces_of_edge.setdefault((min(tri[i], tri[j]), max(tri[i], tri[j])), []).append(f)
    real = [((i, j), fs) for (i, j), fs in faces_of_edge.items()
            if len({int(plane_of_face[f]) for f in fs}) > 1]
    edges = np.asarray([V[j] - V[i] for (i, j), _ in real]).reshape(-1, 3)
    out = {"vertices": V, "planes": planes, "axes": _unique_directions(planes[:, :3]),
           "edges": _unique_directions(edges)}
    if with_triangles:
        out["tri"] = V[F]
    for name, mask in _MASKS.items():
        if name in out:
            out[mask] = np.ones(len(out[name]), bool)
    return out


def simplify_hull(points, max_vertices: int) -> np.ndarray:
    """At most ``max_vertices`` (≥ 4) of the convex hull's vertices of ``points`` (n, 3),
    chosen greedily: from the six axis-extreme vertices, add the vertex farthest outside the
    hull of those chosen so far (by its largest plane violation) until the budget is spent.
    Their hull lies inside the original; `hull_deviation` measures by how much."""
    import trimesh

    V = np.asarray(trimesh.convex.convex_hull(np.asarray(points, float)).vertices, float)
    if len(V) <= max_vertices:
        return V
    chosen = list(dict.fromkeys(np.r_[np.argmin(V, 0), np.argmax(V, 0)].tolist()))
    while len(chosen) < max_vertices:
        gap = hull_deviation(V, V[chosen], per_point=True)
        far = int(np.argmax(gap))
        if gap[far] <= 0.0:
            break
        chosen.append(far)
    return V[np.asarray(chosen)]


def hull_deviation(points, hull_points, per_point=False):
    """How far ``points`` (n, 3) lie outside the convex hull of ``hull_points``: the largest
    plane violation of each point (m; ≤ 0 inside), or the largest over all points."""
    import trimesh

    try:
        hull = trimesh.convex.convex_hull(np.asarray(hull_points, float))
        n = np.asarray(hull.face_normals, float)
        d = np.einsum("fi,fi->f", n, np.asarray(hull.vertices)[np.asarray(hull.faces)[:, 0]])
        gap = np.max(np.asarray(points, float) @ n.T - d, axis=1)
    except Exception:  # fewer than 4 points off one plane: farthest from the chosen points
        gap = np.min(np.linalg.norm(np.asarray(points)[:, None] - np.asarray(hull_points)[None],
                                    axis=-1), axis=1)
    return gap if per_point else float(np.max(gap, initial=0.0))


def _box_polytope(h):
    V = np.array(list(itertools.product(*[(-x, x) for x in h])), float)
    E = np.eye(3)
    planes = np.r_[np.c_[E, h], np.c_[-E, h]]
    return {"vertices": V, "vertex_mask": np.ones(8, bool), "planes": planes,
            "plane_mask": np.ones(6, bool), "axes": E, "axes_mask": np.ones(3, bool),
            "edges": E, "edges_mask": np.ones(3, bool)}


def _prism_points(r, h, sides=CYLINDER_PRISM_SIDES):
    a = 2 * np.pi * np.arange(sides) / sides
    ring = np.c_[r * np.cos(a), r * np.sin(a)]
    return np.r_[np.c_[ring, np.full(sides, -h)], np.c_[ring, np.full(sides, h)]]


def encode_shape(shape, max_hull_vertices: int | None = None) -> dict:
    """The parameter dict (NumPy arrays, in G) of a shape for the kernels of its kind; a mesh's
    convex hull simplified to ``max_hull_vertices`` (`simplify_hull`) when given."""
    kind = shape_kind(shape)
    if kind == "Sphere":
        return {"radius": np.asarray(shape.radius(), float)}
    if kind == "HalfSpace":
        return {}
    if kind == "Box":
        h = 0.5 * shape.size()
        return {"half": h, **_box_polytope(h)}
    if kind in ("Capsule", "Cylinder"):
        out = {"radius": np.asarray(shape.radius(), float),
               "half_length": np.asarray(0.5 * shape.length(), float)}
        if kind == "Cylinder":
            out.update(polytope_data(_prism_points(shape.radius(), 0.5 * shape.length()),
                                     with_triangles=False))
        return out
    if kind == "Ellipsoid":
        return {"abc": np.array([shape.a(), shape.b(), shape.c()], float)}
    V, _ = shape.GetConvexHull()
    if max_hull_vertices is not None:
        V = simplify_hull(V, max_hull_vertices)
    return polytope_data(V)


def bounding_sphere(shape):
    """(center p_GS (3,), radius) of a sphere that contains the shape (radius inf for a
    HalfSpace)."""
    kind = shape_kind(shape)
    zero = np.zeros(3)
    if kind == "Sphere":
        return zero, shape.radius()
    if kind == "HalfSpace":
        return zero, np.inf
    if kind == "Box":
        return zero, 0.5 * float(np.linalg.norm(shape.size()))
    if kind == "Capsule":
        return zero, 0.5 * shape.length() + shape.radius()
    if kind == "Cylinder":
        return zero, float(np.hypot(shape.radius(), 0.5 * shape.length()))
    if kind == "Ellipsoid":
        return zero, max(shape.a(), shape.b(), shape.c())
    V, _ = shape.GetConvexHull()
    c = 0.5 * (V.min(0) + V.max(0))
    return c, float(np.linalg.norm(V - c, axis=1).max())


def bounding_box_half(shape):
    """Half extents (3,) of a box in G, centred at `bounding_sphere`'s centre, that contains
    the shape (inf for a HalfSpace): tighter than the sphere for elongated links."""
    kind = shape_kind(shape)
    if kind == "Sphere":
        return np.full(3, shape.radius())
    if kind == "HalfSpace":
        return np.full(3, np.inf)
    if kind == "Box":
        return 0.5 * np.asarray(shape.size(), float)
    if kind in ("Capsule", "Cylinder"):
        r = shape.radius()
        return np.array([r, r, 0.5 * shape.length() + (r if kind == "Capsule" else 0.0)])
    if kind == "Ellipsoid":
        return np.array([shape.a(), shape.b(), shape.c()], float)
    V, _ = shape.GetConvexHull()
    return 0.5 * (V.max(0) - V.min(0))


def stack_params(dicts) -> dict:
    """Stacks parameter dicts of one kind along a new leading axis, padding the variable-size
    tables (and their masks, with False) to the largest member."""
    if not dicts:
        return {}
    out = {}
    for key in dicts[0]:
        arrs = [np.asarray(d[key]) for d in dicts]
        if arrs[0].ndim == 0:
            out[key] = np.stack(arrs)
            continue
        n = max(a.shape[0] for a in arrs)
        padded = []
        for a in arrs:
            pad = np.zeros((n - a.shape[0],) + a.shape[1:], a.dtype)
            padded.append(np.concatenate([a, pad], 0))
        out[key] = np.stack(padded)
    return out
