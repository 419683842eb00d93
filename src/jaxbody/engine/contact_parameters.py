"""The contact parameters of a context: per collision geometry, (G,) leaves of
``context.parameters.contact`` (stiffness, relaxation time, Hunt-Crossley dissipation, static and
dynamic friction, hydroelastic modulus; `jaxbody.geometry.collision.contact_properties`), read
and replaced out of place, so that results can be vmapped and differentiated over them.

Example:
    >>> import numpy as np
    >>> import jaxbody as jb
    >>> from jaxbody.engine import contact_parameters as cp
    >>> plant = jb.MultibodyPlant(0.001)
    >>> _ = plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(),
    ...                                     jb.HalfSpace(), "ground", jb.CoulombFriction(1, 1))
    >>> plant.Finalize()
    >>> model, context = plant.compiled_model(), plant.CreateDefaultContext()
    >>> context = cp.set_contact_parameters(model, context, np.array([0]),
    ...                                     static_friction=0.8, dynamic_friction=0.6)
    >>> round(float(cp.contact_parameters(context, 0)["dynamic_friction"]), 6)
    0.6
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.geometry.collision.contact_properties import (
    DYNAMIC_FRICTION,
    MODULUS,
    PARAMETER_NAMES,
    STATIC_FRICTION,
    STIFFNESS,
)


def check_names(values):
    """Raises TypeError for a name in ``values`` that is not a contact parameter."""
    unknown = sorted(set(values) - set(PARAMETER_NAMES))
    if unknown:
        raise TypeError(f"SetContactParameters: unknown parameter(s) {unknown}; expected any "
                        f"of {list(PARAMETER_NAMES)}")


def _checked(model, index, name, x):
    """Raises for concrete values out of range: >= 0 and finite (stiffness and modulus may be
    inf); a compliant geometry's modulus finite and > 0."""
    ok = (x >= 0) & (np.isfinite(x) | ((x == np.inf) & (name in (STIFFNESS, MODULUS))))
    if not np.all(ok):
        raise ValueError(f"SetContactParameters: {name} must be finite and >= 0, "
                         f"got {np.asarray(x)}")
    if name == MODULUS:  # a compliant geometry's mesh is fixed: E finite and > 0
        compliant = np.isfinite(model.contact.default_parameters[MODULUS][index])
        bad = compliant & ~(np.isfinite(x) & (x > 0))
        if np.any(bad):
            raise ValueError(
                "SetContactParameters: hydroelastic_modulus of a compliant "
                "geometry must be finite and > 0 (its pressure field is built at "
                f"Finalize; it cannot become rigid), got {np.asarray(x)}")


def set_contact_parameters(model, context, index, **values):
    """A new context with the contact parameters of the collision geometries ``index`` (a NumPy
    int array of collision indices, each once) replaced by ``values`` (name -> a scalar or one
    entry per index). Concrete values are checked (>= 0, static >= dynamic friction); traced
    ones are not.

    Raises:
        TypeError: an unknown parameter name.
        ValueError: a value of the wrong shape or out of range.
    """
    check_names(values)
    contact = dict(context.parameters.contact)
    for name, value in values.items():
        x = jnp.asarray(value)
        if x.shape not in ((), (len(index),)):
            raise ValueError(f"SetContactParameters: {name} must be a scalar or have shape "
                             f"({len(index)},) (one per geometry named), got {x.shape}")
        if not isinstance(x, jax.core.Tracer):
            _checked(model, index, name, x)
        contact[name] = contact[name].at[index].set(x.astype(contact[name].dtype))
    mu_s, mu_d = contact[STATIC_FRICTION], contact[DYNAMIC_FRICTION]
    if not isinstance(mu_s, jax.core.Tracer) and not isinstance(mu_d, jax.core.Tracer):
        bad = np.flatnonzero(np.asarray(mu_d) > np.asarray(mu_s))
        if bad.size:  # Drake's CoulombFriction: static >= dynamic
            raise ValueError(f"SetContactParameters: dynamic friction exceeds static friction "
                             f"at collision geometry index {bad.tolist()} (static "
                             f"{np.asarray(mu_s)[bad]}, dynamic {np.asarray(mu_d)[bad]})")
    return context.replace(parameters=dataclasses.replace(context.parameters, contact=contact))


def contact_parameters(context, index) -> dict:
    """``{name: value}`` of collision geometry ``index``'s contact parameters in ``context``."""
    return {name: context.parameters.contact[name][index] for name in PARAMETER_NAMES}
