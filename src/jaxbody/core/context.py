"""The immutable `Context` pytree: time, state (q, v) and parameters.

Everything a user may differentiate or batch over is a ``jax.Array`` leaf here. Updates never
mutate: every setter returns a new Context (``context = plant.SetPositions(context, q)``).
A context remembers (as static data) the content key of the plant that made it, so a context
passed to a different model is rejected with a clear error, as Drake does.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from jaxbody.core.checks import check_shape


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Parameters:
    """Numeric model parameters, in the plant's index orders.

    Attributes:
        mass: (num_bodies,) body masses (kg); the world's entry is unused.
        com: (num_bodies, 3) ``p_BoBcm_B`` (m).
        unit_inertia: (num_bodies, 3, 3) ``G_BBo_B``, unit inertia about Bo expressed in B
            (m²); the rotational inertia about Bo is ``mass * G_BBo_B``.
        frame_R: (num_frames, 3, 3) ``R_BF``, each frame's orientation in its body frame.
        frame_p: (num_frames, 3) ``p_BoFo_B`` (m).
        damping: (num_velocities,) joint damping (N·m·s/rad or N·s/m).
        gravity: (3,) gravity vector in World (m/s²).
        rotor_inertia: (num_actuators,) actuator rotor inertias (kg·m²).
        gear_ratio: (num_actuators,) actuator gear ratios; the reflected inertia
            ``rotor_inertia * gear_ratio²`` is added to the actuated dof's diagonal of M.
        force_elements: one dict of ``jax.Array`` parameters per force element, in
            ForceElementIndex order (stiffness, damping, free lengths, bushing constants, ...; the
            gravity element's entry is empty: gravity is ``gravity`` above).
        contact: per-collision-geometry contact parameters, each a (num_collision_geometries,)
            array in collision-geometry order (``plant.GetCollisionGeometryIndex``):
            ``point_contact_stiffness`` (N/m), ``relaxation_time`` (s),
            ``hunt_crossley_dissipation`` (s/m), ``static_friction``, ``dynamic_friction``;
            empty for a plant without collision geometry.
        constraints: the constraints' parameters (`MultibodyPlant.AddCouplerConstraint`):
            ``coupler_gear_ratio``, ``coupler_offset`` and ``coupler_active`` (0/1), each a
            (num_coupler_constraints,) array in constraint order; empty without constraints.
    """

    mass: jax.Array
    com: jax.Array
    unit_inertia: jax.Array
    frame_R: jax.Array
    frame_p: jax.Array
    damping: jax.Array
    gravity: jax.Array
    rotor_inertia: jax.Array
    gear_ratio: jax.Array
    force_elements: tuple = ()
    contact: dict = dataclasses.field(default_factory=dict)
    constraints: dict = dataclasses.field(default_factory=dict)


@jax.tree_util.register_pytree_node_class
class Context:
    """State and parameters of a finalized `MultibodyPlant` (pydrake's ``Context``, immutable).

    Attributes:
        time: scalar time (s).
        q: (num_positions,) generalized positions.
        v: (num_velocities,) generalized velocities.
        parameters: `Parameters`.
    """

    __slots__ = ("time", "q", "v", "parameters", "_plant_key")

    def __init__(self, time, q, v, parameters, plant_key=None):
        object.__setattr__(self, "time", time)
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "v", v)
        object.__setattr__(self, "parameters", parameters)
        object.__setattr__(self, "_plant_key", plant_key)

    def __setattr__(self, name, value):
        raise AttributeError("Context is immutable; setters return a new Context")

    def tree_flatten(self):
        return (self.time, self.q, self.v, self.parameters), self._plant_key

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children, plant_key=aux)

    def replace(self, **changes) -> Context:
        fields = {"time": self.time, "q": self.q, "v": self.v, "parameters": self.parameters}
        fields.update(changes)
        return Context(**fields, plant_key=self._plant_key)

    def __repr__(self) -> str:
        return f"Context(time={self.time}, q.shape={jnp.shape(self.q)}, v.shape={jnp.shape(self.v)})"

    # --- Drake's context API ---------------------------------------------------------------
    def get_time(self):
        return self.time

    def SetTime(self, time) -> Context:
        return self.replace(time=jnp.asarray(time, dtype=jnp.result_type(self.time)))

    # --- Internal helpers used by elements and the plant ---------------------------------------
    def _with_q_slice(self, sl, value, what):
        n = sl.stop - sl.start
        value = check_shape(what, value, (n,)).astype(self.q.dtype)
        return self.replace(q=self.q.at[sl].set(value))

    def _with_v_slice(self, sl, value, what):
        n = sl.stop - sl.start
        value = check_shape(what, value, (n,)).astype(self.v.dtype)
        return self.replace(v=self.v.at[sl].set(value))

    def _with_parameter(self, field, index, value, shape=()):
        arr = getattr(self.parameters, field)
        value = check_shape(f"parameter '{field}'", value, shape).astype(arr.dtype)
        params = dataclasses.replace(self.parameters, **{field: arr.at[index].set(value)})
        return self.replace(parameters=params)

    def _with_parameter_slice(self, field, sl, value):
        arr = getattr(self.parameters, field)
        n = sl.stop - sl.start
        value = check_shape(f"parameter '{field}'", value, (n,)).astype(arr.dtype)
        params = dataclasses.replace(self.parameters, **{field: arr.at[sl].set(value)})
        return self.replace(parameters=params)

    def astype(self, dtype) -> Context:
        """A copy with every floating-point leaf cast to ``dtype`` (e.g. ``jnp.float32``)."""
        return jax.tree_util.tree_map(lambda x: jnp.asarray(x).astype(dtype), self)
