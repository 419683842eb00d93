"""The plant's contact-model switches (Drake's ``set_contact_model``,
``set_discrete_contact_approximation``, ``set_penetration_allowance``,
``set_stiction_tolerance``) and the continuous plant's compliant point contact.

- A discrete plant solves point contact with SAP (`jaxbody.contact.discrete_problem`).
- A continuous plant applies Drake's penalty method (Hunt & Crossley normal force, Stribeck
  friction; `jaxbody.engine.continuous_contact`) inside every continuous computation
  (``CalcTimeDerivatives``, ``CalcGeneralizedAccelerations``, ``jaxbody.rollout``,
  ``simulate_adaptive``).
- Geometries without contact properties get Drake's defaults, discrete and continuous alike:
  SceneGraph's ``DefaultProximityProperties`` (k = 1e6 N/m, d = 50 s/m, τ = 0.1 s,
  μ = (0.5, 0.5); `set_scene_graph_config`), and where one of those is None, the penetration
  allowance's estimate (``EstimatePointContactParameters``: 2·m_max·g/δ, 1/√(g δ)).
- ``ContactModel``: Drake's default, ``kHydroelasticWithFallback``, is the default here too: a
  discrete plant gives the pairs with hydroelastic properties (at least one compliant) contact
  surfaces (`_hydroelastic_api`) and the others point contact; ``kHydroelastic`` refuses a
  pair without a surface; ``kPoint`` is point contact for every pair. A continuous plant uses
  point contact for every pair (and warns when a geometry has hydroelastic properties).
- ``DiscreteContactApproximation``: the discrete step is SAP with friction cones (kSap, the
  default) or with Drake's convex Hunt & Crossley constraints (kSimilar, kLagged;
  `jaxbody.contact.hunt_crossley`); kTamsi is refused with an error.
- ``set_contact_enabled(False)`` gives a plant without contact (no collision candidates) while
  keeping its geometry for drawing: the counterpart of a Drake plant that is not connected to a
  SceneGraph (Drake's parser then registers no geometry), and of MuJoCo's contact disable flag.
  Pure multibody dynamics, e.g. to compare with Pinocchio, and the batch-minor fast path.
"""

from __future__ import annotations

import math

import numpy as np

from jaxbody.geometry.collision.contact_properties import DEFAULT_PENETRATION_ALLOWANCE
from jaxbody.geometry.scene_graph_config import SceneGraphConfig, checked_copy
from jaxbody.plant._core import PlantCore
from jaxbody.plant.contact_settings import (  # noqa: F401 (re-exported)
    DEFAULT_STICTION_TOLERANCE,
    ContactModel,
    DiscreteContactApproximation,
)
from jaxbody.plant.finalize_contact import penalty_parameters, set_default_contact_parameters


