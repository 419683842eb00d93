"""The XLA flags the test suite compiles with (set by tests/conftest.py before JAX starts).

The suite's time is mostly XLA compiling (82% of the wall time measured on the rollout, SAP and
implicit-dynamics files), and the tests check values, not speed: LLVM's lowest optimization
level with the classic loop emitters takes about half the time per compile on 2 loaded cores.
Code that runs long after compiling (the learning notebook's policy-gradient loop) is slower
that way, so such a test can take the flags back out of a subprocess's environment.
"""

import os

TEST_XLA_FLAGS = "--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false"


def with_test_flags(xla_flags: str) -> str:
    """``xla_flags`` (an XLA_FLAGS value) with the suite's flags in front."""
    return f"{TEST_XLA_FLAGS} {xla_flags}".strip()


def without_test_flags(xla_flags: str) -> str:
    """``xla_flags`` with the suite's flags taken out (XLA's defaults for them)."""
    return " ".join(xla_flags.replace(TEST_XLA_FLAGS, " ").split())


def full_optimization_requested(environ=os.environ) -> bool:
    """Whether JAXBODY_TEST_FULL_OPT asks for XLA's defaults ("1"/"true"; unset, "", "0" or
    "false": the suite's flags); any other value is refused, naming the variable."""
    value = environ.get("JAXBODY_TEST_FULL_OPT", "").strip().lower()
    if value in ("", "0", "false"):
        return False
    if value in ("1", "true"):
        return True
    raise ValueError(f"JAXBODY_TEST_FULL_OPT={environ['JAXBODY_TEST_FULL_OPT']!r}: expected 1 or "
                     "true (XLA's default optimization), 0, false or unset (the suite's flags)")


def apply_to_environment(environ=os.environ) -> None:
    """Puts the flags in ``environ["XLA_FLAGS"]`` (once) unless `full_optimization_requested`."""
    flags = environ.get("XLA_FLAGS", "")
    if not full_optimization_requested(environ) and TEST_XLA_FLAGS not in flags:
        environ["XLA_FLAGS"] = with_test_flags(flags)


def in_effect(environ=os.environ) -> str:
    """The suite's flags if ``environ`` carries them, else "": for a test that builds a
    subprocess's XLA_FLAGS from scratch."""
    return TEST_XLA_FLAGS if TEST_XLA_FLAGS in environ.get("XLA_FLAGS", "") else ""
