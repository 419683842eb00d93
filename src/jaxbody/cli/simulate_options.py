"""The options of ``jaxbody simulate`` and their checks, all made before anything is parsed,
built or compiled: values in range, options that apply to the chosen plant, output files that
can be written, and the extras that ``--html`` and ``--plot`` need."""

from __future__ import annotations

import argparse
import importlib.util
import math
import os

from jaxbody.cli.models import CliError
from jaxbody.cli.scenes import SCENES

DEFAULT_CHUNK = 250  # steps per compiled chunk (one progress-bar update)


def add_arguments(p):
    p.add_argument("model", nargs="?", default=None,
                   help="URDF, SDFormat (.sdf) or MJCF (.xml) file; none: the --scene built in code")
    p.add_argument("--scene", default="boxes", choices=sorted(SCENES),
                   help="the built-in scene without MODEL (default: boxes, a contact scene)")
    p.add_argument("--duration", type=float, metavar="S", default=2.0,
                   help="simulated time in seconds (default 2)")
    p.add_argument("--time-step", type=float, metavar="S", default=1e-3,
                   help="step of the discrete plant in seconds, with SAP contact (default 1e-3); "
                        "0 makes the plant continuous (compliant point contact, integrated)")
    p.add_argument("--integrator", default=None,
                   choices=["rk4", "rk2", "semi_implicit_euler", "explicit_euler"],
                   help="integrator of a continuous plant (--time-step 0 only; default rk4)")
    p.add_argument("--dt", type=float, metavar="S", default=None,
                   help="integrator step in seconds (--time-step 0 only; default 1e-3)")
    p.add_argument("--ground", action=argparse.BooleanOptionalAction, default=True,
                   help="model files: add a ground plane at z = 0 (default: yes)")
    p.add_argument("--self-collision", action="store_true",
                   help="model files: let the model's own parts collide with each other")
    points = p.add_mutually_exclusive_group()
    points.add_argument("--single-point", action="store_true",
                        help="model files: Drake's one contact point per geometry pair (the "
                             "default)")
    points.add_argument("--multi-point", action="store_true",
                        help="model files: multi-point contact manifolds (box faces, hull "
                             "vertices), as MuJoCo has them, instead of Drake's one point per "
                             "pair: boxes rest on their faces; costlier on large mesh hulls")
    p.add_argument("--max-hull-vertices", type=int, default=None, metavar="N",
                   help="model files: simplify each mesh's convex hull to at most N (>= 4) of "
                        "its vertices, for speed (default: the exact hulls, as Drake)")
    p.add_argument("--max-hull-pairs", type=int, default=None, metavar="N",
                   help="model files: keep at most N mesh-hull pairs per kind of pair and "
                        "step, the closest (default 48; GJK/EPA solves only those whose "
                        "bounding boxes touch); a step that drops a touching pair is counted "
                        "in the summary's WARNING")
    p.add_argument("--fixed-base", action="store_true",
                   help="model files: weld the model's root body to the world where the file "
                        "puts it (for arms); otherwise a model without a fixed base floats "
                        "and starts resting on the ground")
    p.add_argument("--hold", action="store_true",
                   help="hold the initial posture with PD control on every actuated joint "
                        "(discrete plants), so legged robots stand")
    p.add_argument("--actuate-all", action="store_true",
                   help="model files: put an actuator on every 1-dof joint that has none (for "
                        "files that declare no actuators, e.g. go2's URDF), so --hold can hold "
                        "them")
    p.add_argument("--posture", metavar="NAME", default=None,
                   help="model files: start from the SRDF group state NAME (from --srdf, or the "
                        ".srdf files in ../srdf/ beside the model, as example-robot-data has "
                        "them); with --hold, 'standing' is used when it is there")
    p.add_argument("--srdf", metavar="FILE.srdf", default=None,
                   help="the SRDF file that --posture reads")
    p.add_argument("--batch", type=int, metavar="N", default=1,
                   help="run N copies from perturbed initial states at once (vmapped)")
    p.add_argument("--perturb", type=float, metavar="STD", default=0.01,
                   help="with --batch: the spread of the initial positions (rad or m; "
                        "velocities get 10 times it), default 0.01")
    p.add_argument("--seed", type=int, metavar="SEED", default=0,
                   help="random seed of the --batch perturbations")
    p.add_argument("--chunk", type=int, metavar="STEPS", default=DEFAULT_CHUNK,
                   help="steps per compiled piece of the run (one progress update each)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show what is happening and a progress bar (default: when the error "
                        "stream is a terminal)")
    p.add_argument("--out", metavar="FILE.npz",
                   help="save times, q, v (and contacts when discrete) to this .npz file; a plot "
                        "of energy, contacts and solver iterations goes beside it (FILE.png)")
    p.add_argument("--html", metavar="FILE.html",
                   help="write a web page that plays the motion (needs jaxbody[viz])")
    p.add_argument("--serve", action="store_true",
                   help="after the run, play it in a live meshcat viewer (a local web page) "
                        "and keep serving it until Ctrl-C (needs jaxbody[viz])")
    p.add_argument("--package-path", action="append", default=[], metavar="FOLDER",
                   help="a folder searched for package.xml files (repeatable)")
    p.add_argument("--package", action="append", default=[], metavar="NAME=FOLDER",
                   help="resolve package://NAME/ to FOLDER (repeatable)")
    p.add_argument("--no-cache", action="store_true",
                   help="do not reuse compiled code from earlier runs (see 'jaxbody --help')")


