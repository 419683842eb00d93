"""Mass properties: total mass, center of mass, spatial momentum and the spatial inertia of a
set of bodies (Drake's API). Pure functions of the context, as in `_kinematics_api.py`."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import center_of_mass as com_alg
from jaxbody.math import SpatialInertia, SpatialMomentum


class MassPropertiesAPI:
    def _com_bodies(self, context, instances, what):
        """Static node list and traced masses of the bodies that count toward the COM."""
        if instances is not None and len(instances) == 0:
            raise ValueError(f"{what}: model_instances is empty")
        bodies = [b for b in self._bodies[1:]
                  if instances is None or b.model_instance() in [int(i) for i in instances]]
        if not bodies:
            raise ValueError(f"{what}: there are no bodies (besides the world) to take the "
                             "center of mass of")
        bidx = np.asarray([int(b.index()) for b in bodies], np.int64)
        return self._topology.body_node[bidx], bidx

    def CalcTotalMass(self, context, model_instances=None):
        """Sum of the masses of all bodies (or of those in ``model_instances``) (kg)."""
        self._check_context(context, "CalcTotalMass")
        if model_instances is None:
            return jnp.sum(context.parameters.mass[1:])
        _, bidx = self._com_bodies(context, model_instances, "CalcTotalMass")
        return jnp.sum(context.parameters.mass[bidx])

    def CalcCenterOfMassPositionInWorld(self, context, model_instances=None):
        """``p_WoScm_W`` (3,) of all bodies, or of the bodies in ``model_instances``."""
        what = "CalcCenterOfMassPositionInWorld"
        _, pk = self._position_kinematics(context, what)
        nodes, bidx = self._com_bodies(context, model_instances, what)
        return com_alg.com_position(pk, context.parameters, nodes, bidx)

    def CalcCenterOfMassTranslationalVelocityInWorld(self, context, model_instances=None):
        """``v_WScm_W`` (3,)."""
        what = "CalcCenterOfMassTranslationalVelocityInWorld"
        _, pk, vk = self._velocity_kinematics(context, what)
        nodes, bidx = self._com_bodies(context, model_instances, what)
        return com_alg.com_velocity(pk, vk, context.parameters, nodes, bidx)

    def CalcSpatialMomentumInWorldAboutPoint(self, context, *args):
        """``L_WS_P_W``: ``(context, p_WoP_W)`` or ``(context, model_instances, p_WoP_W)``."""
        what = "CalcSpatialMomentumInWorldAboutPoint"
        instances, (p_WoP_W,) = self._split_instances(args, 1)
        if jnp.shape(p_WoP_W) != (3,):
            raise ValueError(f"{what}: p_WoP_W must have shape (3,), got {jnp.shape(p_WoP_W)}")
        _, pk, vk = self._velocity_kinematics(context, what)
        if instances is not None and len(instances) == 0:
            z = jnp.zeros(3, context.v.dtype)
            return SpatialMomentum(z, z)
        nodes, bidx = self._com_bodies(context, instances, what)
        L = com_alg.spatial_momentum(pk, vk, context.parameters, nodes, bidx,
                                     jnp.asarray(p_WoP_W, context.v.dtype))
        return SpatialMomentum(L[:3], L[3:])

    def CalcSpatialInertia(self, context, frame_F, body_indexes):
        """``M_SFo_F``: the spatial inertia of the bodies ``body_indexes`` (a set S) about the
        origin of ``frame_F``, expressed in F, as a `SpatialInertia`; Zero for an empty set.
        One kinematics pass; the bodies' inertias are re-expressed, shifted and summed as one
        batch."""
        what = "CalcSpatialInertia"
        self._own_frame(frame_F, what)
        idx = [int(b) for b in body_indexes]
        if len(set(idx)) != len(idx):
            raise ValueError(f"{what}: body_indexes has a repeated body: {idx}")
        bad = [b for b in idx if not 0 <= b < len(self._bodies)]
        if bad:
            raise ValueError(f"{what}: {bad[0]} is not a body index of this plant (it has "
                             f"{len(self._bodies)} bodies)")
        _, pk = self._position_kinematics(context, what)
        if not idx:
            return SpatialInertia.Zero(context.q.dtype)
        R_WF, p_WF = self._frame_in_world(context, pk, frame_F)
        idx = np.asarray(idx, np.int64)
        nodes, P = self._topology.body_node[idx], context.parameters
        R_FB = jnp.einsum("ji,njk->nik", R_WF, pk.R_WB[nodes])
        p_FoBo_F = (pk.p_WB[nodes] - p_WF) @ R_WF
        M_BBo_B = SpatialInertia(P.mass[idx], P.com[idx], P.unit_inertia[idx],
                                 skip_validity_check=True)
        return M_BBo_B.ReExpress(R_FB).Shift(-p_FoBo_F)._sum_over_batch()
