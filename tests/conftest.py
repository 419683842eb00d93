"""Test-suite configuration: every test runs in float64; in CI a missing reference engine is an
error, not a skipped cross-check."""

import gc
import os

import jax
import pytest

from tests.helpers.installed import missing_distributions, missing_modules

jax.config.update("jax_enable_x64", True)

# What the ``reference`` extra installs; the cross-checks skip without it on a developer machine.
REFERENCE_MODULES = ("pydrake", "pinocchio", "mujoco", "mujoco.mjx")
REFERENCE_DATA = ("example-robot-data",)  # a data wheel: a distribution, no module


def missing_reference_modules():
    return missing_modules(REFERENCE_MODULES) + missing_distributions(REFERENCE_DATA)


def pytest_configure(config):
    if os.environ.get("CI", "").lower() in ("true", "1"):
        missing = missing_reference_modules()
        if missing:
            raise pytest.UsageError(
                f"CI=true but the reference engines {missing} are not installed: the cross-checks "
                "would be skipped. Install them with pip install -e \".[test,reference]\".")


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_code():
    """Drop every compiled executable when a test module ends.

    XLA's CPU backend maps three memory regions for each executable it compiles, and JAX's jit
    caches (of module-level functions keyed on static plants, among others) keep them for the
    life of the process. A pytest-xdist worker runs hundreds of modules: it passed Linux's
    limit of 65,530 mappings per process (``vm.max_map_count``) and segfaulted inside XLA's
    compiler. Clearing the caches between modules keeps a worker near its peak for one module.
    """
    yield
    jax.clear_caches()
    gc.collect()
