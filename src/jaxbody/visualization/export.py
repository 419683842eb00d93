"""`export_html`: a recorded trajectory as one self-contained HTML file that plays in any
browser with no server and no network (the animation starts on load and loops).

Example:
    >>> import numpy as np, jaxbody as jb, tempfile, os
    >>> plant = jb.MultibodyPlant(0.0)
    >>> b = plant.AddRigidBody("b", jb.SpatialInertia.PointMass(1.0, np.array([0., 0, -1])))
    >>> _ = plant.RegisterVisualGeometry(b, jb.RigidTransform(p=[0, 0, -1]), jb.Sphere(0.1), "bob")
    >>> _ = plant.AddJoint(jb.RevoluteJoint("pin", plant.world_frame(), b.body_frame(), [0, 1, 0]))
    >>> plant.Finalize()
    >>> t = np.linspace(0.0, 1.0, 11)
    >>> path = export_html(plant, np.sin(t)[:, None], os.path.join(tempfile.mkdtemp(), "a.html"),
    ...                    times=t)
    >>> os.path.getsize(path) > 100_000          # the viewer is inlined
    True
"""

from __future__ import annotations

import os

from jaxbody.visualization.meshcat_visualizer import DEFAULT_FPS, MeshcatVisualizer


def export_html(plant, trajectory, path, *, times=None, context=None, role=None, fps=DEFAULT_FPS,
                contact_points=None, contact_forces=None, contact_mask=None, force_scale=None,
                contact_surfaces=None, max_pressure=None, triads=False, center_of_mass=False,
                camera=None, title=None, show_controls=True) -> str:
    """Writes an HTML file that animates ``trajectory`` of ``plant``.

    Args:
        plant: a finalized `MultibodyPlant`.
        trajectory: a `RolloutResult`, or (T, nq) positions or (T, nq + nv) states.
        path: the file to write.
        times: (T,) sample times (s); required for arrays.
        context: the `Context` whose parameters pose the bodies (None: the default one).
        role: geometry to draw (see `MeshcatVisualizer`); None: visual, else collision.
        fps: keyframes per second of trajectory time; None keeps every sample.
        contact_points, contact_forces: (T, P, 3) in World (m, N); contact_mask: (T, P).
        force_scale: arrow length per newton (m/N), None for automatic.
        contact_surfaces: hydroelastic contact surfaces per sample, drawn colored by pressure
            (``jax.vmap(plant.CalcHydroelasticSurfaces)`` over the samples' contexts; see
            `jaxbody.visualization.contact_surfaces`, whose example exports a rollout).
        max_pressure: the pressure drawn red (Pa); None: the largest of every sample.
        triads: True draws every body frame's axes.
        center_of_mass: True draws the plant's center of mass.
        camera: ``(position, target)`` in World (m), or None to frame the model.
        title: the page title (default: the file name).
        show_controls: False hides the viewer's control panel.

    Returns:
        ``path``.
    """
    viz = MeshcatVisualizer(plant, role=role, context=context)
    if triads:
        viz.AddTriads()
    if center_of_mass:
        viz.ShowCenterOfMass()
    if camera is not None:
        viz.SetCameraPose(*camera)
    viz.PublishTrajectory(trajectory, times, fps=fps, contact_points=contact_points,
                          contact_forces=contact_forces, contact_mask=contact_mask,
                          force_scale=force_scale, contact_surfaces=contact_surfaces,
                          max_pressure=max_pressure)
    title = os.path.basename(str(path)) if title is None else title
    return viz.SaveHtml(path, title=title, show_controls=show_controls)
