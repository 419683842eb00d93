"""A collision geometry's hydroelastic representation, from its shape and its
``("hydroelastic", ...)`` proximity properties, with Drake's rules
(``geometry/proximity/hydroelastic_internal.cc``):

- ``compliance_type`` absent: no representation (the geometry's pairs use point contact);
- rigid: a triangle surface mesh (Sphere, Cylinder, Capsule and Ellipsoid need
  ``resolution_hint``; Box, Convex and Mesh do not), or the half space itself;
- compliant: a tetrahedral mesh with its pressure field (``hydroelastic_modulus`` > 0 required;
  Sphere, Cylinder, Capsule and Ellipsoid also need ``resolution_hint``); a compliant HalfSpace
  needs ``slab_thickness``.

Missing or invalid values raise ValueError naming the geometry, as Drake's SceneGraph does when
the geometry is registered. A ``margin`` > 0 (Drake's inflated meshes) and Drake's
``kDenseInteriorVertices`` tessellation are not supported and raise. Representations are
cached per (shape, properties).
"""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np

from jaxbody.geometry.hydroelastic.meshes import SoftMesh, TriangleSurfaceMesh
from jaxbody.geometry.hydroelastic.soft_half_space import tetrahedron_gradients
from jaxbody.geometry.hydroelastic.soft_rigid_mesh import bounding_spheres
from jaxbody.geometry.shapes import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Mesh, Sphere

HYDRO_GROUP = "hydroelastic"
COMPLIANCE_TYPE = "compliance_type"
MODULUS = "hydroelastic_modulus"
RESOLUTION_HINT = "resolution_hint"
SLAB_THICKNESS = "slab_thickness"
MARGIN = "margin"


@dataclasses.dataclass(frozen=True, eq=False)
class SoftVolume:
    """A compliant volume: its `SoftMesh` and the arrays the kernels read (vertices,
    tetrahedra, extent, per-tetrahedron extent gradient, bounding-sphere centers and radii)."""

    soft: SoftMesh
    arrays: tuple


@dataclasses.dataclass(frozen=True, eq=False)
class RigidSurface:
    """A rigid triangle mesh and its kernel arrays (vertices, triangles, unit normals,
    bounding-sphere centers and radii)."""

    mesh: TriangleSurfaceMesh
    arrays: tuple


@dataclasses.dataclass(frozen=True, eq=False)
class HalfSpaceRepresentation:
    """A half space (z ≤ 0 in G): rigid, or compliant with a slab thickness (m)."""

    compliant: bool
    slab_thickness: float | None = None


def soft_volume(soft: SoftMesh) -> SoftVolume:
    V = soft.mesh.vertices
    tets = soft.mesh.tetrahedra
    grad = tetrahedron_gradients(V, tets, soft.extent)
    centers, radii = bounding_spheres(V[tets])
    return SoftVolume(soft, (V, tets, soft.extent, grad, centers, radii))


def rigid_surface(mesh: TriangleSurfaceMesh) -> RigidSurface:
    W, tris = mesh.vertices, mesh.triangles
    a, b, c = (W[tris[:, i]] for i in range(3))
    n = np.cross(b - a, c - a)
    n = n / np.linalg.norm(n, axis=1, keepdims=True)
    centers, radii = bounding_spheres(W[tris])
    return RigidSurface(mesh, (W, tris, n, centers, radii))


def _describe(geometry):
    return f"'{geometry.name()}' on body '{geometry.body().name()}'"


def _positive(geometry, props, name, what):
    if not props.HasProperty(HYDRO_GROUP, name):
        raise ValueError(f"Collision geometry {_describe(geometry)} ({geometry.shape().type_name()}"
                         f"): a {what} hydroelastic geometry needs the property "
                         f"('{HYDRO_GROUP}', '{name}')")
    x = props.GetProperty(HYDRO_GROUP, name)
    try:
        x = float(x)
    except (TypeError, ValueError):
        x = float("nan")
    if not (np.isfinite(x) and x > 0):
        raise ValueError(f"Collision geometry {_describe(geometry)}: ('{HYDRO_GROUP}', '{name}') "
                         f"must be a finite number > 0, got {props.GetProperty(HYDRO_GROUP, name)!r}")
    return x


def compliance_type(geometry):
    """"rigid", "compliant" or None (no hydroelastic representation)."""
    props = geometry.properties()
    if props is None:
        return None
    c = props.GetPropertyOrDefault(HYDRO_GROUP, COMPLIANCE_TYPE, None)
    if c is None:
        return None
    name = str(getattr(c, "name", c)).lower()
    for kind in ("rigid", "compliant"):
        if kind in name:
            return kind
    if "soft" in name:
        return "compliant"
    return None


