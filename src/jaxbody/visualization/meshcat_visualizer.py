"""`MeshcatVisualizer`: a plant's geometry in meshcat, posed from a Context or animated from a
recorded trajectory, live in a browser or exported as one self-contained HTML file.

Why meshcat: it is the viewer protocol Drake's own ``Meshcat``/``MeshcatVisualizer`` speak (a
pydrake user finds the same scene tree, commands and controls), its Python package bundles the
whole three.js viewer as one file (``main.min.js``), so a scene and its animation become a
static HTML page with every script inline, no server and no network, and its live mode needs
only a local server the package starts. viser was the alternative: a richer GUI, but its
client is a multi-file web app that needs a server (or a build step) to play a recording, so
it cannot give a single offline file.

Scene tree (as Drake's, under ``/jaxbody``): ``/jaxbody/<model instance>/<body>`` per body
(posed in World), its geometries ``<body>/<geometry name>_<id>`` (posed in the body), triads
``<body>/triad_<frame>``; overlays under ``/jaxbody/overlays``: ``center_of_mass``, contact
slots ``contacts/<p>`` (`jaxbody.visualization.overlays`) and hydroelastic contact surfaces
colored by pressure, ``contact_surfaces`` (`jaxbody.visualization.contact_surfaces`).

Example:
    >>> import numpy as np, jaxbody as jb
    >>> from jaxbody.visualization import MeshcatVisualizer
    >>> plant = jb.MultibodyPlant(0.0)
    >>> b = plant.AddRigidBody("b", jb.SpatialInertia.PointMass(1.0, np.array([0., 0, -1])))
    >>> _ = plant.RegisterVisualGeometry(b, jb.RigidTransform(p=[0, 0, -1]), jb.Sphere(0.1),
    ...                                  "bob", [0.8, 0.2, 0.2, 1.0])
    >>> _ = plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), b.body_frame(), [0, 1, 0]))
    >>> plant.Finalize()
    >>> viz = MeshcatVisualizer(plant)                 # offline: records the scene
    >>> out = jb.rollout(plant, plant.SetPositions(plant.CreateDefaultContext(), np.array([1.0])),
    ...                  num_steps=100, dt=0.01)
    >>> viz.PublishTrajectory(out)
    >>> html = viz.StaticHtml()                        # one file, plays in any browser
"""

from __future__ import annotations

import math
import re

import numpy as np

from jaxbody.geometry import Box, HalfSpace, Role
from jaxbody.visualization import contact_surfaces as cs
from jaxbody.visualization import overlays as ov
from jaxbody.visualization.html import static_html
from jaxbody.visualization.scene import SceneCommands
from jaxbody.visualization.threejs import bounding_radius, shape_object
from jaxbody.visualization.trajectory import (
    as_trajectory,
    resample_indices,
    sample_kinematics,
)

ROOT = "/jaxbody"
OVERLAYS = ROOT + "/overlays"
CONTACTS = OVERLAYS + "/contacts"
SURFACES = OVERLAYS + "/contact_surfaces"
DEFAULT_FPS = 60.0  # keyframes per second of trajectory time
CAMERA_DIRECTION = np.array([1.0, -0.9, 0.55])  # from the target towards the camera


def _name(s) -> str:
    return re.sub(r"[/\s]+", "_", str(s)) or "_"


def _pose(R, p) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3], X[:3, 3] = R, p
    return X


INERTIA_BOX_RGBA = (0.55, 0.6, 0.75, 0.6)
MIN_BOX_SIDE = 1e-3  # m: a point mass or a rod still shows


def inertia_box(mass, p_BCm, I_Cm_B):
    """(X_BG (4, 4), (lx, ly, lz)): the uniform box with ``mass`` and central inertia
    ``I_Cm_B`` (about the center of mass, in B), centered at ``p_BCm`` along the principal axes:
    l_x² = 6 (I_y + I_z − I_x) / m and likewise for y and z."""
    moments, axes = np.linalg.eigh(0.5 * (I_Cm_B + I_Cm_B.T))
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    total = moments.sum()
    size = np.sqrt(np.maximum(6.0 * (total - 2.0 * moments) / mass, 0.0))
    X = np.eye(4)
    X[:3, :3], X[:3, 3] = axes, p_BCm
    return X, np.maximum(size, MIN_BOX_SIDE)