def _finite(what, value, low, strict):
    ok = math.isfinite(value) and (value > low if strict else value >= low)
    if not ok:
        raise CliError(f"{what} must be a finite number {'>' if strict else '>='} {low:g}, got "
                       f"{value}")
    return value


def _writable(option, path, suffix):
    if not path.lower().endswith(suffix):
        raise CliError(f"{option}: the file name must end in {suffix}, got {path}")
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CliError(f"{option}: cannot write {path}: it is a folder")
    if not os.path.isdir(folder):
        raise CliError(f"{option}: cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise CliError(f"{option}: cannot write {path}: permission denied")


def _needs(option, modules):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise CliError(f"{option} needs the viz extra (pip install 'jaxbody[viz]'): "
                       f"{', '.join(missing)} is not installed")


def validate(args):
    """Checks ``args`` and fills in the continuous-time defaults; raises `CliError`."""
    _finite("--duration", args.duration, 0.0, True)
    _finite("--time-step", args.time_step, 0.0, False)
    if args.batch < 1 or args.chunk < 1:
        raise CliError(f"--batch and --chunk must be >= 1, got {args.batch} and {args.chunk}")
    _finite("--perturb", args.perturb, 0.0, False)
    continuous = args.time_step == 0
    if not continuous:
        for option, value in (("--integrator", args.integrator), ("--dt", args.dt)):
            if value is not None:
                raise CliError(f"{option} applies to a continuous plant only (--time-step 0); "
                               f"this run is discrete with --time-step {args.time_step:g}")
    else:
        if args.hold:
            raise CliError("--hold needs a discrete plant (--time-step > 0): the PD controllers "
                           "act inside the SAP step")
        args.integrator = args.integrator or "rk4"
        args.dt = _finite("--dt", 1e-3 if args.dt is None else args.dt, 0.0, True)
    if args.model is None and (args.fixed_base or args.hold or args.posture or args.srdf
                               or args.actuate_all):
        raise CliError("--fixed-base, --hold, --actuate-all, --posture and --srdf apply to model "
                       "files; the built-in scenes have neither a base nor actuators")
    for flag, value, low in (("--max-hull-vertices", args.max_hull_vertices, 4),
                             ("--max-hull-pairs", args.max_hull_pairs, 1)):
        if value is None:
            continue
        if args.model is None:
            raise CliError(f"{flag} applies to model files; the built-in scenes have no meshes")
        if value < low:
            raise CliError(f"{flag} must be at least {low}, got {value}")
    if args.model is None and (args.single_point or args.multi_point):
        flag = "--single-point" if args.single_point else "--multi-point"
        raise CliError(f"{flag} applies to model files; the built-in scenes keep their own "
                       "contact settings")
    if args.srdf and not os.path.isfile(args.srdf):
        raise CliError(f"--srdf: file not found: {args.srdf}")
    if args.out:
        _writable("--out", args.out, ".npz")
    if args.html:
        _writable("--html", args.html, ".html")
        try:
            import jaxbody.visualization  # noqa: F401 (lazy: checks the optional viz extra)
        except ImportError as e:
            raise CliError(f"--html needs the viz extra (pip install 'jaxbody[viz]'): {e}") \
                from None
        _needs("--html", ["meshcat"])
    if args.serve:
        _needs("--serve", ["meshcat"])
    return args
