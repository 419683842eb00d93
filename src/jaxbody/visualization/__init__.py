"""Visualization: a meshcat viewer of a plant (live, or exported as one self-contained HTML
file that plays a recorded trajectory), overlays (triads, center of mass, contact points and
forces, hydroelastic contact surfaces colored by pressure) and matplotlib plots of a
simulation.

Needs the ``viz`` extra (``pip install 'jaxbody[viz]'``: meshcat, matplotlib). See
`jaxbody.visualization.meshcat_visualizer` for why meshcat.
"""

from jaxbody.visualization.contact_surfaces import (
    SurfaceMesh,
    pressure_colors,
    surface_mesh,
    surface_net_forces,
)
from jaxbody.visualization.export import export_html
from jaxbody.visualization.html import static_html
from jaxbody.visualization.meshcat_visualizer import MeshcatVisualizer, StartMeshcat
from jaxbody.visualization.plots import (
    plot_contact_forces,
    plot_energy,
    plot_joint_trajectories,
    plot_solver_iterations,
    position_names,
)
from jaxbody.visualization.scene import SceneCommands
from jaxbody.visualization.trajectory import (
    Trajectory,
    as_trajectory,
    body_poses,
    center_of_mass_positions,
    sample_kinematics,
    trajectory_energy,
)

__all__ = [
    "MeshcatVisualizer", "SceneCommands", "StartMeshcat", "SurfaceMesh", "Trajectory",
    "as_trajectory", "body_poses", "center_of_mass_positions", "export_html", "plot_contact_forces",
    "plot_energy", "plot_joint_trajectories", "plot_solver_iterations", "position_names",
    "pressure_colors", "sample_kinematics", "static_html", "surface_mesh", "surface_net_forces",
    "trajectory_energy",
]
