"""Hydroelastic contact surfaces drawn as meshes colored by pressure, as Drake's meshcat
``ContactVisualizer`` draws them.

A contact surface is a set of convex polygons in World, each with the pressure at its centroid
(`ContactPolygons`). Each polygon is drawn as the triangle fan (v₀, vᵢ, vᵢ₊₁) of its n vertices
(n − 2 triangles) in one color, that of its pressure: flat colors, the data as computed (Drake
colors vertices, which blends its colormap across triangles: its issue #17682).

Colors: `PRESSURE_RAMP` runs blue (0 Pa), cyan, green, yellow, red (``max_pressure``, Pa and
above), linearly between equally spaced stops. By default ``max_pressure`` is the largest
pressure shown, over every pair and, for a trajectory, every sample: a color is one pressure
throughout an animation (Drake rescales each surface at each step from its min to its max: its
issue #17683). Pass ``max_pressure`` to fix the scale across calls.

A surface lies inside the compliant geometry, where an opaque body would hide it: surfaces are
drawn after every opaque object and without a depth test, over the bodies.

``contact_surfaces``, for one configuration (`MeshcatVisualizer.Publish`): a list, one entry
per hydroelastic pair, of `HydroSurface` (``plant.CalcHydroelasticSurfaces(context)``),
`ContactPolygons` or host `ContactSurface` (``plant.ComputeContactSurfaces(context)``). For a
trajectory of T samples (``PublishTrajectory``, `export_html`): that list with a leading axis T
on every array (``jax.vmap(plant.CalcHydroelasticSurfaces)`` over the samples' contexts), or a
length-T list of per-sample lists.

Scene: `publish_surfaces` puts one mesh at ``<root>/surface``; `animate_surfaces` one mesh per
keyframe k at ``<root>/<k>``, visible from its key time to the next (a flipbook: three.js
animates node properties, not vertex arrays; the page holds every keyframe's mesh). The net
pressure force of each pair, `surface_net_forces`, is drawn as a contact-force arrow through
the ``contact_points``/``contact_forces``/``contact_mask`` arguments.

Example (a hydroelastic rollout as a web page):
    >>> import os, tempfile, jax, numpy as np, jaxbody as jb
    >>> from jaxbody.visualization import export_html, surface_mesh, surface_net_forces
    >>> plant = jb.MultibodyPlant(1e-3)
    >>> box = plant.AddRigidBody("box", jb.SpatialInertia.SolidBoxWithMass(1.0, 0.2, 0.2, 0.1))
    >>> def material():
    ...     return jb.AddContactMaterial(friction=jb.CoulombFriction(0.5, 0.5))
    >>> soft = jb.AddCompliantHydroelasticProperties(0.1, 1e6, material())
    >>> _ = plant.RegisterCollisionGeometry(box, jb.RigidTransform(), jb.Box(0.2, 0.2, 0.1),
    ...                                     "box", soft)
    >>> _ = plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(),
    ...     jb.HalfSpace(), "ground", jb.AddRigidHydroelasticProperties(properties=material()))
    >>> plant.Finalize()
    >>> ctx = plant.SetFreeBodyPose(plant.CreateDefaultContext(), box,
    ...                             jb.RigidTransform(p=[0, 0, 0.049]))
    >>> out = jb.discrete_rollout(plant, ctx, num_steps=5)
    >>> q = out.states[:, :plant.num_positions()]
    >>> S = jax.vmap(lambda q: plant.CalcHydroelasticSurfaces(plant.SetPositions(ctx, q)))(q)
    >>> points, forces, mask = surface_net_forces(S, num_steps=len(q))
    >>> path = export_html(plant, out, os.path.join(tempfile.mkdtemp(), "box.html"),
    ...                    contact_surfaces=S, contact_points=points, contact_forces=forces,
    ...                    contact_mask=mask)
    >>> mesh = surface_mesh(plant.ComputeContactSurfaces(ctx))  # the first sample, as drawn
    >>> len(mesh.faces), float(forces[0, 0, 2].round())          # triangles, net force (N)
    (34, 792.0)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jaxbody.geometry.hydroelastic.polygons import ContactPolygons
from jaxbody.geometry.hydroelastic.query import HydroSurface
from jaxbody.plant.hydroelastic_results import ContactSurface
from jaxbody.visualization import overlays as ov
from jaxbody.visualization.threejs import mesh_object, triangles_geometry, vertex_color_material

# RGB stops from 0 Pa to max_pressure, equally spaced: blue, cyan, green, yellow, red.
PRESSURE_RAMP = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0],
                          [1.0, 0.0, 0.0]])
SURFACE_OPACITY = 1.0
_ITEM_TYPES = (HydroSurface, ContactPolygons, ContactSurface)


class SurfaceMesh(NamedTuple):
    """The contact surfaces of one sample as one triangle mesh.

    Attributes:
        p_WV: (Nv, 3) vertices in World (m), polygon by polygon (each polygon's own vertices).
        faces: (Nt, 3) int vertex indices, the triangle fans, counterclockwise about the normal.
        pressure: (Nv,) Pa, each vertex carrying its polygon's centroid pressure.
    """

    p_WV: np.ndarray
    faces: np.ndarray
    pressure: np.ndarray


# --- Input ---------------------------------------------------------------------------------------
def _from_contact_surface(s: ContactSurface) -> ContactPolygons:
    n = s.num_faces()
    polys = [np.asarray(s.polygon(i), float) for i in range(n)]
    V = max([len(p) for p in polys], default=3)
    verts = np.zeros((n, V, 3))
    for i, p in enumerate(polys):
        verts[i, :len(p)], verts[i, len(p):] = p, p[-1]
    vec = lambda f: np.array([f(i) for i in range(n)], float).reshape(n, 3)  # noqa: E731
    return ContactPolygons(
        area=np.array([s.area(i) for i in range(n)], float), centroid=vec(s.centroid),
        normal=vec(s.face_normal), pressure=np.array([s.pressure(i) for i in range(n)], float),
        grad_M=np.zeros((n, 3)), grad_N=np.zeros((n, 3)), vertices=verts,
        num_vertices=np.array([len(p) for p in polys], np.int64), valid=np.ones(n, bool))


def _host_polygons(item, where, lead) -> ContactPolygons:
    """``item`` as `ContactPolygons` of NumPy arrays, shapes checked against ``lead`` + (F, ...)."""
    if isinstance(item, ContactSurface):
        if lead:
            raise ValueError(f"{where}: a ContactSurface is one configuration; a trajectory "
                             "needs a list of per-sample lists, or arrays with a leading axis T")
        return _from_contact_surface(item)
    if isinstance(item, HydroSurface):
        item = item.polygons
    if not isinstance(item, ContactPolygons):
        raise TypeError(f"{where}: expected a HydroSurface, ContactPolygons or ContactSurface, "
                        f"got {type(item).__name__}")
    p = ContactPolygons(*(np.asarray(a) for a in item))
    T = f"{lead[0]}, " if lead else ""  # T samples
    if p.valid.ndim != len(lead) + 1 or p.valid.shape[:len(lead)] != lead:
        raise ValueError(f"{where}.valid: expected shape ({T}F), got {p.valid.shape}")
    F, V = p.valid.shape[-1], p.vertices.shape[-2] if p.vertices.ndim >= 2 else 0
    want = {"vertices": ("F, V, 3", (F, V, 3)), "num_vertices": ("F", (F,)),
            "pressure": ("F", (F,)), "area": ("F", (F,)), "centroid": ("F, 3", (F, 3)),
            "normal": ("F, 3", (F, 3))}
    for name, (text, tail) in want.items():
        if getattr(p, name).shape != lead + tail:
            raise ValueError(f"{where}.{name}: expected shape ({T}{text}) with F = {F} (as "
                             f"valid), got {getattr(p, name).shape}")
    if np.any(p.num_vertices[p.valid] > V):
        raise ValueError(f"{where}.num_vertices: a valid polygon has more than V = {V} vertices")
    live = p.valid[..., None] & (np.arange(V) < p.num_vertices[..., None])
    if not (np.all(np.isfinite(p.vertices[live])) and np.all(np.isfinite(p.pressure[p.valid]))):
        raise ValueError(f"{where}: non-finite vertices or pressures in a valid polygon")
    return p


def surface_samples(contact_surfaces, num_steps=None) -> list:
    """Per sample, the list of each pair's host `ContactPolygons` (arrays (F, ...)).

    Args:
        contact_surfaces: see the module docstring (one of `HydroSurface`, `ContactPolygons`,
            `ContactSurface` stands for a list of one).
        num_steps: T, or None for one configuration.

    Returns:
        T lists (one when ``num_steps`` is None).

    Raises:
        TypeError: an entry of an unknown type; ValueError: naming the entry, on a wrong
        shape or non-finite values in a valid polygon.
    """
    if isinstance(contact_surfaces, _ITEM_TYPES):
        contact_surfaces = [contact_surfaces]
    items = list(contact_surfaces)
    if num_steps is None:
        return [[_host_polygons(s, f"contact_surfaces[{i}]", ()) for i, s in enumerate(items)]]
    T = int(num_steps)
    if all(isinstance(s, _ITEM_TYPES) for s in items):  # stacked: arrays (T, F, ...)
        pairs = [_host_polygons(s, f"contact_surfaces[{i}]", (T,)) for i, s in enumerate(items)]
        return [[ContactPolygons(*(a[k] for a in p)) for p in pairs] for k in range(T)]
    if len(items) != T:
        raise ValueError(f"contact_surfaces: expected a list of {T} per-sample lists (one per "
                         f"trajectory sample) or stacked arrays, got a list of {len(items)}")
    return [[_host_polygons(s, f"contact_surfaces[{k}][{i}]", ()) for i, s in enumerate(
        [sample] if isinstance(sample, _ITEM_TYPES) else sample)] for k, sample in enumerate(items)]


# --- Meshes and colors ---------------------------------------------------------------------------
def surface_mesh(contact_surfaces) -> SurfaceMesh:
    """The surfaces of one configuration (see the module docstring) as one `SurfaceMesh` of
    triangle fans: Σ (num_vertices − 2) triangles over the valid polygons."""
    (pairs,) = surface_samples(contact_surfaces)
    return _mesh_of(pairs)


def _mesh_of(pairs) -> SurfaceMesh:
    """`surface_mesh` of host `ContactPolygons` ``pairs``."""
    p_WV, faces, pressure, start = [], [], [], 0
    for p in pairs:
        V = p.vertices.shape[1]
        n = np.where(p.valid, p.num_vertices, 0).astype(np.int64)
        p_WV.append(p.vertices[np.arange(V) < n[:, None]])
        pressure.append(np.repeat(p.pressure, n))
        o = start + np.cumsum(n) - n  # each polygon's first vertex
        i = np.arange(1, max(V - 1, 1))
        fan = i < n[:, None] - 1  # (F, V - 2): triangle (o, o + i, o + i + 1)
        o_t, i_t = np.broadcast_to(o[:, None], fan.shape)[fan], np.broadcast_to(i, fan.shape)[fan]
        faces.append(np.stack([o_t, o_t + i_t, o_t + i_t + 1], -1))
        start += int(n.sum())
    if not pairs:
        return SurfaceMesh(np.zeros((0, 3)), np.zeros((0, 3), np.int64), np.zeros(0))
    return SurfaceMesh(np.concatenate(p_WV).astype(float), np.concatenate(faces),
                       np.concatenate(pressure).astype(float))


def pressure_colors(pressure, max_pressure) -> np.ndarray:
    """(n, 3) RGB in [0, 1] of pressures (n,) (Pa) through `PRESSURE_RAMP` scaled to
    ``max_pressure`` (Pa, > 0): 0 Pa is blue, ``max_pressure`` and above red."""
    x = np.clip(np.asarray(pressure, float) / float(max_pressure), 0.0, 1.0)
    stops = np.linspace(0.0, 1.0, len(PRESSURE_RAMP))
    return np.stack([np.interp(x, stops, PRESSURE_RAMP[:, c]) for c in range(3)], -1)


def color_scale(meshes, max_pressure=None) -> float:
    """Pa: ``max_pressure`` if given (finite, > 0), else the largest pressure of ``meshes``
    (1 Pa when there is none above 0)."""
    if max_pressure is not None:
        s = float(max_pressure)
        if not (np.isfinite(s) and s > 0):
            raise ValueError(f"max_pressure: must be finite and > 0 (Pa), got {max_pressure}")
        return s
    top = max((float(m.pressure.max()) for m in meshes if m.pressure.size), default=0.0)
    return top if top > 0 else 1.0


def surface_object(mesh: SurfaceMesh, max_pressure) -> dict:
    """The three.js mesh of ``mesh`` with vertex colors of its pressures (see `pressure_colors`),
    drawn over the bodies."""
    geometry = triangles_geometry(mesh.p_WV, mesh.faces, pressure_colors(mesh.pressure,
                                                                         max_pressure))
    return mesh_object(geometry, vertex_color_material(SURFACE_OPACITY, depth_test=False))


# --- Scene ---------------------------------------------------------------------------------------
def publish_surfaces(scene, root, contact_surfaces, max_pressure=None) -> None:
    """Replaces what is under ``root`` by the surfaces of one configuration."""
    mesh = surface_mesh(contact_surfaces)
    scene.delete(root)
    if len(mesh.faces):
        scene.set_object(f"{root}/surface", surface_object(mesh, color_scale([mesh],
                                                                             max_pressure)))


def _visible_keys(k, key_t):
    """(times, values) of a bool track true from key k to key k + 1, over [key_t[0], key_t[-1]]
    (every clip spans the whole animation: meshcat loops each clip over its own duration)."""
    K = len(key_t)
    times, values = [key_t[0]], [k == 0]
    if k > 0:
        times.append(key_t[k]), values.append(True)
    if k + 1 < K:
        times.append(key_t[k + 1]), values.append(False)
    if k + 2 < K:
        times.append(key_t[-1]), values.append(False)
    return np.asarray(times, float), np.asarray(values)


def animate_surfaces(scene, root, contact_surfaces, num_steps, keep, key_t,
                     max_pressure=None) -> list:
    """Replaces what is under ``root`` by one mesh per keyframe; returns their clips.

    Args:
        scene: the `SceneCommands`.
        root: the meshcat path of the surfaces.
        contact_surfaces: of T samples (see the module docstring).
        num_steps: T.
        keep: (K,) the samples shown (indices into T); key_t: (K,) their key times (s).
        max_pressure: the color scale (Pa), None for the largest pressure shown.
    """
    samples = surface_samples(contact_surfaces, num_steps)
    meshes = [_mesh_of(samples[int(i)]) for i in keep]
    scale = color_scale(meshes, max_pressure)
    scene.delete(root)
    clips = []
    for k, mesh in enumerate(meshes):
        if not len(mesh.faces):
            continue
        path = f"{root}/{k}"
        scene.set_object(path, surface_object(mesh, scale))
        scene.set_property(path, "visible", k == 0)
        clips.append(ov.clip(path, [ov.track("visible", "bool", *_visible_keys(k, key_t))]))
    return clips


# --- Net force -----------------------------------------------------------------------------------
def surface_net_forces(contact_surfaces, num_steps=None):
    """Each pair's net pressure force, as arrays for the contact-force arrows.

    The force on the body of geometry M is Σ Aᵢ pᵢ n̂ᵢ over the valid polygons (n̂ out of N into
    M), at the area-weighted centroid Σ Aᵢ cᵢ / Σ Aᵢ: the elastic part of the contact force,
    without the dissipation and friction that the step's solver adds (those are in
    ``CalcContactResults``' `HydroelasticContactInfo`).

    Args:
        contact_surfaces: see the module docstring; num_steps: T, or None for one configuration.

    Returns:
        ``(points, forces, mask)``: (T, P, 3) m, (T, P, 3) N and (T, P) bool, P the largest
        number of pairs of a sample (a pair with no polygon is masked out); without a leading
        T when ``num_steps`` is None. Pass them as ``contact_points``, ``contact_forces`` and
        ``contact_mask``.
    """
    samples = surface_samples(contact_surfaces, num_steps)
    P = max((len(s) for s in samples), default=0)
    points, forces = np.zeros((len(samples), P, 3)), np.zeros((len(samples), P, 3))
    mask = np.zeros((len(samples), P), bool)
    for k, pairs in enumerate(samples):
        for j, p in enumerate(pairs):
            A = np.where(p.valid, p.area, 0.0)
            if A.sum() > 0:
                points[k, j] = A @ np.where(p.valid[:, None], p.centroid, 0.0) / A.sum()
                forces[k, j] = (A * np.where(p.valid, p.pressure, 0.0)) @ np.where(
                    p.valid[:, None], p.normal, 0.0)
                mask[k, j] = True
    if num_steps is None:
        return points[0], forces[0], mask[0]
    return points, forces, mask
