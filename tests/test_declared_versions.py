"""The versions jaxbody declares are the versions CI tests: every floor in ``pyproject.toml``
is pinned in ``.ci/lowest.txt`` (which .ci/run installs into a second environment to run a fast
subset of the suite), and the README states the same range."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINNED = ("jax", "jaxlib", "numpy", "diffrax", "optax", "equinox", "trimesh", "pycollada")


def _floors():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return dict(re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", d).groups() for d in deps)


def _pins():
    lines = (ROOT / ".ci" / "lowest.txt").read_text().splitlines()
    return dict(line.split("==") for line in lines if line and not line.startswith("#"))


def _release(v):
    parts = [int(x) for x in v.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def test_every_floor_is_pinned_in_the_lowest_versions_ci_installs():
    floors, pins = _floors(), _pins()
    assert set(pins) == set(floors), (set(pins) ^ set(floors))
    for name, floor in floors.items():
        assert _release(pins[name]) == _release(floor), (name, floor, pins[name])


def test_ci_runs_the_lowest_versions():
    run = (ROOT / ".ci" / "run").read_text()
    assert "-r .ci/lowest.txt" in run


def test_readme_states_the_tested_range():
    readme = (ROOT / "README.md").read_text()
    pins = _pins()
    for name in PINNED:
        assert f"{name} {pins[name]}" in readme, name
