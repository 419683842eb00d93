"""The default state and parameters of a finalized plant (builder side): what
``CreateDefaultContext`` puts in a Context.

- `build_defaults` (at Finalize): the joints' default positions and damping, in q and v order;
- `default_parameters`: the `Parameters` of a default Context: bodies' mass properties, frames'
  poses in their bodies, damping, gravity, actuators' rotor inertia and gear ratio, force
  elements' parameters, each collision geometry's contact parameters, and the constraints' and
  PD controllers' parameters.
Both read the builder's elements, not the compiled `Model` (`compile_model` makes a default
context to resolve ball and weld constraints).
"""

from __future__ import annotations

import jax.numpy as jnp
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


def _contact_parameters(plant, dtype) -> dict:
    """(num_collision_geometries,) arrays of each contact parameter; {} without collision
    geometry."""
    if not plant._collision_geometries():
        return {}
    return {k: jnp.asarray(plant._default_contact_parameters[k], dtype) for k in PARAMETER_NAMES}


def pd_actuators(plant) -> list:
    """The actuators with PD gains, in actuator order."""
    return [a for a in plant._actuators if a.has_controller()]


def _constraint_parameters(plant, dtype) -> dict:
    """The constraints' active status, couplers' gear ratio and offset, distances' length,
    stiffness and damping, and the PD actuators' gains (only the keys that have entries)."""
    c = {}
    couplers, distances = plant._couplers, plant._distances
    if couplers:
        c["coupler_gear_ratio"] = jnp.asarray([s.gear_ratio for s in couplers], dtype)
        c["coupler_offset"] = jnp.asarray([s.offset for s in couplers], dtype)
    if distances:
        c["distance_length"] = jnp.asarray([s.distance for s in distances], dtype)
        c["distance_stiffness"] = jnp.asarray([s.stiffness for s in distances], dtype)
        c["distance_damping"] = jnp.asarray([s.damping for s in distances], dtype)
    for kind, specs in (("coupler", couplers), ("distance", distances),
                        ("ball", plant._balls), ("weld", plant._welds)):
        if specs:
            c[f"{kind}_active"] = jnp.ones(len(specs), dtype)
    pd = pd_actuators(plant)
    if pd:
        c["pd_kp"] = jnp.asarray([a.get_controller_gains().p for a in pd], dtype)
        c["pd_kd"] = jnp.asarray([a.get_controller_gains().d for a in pd], dtype)
    return c


def default_parameters(plant, dtype) -> Parameters:
    """The `Parameters` of a default Context of a finalized ``plant``, every leaf of ``dtype``."""
    bodies, frames = plant._bodies, plant._frames
    frame_R = np.stack([np.asarray(f._default_X_BF().rotation().matrix()) for f in frames])
    frame_p = np.stack([np.asarray(f._default_X_BF().translation()) for f in frames])
    return Parameters(
        mass=jnp.asarray([b._default_mass for b in bodies], dtype),
        com=jnp.asarray(np.stack([b._default_com for b in bodies]), dtype),
        unit_inertia=jnp.asarray(np.stack([b._default_unit_inertia for b in bodies]), dtype),
        frame_R=jnp.asarray(frame_R, dtype),
        frame_p=jnp.asarray(frame_p, dtype),
        damping=jnp.asarray(plant._default_damping, dtype),
        gravity=jnp.asarray(plant._gravity, dtype),
        rotor_inertia=jnp.asarray([a.default_rotor_inertia() for a in plant._actuators], dtype),
        gear_ratio=jnp.asarray([a.default_gear_ratio() for a in plant._actuators], dtype),
        force_elements=tuple({k: jnp.asarray(v, dtype) for k, v in
                              fe._default_parameter_values().items()}
                             for fe in plant._force_elements),
        contact=_contact_parameters(plant, dtype),
        constraints=_constraint_parameters(plant, dtype),
    )
