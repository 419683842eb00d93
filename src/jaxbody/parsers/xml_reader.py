"""Safe XML reading into a small element tree that remembers line numbers, and strict readers
for the numbers in attributes.

XML goes through ``defusedxml``'s SAX parser: entity declarations (so entity-expansion bombs),
external entities and network access are refused, and documents larger than `MAX_XML_BYTES`
are rejected before parsing. Namespace processing is off, so ``drake:joint`` is read as the
tag ``"drake:joint"`` whether or not the file declares ``xmlns:drake`` (as Drake's tinyxml2
reads it).

Numbers must be plain decimal literals (``1``, ``-0.5``, ``2e-3``), separated by whitespace
and finite: ``nan``, ``inf``, ``1,2``, ``0x1`` and ``1_000`` are errors, as in Drake.
"""

from __future__ import annotations

import io
import re
import xml.sax
import xml.sax.handler

import numpy as np
from defusedxml import DefusedXmlException
from defusedxml.expatreader import create_parser

from jaxbody.parsers.diagnostics import ParseError, SourceLocation

MAX_XML_BYTES = 64 * 1024 * 1024  # a model file larger than this is refused
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")


class XmlElement:
    """An XML element: ``tag``, ``attrib`` (dict), ``children`` (list), ``text`` and the 1-based
    ``line`` of its start tag."""

    __slots__ = ("tag", "attrib", "children", "text", "line")

    def __init__(self, tag, attrib, line):
        self.tag, self.attrib, self.line = tag, attrib, line
        self.children, self.text = [], ""

    def find(self, tag):
        """The first child with ``tag``, or None."""
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag):
        return [c for c in self.children if c.tag == tag]

    def get(self, name, default=None):
        return self.attrib.get(name, default)

    def __repr__(self):
        return f"<XmlElement {self.tag} line={self.line}>"


class _TreeBuilder(xml.sax.handler.ContentHandler):
    def __init__(self):
        super().__init__()
        self.root, self._stack, self._locator = None, [], None

    def setDocumentLocator(self, locator):
        self._locator = locator

    def line(self):
        return self._locator.getLineNumber() if self._locator is not None else 0

    def startElement(self, name, attrs):
        el = XmlElement(name, dict(attrs.items()), self.line())
        if self._stack:
            self._stack[-1].children.append(el)
        else:
            self.root = el
        self._stack.append(el)

    def endElement(self, name):
        self._stack.pop()

    def characters(self, content):
        if self._stack:
            self._stack[-1].text += content


def parse_xml(data, diagnostics) -> XmlElement:
    """The root `XmlElement` of ``data`` (str or bytes); `ParseError` if it is not well-formed
    XML, uses entities or external references, or is too large."""
    if len(data) > MAX_XML_BYTES:
        diagnostics.error(None, f"the document is larger than {MAX_XML_BYTES} bytes", "xml")
    builder = _TreeBuilder()
    parser = create_parser()  # defusedxml: forbid_entities and forbid_external are on
    parser.setFeature(xml.sax.handler.feature_namespaces, False)
    parser.setContentHandler(builder)
    source = xml.sax.xmlreader.InputSource()
    if isinstance(data, str):
        source.setCharacterStream(io.StringIO(data))
    else:
        source.setByteStream(io.BytesIO(data))
    try:
        parser.parse(source)
    except xml.sax.SAXParseException as e:
        raise _xml_error(diagnostics, e.getLineNumber(), f"malformed XML: {e.getMessage()}") from e
    except DefusedXmlException as e:
        raise _xml_error(diagnostics, builder.line(), f"refused unsafe XML: {e}") from e
    except (xml.sax.SAXException, UnicodeError, ValueError) as e:
        raise _xml_error(diagnostics, builder.line(), f"malformed XML: {e}") from e
    if builder.root is None:
        diagnostics.error(None, "the document has no root element", "xml")
    return builder.root


def _xml_error(diagnostics, line, reason):
    return ParseError(SourceLocation(diagnostics.filename, line or 0, "xml"), reason)


# ---- attribute readers ----------------------------------------------------------------------
def parse_numbers(text, diagnostics, node, what):
    """The finite floats in whitespace-separated ``text``; `ParseError` naming ``what``."""
    tokens = str(text).split()
    values = []
    for tok in tokens:
        if not _NUMBER.match(tok):
            diagnostics.error(node, f"{what}: '{tok}' is not a number (in '{text}')")
        x = float(tok)
        if not np.isfinite(x):
            diagnostics.error(node, f"{what}: '{tok}' is not a finite number")
        values.append(x)
    return values


def read_scalar(node, name, diagnostics, default=None, required=False):
    """Attribute ``name`` of ``node`` as one finite float; ``default`` if absent (or an error
    if ``required``)."""
    if name not in node.attrib:
        if required:
            diagnostics.error(node, f"missing required attribute '{name}'")
        return default
    values = parse_numbers(node.attrib[name], diagnostics, node, f"attribute '{name}'")
    if len(values) != 1:
        diagnostics.error(node, f"attribute '{name}': expected a single value, got "
                                f"'{node.attrib[name]}'")
    return values[0]


def read_vector(node, name, size, diagnostics, default=None, required=False, sizes=None):
    """Attribute ``name`` as a float array of length ``size`` (or any of ``sizes``)."""
    if name not in node.attrib:
        if required:
            diagnostics.error(node, f"missing required attribute '{name}'")
        return None if default is None else np.array(default, dtype=float)
    values = parse_numbers(node.attrib[name], diagnostics, node, f"attribute '{name}'")
    allowed = sizes or (size,)
    if len(values) not in allowed:
        expected = " or ".join(str(n) for n in allowed)
        diagnostics.error(node, f"attribute '{name}': expected {expected} values, got "
                                f"'{node.attrib[name]}'")
    return np.array(values, dtype=float)


def read_string(node, name, diagnostics, required=False, what=None):
    """Attribute ``name`` as a non-empty string, or None if absent (error if ``required``)."""
    value = node.attrib.get(name)
    if value is None or value == "":
        if required:
            diagnostics.error(node, what or f"missing required attribute '{name}'")
        return None
    return value
