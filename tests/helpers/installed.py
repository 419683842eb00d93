"""What is installed: modules and distributions (data wheels have no module)."""

from __future__ import annotations

import importlib.metadata
import importlib.util


def missing_distributions(names):
    """The names among ``names`` with no installed distribution (pip's package names)."""
    missing = []
    for name in names:
        try:
            importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    return missing


def missing_modules(names):
    """The dotted module names among ``names`` that can't be imported."""
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except ImportError:  # a parent package is missing
            found = False
        if not found:
            missing.append(name)
    return missing