_CACHE = {}


def hydroelastic_representation(geometry):
    """The representation of a collision geometry (`SoftVolume`, `RigidSurface`,
    `HalfSpaceRepresentation`), or None when it has no ``compliance_type``."""
    kind = compliance_type(geometry)
    if kind is None:
        return None
    props, shape = geometry.properties(), geometry.shape()
    margin = float(props.GetPropertyOrDefault(HYDRO_GROUP, MARGIN, 0.0))
    if margin != 0.0:
        raise ValueError(f"Collision geometry {_describe(geometry)}: a hydroelastic margin "
                         f"({margin}) is not supported by jaxbody (Drake inflates the mesh); "
                         "remove ('hydroelastic', 'margin')")
    strategy = props.GetPropertyOrDefault(HYDRO_GROUP, "tessellation_strategy", None)
    if strategy is not None and "dense" in str(getattr(strategy, "name", strategy)).lower():
        raise ValueError(f"Collision geometry {_describe(geometry)}: Drake's "
                         "kDenseInteriorVertices tessellation is not supported by jaxbody "
                         "(its meshes have a single interior vertex, Drake's default)")
    hint = props.GetPropertyOrDefault(HYDRO_GROUP, RESOLUTION_HINT, None)
    key = (kind, shape, hint,  # what the representation and its checks read
           props.GetPropertyOrDefault(HYDRO_GROUP, SLAB_THICKNESS, None),
           props.GetPropertyOrDefault(HYDRO_GROUP, MODULUS, None))
    if key in _CACHE:
        return _CACHE[key]
    rep = _make(geometry, kind, shape, props)
    _CACHE[key] = rep
    return rep


def _mod(name):
    """A mesh-builder module of this package (imported on first use)."""
    return importlib.import_module(f"jaxbody.geometry.hydroelastic.{name}")


def _make(geometry, kind, shape, props):
    def hint():
        return _positive(geometry, props, RESOLUTION_HINT, kind)

    if isinstance(shape, HalfSpace):
        if kind == "rigid":
            return HalfSpaceRepresentation(False)
        _positive(geometry, props, MODULUS, kind)
        return HalfSpaceRepresentation(True, _positive(geometry, props, SLAB_THICKNESS, kind))
    if kind == "rigid":
        rs = _mod("rigid_surfaces")
        if isinstance(shape, Sphere):
            mesh = rs.sphere_surface_mesh(shape.radius(), hint())
        elif isinstance(shape, Box):
            mesh = rs.box_surface_mesh(shape.size())
        elif isinstance(shape, Cylinder):
            mesh = rs.cylinder_surface_mesh(shape.radius(), shape.length(), hint())
        elif isinstance(shape, Capsule):
            mesh = rs.capsule_surface_mesh(shape.radius(), shape.length(), hint())
        elif isinstance(shape, Ellipsoid):
            mesh = rs.ellipsoid_surface_mesh(shape.a(), shape.b(), shape.c(), hint())
        elif isinstance(shape, (Convex, Mesh)):
            mesh = _mod("convex_mesh").convex_hull_surface_mesh(shape)
        else:
            raise ValueError(f"Collision geometry {_describe(geometry)}: no rigid hydroelastic "
                             f"representation for a {shape.type_name()}")
        return rigid_surface(mesh)
    _positive(geometry, props, MODULUS, kind)
    if isinstance(shape, Sphere):
        soft = _mod("sphere_mesh").sphere_soft_mesh(shape.radius(), hint())
    elif isinstance(shape, Box):
        soft = _mod("box_mesh").box_soft_mesh(shape.size())
    elif isinstance(shape, Cylinder):
        soft = _mod("cylinder_mesh").cylinder_soft_mesh(shape.radius(), shape.length(), hint())
    elif isinstance(shape, Capsule):
        soft = _mod("capsule_mesh").capsule_soft_mesh(shape.radius(), shape.length(), hint())
    elif isinstance(shape, Ellipsoid):
        soft = _mod("ellipsoid_mesh").ellipsoid_soft_mesh(shape.a(), shape.b(), shape.c(), hint())
    elif isinstance(shape, Convex):
        soft = _mod("convex_mesh").convex_soft_mesh(_mod("convex_mesh").convex_hull_surface_mesh(shape))
    else:
        raise ValueError(f"Collision geometry {_describe(geometry)}: a compliant hydroelastic "
                         f"{shape.type_name()} is not supported (Drake reads compliant Mesh "
                         "shapes from .vtk tetrahedral meshes; use Convex or a primitive)")
    return soft_volume(soft)
