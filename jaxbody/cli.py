"""The ``jaxbody`` command line.

``jaxbody demo`` builds a 7-joint arm, evaluates forward kinematics and the end-effector
Jacobian for a batch of random configurations with ``jit(vmap(...))``, and prints the results
and timings.

``jaxbody simulate [MODEL]`` simulates a model file (URDF, SDFormat or MJCF, through
`jaxbody.Parser`; ``package://`` URIs resolve through ``--package NAME=FOLDER``, the
``package.xml`` files above the model and in ``--package-path`` folders, and the installed
example-robot-data wheel), or with no model a built-in double pendulum, in continuous
time (`jaxbody.rollout`: no contact yet), and prints a one-line summary (steps per second,
energy drift). ``--out traj.npz`` saves the trajectory (times, q, v); ``--html out.html``
writes a self-contained page that plays it (needs the ``viz`` extra). Errors print one line
and exit with status 1.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time


def _demo(batch: int) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    import jaxbody as jb

    jax.config.update("jax_enable_x64", True)
    plant = jb.MultibodyPlant(0.0)
    parent = plant.world_body()
    axes = [[0, 0, 1], [0, 1, 0], [0, 0, 1], [0, -1, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1]]
    for i, axis in enumerate(axes):
        link = plant.AddRigidBody(f"link{i + 1}", jb.SpatialInertia.SolidCylinderWithMass(
            2.0, 0.05, 0.3, [0, 0, 1]))
        X_PF = jb.RigidTransform(p=[0.0, 0.0, 0.3 if i else 0.1])
        F = plant.AddFrame(jb.FixedOffsetFrame(f"joint{i + 1}_parent", parent.body_frame(), X_PF))
        plant.AddJoint(jb.RevoluteJoint(f"joint{i + 1}", F, link.body_frame(), axis))
        parent = link
    plant.Finalize()
    ee = parent.body_frame()
    W = plant.world_frame()
    ctx = plant.CreateDefaultContext()

    def fk_and_jacobian(q):
        c = plant.SetPositions(ctx, q)
        X = plant.EvalBodyPoseInWorld(c, parent)
        J = plant.CalcJacobianSpatialVelocity(c, jb.JacobianWrtVariable.kV, ee, jnp.zeros(3), W, W)
        return X.translation(), J

    f = jax.jit(jax.vmap(fk_and_jacobian))
    qs = jnp.asarray(np.random.default_rng(0).uniform(-1, 1, size=(batch, 7)))
    t0 = time.perf_counter()
    compiled = f.lower(qs).compile()
    t1 = time.perf_counter()
    p, J = compiled(qs)
    jax.block_until_ready(J)
    t2 = time.perf_counter()
    print(f"jaxbody {jb.__version__}: 7-dof arm, {plant.num_bodies()} bodies, "
          f"nq={plant.num_positions()}")
    print(f"end-effector position at q[0]: {np.asarray(p[0]).round(4)}")
    print(f"Jacobian batch shape: {J.shape}")
    print(f"compile {1e3 * (t1 - t0):.1f} ms, run ({batch} configurations) "
          f"{1e3 * (t2 - t1):.2f} ms")


class CliError(Exception):
    """A user error: printed as one line, exit status 1."""


def default_scene():
    """The scene of ``jaxbody simulate`` with no model: a double pendulum swinging about y
    from a 1.2 m high pivot (point masses at the link tips; capsule links and sphere bobs as
    visual geometry), started at q = (2.0, -0.8) rad."""
    import numpy as np

    import jaxbody as jb

    plant = jb.MultibodyPlant(0.0)
    W = plant.world_frame()
    lengths, masses, colors = (0.5, 0.4), (1.0, 0.6), ([0.2, 0.45, 0.85, 1], [0.9, 0.45, 0.1, 1])
    plant.RegisterVisualGeometry(plant.world_body(), jb.RigidTransform(p=[0, 0, 1.2]),
                                 jb.Box(0.08, 0.3, 0.05), "pivot", [0.3, 0.3, 0.3, 1])
    parent = plant.AddFrame(jb.FixedOffsetFrame("pivot", W, jb.RigidTransform(p=[0, 0, 1.2])))
    for i, (L, m, rgba) in enumerate(zip(lengths, masses, colors)):
        link = plant.AddRigidBody(f"link{i + 1}", jb.SpatialInertia.PointMass(m, np.array([0, 0, -L])))
        plant.RegisterVisualGeometry(link, jb.RigidTransform(p=[0, 0, -L / 2]),
                                     jb.Capsule(0.02, L), "rod", rgba)
        plant.RegisterVisualGeometry(link, jb.RigidTransform(p=[0, 0, -L]),
                                     jb.Sphere(0.05 + 0.02 * m), "bob", rgba)
        plant.AddJoint(jb.RevoluteJoint(f"joint{i + 1}", parent, link.body_frame(), [0, 1, 0]))
        parent = plant.AddFrame(jb.FixedOffsetFrame(f"link{i + 1}_tip", link.body_frame(),
                                                    jb.RigidTransform(p=[0, 0, -L])))
    plant.Finalize()
    plant.SetDefaultPositions(np.array([2.0, -0.8]))
    return plant


def _add_upstream_packages(package_map, model_path):
    """Adds the package of every ``package.xml`` in the model's folder and its parents (as
    Drake's PackageMap::PopulateUpstreamToDrake)."""
    folder = os.path.dirname(os.path.abspath(model_path))
    while True:
        xml = os.path.join(folder, "package.xml")
        if os.path.isfile(xml):
            try:
                package_map.AddPackageXml(xml)
            except ValueError:
                pass  # an unreadable or already-known package.xml names nothing new
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def _example_robot_data():
    """The folder of the installed ``example-robot-data`` wheel's package (its URDFs name it
    ``package://example-robot-data``, its package.xml another name), or None."""
    import importlib.metadata

    try:
        files = importlib.metadata.distribution("example-robot-data").files or ()
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if str(f).replace("\\", "/").endswith("share/example-robot-data/package.xml"):
            return os.path.dirname(str(f.locate()))
    return None


