"""Hydroelastic contact scenes (`contact_scenes.Scene` with hydroelastic geometry), built the
same way in jaxbody and pydrake: compliant bodies on a rigid ground half space (Drake's
``kHydroelasticWithFallback``, SAP, polygon contact surfaces, one quadrature point per polygon).

- ``hydro_box_rest`` / ``hydro_sphere_rest``: a compliant box / sphere at rest on the ground;
- ``hydro_box_slide``: the box thrown along the ground at 1 m/s (μ = 0.3);
- ``hydro_cylinder_roll`` / ``hydro_sphere_roll``: a compliant cylinder on its side / a sphere
  rolling at 0.5 m/s (rolling resistance from the pressure distribution);
- ``hydro_grasp``: a compliant box held against gravity by friction between two rigid jaws
  (boxes welded to the world) that squeeze it by 1 mm on each side;
- ``hydro_pair``: a compliant sphere dropped on a compliant box lying on the ground
  (compliant-compliant and compliant-rigid surfaces in one scene);
- ``hydro_soft_ground``: a rigid box rocking on a compliant ground half space (a slab).
"""

from __future__ import annotations

import numpy as np

from benchmarks.contact_scenes import FreeBody, Geom, Scene

RIGID = ("rigid", None)
E_SOFT = 1e6  # Pa
MU = 0.5


def _box_inertia(m, lx, ly, lz):
    return (m / 12 * (ly**2 + lz**2), m / 12 * (lx**2 + lz**2), m / 12 * (lx**2 + ly**2))


def _ground(mu=MU):
    return Geom("world", ("halfspace",), mu=mu, hydro=RIGID)


def box_rest(v=(0.0,) * 6, mu=MU) -> Scene:
    lx, ly, lz, m = 0.2, 0.15, 0.1, 1.0
    # the static penetration m g H / (A E) (H = lz / 2): the box starts at rest
    d = m * 9.81 * (lz / 2) / (lx * ly * E_SOFT)
    body = FreeBody("box", m, _box_inertia(m, lx, ly, lz), (0.0, 0.0, lz / 2 - d), V_WB=v)
    return Scene([body], [Geom("box", ("box", lx, ly, lz), mu=mu,
                               hydro=("compliant", 0.1, E_SOFT)), _ground(mu)])


def box_slide() -> Scene:
    return box_rest(v=(0.0, 0.0, 0.0, 1.0, 0.0, 0.0), mu=0.3)


def sphere_rest(v=(0.0,) * 6) -> Scene:
    r, m = 0.1, 1.0
    body = FreeBody("ball", m, (0.4 * m * r * r,) * 3, (0.0, 0.0, r - 1e-3), V_WB=v)
    return Scene([body], [Geom("ball", ("sphere", r), hydro=("compliant", 0.05, E_SOFT)),
                          _ground()])


def sphere_roll() -> Scene:
    return sphere_rest(v=(0.0, 0.5 / 0.1, 0.0, 0.5, 0.0, 0.0))


def cylinder_roll() -> Scene:
    r, length, m = 0.08, 0.2, 1.0
    inertia = (m * (3 * r * r + length**2) / 12,) * 2 + (0.5 * m * r * r,)
    v = 0.5  # axis along World y: rolling along +x is ω_y = v / r
    # the axis tilted by 0.01 rad: the end caps' pressure gradient is then not perpendicular to
    # the ground's normal (where it is, a face counts or not by round-off; hydroelastic/query.py)
    body = FreeBody("cyl", m, inertia, (0.0, 0.0, r - 1e-3), rpy=(np.pi / 2 + 0.01, 0.0, 0.0),
                    V_WB=(0.0, v / r, 0.0, v, 0.0, 0.0))
    return Scene([body], [Geom("cyl", ("cylinder", r, length), hydro=("compliant", 0.04, E_SOFT)),
                          _ground()])


