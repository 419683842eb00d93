"""The package's layering: the computational layers never import the plant (the builder and
API facade) above them, so each can be read, tested and reused on its own."""

import ast
from pathlib import Path

import pytest

import jaxbody

ROOT = Path(jaxbody.__file__).parent

# package -> the jaxbody packages it may import (besides itself)
ALLOWED = {
    "math": set(),
    "geometry": {"math"},
    "algorithms": {"math", "joints"},
    "contact": {"math", "algorithms", "geometry"},
}


def _imported_packages(path):
    """The jaxbody subpackages a module imports, anywhere in it (also inside functions)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "jaxbody" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_layers_do_not_import_upwards(package):
    bad = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        extra = _imported_packages(path) - ALLOWED[package] - {package}
        if extra:
            bad[str(path.relative_to(ROOT))] = sorted(extra)
    assert not bad, f"{package}/ imports packages above it: {bad}"
