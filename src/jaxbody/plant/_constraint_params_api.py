"""The Context side of a plant's constraints and PD controllers: their parameters live in
``Parameters.constraints`` (a dict of arrays in constraint order), so they are traced, batched
with ``jax.vmap`` and differentiated like masses:

- every constraint's active status (``<kind>_active``, 0/1);
- couplers' gear ratio ρ and offset Δq; distances' length, stiffness and damping;
- the PD-controlled actuators' gains Kp, Kd (``pd_kp``, ``pd_kd``, in actuator order).
Setters return a new Context (jaxbody's functional counterpart of Drake's mutating setters).
The defaults are `default_parameters`'s; constraints are found in the compiled model
(``self._model.constraints``).
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from jaxbody.plant._core import PlantCore


class DistanceConstraintParams:
    """Drake's ``DistanceConstraintParams``: bodies, points, length and compliance of a
    distance constraint, as `GetDistanceConstraintParams` reads them from a Context."""

    def __init__(self, bodyA, p_AP, bodyB, p_BQ, distance, stiffness=np.inf, damping=0.0):
        self._v = (bodyA, p_AP, bodyB, p_BQ, distance, stiffness, damping)

    def bodyA(self):
        return self._v[0]

    def p_AP(self):
        return self._v[1]

    def bodyB(self):
        return self._v[2]

    def p_BQ(self):
        return self._v[3]

    def distance(self):
        return self._v[4]

    def stiffness(self):
        return self._v[5]

    def damping(self):
        return self._v[6]


class ConstraintParamsAPI(PlantCore):
    """Mixin of `MultibodyPlant`: constraint and PD-controller parameters in the Context."""

    def _with_constraint_values(self, context, values):
        c = dict(context.parameters.constraints)
        for key, i, value in values:
            if value is not None:
                c[key] = c[key].at[i].set(jnp.asarray(value, c[key].dtype))
        return context.replace(parameters=dataclasses.replace(context.parameters, constraints=c))

    def GetConstraintActiveStatus(self, context, id):
        """Whether constraint ``id`` is active in ``context`` (a traced 0/1 under jit; a bool
        for a concrete context)."""
        self._check_context(context, "GetConstraintActiveStatus")
        kind, i = self._model.constraints.slot(id, "GetConstraintActiveStatus")
        status = context.parameters.constraints[f"{kind}_active"][i]
        try:
            return bool(status > 0.5)
        except Exception:  # traced
            return status > 0.5

    def SetConstraintActiveStatus(self, context, id, status):
        """A new Context in which constraint ``id`` is active (``status`` True / 1) or not
        (False / 0); ``status`` may be traced (``jax.vmap`` over it)."""
        self._check_context(context, "SetConstraintActiveStatus")
        kind, i = self._model.constraints.slot(id, "SetConstraintActiveStatus")
        return self._with_constraint_values(context, [(f"{kind}_active", i, status)])

    def SetCouplerConstraintParameters(self, context, id, gear_ratio=None, offset=None):
        """A new Context with coupler ``id``'s gear ratio and/or offset replaced (jaxbody's
        functional counterpart of rebuilding the plant; traceable, vmappable)."""
        self._check_context(context, "SetCouplerConstraintParameters")
        _, i = self._model.constraints.slot(id, "SetCouplerConstraintParameters", "coupler")
        return self._with_constraint_values(
            context, [("coupler_gear_ratio", i, gear_ratio), ("coupler_offset", i, offset)])

    def GetDistanceConstraintParams(self, context, id):
        """The `DistanceConstraintParams` of distance constraint ``id`` in ``context`` (length,
        stiffness and damping from the Context; traced under jit)."""
        self._check_context(context, "GetDistanceConstraintParams")
        _, i = self._model.constraints.slot(id, "GetDistanceConstraintParams", "distance")
        s, c = self._model.constraints.distances[i], context.parameters.constraints
        return DistanceConstraintParams(s.body_A, np.asarray(s.p_AP), s.body_B,
                                        np.asarray(s.p_BQ), c["distance_length"][i],
                                        c["distance_stiffness"][i], c["distance_damping"][i])

    def SetDistanceConstraintParams(self, context, id, params):
        """A new Context with distance constraint ``id``'s length, stiffness and damping from
        ``params`` (a `DistanceConstraintParams`; its bodies and points must be the
        constraint's own: they are compiled into the step). Values may be traced.

        Raises:
            ValueError: other bodies or points than the constraint's, or (for concrete values)
                length <= 0, stiffness <= 0 or damping < 0.
        """
        what = "SetDistanceConstraintParams"
        self._check_context(context, what)
        _, i = self._model.constraints.slot(id, what, "distance")
        s = self._model.constraints.distances[i]
        if (int(params.bodyA()) != s.body_A or int(params.bodyB()) != s.body_B
                or not np.allclose(np.asarray(params.p_AP(), float), s.p_AP)
                or not np.allclose(np.asarray(params.p_BQ(), float), s.p_BQ)):
            raise ValueError(f"{what}: the bodies and points of constraint {id!r} are fixed when "
                             "the plant is finalized; only distance, stiffness and damping can "
                             "change in a Context")
        try:
            d, k, c = (float(x) for x in (params.distance(), params.stiffness(),
                                           params.damping()))
        except Exception:  # traced values: not checked here
            pass
        else:
            if not (d > 0 and k > 0 and c >= 0):
                raise ValueError(f"{what}: need distance > 0, stiffness > 0 and damping >= 0, "
                                 f"got {d!r}, {k!r}, {c!r}")
        return self._with_constraint_values(
            context, [("distance_length", i, params.distance()),
                      ("distance_stiffness", i, params.stiffness()),
                      ("distance_damping", i, params.damping())])