def grasp() -> Scene:
    lx, ly, lz, m = 0.08, 0.08, 0.12, 0.5
    squeeze = 1e-3
    # tilted a little: no face of the jaws is exactly parallel to a face of the box, where the
    # pressure gradient is perpendicular to the contact normal (see hydroelastic/query.py)
    body = FreeBody("box", m, _box_inertia(m, lx, ly, lz), (0.0, 0.0, 0.3),
                    rpy=(0.02, 0.03, 0.01))
    # jaws wider and taller than the box: only their inner faces cut it
    jaws = [Geom("world", ("box", 0.04, 0.1, 0.16), p_BG=(s * (lx / 2 + 0.02 - squeeze), 0.0, 0.3),
                 mu=1.0, hydro=RIGID) for s in (-1.0, 1.0)]
    return Scene([body], [Geom("box", ("box", lx, ly, lz), mu=1.0,
                               hydro=("compliant", 0.1, E_SOFT))] + jaws)


def compliant_pair() -> Scene:
    lx, ly, lz, m = 0.3, 0.3, 0.1, 2.0
    d = m * 9.81 * (lz / 2) / (lx * ly * E_SOFT)
    box = FreeBody("box", m, _box_inertia(m, lx, ly, lz), (0.0, 0.0, lz / 2 - d))
    r = 0.06
    ball = FreeBody("ball", 0.5, (0.4 * 0.5 * r * r,) * 3, (0.01, 0.0, lz + r - 2e-3),
                    V_WB=(0.0, 0.0, 0.0, 0.2, 0.0, -0.3))
    return Scene([box, ball], [Geom("box", ("box", lx, ly, lz), hydro=("compliant", 0.1, E_SOFT)),
                               Geom("ball", ("sphere", r), hydro=("compliant", 0.05, 3 * E_SOFT)),
                               _ground()])


def box_on_soft_ground() -> Scene:
    """A rigid box resting on a compliant ground (a 5 cm slab), rocked a little."""
    lx, ly, lz, m = 0.2, 0.15, 0.1, 1.0
    h = 0.05
    d = m * 9.81 * h / (lx * ly * E_SOFT)
    body = FreeBody("box", m, _box_inertia(m, lx, ly, lz), (0.0, 0.0, lz / 2 - d),
                    rpy=(0.01, -0.02, 0.3), V_WB=(0.2, 0.1, 0.0, 0.05, 0.0, 0.0))
    return Scene([body], [Geom("box", ("box", lx, ly, lz), hydro=RIGID),
                          Geom("world", ("halfspace",), hydro=("compliant", h, E_SOFT))])


HYDRO_SCENES = {
    "hydro_box_rest": box_rest,
    "hydro_sphere_rest": sphere_rest,
    "hydro_box_slide": box_slide,
    "hydro_cylinder_roll": cylinder_roll,
    "hydro_sphere_roll": sphere_roll,
    "hydro_grasp": grasp,
    "hydro_pair": compliant_pair,
    "hydro_soft_ground": box_on_soft_ground,
}


def add_hydroelastic_properties(g, geo: Geom, props):
    """Adds ``geo.hydro`` to ``props`` with the engine's module ``g`` (jaxbody or
    pydrake.geometry): ("compliant", resolution hint or, for a half space, slab thickness,
    modulus) or ("rigid", resolution hint or None)."""
    kind, size = geo.hydro[0], geo.hydro[1]
    if kind == "compliant" and geo.shape[0] == "halfspace":
        g.AddCompliantHydroelasticPropertiesForHalfSpace(size, geo.hydro[2], props)
    elif kind == "compliant":
        g.AddCompliantHydroelasticProperties(size, geo.hydro[2], props)
    elif size is not None:
        g.AddRigidHydroelasticProperties(size, props)
    else:
        g.AddRigidHydroelasticProperties(props)


def is_hydroelastic(scene: Scene) -> bool:
    return any(g.hydro is not None for g in scene.geoms)
