"""In CI (``CI=true``) a missing reference engine stops the run instead of skipping cross-checks."""

import importlib.util

import pytest

from tests import conftest


def test_missing_engine_is_reported_and_fails_in_ci(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pinocchio" else real(name, *a))
    assert "pinocchio" in conftest.missing_reference_modules()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.UsageError, match=r"\['pinocchio'"):
        conftest.pytest_configure(None)
    monkeypatch.setenv("CI", "")
    conftest.pytest_configure(None)  # a developer machine: the cross-checks skip instead
