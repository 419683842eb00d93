"""Drake's geometry shapes: `Sphere`, `Box`, `Cylinder`, `Capsule`, `Ellipsoid`, `HalfSpace`,
`Mesh` and `Convex`, with pydrake's constructors, accessors and validity checks.

Shapes are plain immutable descriptions (dimensions in meters, in the geometry's own frame G,
as in Drake). `Mesh` and `Convex` name a file; its vertices, convex hull and bounding box are
read with ``trimesh`` on first use (not at construction, so parsing a robot never loads its
visual meshes) and cached per file.

Example:
    >>> from jaxbody.geometry import Box, Sphere
    >>> Box(0.1, 0.2, 0.3).size()
    array([0.1, 0.2, 0.3])
    >>> Sphere(0.05)
    Sphere(radius=0.05)
"""

from __future__ import annotations

import functools
import os

import numpy as np

# Drake's smallest allowed |scale| of a mesh on any axis.
MIN_MESH_SCALE = 1e-8


def _dimension(shape, what, value, allow_zero=False):
    """A finite float that is > 0 (or >= 0 if ``allow_zero``), else ValueError naming it."""
    try:
        x = float(value)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{shape}: {what} must be a number, got {value!r}") from e
    ok = np.isfinite(x) and (x >= 0 if allow_zero else x > 0)
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{shape}: {what} must be finite and {bound}, got {x}")
    return x


class Shape:
    """Base class of all shapes. Shapes compare equal when their type and parameters agree."""

    _params: tuple = ()

    def _values(self):
        return tuple(getattr(self, "_" + p) for p in self._params)

    def Clone(self) -> Shape:
        """A copy (shapes are immutable, so this is the shape itself, as in value semantics)."""
        return self

    def type_name(self) -> str:
        """Drake's ``ShapeName``: the class name (``"Box"``, ``"Mesh"``, ...)."""
        return type(self).__name__

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(np.array_equal(a, b) for a, b in zip(self._values(), other._values()))

    def __hash__(self):
        return hash((type(self).__name__,) + tuple(np.asarray(v).tobytes() if isinstance(
            v, np.ndarray) else v for v in self._values()))

    def __repr__(self):
        args = ", ".join(f"{p}={_fmt(v)}" for p, v in zip(self._params, self._values()))
        return f"{type(self).__name__}({args})"


def _fmt(v):
    if isinstance(v, np.ndarray):
        return "[" + ", ".join(f"{x:g}" for x in v) + "]"
    if isinstance(v, str):
        return repr(v)
    return f"{v:g}"


class Sphere(Shape):
    """A sphere of ``radius`` (m) centered at Go. Drake allows radius 0 (a point)."""

    _params = ("radius",)

    def __init__(self, radius):
        self._radius = _dimension("Sphere", "radius", radius, allow_zero=True)

    def radius(self) -> float:
        return self._radius


class Box(Shape):
    """A box of ``width`` x ``depth`` x ``height`` (m) along Gx, Gy, Gz, centered at Go."""

    _params = ("width", "depth", "height")

    def __init__(self, width, depth, height):
        self._width = _dimension("Box", "width", width)
        self._depth = _dimension("Box", "depth", depth)
        self._height = _dimension("Box", "height", height)

    @classmethod
    def MakeCube(cls, edge_size) -> Box:
        return cls(edge_size, edge_size, edge_size)

    def width(self) -> float:
        return self._width

    def depth(self) -> float:
        return self._depth

    def height(self) -> float:
        return self._height

    def size(self) -> np.ndarray:
        return np.array([self._width, self._depth, self._height])


class Cylinder(Shape):
    """A cylinder of ``radius`` and ``length`` (m) along Gz, centered at Go."""

    _params = ("radius", "length")

    def __init__(self, radius, length):
        self._radius = _dimension("Cylinder", "radius", radius)
        self._length = _dimension("Cylinder", "length", length)

    def radius(self) -> float:
        return self._radius

    def length(self) -> float:
        return self._length


class Capsule(Shape):
    """A capsule: a cylinder of ``radius`` and ``length`` (m) along Gz capped by hemispheres."""

    _params = ("radius", "length")

    def __init__(self, radius, length):
        self._radius = _dimension("Capsule", "radius", radius)
        self._length = _dimension("Capsule", "length", length)

    def radius(self) -> float:
        return self._radius

    def length(self) -> float:
        return self._length