def load_model(path, package_paths=(), packages=()):
    """A finalized continuous plant of the models in ``path``.

    Packages come from ``packages`` (``NAME=FOLDER``), the ``package_paths`` folders, the
    ``package.xml`` files above the model, and the installed example-robot-data wheel."""
    import jaxbody as jb

    if not os.path.isfile(path):
        raise CliError(f"model file not found: {path}")
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    pm = parser.package_map()
    for spec in packages:
        name, sep, folder = spec.partition("=")
        if not sep or not name or not os.path.isdir(folder):
            raise CliError(f"--package: expected NAME=FOLDER with an existing folder, got {spec!r}")
        pm.Add(name, folder)
    for folder in package_paths:
        if not os.path.isdir(folder):
            raise CliError(f"--package-path: not a folder: {folder}")
        pm.PopulateFromFolder(folder)
    _add_upstream_packages(pm, path)
    erd = _example_robot_data()
    if erd is not None and not pm.Contains("example-robot-data"):
        pm.Add("example-robot-data", erd)
    parser.AddModels(path)
    plant.Finalize()
    return plant


def _positive(what, value):
    if not (math.isfinite(value) and value > 0):
        raise CliError(f"{what} must be a finite number > 0, got {value}")
    return value


def _simulate(args) -> str:
    import jax
    import numpy as np

    import jaxbody as jb

    jax.config.update("jax_enable_x64", True)
    duration = _positive("--duration", args.duration)
    dt = _positive("--time-step", args.time_step)
    num_steps = max(1, round(duration / dt))
    if args.model is None:
        plant, name = default_scene(), "double pendulum"
    else:
        plant = load_model(args.model, args.package_path, args.package)
        name = os.path.basename(args.model)
    context = plant.CreateDefaultContext()

    def run():
        out = jb.rollout(plant, context, num_steps=num_steps, dt=dt, integrator=args.integrator)
        return jax.block_until_ready(out)

    t0 = time.perf_counter()
    run()  # compiles
    t1 = time.perf_counter()
    out = run()
    t2 = time.perf_counter()
    bad = int(out.first_nonfinite_step)
    if bad >= 0:
        raise CliError(f"the state became non-finite at step {bad} (t = {bad * dt:g} s); try a "
                       "smaller --time-step")
    nq = plant.num_positions()
    states = np.asarray(out.states)
    energies = [float(plant.CalcKineticEnergy(c) + plant.CalcPotentialEnergy(c)) for c in (
        context.replace(q=x[:nq], v=x[nq:]) for x in (states[0], states[-1]))]
    if args.out:
        np.savez(args.out, times=np.asarray(out.times), q=states[:, :nq], v=states[:, nq:])
    if args.html:
        from jaxbody.visualization import export_html

        export_html(plant, out, args.html, context=context, title=f"jaxbody: {name}")
    run_s = max(t2 - t1, 1e-9)
    return (f"{name}: {num_steps} steps of {dt:g} s ({args.integrator}, nq={nq}) in "
            f"{run_s:.3g} s = {num_steps / run_s:,.0f} steps/s (compile "
            f"{max(t1 - t0 - run_s, 0.0):.2g} s); energy {energies[0]:.6g} -> {energies[1]:.6g} J "
            f"(drift {energies[1] - energies[0]:+.2e} J)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="jaxbody", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    demo = sub.add_parser("demo", help="forward kinematics and Jacobians of a 7-dof arm")
    demo.add_argument("--batch", type=int, default=1024)
    sim = sub.add_parser("simulate", help="simulate a model (continuous time) and summarize")
    sim.add_argument("model", nargs="?", default=None,
                     help="URDF, SDFormat (.sdf) or MJCF (.xml) file; none: a double pendulum")
    sim.add_argument("--duration", type=float, default=2.0, help="simulated time (s)")
    sim.add_argument("--time-step", type=float, default=1e-3, help="integrator step (s)")
    sim.add_argument("--integrator", default="rk4",
                     choices=["rk4", "semi_implicit_euler", "explicit_euler"])
    sim.add_argument("--out", help="save the trajectory (times, q, v) to this .npz file")
    sim.add_argument("--html", help="write a self-contained HTML page that plays it")
    sim.add_argument("--package-path", action="append", default=[],
                     help="a folder searched for package.xml files (repeatable)")
    sim.add_argument("--package", action="append", default=[], metavar="NAME=FOLDER",
                     help="resolve package://NAME/ to FOLDER (repeatable)")
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        _demo(getattr(args, "batch", 1024))
        return 0
    try:
        print(_simulate(args))
    except (CliError, ValueError, RuntimeError, OSError, ImportError) as e:
        message = " ".join(str(e).split()) or type(e).__name__
        print(f"jaxbody simulate: error: {message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
