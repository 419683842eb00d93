"""Executes every notebook in notebooks/ top to bottom with nbclient (outputs are not saved).

Each notebook runs in a fresh kernel from the notebooks/ folder under its own time limit
(`LIMITS`: the nbclient per-cell timeout, and the whole run checked against it); notebooks
expected to take over a minute are marked slow (still run in CI). Figures go to a temporary
folder (``JAXBODY_FIGURE_DIR``), so a test run leaves the committed PNGs in notebooks/figures/
untouched. ``JAXBODY_NOTEBOOK_BATCH=512`` runs the batched-rollouts notebook on 512 of its 4096
environments: the same code paths at an eighth of the work. ``JAXBODY_NOTEBOOK_QUICK=1`` runs
the learning notebook at its small settings: the cart-pole PPO and the push task's policy
gradients at the budgets its assertions need, the rest a few iterations.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.helpers.compile_flags import without_test_flags
from tests.helpers.installed import missing_distributions

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


class Limit(NamedTuple):
    seconds: int  # time limit of the whole notebook (and of any one cell)
    expected_s: int  # typical run time on 2 loaded CPU cores; > 60 marks the test slow
    requires: tuple = ()  # distributions the notebook needs (skipped without them)
    # XLA's default optimization in the kernel, not the suite's compile-fast flags: for
    # notebooks whose loops run long after compiling (learning: 410 s against 516 s beside the
    # suite; mass identification: 57 s against 96 s)
    optimized: bool = False


LIMITS = {
    "batched_rollouts.ipynb": Limit(600, 60, ("example-robot-data",)),
    "mass_identification.ipynb": Limit(600, 150, ("example-robot-data",), optimized=True),
    "learning.ipynb": Limit(900, 300, ("brax", "example-robot-data"), optimized=True),
}
DEFAULT_LIMIT = Limit(600, 600)


def _params():
    out = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        limit = LIMITS.get(path.name, DEFAULT_LIMIT)
        marks = [pytest.mark.slow] if limit.expected_s > 60 else []
        out.append(pytest.param(path, limit, marks=marks, id=path.stem))
    return out


def test_notebooks_folder_is_not_empty():
    assert list(NOTEBOOKS.glob("*.ipynb")), f"no notebooks in {NOTEBOOKS}"


@pytest.mark.parametrize("path, limit", _params())
def test_notebook_runs(path, limit, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    missing = missing_distributions(limit.requires)
    if missing:
        pytest.skip(f"{path.name} needs {', '.join(missing)}")
    monkeypatch.setenv("JAXBODY_FIGURE_DIR", str(tmp_path))
    monkeypatch.setenv("JAXBODY_NOTEBOOK_BATCH", "512")
    monkeypatch.setenv("JAXBODY_NOTEBOOK_QUICK", "1")
    if limit.optimized:
        monkeypatch.setenv("XLA_FLAGS", without_test_flags(os.environ.get("XLA_FLAGS", "")))
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=limit.seconds, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError, with the cell's traceback, on any error
    elapsed = time.perf_counter() - start
    assert elapsed <= limit.seconds, f"{path.name} took {elapsed:.0f} s (limit {limit.seconds} s)"
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", ())
              if o.get("output_type") == "error"]
    assert not errors, errors
