"""Test-suite configuration: every test runs in float64; in CI a missing reference engine is an
error, not a skipped cross-check."""

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
