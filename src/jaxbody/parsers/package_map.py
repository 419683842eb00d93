"""`PackageMap` (package name -> folder) and URI resolution for model files, as in pydrake.

A model refers to files (meshes, textures, included models) by URI:

- ``package://name/rel/path`` (or ``model://name/rel/path``): ``rel/path`` inside the folder of
  package ``name``. The result must stay inside that folder: ``..`` segments that would leave
  it, and absolute ``rel/path``, are refused.
- ``file:///abs/path``: an absolute path.
- a plain path: absolute, or relative to the folder of the model file (refused when the model
  was given as a string, which has no folder).

Resolution fails (an error naming the URI) if the file does not exist.

A model file's ``package:///name/rel/path`` (an empty package name, as talos's URDFs in
example-robot-data write them; Drake, MuJoCo and Pinocchio refuse it) resolves as
``package://name/rel/path`` when ``name`` is a known package, with one warning per parse saying
so (`ParsingWorkspace.resolve`); `resolve_uri` alone refuses it, naming that reading.

Example:
    >>> from jaxbody.parsers import PackageMap
    >>> pm = PackageMap()
    >>> pm.Contains("my_robot")
    False
"""

from __future__ import annotations

import os

from jaxbody.parsers.diagnostics import Diagnostics
from jaxbody.parsers.xml_reader import parse_xml

_PACKAGE_SCHEMES = ("package://", "model://")


class PackageMap:
    """A map from package names to folders (pydrake's ``PackageMap``; starts empty)."""

    def __init__(self):
        self._paths = {}

    @classmethod
    def MakeEmpty(cls) -> PackageMap:
        return cls()

    # --- Editing --------------------------------------------------------------------------------
    def Add(self, package_name: str, package_path) -> None:
        """Adds ``package_name`` at folder ``package_path`` (which must exist). Adding a name
        again is allowed only with the same folder."""
        if not isinstance(package_name, str) or not package_name or "/" in package_name:
            raise ValueError(f"PackageMap.Add: invalid package name {package_name!r}")
        path = os.path.abspath(os.fspath(package_path))
        if not os.path.isdir(path):
            raise ValueError(f"PackageMap.Add: could not add package://{package_name} because "
                             f"the folder '{path}' does not exist")
        old = self._paths.get(package_name)
        if old is not None and os.path.realpath(old) != os.path.realpath(path):
            raise ValueError(f"PackageMap.Add: package '{package_name}' is already at '{old}', "
                             f"which differs from '{path}'")
        self._paths[package_name] = path

    def AddMap(self, other_map: PackageMap) -> None:
        """Adds every package of ``other_map`` (same rule for names already present)."""
        for name, path in other_map._paths.items():
            self.Add(name, path)

    def AddPackageXml(self, filename) -> None:
        """Adds the package described by a ``package.xml`` file (its ``<name>``), at the
        folder that holds the file."""
        name = _package_xml_name(os.fspath(filename))
        self.Add(name, os.path.dirname(os.path.abspath(filename)))

    def PopulateFromFolder(self, path) -> None:
        """Adds every package found under ``path`` (each folder holding a ``package.xml``);
        when a name is found twice the first one (in sorted walk order) wins."""
        root = os.fspath(path)
        if not os.path.isdir(root):
            raise ValueError(f"PackageMap.PopulateFromFolder: '{root}' is not a folder")
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            if "package.xml" in files:
                xml_path = os.path.join(folder, "package.xml")
                try:
                    name = _package_xml_name(xml_path)
                except ValueError:
                    continue  # an unreadable package.xml names no package
                if name not in self._paths:
                    self.Add(name, folder)

    def PopulateFromEnvironment(self, environment_variable: str) -> None:
        """`PopulateFromFolder` for each folder in a ``:``-separated environment variable."""
        for folder in os.environ.get(environment_variable, "").split(os.pathsep):
            if folder and os.path.isdir(folder):
                self.PopulateFromFolder(folder)

    def PopulateFromRosPackagePath(self) -> None:
        self.PopulateFromEnvironment("ROS_PACKAGE_PATH")

    def Remove(self, package_name: str) -> None:
        if package_name not in self._paths:
            raise ValueError(f"PackageMap.Remove: no package named '{package_name}'")
        del self._paths[package_name]

    # --- Queries --------------------------------------------------------------------------------
    def Contains(self, package_name: str) -> bool:
        return package_name in self._paths

    def GetPath(self, package_name: str) -> str:
        if package_name not in self._paths:
            raise ValueError(f"PackageMap.GetPath: no package named '{package_name}'; known: "
                             f"{sorted(self._paths)}")
        return self._paths[package_name]

    def GetPackageNames(self) -> list:
        return sorted(self._paths)

    def size(self) -> int:
        return len(self._paths)

    def ResolveUrl(self, url: str) -> str:
        """The absolute path of a ``package://``, ``model://`` or ``file://`` URL (it must
        exist); ValueError otherwise."""
        return resolve_uri(url, self, root_dir=None)

    def __repr__(self) -> str:
        return f"PackageMap({self._paths})"


