"""Re-exports `benchmarks.robot_files` (where the real robot descriptions live), which the
benchmarks share with the tests."""

from benchmarks.robot_files import *  # noqa: F403
from benchmarks.robot_files import ERD_PACKAGE  # noqa: F401
