"""`Parser`: loads model files into a `MultibodyPlant`, as pydrake's ``Parser``.

Each model in a file becomes one model instance named after the model (``<robot name>``,
``<model name>``, ``<mujoco model>``; a nested SDFormat model ``outer::inner``), prefixed
``scope::`` when the parser has a ``scope_name``. The file type comes from the extension
(``.urdf``, ``.sdf``, ``.xml`` for MJCF) or ``file_type``. A name already in the plant is an
error unless auto-renaming is on (then ``name_1``, ``name_2``, ...). A file is read, checked in
full and only then added: on any `ParseError` the plant is left unchanged. Warnings
(`ParseWarning`) name the file and line; `SetStrictParsing` turns them into errors.

Example:
    >>> import jaxbody as jb
    >>> plant = jb.MultibodyPlant(0.0)
    >>> urdf = '''<robot name="pendulum">
    ...   <link name="arm"><inertial><mass value="1"/>
    ...     <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
    ...   <joint name="pin" type="continuous"><parent link="world"/><child link="arm"/>
    ...     <axis xyz="0 1 0"/></joint>
    ... </robot>'''
    >>> jb.Parser(plant).AddModelsFromString(urdf, "urdf")
    [ModelInstanceIndex(2)]
"""

from __future__ import annotations

import os

from jaxbody.parsers.builder import add_models
from jaxbody.parsers.diagnostics import STRING_SOURCE, Diagnostics, ParseError, SourceLocation
from jaxbody.parsers.mjcf import read_mjcf
from jaxbody.parsers.model_description import validate_structure
from jaxbody.parsers.package_map import PackageMap, ParsingWorkspace, resolve_uri
from jaxbody.parsers.sdf import read_sdf
from jaxbody.parsers.urdf import read_urdf
from jaxbody.parsers.xml_reader import MAX_XML_BYTES, parse_xml
from jaxbody.plant import MultibodyPlant

_EXTENSIONS = {".urdf": "urdf", ".sdf": "sdf", ".xml": "xml"}


class Parser:
    """Adds models from files, strings and URLs to ``plant``.

    Args:
        plant: the `MultibodyPlant` (not finalized).
        scope_name: if given, model instance names become ``scope_name::model_name``.
    """

    def __init__(self, plant, scope_name=None):
        if not isinstance(plant, MultibodyPlant):
            raise TypeError(f"Parser: expected a MultibodyPlant, got {type(plant).__name__}")
        if scope_name is not None and (not isinstance(scope_name, str) or not scope_name):
            raise ValueError(f"Parser: scope_name must be a non-empty string, got {scope_name!r}")
        self._plant = plant
        self._scope = scope_name
        self._package_map = PackageMap()
        self._auto_renaming = False
        self._strict = False

    def plant(self):
        return self._plant

    def package_map(self) -> PackageMap:
        """The `PackageMap` used to resolve ``package://`` URIs (edit it in place)."""
        return self._package_map

    def SetAutoRenaming(self, value: bool) -> None:
        """When on, a model whose instance name is taken gets ``name_1``, ``name_2``, ..."""
        self._auto_renaming = bool(value)

    def GetAutoRenaming(self) -> bool:
        return self._auto_renaming

    def SetStrictParsing(self) -> None:
        """Turns every later warning into a `ParseError` (as Drake's strict mode)."""
        self._strict = True

    # --- Entry points -----------------------------------------------------------------------------
    def AddModels(self, file_name) -> list:
        """Adds the models in ``file_name`` (type from the extension: ``.urdf``, ``.sdf``, or
        ``.xml`` for MJCF). Returns their `ModelInstanceIndex` list (an SDFormat file gives one
        per model and nested model, outer models first)."""
        path = os.path.abspath(os.fspath(file_name))
        kind = _EXTENSIONS.get(os.path.splitext(path)[1].lower())
        if kind is None:
            raise ParseError(SourceLocation(path, 0, ""), "the file extension is not one of "
                             f"{sorted(_EXTENSIONS)}; cannot tell the file type")
        try:
            size = os.path.getsize(path)
            if size > MAX_XML_BYTES:
                raise ParseError(SourceLocation(path, 0, ""), f"the file is larger than "
                                 f"{MAX_XML_BYTES} bytes")
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise ParseError(SourceLocation(path, 0, ""), f"cannot read the file: {e}") from e
        return self._add(data, kind, path, os.path.dirname(path))

    def AddModelsFromString(self, file_contents: str, file_type: str) -> list:
        """Adds the models in ``file_contents`` of ``file_type`` (``"urdf"``, ``"sdf"`` or
        ``"xml"`` for MJCF). Relative file references are errors (there is no folder)."""
        kind = str(file_type).lower().lstrip(".")
        if kind not in _EXTENSIONS.values():
            raise ValueError(f"AddModelsFromString: unknown file_type '{file_type}'; expected "
                             f"one of {sorted(set(_EXTENSIONS.values()))}")
        return self._add(file_contents, kind, f"{STRING_SOURCE}.{kind}", None)

    def AddModelsFromUrl(self, url: str) -> list:
        """Adds the models of a ``package://``, ``model://`` or ``file://`` URL."""
        try:
            path = resolve_uri(url, self._package_map, root_dir=None)
        except ValueError as e:
            raise ParseError(SourceLocation(str(url), 0, ""), str(e)) from e
        return self.AddModels(path)

    # --- Implementation ---------------------------------------------------------------------------
    def _add(self, data, kind, source_name, root_dir):
        diag = Diagnostics(source_name, strict=self._strict)
        root = parse_xml(data, diag)
        ws = ParsingWorkspace(diag, self._package_map, root_dir)
        order = None
        if kind == "urdf":
            models = [read_urdf(root, ws)]
        elif kind == "sdf":
            models, order = read_sdf(root, ws)
        else:
            models = [read_mjcf(root, ws)]
        validate_structure(models)
        names = self._instance_names(models)
        instances = add_models(self._plant, models, names, order, diag)
        diag.emit(stacklevel=4)
        return instances

    def _instance_names(self, models):
        """Plant instance names: the scope prefix and auto-renaming apply to each top-level
        model; a nested SDFormat model keeps its place under its (renamed) parent."""
        tops = {}
        names = []
        for m in models:
            top, sep, rest = m.name.partition("::")
            if top not in tops:
                tops[top] = self._instance_name(top)
            names.append(tops[top] + sep + rest)
        return names

    def _instance_name(self, model_name):
        name = f"{self._scope}::{model_name}" if self._scope else model_name
        if self._auto_renaming and self._plant.HasModelInstanceNamed(name):
            k = 1
            while self._plant.HasModelInstanceNamed(f"{name}_{k}"):
                k += 1
            name = f"{name}_{k}"
        return name