def _package_xml_name(filename):
    try:
        with open(filename, "rb") as f:
            root = parse_xml(f.read(), Diagnostics(filename))
    except OSError as e:
        raise ValueError(f"PackageMap: cannot read '{filename}': {e}") from e
    name_el = root.find("name") if root.tag == "package" else None
    name = name_el.text.strip() if name_el is not None else ""
    if not name:
        raise ValueError(f"PackageMap: '{filename}' has no <package><name>")
    return name


def resolve_uri(uri: str, package_map: PackageMap, root_dir) -> str:
    """The absolute path of the existing file that ``uri`` names (rules in the module
    docstring); ValueError with the reason otherwise.

    Args:
        uri: the URI or path as written in the model.
        package_map: resolves ``package://`` and ``model://``.
        root_dir: the model file's folder, or None when the model came from a string.
    """
    if not isinstance(uri, str) or not uri.strip():
        raise ValueError("empty URI")
    uri = uri.strip()
    if "\x00" in uri:
        raise ValueError(f"URI {uri!r} contains a NUL character")
    scheme = next((s for s in _PACKAGE_SCHEMES if uri.startswith(s)), None)
    if scheme is not None:
        path = _resolve_package(uri, uri[len(scheme):], package_map)
    elif uri.startswith("file://"):
        path = uri[len("file://"):]
        if not os.path.isabs(path):
            raise ValueError(f"URI '{uri}': a file:// URI must hold an absolute path")
    elif "://" in uri:
        raise ValueError(f"URI '{uri}' has an unsupported scheme (use package://, model://, "
                         "file:// or a path)")
    elif os.path.isabs(uri):
        path = uri
    elif root_dir is None:
        raise ValueError(f"URI '{uri}' is a relative path, which is invalid when parsing a "
                         "string instead of a file")
    else:
        path = os.path.join(root_dir, uri)
    path = os.path.normpath(path)
    if not os.path.isfile(path):
        raise ValueError(f"URI '{uri}' resolved to '{path}', which does not exist")
    return path


def _resolve_package(uri, rest, package_map):
    name, sep, rel = rest.partition("/")
    if not name:
        guess = _empty_name_reading(uri, package_map)
        hint = (f" ('{guess}' would name a file of a known package)" if guess else "")
        raise ValueError(f"URI '{uri}' refers to an empty package name{hint}")
    if not package_map.Contains(name):
        raise ValueError(f"URI '{uri}' refers to unknown package '{name}' (add it with "
                         "Parser.package_map().Add(name, folder))")
    root = os.path.normpath(package_map.GetPath(name))
    if not sep or not rel or rel.startswith("/") or os.path.isabs(rel):
        raise ValueError(f"URI '{uri}' does not name a relative path inside package '{name}'")
    path = os.path.normpath(os.path.join(root, rel))
    if os.path.commonpath([root, path]) != root:
        raise ValueError(f"URI '{uri}' escapes the folder of package '{name}' ({root})")
    return path


def _empty_name_reading(uri, package_map):
    """``package://name/rel`` for a ``package:///name/rel`` whose ``name`` is a known package,
    else None."""
    scheme = next((s for s in _PACKAGE_SCHEMES if uri.startswith(s + "/")), None)
    if scheme is None:
        return None
    name = uri[len(scheme) + 1:].partition("/")[0]
    return scheme + uri[len(scheme) + 1:] if name and package_map.Contains(name) else None


class ParsingWorkspace:
    """What one parse needs besides the XML: its `Diagnostics`, the `PackageMap` and the model
    file's folder (None for a string), with `resolve` reporting failures at an element."""

    def __init__(self, diagnostics, package_map, root_dir):
        self.diag = diagnostics
        self.package_map = package_map
        self.root_dir = root_dir
        self._warned_empty_name = False

    def resolve(self, node, uri, what="file"):
        """The path that ``uri`` (written at ``node``) names; `ParseError` if unresolvable. A
        ``package:///name/...`` URI naming a known package resolves in it (see the module
        docstring), with a warning at its first occurrence."""
        reading = _empty_name_reading(uri.strip(), self.package_map) if isinstance(uri, str) else None
        if reading is not None:
            if not self._warned_empty_name:
                self._warned_empty_name = True
                self.diag.warning(node, f"URI '{uri.strip()}' has an empty package name; read as "
                                  f"'{reading}' (so are the model's other such URIs)")
            uri = reading
        try:
            return resolve_uri(uri, self.package_map, self.root_dir)
        except ValueError as e:
            self.diag.error(node, f"cannot resolve the {what}: {e}")
