"""The plant's contact-model switches (Drake's ``set_contact_model``,
``set_discrete_contact_approximation``, ``set_penetration_allowance``,
``set_stiction_tolerance``) and the continuous plant's compliant point contact.

- A discrete plant solves point contact with SAP (`jaxbody.contact.discrete_problem`).
- A continuous plant applies Drake's penalty method (Hunt & Crossley normal force, Stribeck
  friction; `jaxbody.contact.compliant_point_contact`) inside every continuous computation
  (``CalcTimeDerivatives``, ``CalcGeneralizedAccelerations``, ``jaxbody.rollout``,
  ``simulate_adaptive``). Geometries without ``point_contact_stiffness`` get Drake's heuristic
  default for it, 2·m_max·g/δ, from the penetration allowance δ (1 mm unless set) and the
  heaviest body's mass; without ``hunt_crossley_dissipation``, 1/√(g δ).
- Only point contact exists so far: ``ContactModel.kPoint``. Drake's default,
  ``kHydroelasticWithFallback``, and ``kHydroelastic`` are refused with an error until
  hydroelastic contact lands; ``get_contact_model()`` says ``kPoint``.
- ``DiscreteContactApproximation.kSap`` is the discrete step; kTamsi, kSimilar and kLagged are
  refused with an error.
"""

from __future__ import annotations

import enum
import math

import jax.numpy as jnp
import numpy as np

from jaxbody.contact import compliant_point_contact as cpc

DEFAULT_STICTION_TOLERANCE = 1e-3  # m/s, Drake's set_stiction_tolerance default


class ContactModel(enum.Enum):
    """Drake's ``ContactModel``."""

    kHydroelastic = 0
    kPoint = 1
    kHydroelasticWithFallback = 2


class DiscreteContactApproximation(enum.Enum):
    """Drake's ``DiscreteContactApproximation``."""

    kTamsi = 0
    kSap = 1
    kSimilar = 2
    kLagged = 3


class ContactModelAPI:
    """Mixin of `MultibodyPlant`: contact-model settings and continuous point contact."""

    def set_contact_model(self, model):
        """Selects the contact model. Only ``ContactModel.kPoint`` is available: hydroelastic
        contact is not implemented yet, so kHydroelastic and kHydroelasticWithFallback raise.
        Before Finalize()."""
        self._require_not_finalized("set_contact_model")
        if not isinstance(model, ContactModel):
            raise ValueError(f"set_contact_model: expected a ContactModel, got {model!r}")
        if model is not ContactModel.kPoint:
            raise ValueError(f"set_contact_model: {model.name} is not supported yet: jaxbody "
                             "has point contact only (ContactModel.kPoint)")
        self._contact_model = model

    def get_contact_model(self):
        """The contact model in use: ``ContactModel.kPoint``."""
        return getattr(self, "_contact_model", ContactModel.kPoint)

    def set_discrete_contact_approximation(self, approximation):
        """Selects the discrete contact solver's approximation: ``kSap`` (the only one
        implemented; kTamsi, kSimilar and kLagged raise). Before Finalize()."""
        self._require_not_finalized("set_discrete_contact_approximation")
        if not isinstance(approximation, DiscreteContactApproximation):
            raise ValueError("set_discrete_contact_approximation: expected a "
                             f"DiscreteContactApproximation, got {approximation!r}")
        if approximation is not DiscreteContactApproximation.kSap:
            raise ValueError(f"set_discrete_contact_approximation: {approximation.name} is not "
                             "supported yet; jaxbody's discrete step is SAP (kSap)")
        self._discrete_approximation = approximation

    def get_discrete_contact_approximation(self):
        return getattr(self, "_discrete_approximation", DiscreteContactApproximation.kSap)

    def set_penetration_allowance(self, penetration_allowance=1e-3):
        """Drake's penetration allowance δ (m), from which a continuous plant's default point
        stiffness (2·m_max·g/δ per geometry) and Hunt-Crossley dissipation (1/√(g δ)) are
        estimated. Before Finalize()."""
        self._require_not_finalized("set_penetration_allowance")
        delta = float(penetration_allowance)
        if not (math.isfinite(delta) and delta > 0):
            raise ValueError("set_penetration_allowance(): penetration_allowance must be "
                             f"strictly positive, got {penetration_allowance!r}")
        self._penetration_allowance = delta

    def get_penetration_allowance(self):
        return getattr(self, "_penetration_allowance", 1e-3)

    def set_stiction_tolerance(self, v_stiction=DEFAULT_STICTION_TOLERANCE):
        """The Stribeck model's stiction tolerance v_s (m/s) of a continuous plant's contact."""
        v = float(v_stiction)
        if not (math.isfinite(v) and v > 0):
            raise ValueError(f"set_stiction_tolerance: v_stiction must be > 0, got {v_stiction!r}")
        self._stiction_tolerance = v

    def stiction_tolerance(self):
        return getattr(self, "_stiction_tolerance", DEFAULT_STICTION_TOLERANCE)

    def _penalty_parameters(self):
        """(per-geometry stiffness, dissipation, time scale) of Drake's
        ``EstimatePointContactParameters`` for this plant's penetration allowance."""
        g = float(np.linalg.norm(self._gravity)) or 9.81
        mass = max([float(b.default_mass()) for b in self._bodies] + [0.0])
        delta = self.get_penetration_allowance()
        k_combined = mass * g / delta
        time_scale = 1.0 / math.sqrt(g / delta)
        return 2.0 * k_combined, time_scale / delta, time_scale

    def get_contact_penalty_method_time_scale(self):
        """Drake's contact time scale 1/ω, ω = √(g/δ) (s): a hint for a continuous plant's
        integration step."""
        self._require_finalized("get_contact_penalty_method_time_scale")
        return self._penalty_parameters()[2]

    def _has_continuous_contact(self):
        """Whether the plant is continuous with candidate contact pairs."""
        pairs = getattr(self, "_collision_pairs", None)
        return not self.is_discrete() and pairs is not None and len(pairs[0]) > 0

    def _continuous_contact_forces(self, context, dk):
        """(num_bodies, 6) wrenches about each body origin in World of a continuous plant's
        point contacts, or None without candidate pairs."""
        if not self._has_continuous_contact():
            return None
        pc = self.CalcPointContacts(context)
        if not pc.phi.shape[0]:
            return None
        node = jnp.asarray(self._topology.body_node)
        na, nb = node[pc.body_a], node[pc.body_b]
        V, p = dk.vk.V_WB, dk.pk.p_WB
        f_A, p_WC, _, _, _ = cpc.penalty_forces(pc, V[na], V[nb], p[na], p[nb],
                                                self.stiction_tolerance())
        return cpc.body_wrenches(len(self._bodies), pc, f_A, p_WC, p[na], p[nb])
