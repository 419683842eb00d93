"""The jaxbody command line.

    jaxbody simulate [MODEL] [--duration 2] [--time-step 1e-3 | --time-step 0 --dt 1e-3]
                     [--batch N] [--fixed-base] [--hold] [--out traj.npz] [--html out.html]
    jaxbody info [MODEL]
    jaxbody bench [--quick]
    jaxbody demo

simulate runs a URDF, SDFormat or MJCF file (dropped onto a ground plane), or with no file a
contact scene built in code, and prints steps/s, build and compile time, energy, contacts and
solver statistics. info lists a model's bodies, joints, dofs, actuators and kinematic tree.
bench runs the repository's benchmark suite and prints jaxbody's speedups. demo times forward
kinematics and Jacobians of a 7-dof arm. 'jaxbody COMMAND --help' describes each command's
options.

Compiled simulations are kept in a cache on disk ($JAXBODY_CACHE_DIR, default
~/.cache/jaxbody/jax; set it empty, or pass --no-cache, to turn it off), so that running the
same model again skips most of the compile time. Errors print one line and exit with status 1
(2 for a bad option); --traceback shows the Python traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys

import jax

from jaxbody.cli import bench, demo, info, simulate
from jaxbody.cli.models import CliError, load_model
from jaxbody.cli.scenes import SCENES

__all__ = ["CliError", "SCENES", "load_model", "main"]

MAX_WARNINGS = 3  # parser warnings printed in full; the rest are counted


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        raise _UsageError(f"{self.prog}: error: {message} (see '{self.prog} --help')")


def _plain(text):
    """Docstring markup (RST backticks) out of help text."""
    return text.replace("``", "").replace("`", "")


def _parser():
    doc = __doc__.split("\n\n")
    parser = _Parser(prog="jaxbody", description=doc[0] + "\n\n" + "\n\n".join(doc[2:]),
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traceback", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", metavar="{simulate,info,bench,demo}")
    for name, module, text in (
            ("simulate", simulate, "simulate a model file or the built-in contact scene"),
            ("info", info, "list a model's bodies, joints, dofs, actuators and tree"),
            ("bench", bench, "run the benchmark suite and print jaxbody's speedups")):
        p = sub.add_parser(name, help=text, description=_plain(module.__doc__.split("\n\n")[0]))
        module.add_arguments(p)
    p = sub.add_parser("demo", help="forward kinematics and Jacobians of a 7-dof arm")
    p.add_argument("--batch", type=int, default=1024)
    return parser


def _enable_compilation_cache():
    """Points JAX's persistent compilation cache at ``$JAXBODY_CACHE_DIR`` (default
    ``~/.cache/jaxbody/jax``) unless it is empty, the folder cannot be made, or a cache is
    already configured."""
    folder = os.environ.get("JAXBODY_CACHE_DIR")
    if folder is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "jaxbody", "jax")
    if not folder or jax.config.jax_compilation_cache_dir:
        return
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)


def main(argv=None) -> int:
    """Runs the command line; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
    except _UsageError as e:
        print(e, file=sys.stderr)
        return 2
    if args.command is None:  # no command: say what there is
        _parser().print_help()
        return 0
    command = args.command
    warnings = []

    def warn(message):
        if len(warnings) < MAX_WARNINGS:
            print(f"jaxbody {command}: warning: {message}", file=sys.stderr)
        warnings.append(message)

    jax.config.update("jax_enable_x64", True)
    try:
        if command == "demo":
            demo.run(getattr(args, "batch", 1024))
            return 0
        if command == "simulate" and not args.no_cache:
            _enable_compilation_cache()
        lines = {"simulate": simulate, "info": info}[command].run(args, warn) \
            if command != "bench" else bench.run(args)
    except KeyboardInterrupt:
        print(f"jaxbody {command}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 (every error is reported as one line)
        if args.traceback:
            raise
        message = " ".join(str(e).split()) or type(e).__name__
        if not isinstance(e, (CliError, ValueError, OSError, RuntimeError)):
            message = f"{type(e).__name__}: {message}"
        print(f"jaxbody {command}: error: {message}", file=sys.stderr)
        return 1
    if len(warnings) > MAX_WARNINGS:
        print(f"jaxbody {command}: ({len(warnings) - MAX_WARNINGS} more parser warnings)",
              file=sys.stderr)
    if lines:
        print("\n".join(lines))
    return 0
