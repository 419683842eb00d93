"""`GravityCompensation`: MuJoCo's body ``gravcomp`` (not a Drake element).

    F_Bcm = −c m_B g   at body B's center of mass,   U = c m_B g·p_WBcm,   Pc = −dU/dt,

with c the compensation factor (1: gravity cancelled, 0: none, >1: buoyant) and g the context's
gravity vector (``parameters.gravity``), so the force follows `SetGravityVector`. MuJoCo adds
this force to the passive forces (``qfrc_gravcomp``); the MJCF parser creates one element per
body with a nonzero ``gravcomp``. The factor is a parameter of the context (``"factor"``).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.forces.force_element import ForceElement


class GravityCompensation(ForceElement):
    """A force ``−factor · m_B · g`` at the center of mass of ``body``.

    Args:
        body: the `RigidBody`.
        factor: the compensation factor c (MuJoCo's ``gravcomp``).
    """

    def __init__(self, body, factor: float):
        super().__init__(body.model_instance())
        factor = float(factor)
        if not np.isfinite(factor):
            raise ValueError(f"GravityCompensation: factor must be finite, got {factor}")
        self._body, self._factor = body, factor

    def body(self):
        return self._body

    def _attach(self, plant):
        self._owned(plant, self._body, "body")

    def _default_parameter_values(self):
        return {"factor": np.asarray(self._factor, float)}

    def factor(self, context):
        """The compensation factor in ``context``."""
        return self._get_parameter(context, "factor")

    def SetFactor(self, context, factor):
        """A new context with the compensation factor set."""
        return self._set_parameter(context, "factor", factor)

    def _com(self, ek):
        b, P = int(self._body.index()), ek.context.parameters
        r = ek.R_WB[b] @ P.com[b]  # p_BoBcm_W
        return b, r, -P.mass[b] * P.gravity

    def _add_forces(self, ek, params, tau, F):
        b, r, f = self._com(ek)
        f = params["factor"] * f
        return tau, F.at[b].add(jnp.concatenate([jnp.cross(r, f), f]))

    def _potential_energy(self, ek, params):
        b, r, f = self._com(ek)
        return params["factor"] * f @ (ek.p_WB[b] + r) * -1.0

    def _conservative_power(self, ek, params):
        b, r, f = self._com(ek)
        v_cm = ek.V_WB[b, 3:] + jnp.cross(ek.V_WB[b, :3], r)
        return params["factor"] * f @ v_cm
