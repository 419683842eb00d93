"""Model loading: `Parser` (URDF, SDFormat and a rigid-body subset of MJCF), `PackageMap`, and
the `ParseError` / `ParseWarning` every problem in a model file is reported with."""

from jaxbody.parsers.diagnostics import ParseError, ParseWarning
from jaxbody.parsers.package_map import PackageMap
from jaxbody.parsers.parser import Parser

__all__ = ["PackageMap", "ParseError", "ParseWarning", "Parser"]