class Ellipsoid(Shape):
    """An ellipsoid with semi-axes ``a``, ``b``, ``c`` (m) along Gx, Gy, Gz, centered at Go."""

    _params = ("a", "b", "c")

    def __init__(self, a, b, c):
        self._a = _dimension("Ellipsoid", "a", a)
        self._b = _dimension("Ellipsoid", "b", b)
        self._c = _dimension("Ellipsoid", "c", c)

    def a(self) -> float:
        return self._a

    def b(self) -> float:
        return self._b

    def c(self) -> float:
        return self._c


class HalfSpace(Shape):
    """The half space z <= 0 of frame G (its boundary is the plane z = 0, normal +Gz)."""


class _MeshShape(Shape):
    """A shape read from a mesh file, scaled by ``scale`` (a number or three per-axis numbers)."""

    _params = ("filename", "scale3")

    def __init__(self, filename, scale=1.0):
        kind = type(self).__name__
        if not isinstance(filename, (str, os.PathLike)) or not str(filename):
            raise ValueError(f"{kind}: filename must be a non-empty path, got {filename!r}")
        s = np.asarray(scale, dtype=float).reshape(-1)
        if s.shape == (1,):
            s = np.repeat(s, 3)
        if s.shape != (3,) or not np.all(np.isfinite(s)) or np.any(np.abs(s) < MIN_MESH_SCALE):
            raise ValueError(f"{kind} |scale| cannot be < {MIN_MESH_SCALE:g} (or non-finite) on "
                             f"any axis, given {np.asarray(scale)}")
        self._filename = os.fspath(filename)
        self._scale3 = s

    def filename(self) -> str:
        return self._filename

    def source(self) -> str:
        return self._filename

    def extension(self) -> str:
        """The file extension, lower case, with the dot (``".obj"``), as Drake reports it."""
        return os.path.splitext(self._filename)[1].lower()

    def scale3(self) -> np.ndarray:
        return self._scale3.copy()

    def scale(self) -> float:
        """The uniform scale; raises if the three per-axis scales differ (as Drake does)."""
        if not np.all(self._scale3 == self._scale3[0]):
            raise ValueError(f"{type(self).__name__}('{self._filename}').scale(): the scale is "
                             f"not uniform ({self._scale3}); use scale3()")
        return float(self._scale3[0])

    # --- Mesh data (read on demand) -------------------------------------------------------------
    def vertices(self) -> np.ndarray:
        """``(n, 3)`` scaled vertex positions ``p_GV`` (m) of the file's mesh."""
        V, _ = _read_mesh(self._filename)
        return V * self._scale3

    def faces(self) -> np.ndarray:
        """``(m, 3)`` triangle vertex indices into `vertices`."""
        return _read_mesh(self._filename)[1].copy()

    def GetConvexHull(self):
        """The convex hull of the scaled vertices as ``(vertices (k, 3), faces (f, 3))``."""
        import trimesh

        hull = trimesh.convex.convex_hull(self.vertices())
        return np.asarray(hull.vertices, float), np.asarray(hull.faces, np.int64)

    def CalcAxisAlignedBoundingBox(self):
        """``(lower, upper)``: the corners of the axis-aligned box bounding the scaled mesh, in G."""
        V = self.vertices()
        return V.min(axis=0), V.max(axis=0)


class Mesh(_MeshShape):
    """A triangle mesh from a file (``.obj``, ``.stl``, ...). Drake's proximity engine uses its
    convex hull for point contact."""


class Convex(_MeshShape):
    """The convex hull of the mesh in a file (a convex polytope)."""


@functools.lru_cache(maxsize=256)
def _read_mesh_cached(path, mtime):
    import trimesh

    mesh = trimesh.load(path, force="mesh", process=False)
    V = np.asarray(mesh.vertices, dtype=float)
    F = np.asarray(mesh.faces, dtype=np.int64)
    if V.ndim != 2 or V.shape[1] != 3 or len(V) == 0:
        raise ValueError(f"Mesh file '{path}' has no vertices")
    if not np.all(np.isfinite(V)):
        raise ValueError(f"Mesh file '{path}' has non-finite vertex coordinates")
    V.setflags(write=False)
    F.setflags(write=False)
    return V, F


def _read_mesh(path):
    """(vertices, faces) of the mesh file at ``path``; ValueError if it can't be read."""
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError as e:
        raise ValueError(f"Mesh file '{path}' cannot be read: {e}") from e
    try:
        return _read_mesh_cached(path, mtime)
    except ValueError:
        raise
    except Exception as e:  # trimesh raises many types for unreadable or unsupported files
        raise ValueError(f"Mesh file '{path}' cannot be read with trimesh: "
                         f"{type(e).__name__}: {e}") from e
