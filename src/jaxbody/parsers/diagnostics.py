"""Parse errors and warnings that name the file, the line and the XML element.

A parser reports through a `Diagnostics` object: ``error(...)`` raises `ParseError` at once;
``warning(...)`` records a `ParseWarning`, emitted with :func:`warnings.warn` only once the
whole model has been read and added (so a failed parse shows just its error). In strict mode
(`Parser.SetStrictParsing`) every warning is raised as a `ParseError` instead, as in Drake.
"""

from __future__ import annotations

import dataclasses
import warnings

# Drake's pseudo file name for models parsed from a string.
STRING_SOURCE = "<literal-string>"


@dataclasses.dataclass(frozen=True)
class SourceLocation:
    """Where an element starts: ``filename`` (or ``<literal-string>.ext``), ``line`` (1-based,
    0 if unknown) and the element's tag."""

    filename: str
    line: int
    element: str

    def __str__(self) -> str:
        where = f"{self.filename}:{self.line}" if self.line else self.filename
        return f"{where}: <{self.element}>" if self.element else where


class ParseError(ValueError):
    """A model file could not be loaded; the plant was left unchanged.

    Attributes:
        filename: the file (or ``<literal-string>.urdf`` for a string).
        line: the 1-based line of the offending element (0 if unknown).
        element: the offending element's tag ("" if none).
        reason: the message without the location.
    """

    def __init__(self, location: SourceLocation, reason: str):
        self.filename = location.filename
        self.line = location.line
        self.element = location.element
        self.reason = reason
        super().__init__(f"{location}: error: {reason}")

    def __reduce__(self):  # picklable (e.g. across multiprocessing)
        return type(self), (SourceLocation(self.filename, self.line, self.element), self.reason)


class ParseWarning(UserWarning):
    """Something in a model file was ignored or replaced (the model still loaded)."""


class Diagnostics:
    """Collects a parse's warnings; raises its errors.

    Args:
        filename: the source named in every message.
        strict: raise warnings as errors.
    """

    def __init__(self, filename: str, strict: bool = False):
        self.filename = filename
        self.strict = strict
        self._warnings = []

    def location(self, node=None, element=None) -> SourceLocation:
        """The location of an `XmlElement` (or just the file if ``node`` is None)."""
        if node is None:
            return SourceLocation(self.filename, 0, element or "")
        return SourceLocation(self.filename, node.line, element or node.tag)

    def error(self, node, reason: str, element=None):
        """Raises a `ParseError` at ``node``."""
        raise ParseError(self.location(node, element), reason)

    def warning(self, node, reason: str, element=None):
        """Records a warning at ``node`` (raises instead in strict mode)."""
        loc = self.location(node, element)
        if self.strict:
            raise ParseError(loc, f"{reason} (a warning, raised because strict parsing is on)")
        self._warnings.append(f"{loc}: warning: {reason}")

    def warning_at(self, loc: SourceLocation, reason: str):
        """Records a warning at an already known location (e.g. while building the plant)."""
        if self.strict:
            raise ParseError(loc, f"{reason} (a warning, raised because strict parsing is on)")
        self._warnings.append(f"{loc}: warning: {reason}")

    def warnings(self) -> list:
        return list(self._warnings)

    def for_file(self, filename: str) -> Diagnostics:
        """A `Diagnostics` for another file (e.g. an included model) whose warnings join this
        one's, with the same strictness."""
        other = Diagnostics(filename, strict=self.strict)
        other._warnings = self._warnings
        return other

    def emit(self, stacklevel: int = 3):
        """Issues the recorded warnings as `ParseWarning`."""
        for message in self._warnings:
            warnings.warn(message, ParseWarning, stacklevel=stacklevel)
        self._warnings.clear()
