"""The suite's XLA compile flags (tests/helpers/compile_flags.py): set once, taken out again
for the notebooks that run long loops, kept for subprocesses, and the switch refuses values it
does not know."""

import os

import pytest

from tests.helpers import compile_flags as cf

OTHER = "--xla_force_host_platform_device_count=4"


def test_this_run_compiles_with_the_flags_unless_full_optimization_was_asked():
    asked = cf.full_optimization_requested()
    assert (cf.TEST_XLA_FLAGS in os.environ.get("XLA_FLAGS", "")) is not asked
    assert cf.in_effect() == ("" if asked else cf.TEST_XLA_FLAGS)


def test_flags_are_added_once_and_removed_without_touching_the_others():
    env = {"XLA_FLAGS": OTHER}
    cf.apply_to_environment(env)
    assert env["XLA_FLAGS"] == f"{cf.TEST_XLA_FLAGS} {OTHER}"
    cf.apply_to_environment(env)  # a nested run (a subprocess inheriting them): not twice
    assert env["XLA_FLAGS"].count(cf.TEST_XLA_FLAGS) == 1
    assert cf.in_effect(env) == cf.TEST_XLA_FLAGS
    assert cf.without_test_flags(env["XLA_FLAGS"]) == OTHER
    assert cf.without_test_flags(cf.TEST_XLA_FLAGS) == ""
    assert cf.in_effect({"XLA_FLAGS": OTHER}) == "" and cf.in_effect({}) == ""


@pytest.mark.parametrize("value, full", [("1", True), ("true", True), ("TRUE", True),
                                         ("0", False), ("false", False), ("", False)])
def test_full_optimization_switch(value, full):
    env = {"JAXBODY_TEST_FULL_OPT": value}
    assert cf.full_optimization_requested(env) is full
    cf.apply_to_environment(env)
    assert (cf.TEST_XLA_FLAGS in env.get("XLA_FLAGS", "")) is not full


@pytest.mark.parametrize("value", ["yes", "2", "full"])
def test_an_unknown_switch_value_is_refused_by_name(value):
    with pytest.raises(ValueError, match=f"JAXBODY_TEST_FULL_OPT='{value}': expected 1 or true"):
        cf.apply_to_environment({"JAXBODY_TEST_FULL_OPT": value})
