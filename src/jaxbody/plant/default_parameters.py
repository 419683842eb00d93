"""The default state and parameters of a finalized plant (builder side): what
``CreateDefaultContext`` puts in a Context.

- `build_defaults` (at Finalize): the joints' default positions and damping, in q and v order;
- `default_parameters`: the `Parameters` of a default Context, as float64 NumPy arrays (the
  compiled `Model` holds them; ``CreateDefaultContext`` casts them to its dtype): bodies' mass
  properties, frames' poses in their bodies, damping, gravity, actuators' rotor inertia and gear
  ratio, force elements' parameters, each collision geometry's contact parameters, and the
  constraints' and PD controllers' parameters.
Both read the builder's elements: they run while `compile_model` makes the model.
"""

from __future__ import annotations

import numpy as np

from jaxbody.core.context import Parameters
from jaxbody.geometry.collision.contact_properties import PARAMETER_NAMES


def build_defaults(plant):
    """Sets ``plant._default_q`` (nq,) and ``plant._default_damping`` (nv,) from the joints
    (called by Finalize, once the topology is compiled)."""
    topo = plant._topology
    plant._default_q = np.zeros(topo.nq)
    for j in plant._joints:
        plant._default_q[j.position_start(): j.position_start() + j.num_positions()] = \
            j.default_positions()
    plant._default_damping = np.zeros(topo.nv)
    for j in plant._joints:
        s = j.velocity_start()
        plant._default_damping[s: s + j.num_velocities()] = j.default_damping_vector()


def _array(x):
    return np.array(x, dtype=np.float64)


def _contact_parameters(plant) -> dict:
    """(num_collision_geometries,) arrays of each contact parameter; {} without collision
    geometry."""
    if not plant._collision_geometries():
        return {}
    return {k: _array(plant._default_contact_parameters[k]) for k in PARAMETER_NAMES}


def pd_actuators(plant) -> list:
    """The actuators with PD gains, in actuator order."""
    return [a for a in plant._actuators if a.has_controller()]


def _constraint_parameters(plant) -> dict:
    """The constraints' active status, couplers' gear ratio and offset, distances' length,
    stiffness and damping, and the PD actuators' gains (only the keys that have entries)."""
    c = {}
    couplers, distances = plant._couplers, plant._distances
    if couplers:
        c["coupler_gear_ratio"] = _array([s.gear_ratio for s in couplers])
        c["coupler_offset"] = _array([s.offset for s in couplers])
    if distances:
        c["distance_length"] = _array([s.distance for s in distances])
        c["distance_stiffness"] = _array([s.stiffness for s in distances])
        c["distance_damping"] = _array([s.damping for s in distances])
    for kind, specs in (("coupler", couplers), ("distance", distances),
                        ("ball", plant._balls), ("weld", plant._welds)):
        if specs:
            c[f"{kind}_active"] = np.ones(len(specs))
    pd = pd_actuators(plant)
    if pd:
        c["pd_kp"] = _array([a.get_controller_gains().p for a in pd])
        c["pd_kd"] = _array([a.get_controller_gains().d for a in pd])
    return c


def default_parameters(plant) -> Parameters:
    """The `Parameters` of a default Context of a finalized ``plant``, every leaf a float64
    NumPy array."""
    bodies, frames = plant._bodies, plant._frames
    frame_R = np.stack([np.asarray(f._default_X_BF().rotation().matrix()) for f in frames])
    frame_p = np.stack([np.asarray(f._default_X_BF().translation()) for f in frames])
    return Parameters(
        mass=_array([b._default_mass for b in bodies]),
        com=_array(np.stack([b._default_com for b in bodies])),
        unit_inertia=_array(np.stack([b._default_unit_inertia for b in bodies])),
        frame_R=_array(frame_R),
        frame_p=_array(frame_p),
        damping=_array(plant._default_damping),
        gravity=_array(plant._gravity),
        rotor_inertia=_array([a.default_rotor_inertia() for a in plant._actuators]),
        gear_ratio=_array([a.default_gear_ratio() for a in plant._actuators]),
        force_elements=tuple({k: _array(v) for k, v in
                              fe._default_parameter_values().items()}
                             for fe in plant._force_elements),
        contact=_contact_parameters(plant),
        constraints=_constraint_parameters(plant),
    )
