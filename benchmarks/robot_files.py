"""Where the real robot descriptions live: example-robot-data's and Drake's bundled URDFs.

Both come from installed wheels (never vendored): ``example-robot-data`` (a cmeel wheel whose
files sit under ``<prefix>/share/example-robot-data``, package name ``example-robot-data``)
and pydrake's ``share/drake`` (package ``drake``). Each helper returns None when the wheel is
missing, so tests can skip cleanly.
"""

from __future__ import annotations

import functools
import glob
import importlib.metadata
import os

ERD_PACKAGE = "example-robot-data"


@functools.cache
def example_robot_data_dir():
    """The folder holding example-robot-data's ``package.xml`` and ``robots/``, or None."""
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in dist.files or ():
        if str(f).replace("\\", "/").endswith("share/example-robot-data/package.xml"):
            return os.path.dirname(str(dist.locate_file(f)))
    return None


@functools.cache
def drake_share_dir():
    """pydrake's ``share/drake`` folder (package ``drake``), or None."""
    try:
        from pydrake.common import FindResourceOrThrow
    except ImportError:
        return None
    return os.path.dirname(FindResourceOrThrow("drake/package.xml"))


def add_packages(package_map):
    """Adds both packages (where installed) to a jaxbody or pydrake `PackageMap`."""
    erd, drake = example_robot_data_dir(), drake_share_dir()
    if erd is not None and not package_map.Contains(ERD_PACKAGE):
        package_map.Add(ERD_PACKAGE, erd)
    if drake is not None and not package_map.Contains("drake"):
        package_map.Add("drake", drake)


def all_urdfs():
    """Every URDF of example-robot-data and of Drake's bundled models, sorted."""
    files = []
    for root in (example_robot_data_dir(), drake_share_dir()):
        if root is not None:
            files += sorted(glob.glob(os.path.join(root, "**", "*.urdf"), recursive=True))
    return files


def robot(relative_path):
    """The path of an example-robot-data file given relative to its ``robots/`` folder."""
    root = example_robot_data_dir()
    return None if root is None else os.path.join(root, "robots", relative_path)


def short_name(path):
    """A path relative to its package folder, for messages."""
    for root in (example_robot_data_dir(), drake_share_dir()):
        if root is not None and path.startswith(root):
            return os.path.relpath(path, root)
    return path
