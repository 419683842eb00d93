"""The package's layering: each layer imports only the layers below it, no module or package
imports itself back through others (no cycles), and function-local imports of jaxbody modules
are the few lazy optional ones, each with its reason."""

import ast
from pathlib import Path

import pytest

import jaxbody

ROOT = Path(jaxbody.__file__).parent

# package -> the jaxbody packages it may import (besides itself), lowest layers first
ALLOWED = {
    "math": set(),
    "core": {"math"},
    "geometry": {"math"},
    "joints": {"math", "core"},
    "algorithms": {"math", "joints"},
    "contact": {"math", "algorithms", "geometry"},
    "forces": {"math", "core", "joints"},
    "model": {"math", "core", "geometry", "joints", "algorithms", "contact", "forces"},
    "engine": {"math", "core", "geometry", "joints", "algorithms", "contact", "forces", "model"},
    "plant": {"math", "core", "geometry", "joints", "algorithms", "contact", "forces", "model",
              "engine"},
    "simulation": {"math", "core", "algorithms", "contact", "plant"},
    "parsers": {"math", "core", "geometry", "joints", "forces", "plant"},
    "identification": {"math", "core", "algorithms", "model", "engine", "plant", "simulation"},
}
MAX_LOCAL_IMPORTS = 5  # function-local imports of jaxbody modules (lazy optional extras only)


def _module_name(path):
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in ROOT.rglob("*.py")}


def _imports(path):
    """[(imported jaxbody module, whether the import is at module level)] of a module."""
    tree = ast.parse(path.read_text(), str(path))
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            while name and name not in MODULES:  # a name imported from a module: the module
                name = name.rpartition(".")[0]
            if name.startswith("jaxbody"):
                out.append((name, id(node) in top))
    return out


def _package(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycles(graph):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _module_graph():
    """Module -> imported modules; package __init__ files (re-exports) are left out."""
    return {m: {i for i, _ in _imports(p) if i != m and MODULES[i].name != "__init__.py"}
            for m, p in MODULES.items() if p.name != "__init__.py"}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_layers_do_not_import_upwards(package):
    bad = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        extra = {_package(m) for m, _ in _imports(path)} - ALLOWED[package] - {package}
        if extra:
            bad[str(path.relative_to(ROOT))] = sorted(extra)
    assert not bad, f"{package}/ imports packages above it: {bad}"


def test_no_import_cycles_between_modules_or_packages():
    graph = _module_graph()
    assert not _cycles(graph), f"module import cycles: {_cycles(graph)}"
    packages = {}
    for m, imported in graph.items():
        for i in imported:
            if _package(m) != _package(i) and _package(m) and _package(i):
                packages.setdefault(_package(m), set()).add(_package(i))
    assert not _cycles(packages), f"package import cycles: {_cycles(packages)}"


def test_function_local_imports_are_few_and_explained():
    local = []
    for m, path in MODULES.items():
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines))
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top:
                name = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                if name and name.startswith("jaxbody") and not getattr(node, "level", 0):
                    text = lines[node.lineno - 1]
                    local.append((m, node.lineno, "lazy" in text))
    assert len(local) <= MAX_LOCAL_IMPORTS, local
    assert all(explained for *_, explained in local), [x for x in local if not x[2]]


def test_the_cycle_detector_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
