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
    # an application, as the command line: the jaxbody facade ("") builds its tasks, and its
    # robots are loaded as `jaxbody simulate` loads them
    "envs": {"", "math", "core", "geometry", "joints", "plant", "cli"},
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


# --- MultibodyPlant's facade: topic files forward to the engine and never call each other -----
PLANT = ROOT / "plant"
TOPICS = sorted(PLANT.glob("_*_api.py")) + [PLANT / "multibody_plant.py"]


def _class_methods(path):
    tree = ast.parse(path.read_text(), str(path))
    names = {n.name for c in tree.body if isinstance(c, ast.ClassDef) for n in c.body
             if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    return names, tree


def test_no_plant_topic_file_calls_another():
    """Every `self.X` / `super().X` in a topic file of the plant resolves to its own file or to
    the shared base `PlantCore` (`plant/_core.py`: builder state, checks, lookups), never to a
    sibling topic file; no method is defined twice; every topic mixin inherits PlantCore."""
    base, _ = _class_methods(PLANT / "_core.py")
    owners = {}
    trees = {}
    for path in TOPICS:
        names, trees[path] = _class_methods(path)
        for name in names:
            owners.setdefault(name, set()).add(path.name)
    twice = {k: v for k, v in owners.items() if len(v) > 1 or (k in base and k != "__init__")}
    assert not twice, f"methods defined in several facade files: {twice}"
    calls = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            v = node.value
            on_self = isinstance(v, ast.Name) and v.id == "self"
            on_super = (isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                        and v.func.id == "super")
            owner = owners.get(node.attr, set())
            if (on_self or on_super) and owner and (on_super or path.name not in owner):
                calls.append(f"{path.name}:{node.lineno} -> {sorted(owner)}.{node.attr}")
        for c in tree.body:
            if isinstance(c, ast.ClassDef) and c.name.endswith("API"):
                assert "PlantCore" in [ast.unparse(b) for b in c.bases], c.name
    assert not calls, "facade files call each other:\n" + "\n".join(calls)


def test_engine_functions_never_read_a_plant():
    """No engine or model code reads a plant: no attribute of a plant's builder state
    (``._bodies``, ``._joints``, ...) or an element's owner (``._plant``, ``GetParentPlant``);
    the layering test already keeps ``jaxbody.plant`` out of their imports."""
    builder = {"_bodies", "_joints", "_actuators", "_frames", "_force_elements", "_geometries",
               "_instance_names", "_plant", "GetParentPlant", "_topology"}
    for pkg in ("engine", "model"):
        for path in (ROOT / pkg).rglob("*.py"):
            tree = ast.parse(path.read_text(), str(path))
            read = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} & builder
            assert not read, f"{path.name} reads {sorted(read)}"