class ContactModelAPI(PlantCore):
    """Mixin of `MultibodyPlant`: contact-model settings and continuous point contact."""

    def set_contact_enabled(self, enabled: bool = True):
        """Whether Finalize makes collision candidates: with False the plant has no contact in
        any computation (continuous or discrete), as a Drake plant without a SceneGraph; its
        geometries stay registered (viewer, ``GetCollisionGeometriesForBody``). Default True.
        Before Finalize()."""
        self._require_not_finalized("set_contact_enabled")
        if not isinstance(enabled, (bool, np.bool_)):
            raise TypeError(f"set_contact_enabled: expected a bool, got {enabled!r}")
        self._contact_enabled = bool(enabled)

    def get_contact_enabled(self) -> bool:
        return getattr(self, "_contact_enabled", True)

    def set_contact_model(self, model):
        """Selects the contact model: ``kHydroelasticWithFallback`` (Drake's default: contact
        surfaces for the pairs that have hydroelastic properties, at least one compliant, and
        point contact for the others), ``kHydroelastic`` (surfaces only; a pair without one
        raises at Finalize) or ``kPoint``. Hydroelastic contact is for discrete plants; a
        continuous plant uses point contact for every pair. Before Finalize()."""
        self._require_not_finalized("set_contact_model")
        if not isinstance(model, ContactModel):
            raise ValueError(f"set_contact_model: expected a ContactModel, got {model!r}")
        self._contact_model = model

    def get_contact_model(self):
        """The contact model: Drake's default ``kHydroelasticWithFallback`` unless set."""
        return getattr(self, "_contact_model", ContactModel.kHydroelasticWithFallback)

    def set_discrete_contact_approximation(self, approximation):
        """Selects the discrete step's contact constraint: ``kSap`` (friction cones with the
        relaxation time, the default), or ``kSimilar`` / ``kLagged`` (Drake's convex Hunt &
        Crossley approximations, with the geometries' ``hunt_crossley_dissipation`` and the
        plant's stiction tolerance); ``kTamsi`` raises. Before Finalize()."""
        self._require_not_finalized("set_discrete_contact_approximation")
        if not isinstance(approximation, DiscreteContactApproximation):
            raise ValueError("set_discrete_contact_approximation: expected a "
                             f"DiscreteContactApproximation, got {approximation!r}")
        if approximation is DiscreteContactApproximation.kTamsi:
            raise ValueError("set_discrete_contact_approximation: kTamsi is not supported; "
                             "jaxbody's discrete step is SAP (kSap, kSimilar or kLagged)")
        self._discrete_approximation = approximation

    def get_discrete_contact_approximation(self):
        return getattr(self, "_discrete_approximation", DiscreteContactApproximation.kSap)

    def set_penetration_allowance(self, penetration_allowance=DEFAULT_PENETRATION_ALLOWANCE):
        """Drake's penetration allowance δ (m), from which the plant estimates a point-contact
        stiffness (2·m_max·g/δ per geometry) and Hunt-Crossley dissipation (1/√(g δ)) and the
        contact time scale √(δ/g). The estimate applies only where a geometry lacks the
        property and the `SceneGraphConfig` default is None (with Drake's defaults, 1e6 N/m
        and 50 s/m, it changes only the time scale). As in Drake, allowed after Finalize():
        the plant's default parameters follow (contexts made before keep theirs, being
        Context parameters: make a new one with ``CreateDefaultContext``)."""
        delta = float(penetration_allowance)
        if not (math.isfinite(delta) and delta > 0):
            raise ValueError("set_penetration_allowance(): penetration_allowance must be "
                             f"strictly positive, got {penetration_allowance!r}")
        self._penetration_allowance = delta
        if self.is_finalized():
            set_default_contact_parameters(self)
            self._model_changed()

    def get_penetration_allowance(self):
        return getattr(self, "_penetration_allowance", DEFAULT_PENETRATION_ALLOWANCE)

    def set_scene_graph_config(self, config: SceneGraphConfig):
        """Drake's ``SceneGraph::set_config``: the `SceneGraphConfig` whose
        ``default_proximity_properties`` fill the contact properties that collision geometries
        lack (jaxbody has no separate SceneGraph; the plant holds its geometry). Before
        Finalize(); the plant keeps a validated copy."""
        self._require_not_finalized("set_scene_graph_config")
        self._scene_graph_config = checked_copy(config)

    def get_scene_graph_config(self) -> SceneGraphConfig:
        config = getattr(self, "_scene_graph_config", None)
        return SceneGraphConfig() if config is None else checked_copy(config)

    def set_stiction_tolerance(self, v_stiction=DEFAULT_STICTION_TOLERANCE):
        """The stiction tolerance v_s (m/s): the Stribeck model's of a continuous plant, the
        friction regularization of kSimilar/kLagged discrete steps. Before Finalize() (Drake
        also allows it after; here compiled code keyed on the plant could keep the old value,
        so it is refused)."""
        self._require_not_finalized("set_stiction_tolerance")
        v = float(v_stiction)
        if not (math.isfinite(v) and v > 0):
            raise ValueError(f"set_stiction_tolerance: v_stiction must be > 0, got {v_stiction!r}")
        self._stiction_tolerance = v

    def stiction_tolerance(self):
        return getattr(self, "_stiction_tolerance", DEFAULT_STICTION_TOLERANCE)

    def get_contact_penalty_method_time_scale(self):
        """Drake's contact time scale 1/ω, ω = √(g/δ) (s): a hint for a continuous plant's
        integration step."""
        self._require_finalized("get_contact_penalty_method_time_scale")
        return penalty_parameters(self).time_scale
