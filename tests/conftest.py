"""Test-suite configuration: every test runs in float64; in CI a missing reference engine is an
error, not a skipped cross-check."""

import gc
import os
import shutil
import tempfile

import pytest

from tests.helpers import compile_flags
from tests.helpers.installed import missing_distributions, missing_modules

# Compile at XLA's lowest LLVM optimization level (tests/helpers/compile_flags.py says why), set
# before JAX starts its backend so that subprocesses (CLI, notebooks) inherit it.
# JAXBODY_TEST_FULL_OPT=1 keeps XLA's defaults.
compile_flags.apply_to_environment()

import jax  # noqa: E402  (after the flags)

jax.config.update("jax_enable_x64", True)

# One persistent compilation cache for the whole run, shared by both pytest-xdist workers and
# the subprocesses they start: most of the suite's time is XLA compiling, and many modules
# compile the same function of the same small model (the contact and rollout files: 136 s
# without, see tests/helpers/compile_flags.py for the rest). The controller makes the folder
# (the workers inherit its environment) and removes it at the end.
# JAXBODY_TEST_SHARED_CACHE=0 turns it off.
SHARED_CACHE_VARIABLE = "JAXBODY_TEST_JIT_CACHE"


def _shared_compilation_cache():
    if os.environ.get("JAXBODY_TEST_SHARED_CACHE", "1").strip().lower() in ("0", "false"):
        return None
    folder = os.environ.get(SHARED_CACHE_VARIABLE)
    if not folder:  # the controller, or a run without workers
        folder = tempfile.mkdtemp(prefix="jaxbody-test-jit-cache-")
        os.environ[SHARED_CACHE_VARIABLE] = folder
        # JAX reads these at import: the CLI, notebook and multi-process tests' subprocesses
        os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", folder)
        os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return folder


_SHARED_CACHE = _shared_compilation_cache()
_OWNS_SHARED_CACHE = "PYTEST_XDIST_WORKER" not in os.environ


def pytest_unconfigure(config):
    if _SHARED_CACHE and _OWNS_SHARED_CACHE:
        shutil.rmtree(_SHARED_CACHE, ignore_errors=True)

# What the ``reference`` extra installs; the cross-checks skip without it on a developer machine.
REFERENCE_MODULES = ("pydrake", "pinocchio", "mujoco", "mujoco.mjx")
REFERENCE_DATA = ("example-robot-data",)  # a data wheel: a distribution, no module


RL_MODULES = ("brax",)  # the rl extra: Brax's trainers on jaxbody.envs


def missing_reference_modules():
    return (missing_modules(REFERENCE_MODULES) + missing_distributions(REFERENCE_DATA)
            + missing_modules(RL_MODULES))


def pytest_configure(config):
    if os.environ.get("CI", "").lower() in ("true", "1"):
        missing = missing_reference_modules()
        if missing:
            raise pytest.UsageError(
                f"CI=true but the reference engines or trainers {missing} are not installed: the cross-checks "
                "would be skipped. Install them with pip install -e \".[test,reference,rl]\".")


# Files that take minutes, handed to the two pytest-xdist workers first (addopts has
# --no-loadscope-reorder, so files go out in collection order): started last, the notebooks
# (about 11 minutes on one worker) left the other worker idle at the end of the run.
SLOW_FILES_FIRST = ("tests/test_notebooks.py", "tests/test_cli_first_hour.py",
                    "tests/geometry/test_hull_pair.py", "tests/algorithms/test_batch_minor.py",
                    "tests/reference/test_urdf_dynamics.py")


def pytest_collection_modifyitems(config, items):
    rank = {f: i for i, f in enumerate(SLOW_FILES_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable


# Clear JAX's caches once a worker holds this many memory mappings: a third of Linux's default
# limit, with room for the largest module's compilations (the reference tests grew by under
# 5,000 per module). Below it, compiled functions stay shared across modules.
MAX_MAPPINGS_KEPT = 20_000


def _mapping_count():
    try:
        with open("/proc/self/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:  # not Linux: no such limit to guard
        return 0


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_code():
    """Drop every compiled executable when a test module ends with the worker near the limit.

    XLA's CPU backend maps three memory regions for each executable it compiles, and JAX's jit
    caches (of module-level functions keyed on static plants, among others) keep them for the
    life of the process. A pytest-xdist worker runs hundreds of modules: it passed Linux's
    limit of 65,530 mappings per process (``vm.max_map_count``) and segfaulted inside XLA's
    compiler. Clearing the caches past `MAX_MAPPINGS_KEPT` keeps a worker well below it.
    """
    yield
    if _mapping_count() > MAX_MAPPINGS_KEPT:
        jax.clear_caches()
        gc.collect()
