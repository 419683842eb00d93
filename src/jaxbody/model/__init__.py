"""The frozen model a `MultibodyPlant` compiles at Finalize: typed, immutable tables of what the
engine functions (`jaxbody.engine`) read. See `model.Model`."""

from jaxbody.model.model import Model

__all__ = ["Model"]
