"""Mass properties: total mass, center of mass, spatial momentum and the spatial inertia of a
set of bodies (Drake's API): the facade over `jaxbody.engine.mass_properties`. Pure functions
of the context, as in `_kinematics_api.py`."""

from __future__ import annotations

import jax.numpy as jnp

from jaxbody.engine import mass_properties as mp
from jaxbody.plant._core import PlantCore


class MassPropertiesAPI(PlantCore):
    def CalcTotalMass(self, context, model_instances=None):
        """Sum of the masses of all bodies (or of those in ``model_instances``) (kg)."""
        self._check_context(context, "CalcTotalMass")
        return mp.total_mass(self._model, context, model_instances)

    def CalcCenterOfMassPositionInWorld(self, context, model_instances=None):
        """``p_WoScm_W`` (3,) of all bodies, or of the bodies in ``model_instances``."""
        self._check_context(context, "CalcCenterOfMassPositionInWorld")
        return mp.center_of_mass_position(self._model, context, model_instances)

    def CalcCenterOfMassTranslationalVelocityInWorld(self, context, model_instances=None):
        """``v_WScm_W`` (3,)."""
        self._check_context(context, "CalcCenterOfMassTranslationalVelocityInWorld")
        return mp.center_of_mass_velocity(self._model, context, model_instances)

    def CalcSpatialMomentumInWorldAboutPoint(self, context, *args):
        """``L_WS_P_W``: ``(context, p_WoP_W)`` or ``(context, model_instances, p_WoP_W)``."""
        what = "CalcSpatialMomentumInWorldAboutPoint"
        instances, (p_WoP_W,) = mp.split_instances(args, 1)
        if jnp.shape(p_WoP_W) != (3,):
            raise ValueError(f"{what}: p_WoP_W must have shape (3,), got {jnp.shape(p_WoP_W)}")
        self._check_context(context, what)
        return mp.spatial_momentum_about_point(self._model, context, instances, p_WoP_W)

    def CalcSpatialInertia(self, context, frame_F, body_indexes):
        """``M_SFo_F``: the spatial inertia of the bodies ``body_indexes`` (a set S) about the
        origin of ``frame_F``, expressed in F, as a `SpatialInertia`; Zero for an empty set.
        One kinematics pass; the bodies' inertias are re-expressed, shifted and summed as one
        batch."""
        what = "CalcSpatialInertia"
        self._own_frame(frame_F, what)
        idx = mp.check_body_indexes(self._model, body_indexes, what)
        self._check_context(context, what)
        return mp.spatial_inertia(self._model, context, int(frame_F.index()), idx)
