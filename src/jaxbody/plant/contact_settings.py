"""The enums and defaults of a plant's contact settings (Drake's ``ContactModel``,
``DiscreteContactApproximation`` and the stiction tolerance); the setters are in
`MultibodyPlant` (``set_contact_model`` ...)."""

from __future__ import annotations

import enum

DEFAULT_STICTION_TOLERANCE = 1e-4  # m/s: Drake's MultibodyPlantConfig default (its docs say 1 mm/s)


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
