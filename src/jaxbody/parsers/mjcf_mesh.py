"""MJCF mesh assets and mesh geoms (see `jaxbody.parsers.mjcf`).

``<asset><mesh name file scale>`` (``name`` defaults to the file's name without extension;
``scale`` and ``class`` from ``<default><mesh>``) is read from
``<compiler meshdir>`` (else ``assetdir``) joined with ``file``, relative to the model file's
folder. A ``<geom type="mesh" mesh>`` collides as the `Convex` hull of the scaled mesh (MuJoCo
collides with the convex hull too) and is drawn as the `Mesh`.

Inertia: when the geom contributes to its body's inertia, the solid mesh's mass properties
(``density``·volume, or ``mass``; the center of mass and the central inertia) are those of the
closed, scaled mesh, as MuJoCo computes them. Only convex meshes are accepted there: for a
non-convex one MuJoCo's default (``inertia="legacy"``) sums unsigned tetrahedra about the
centroid, which jaxbody does not reproduce, and the geom is refused with the advice to give the
body an ``<inertial>``. ``inertia="convex"`` uses the hull; ``"shell"`` is refused. Inline
meshes (``vertex``/``face``), ``smoothnormal`` and the like are refused or irrelevant.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from jaxbody.geometry import Convex, Mesh
from jaxbody.parsers.mjcf_geometry import numbers

_CONVEX_TOL = 1e-6  # relative volume difference between a mesh and its hull


@functools.lru_cache(maxsize=64)
def _load(path, mtime):
    import trimesh

    mesh = trimesh.load(path, force="mesh", process=True)
    return np.asarray(mesh.vertices, float), np.asarray(mesh.faces, np.int64)


def _mass_properties(V, F):
    """``(volume, center, I)`` of the solid bounded by triangles ``F`` (density 1):
    signed tetrahedra from the origin (exact for a closed, consistently oriented mesh)."""
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    vol6 = np.einsum("ij,ij->i", a, np.cross(b, c))  # 6 × each tetrahedron's signed volume
    volume = vol6.sum() / 6
    if volume < 0:  # inward-facing triangles
        vol6, volume = -vol6, -volume
    center = (vol6[:, None] * (a + b + c)).sum(0) / (24 * volume)
    # Second moments ∫ x xᵀ over each tetrahedron (0, a, b, c): vol/20 (Σ vi viᵀ + s sᵀ).
    s = a + b + c
    S = (np.einsum("t,ti,tj->ij", vol6, a, a) + np.einsum("t,ti,tj->ij", vol6, b, b)
         + np.einsum("t,ti,tj->ij", vol6, c, c) + np.einsum("t,ti,tj->ij", vol6, s, s)) / 120
    S = S - volume * np.outer(center, center)  # about the center
    return volume, center, np.trace(S) * np.eye(3) - S


class MjcfMeshes:
    """The ``<asset><mesh>``es of a document, and the shapes and inertia of mesh geoms."""

    def __init__(self, root, reader):
        self.reader, self.diag = reader, reader.diag
        self.meshes = {}
        for asset in root.findall("asset"):
            for el in asset.findall("mesh"):
                attrs = reader.attrs(el, "mesh")
                name = el.get("name")
                if not name and el.get("file"):
                    name = os.path.splitext(os.path.basename(el.get("file")))[0]
                if not name:
                    self.diag.error(el, "a <mesh> needs a name or a file")
                if name in self.meshes:
                    self.diag.error(el, f"mesh '{name}' is defined twice")
                self.meshes[name] = (el, attrs)

    def _mesh(self, geom, attrs):
        """``(path, scale, mesh element, its attributes)`` of the geom's mesh."""
        name = attrs.get("mesh")
        if not name:
            self.diag.error(geom, "a mesh geom needs a 'mesh' attribute")
        if name not in self.meshes:
            self.diag.error(geom, f"unknown mesh '{name}'")
        el, mattrs = self.meshes[name]
        file = mattrs.get("file")
        if not file:
            self.diag.error(el, f"mesh '{name}': inline meshes (vertex, face) are not supported "
                                "by jaxbody's MJCF reader; use a file")
        meshdir = self.reader.compiler.meshdir
        if meshdir and not os.path.isabs(file):
            file = os.path.join(meshdir, file)
        path = self.reader.files.ws.resolve(el, file, "mesh file")
        scale = numbers(el, mattrs, "scale", 3, self.diag, default=(1, 1, 1))
        return path, scale, el, mattrs

    def geom(self, geom, attrs, in_inertia, mass, density):
        """``(collision shape, visual shape, inertia part or None)``; the part is
        ``(m, (R_GC, p_GC), I_C)`` with C the mesh's center of mass."""
        path, scale, el, mattrs = self._mesh(geom, attrs)
        try:
            shapes = Convex(path, scale), Mesh(path, scale)
        except ValueError as e:
            self.diag.error(el, str(e))
        if not in_inertia:
            return shapes + (None,)
        mode = mattrs.get("inertia", "legacy")
        if mode == "shell" or attrs.get("shellinertia", "false") == "true":
            self.diag.error(geom, "shell inertia of mesh geoms is not supported; give the body "
                                  "an <inertial>")
        try:
            import trimesh

            V, F = _load(path, os.stat(path).st_mtime_ns)
            V = V * scale
            hull = trimesh.Trimesh(V, F, process=False).convex_hull
        except Exception as e:  # trimesh raises many types for unreadable files
            self.diag.error(el, f"cannot read mesh file '{path}': {type(e).__name__}: {e}")
        volume, center, I_1 = _mass_properties(V, F)
        hull_props = _mass_properties(np.asarray(hull.vertices), np.asarray(hull.faces))
        if mode == "convex":
            volume, center, I_1 = hull_props
        elif abs(volume - hull_props[0]) > _CONVEX_TOL * hull_props[0]:
            self.diag.error(geom, f"mesh geom '{attrs.get('mesh')}': the mesh is not convex "
                                  "(or not closed), and its inertia as MuJoCo computes it is "
                                  "not reproduced by jaxbody; give the body an <inertial> (or "
                                  "the mesh inertia=\"convex\")")
        if not volume > 0:
            self.diag.error(geom, f"mesh '{attrs.get('mesh')}' has no volume")
        m = density * volume if mass is None else mass
        if m < 0:
            self.diag.error(geom, "the geom has a negative mass or density")
        return shapes + ((m, (np.eye(3), center), m * I_1 / volume),)