def _window_of(meshcat):
    if meshcat is None:
        return None
    window = getattr(meshcat, "window", meshcat)  # a meshcat.Visualizer, or its window
    if not callable(getattr(window, "send", None)):
        raise TypeError(f"MeshcatVisualizer: meshcat must be None, a meshcat.Visualizer or an "
                        f"object with send(command); got {type(meshcat).__name__}")
    return window


class MeshcatVisualizer:
    """Draws a finalized plant in meshcat.

    Args:
        plant: a finalized `MultibodyPlant`.
        meshcat: None to record the scene only (for `StaticHtml`), or a live
            ``meshcat.Visualizer`` (see `StartMeshcat`) that every command is also sent to.
        role: `Role.kIllustration` (visual geometry), `Role.kProximity` (collision geometry),
            or None: visual geometry, or collision geometry if the plant has no visual one.
        context: a `Context` of the plant (its parameters pose the bodies); None for the
            default context. The scene is published at it.
    """

    def __init__(self, plant, meshcat=None, *, role=None, context=None):
        if not plant.is_finalized():
            raise RuntimeError("MeshcatVisualizer: call plant.Finalize() first")
        if role is None:
            role = Role.kIllustration if plant.num_visual_geometries() else Role.kProximity
        if role not in (Role.kIllustration, Role.kProximity):
            raise ValueError(f"MeshcatVisualizer: role must be a Role or None, got {role!r}")
        self._plant, self._role = plant, role
        self._scene = SceneCommands(_window_of(meshcat))
        self._context = plant.CreateDefaultContext() if context is None else context
        self._body_paths = [self._body_path(plant.get_body(i)) for i in range(plant.num_bodies())]
        self._extent = []  # (body index, p_BG, radius) of each finite geometry
        self._com = None  # radius of the center-of-mass marker, when shown
        self._num_contacts = 0
        self._surfaces_drawn = False
        self._camera = None
        self._recording, self._samples = None, []
        self._draw_geometry()
        self._publish_pose(self._context)

    # --- Scene setup ------------------------------------------------------------------------
    def _body_path(self, body):
        instance = self._plant.GetModelInstanceName(body.model_instance())
        return f"{ROOT}/{_name(instance)}/{_name(body.name())}"

    def _draw_geometry(self):
        for g in self._plant.GetGeometries(self._role):
            b = int(g.body().index())
            name = _name(g.name().split("::")[-1])
            path = f"{self._body_paths[b]}/{name}_{int(g.geometry_id())}"
            try:
                obj = shape_object(g.shape(), g.diffuse_color())
            except ValueError as e:
                raise ValueError(f"MeshcatVisualizer: geometry '{g.name()}' on body "
                                 f"'{g.body().name()}': {e}") from e
            self._scene.set_object(path, obj)
            X_BG = np.asarray(g.pose_in_body().GetAsMatrix4())
            self._scene.set_transform(path, X_BG)
            if not isinstance(g.shape(), HalfSpace):
                self._extent.append((b, X_BG[:3, 3], bounding_radius(g.shape())))
        self._draw_inertia_boxes()

    def _draw_inertia_boxes(self):
        """Bodies with mass but no geometry of the drawn role are drawn as their
        inertia-equivalent boxes (Drake's inertia visualizer: a uniform box with the body's mass
        and central inertia, at its center of mass along its principal axes), with a warning."""
        drawn = {int(g.body().index()) for g in self._plant.GetGeometries(self._role)}
        boxes = []
        for i in range(1, self._plant.num_bodies()):
            body = self._plant.get_body(i)
            if i in drawn:
                continue
            M = body.CalcSpatialInertiaInBodyFrame(self._context)
            m = float(M.get_mass())
            if not m > 0:
                continue
            X_BG, size = inertia_box(m, np.asarray(M.get_com(), float), np.asarray(
                M.Shift(M.get_com()).CalcRotationalInertia().CopyToFullMatrix3(), float))
            path = f"{self._body_paths[i]}/inertia_box"
            self._scene.set_object(path, shape_object(Box(*size), INERTIA_BOX_RGBA))
            self._scene.set_transform(path, X_BG)
            self._extent.append((i, X_BG[:3, 3], 0.5 * float(np.linalg.norm(size))))
            boxes.append(body.name())
        if boxes:
            import warnings

            p = self._plant
            role = ("" if not (p.num_visual_geometries() or p.num_collision_geometries()) else
                    "visual " if self._role == Role.kIllustration else "collision ")
            shown = ", ".join(f"'{n}'" for n in boxes[:5]) + (
                f" and {len(boxes) - 5} more" if len(boxes) > 5 else "")
            what = "body has" if len(boxes) == 1 else "bodies have"
            warnings.warn(f"MeshcatVisualizer: {len(boxes)} {what} no {role}geometry to draw; "
                          f"drawn as inertia-equivalent boxes: {shown}", stacklevel=3)

    def role(self) -> Role:
        """The role of the geometry drawn (visual, or collision as the fallback)."""
        return self._role

    def scene(self) -> SceneCommands:
        """The recorded scene (its commands, objects, transforms and animation)."""
        return self._scene

    def GetBodyPath(self, body) -> str:
        """The meshcat path of ``body``'s node."""
        return self._body_paths[int(body.index())]

    def AddTriads(self, frames=None, *, length=0.15, radius=0.004, opacity=1.0) -> None:
        """Draws x-y-z axes (red, green, blue) at ``frames`` (Frames or bodies; None: every
        body frame but the world's), fixed to their bodies so they follow every pose."""
        plant = self._plant
        if frames is None:
            frames = [plant.get_body(i).body_frame() for i in range(1, plant.num_bodies())]
        objs = ov.triad_objects(float(length), float(radius), float(opacity))
        for f in frames:
            frame = f.body_frame() if hasattr(f, "body_frame") else f
            X_BF = plant.CalcRelativeTransform(self._context, frame.body().body_frame(), frame)
            path = f"{self.GetBodyPath(frame.body())}/triad_{_name(frame.name())}"
            self._scene.set_transform(path, np.asarray(X_BF.GetAsMatrix4()))
            for axis, obj in objs.items():
                self._scene.set_object(f"{path}/{axis}", obj)

    def ShowCenterOfMass(self, radius=0.03) -> None:
        """Draws the plant's center of mass as a sphere, updated by every publish."""
        self._com = float(radius)
        self._scene.set_object(f"{OVERLAYS}/center_of_mass", ov.sphere_object(radius, ov.COM_RGBA))
        self._publish_pose(self._context)

    def SetCameraPose(self, camera_in_world, target_in_world) -> None:
        """Places the camera at ``camera_in_world`` looking at ``target_in_world`` (m, World).

        The exported HTML uses both; a live meshcat viewer always looks at (and orbits about)
        the world origin, so there only the camera's position is set."""
        cam = np.asarray(camera_in_world, float).reshape(3)
        target = np.asarray(target_in_world, float).reshape(3)
        if not (np.all(np.isfinite(cam)) and np.all(np.isfinite(target))):
            raise ValueError(f"SetCameraPose: expected finite 3-vectors, got {camera_in_world}, "
                             f"{target_in_world}")
        self._camera = (cam, target)
        # the camera's node is rotated so that its (x, y, z) is World's (x, z, -y)
        self._scene.set_property("/Cameras/default/rotated/<object>", "position",
                                 [float(cam[0]), float(cam[2]), float(-cam[1])])

    def SetProperty(self, path, name, value) -> None:
        """Sets a meshcat property, e.g. ``SetProperty("/Grid", "visible", False)``."""
        self._scene.set_property(path, name, value)

    # --- Publishing -------------------------------------------------------------------------
    def Publish(self, context, *, contact_points=None, contact_forces=None,
                contact_mask=None, force_scale=None, contact_surfaces=None,
                max_pressure=None) -> None:
        """Poses every body from ``context`` (and the overlays), and records the sample if
        recording. Contacts: (P, 3) points and forces and a (P,) mask (see `overlays`).
        ``contact_surfaces``: the hydroelastic surfaces of the configuration, a list per pair of
        `HydroSurface` (``plant.CalcHydroelasticSurfaces(context)``), `ContactPolygons` or
        `ContactSurface` (``plant.ComputeContactSurfaces(context)``), drawn colored by pressure
        on a scale of 0 to ``max_pressure`` Pa (None: their largest pressure; see
        `contact_surfaces`); they replace the surfaces drawn before."""
        self._publish_pose(context)
        if contact_points is not None or contact_forces is not None:
            pts, f, m = ov.check_contacts(contact_points, contact_forces, contact_mask)
            s = ov.auto_force_scale(f, m, force_scale)
            self._publish_contacts(ov.contact_frames(pts, f, m, s))
        if contact_surfaces is not None:
            cs.publish_surfaces(self._scene, SURFACES, contact_surfaces, max_pressure)
            self._surfaces_drawn = True
        if self._recording is not None:
            self._recording.append((float(context.time), np.asarray(context.q)))

    def _publish_pose(self, context):
        k = sample_kinematics(self._plant, context, np.asarray(context.q)[None])
        self._context = context
        self._show_first(k)

    def _show_first(self, k):
        """Poses the bodies (and the center of mass) at the first sample of kinematics ``k``;
        keeps all samples for framing the camera."""
        for b, path in enumerate(self._body_paths):
            if b:
                self._scene.set_transform(path, _pose(k["R_WB"][0, b], k["p_WB"][0, b]))
        if self._com is not None and k["p_WScm"] is not None:
            self._scene.set_transform(f"{OVERLAYS}/center_of_mass", ov.translation(k["p_WScm"][0]))
        self._view = (k["R_WB"], k["p_WB"])

    def _contact_nodes(self, num):
        """Creates contact slots up to ``num`` and hides any beyond it."""
        for p in range(self._num_contacts, num):
            root = f"{CONTACTS}/{p}"
            self._scene.set_object(f"{root}/point", ov.sphere_object(0.012, ov.POINT_RGBA))
            for part, obj in ov.arrow_objects(0.006).items():
                self._scene.set_object(f"{root}/force/{part}", obj)
        for p in range(num, self._num_contacts):
            self._scene.set_property(f"{CONTACTS}/{p}", "visible", False)
        self._num_contacts = max(self._num_contacts, num)

    def _publish_contacts(self, c):
        num = c["position"].shape[0]
        self._contact_nodes(num)
        for p in range(num):
            root = f"{CONTACTS}/{p}"
            self._scene.set_property(root, "visible", True)
            self._scene.set_transform(f"{root}/point", ov.translation(c["position"][p]))
            self._scene.set_property(f"{root}/point", "visible", bool(c["visible"][p]))
            X = ov.translation(c["position"][p])
            X[:3, :3] = ov.rotation_xyzw(c["quaternion"][p])
            self._scene.set_transform(f"{root}/force", X)
            self._scene.set_property(f"{root}/force", "visible", bool(c["arrow_visible"][p]))
            self._scene.set_transform(f"{root}/force/shaft", np.diag([1, 1, c["length"][p], 1]))
            self._scene.set_transform(f"{root}/force/head",
                                      ov.translation([0, 0, c["length"][p]]))

    def PublishTrajectory(self, trajectory, times=None, *, fps=DEFAULT_FPS, contact_points=None,
                          contact_forces=None, contact_mask=None, force_scale=None,
                          contact_surfaces=None, max_pressure=None, play=True, loop=True,
                          context=None) -> None:
        """Animates a recorded trajectory (the viewer's time slider scrubs it).

        Args:
            trajectory: a `RolloutResult`, or (T, nq) positions or (T, nq + nv) states.
            times: (T,) sample times (s); required for arrays.
            fps: keyframes per second of trajectory time (samples closer are skipped); None
                keeps every sample.
            contact_points, contact_forces: (T, P, 3) per sample, in World (m, N);
                contact_mask: (T, P) bool or None (all valid).
            force_scale: arrow length per newton (m/N); None scales the largest to 0.3 m.
            contact_surfaces: hydroelastic contact surfaces per sample, drawn colored by
                pressure: ``jax.vmap(plant.CalcHydroelasticSurfaces)`` over the samples'
                contexts (arrays with a leading axis T), or a length-T list of per-sample lists
                (see `Publish` and `contact_surfaces`); they replace the surfaces drawn before
                (None removes them).
            max_pressure: the pressure (Pa) drawn red; None: the largest of every sample.
            play: start playing at once; loop: repeat forever (else play once).
            context: the `Context` whose parameters pose the bodies (None: the last one
                published).
        """
        if context is not None:
            self._context = context
        traj = as_trajectory(self._plant, trajectory, times)
        keep = resample_indices(traj.times, fps)
        t, q = traj.times[keep], traj.q[keep]
        key_t = t - t[0]
        k = sample_kinematics(self._plant, self._context, q)
        clips = [ov.clip(path, [ov.track("position", "vector3", key_t, k["p_WB"][:, b]),
                                ov.track("quaternion", "quaternion", key_t, k["quat_WB"][:, b])])
                 for b, path in enumerate(self._body_paths) if b]
        self._show_first(k)  # the first sample, for a paused viewer
        if self._com is not None and k["p_WScm"] is not None:
            clips.append(ov.clip(f"{OVERLAYS}/center_of_mass",
                                 [ov.track("position", "vector3", key_t, k["p_WScm"])]))
        if contact_points is not None or contact_forces is not None:
            pts, f, m = ov.check_contacts(contact_points, contact_forces, contact_mask,
                                          len(traj.times))
            s = ov.auto_force_scale(f, m, force_scale)
            frames = ov.contact_frames(pts[keep], f[keep], m[keep], s)
            self._publish_contacts({k: v[0] for k, v in frames.items()})
            clips += ov.contact_clips(CONTACTS, frames, key_t)
        if contact_surfaces is not None:
            clips += cs.animate_surfaces(self._scene, SURFACES, contact_surfaces,
                                         len(traj.times), keep, key_t, max_pressure)
            self._surfaces_drawn = True
        elif self._surfaces_drawn:  # an earlier trajectory's (or configuration's) surfaces
            self._scene.delete(SURFACES)
            self._surfaces_drawn = False
        reps = math.inf if loop else 1
        self._scene.set_animation(clips, play=play, repetitions=reps)

    def StartRecording(self) -> None:
        """Starts recording every `Publish` (its context's time and q)."""
        self._recording = []

    def StopRecording(self) -> None:
        """Stops recording (the samples are kept for `PublishRecording`)."""
        self._samples = self._recording or []
        self._recording = None

    def PublishRecording(self, **kwargs) -> None:
        """Animates the recorded samples (`PublishTrajectory`'s keyword arguments apply)."""
        samples = self._recording if self._recording is not None else self._samples
        if not samples:
            raise RuntimeError("PublishRecording: nothing was recorded (StartRecording, then "
                               "Publish contexts)")
        times = np.array([s[0] for s in samples])
        self.PublishTrajectory(np.stack([s[1] for s in samples]), times, **kwargs)

    # --- Export -----------------------------------------------------------------------------
    def DefaultCameraPose(self):
        """``(camera, target)``: a view of the whole model over its last published pose or
        trajectory (camera along `CAMERA_DIRECTION` from the target)."""
        if not self._extent:
            return np.array([3.0, 0.0, 1.0]), np.zeros(3)
        R_WB, p_WB = self._view
        centers = np.concatenate([p_WB[:, b] + R_WB[:, b] @ p for b, p, _ in self._extent])
        radii = np.concatenate([np.full(len(p_WB), r) for _, _, r in self._extent])[:, None]
        lo, hi = (centers - radii).min(0), (centers + radii).max(0)
        target = (lo + hi) / 2
        size = max(float(np.linalg.norm(hi - lo)), 0.2)
        direction = CAMERA_DIRECTION / np.linalg.norm(CAMERA_DIRECTION)
        return target + 1.25 * size * direction, target

    def StaticHtml(self, *, title="jaxbody", show_controls=True) -> str:
        """The scene (and its animation) as one self-contained HTML page (see `static_html`)."""
        camera = self._camera if self._camera is not None else self.DefaultCameraPose()
        return static_html(self._scene.packed(), title=title, camera=camera,
                           show_controls=show_controls)

    def SaveHtml(self, path, **kwargs) -> str:
        """Writes `StaticHtml` to ``path``; returns the path."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.StaticHtml(**kwargs))
        return str(path)


def StartMeshcat(open_browser=False):
    """Starts meshcat's local server (a subprocess; the viewer is served on localhost) and
    returns a ``meshcat.Visualizer`` for `MeshcatVisualizer`; it prints the viewer's URL."""
    try:
        import meshcat
    except ImportError as e:
        raise ImportError("StartMeshcat needs the 'meshcat' package: pip install 'jaxbody[viz]'") \
            from e
    vis = meshcat.Visualizer()
    if open_browser:
        vis.open()
    return vis
