"""Checks that jaxbody, Drake and Pinocchio agree on every body pose of the benchmark models.

    python -m benchmarks.check_models [--models arm7 humanoid] [--samples 8]

`body_poses` returns each engine's ``(R_WB (n, 3, 3), p_WB (n, 3))`` for the spec's bodies in
spec order (the world excluded); `check` raises `PoseMismatch` past `models.POSE_TOL`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import models  # noqa: E402

_JITTED = {}  # id(plant) -> (plant, jitted batched poses)


class PoseMismatch(AssertionError):
    """The engines disagree on a body pose: timings of this model would be meaningless."""


def jaxbody_poses_fn(engines):
    """``f(context, q) -> (R_WB, p_WB)`` of the spec's bodies (world dropped), pure and
    vmappable."""
    plant, bodies = engines.jaxbody
    idx = np.array([int(b.index()) for b in bodies])

    def f(context, q):
        R_WB, p_WB = plant.CalcBodyPosesInWorld(plant.SetPositions(context, q))
        return R_WB[idx], p_WB[idx]

    return f


def jaxbody_poses(engines, qs):
    """jaxbody's ``(R_WB (batch, n, 3, 3), p_WB (batch, n, 3))`` at ``qs`` (batch, nq)."""
    import jax
    import jax.numpy as jnp

    pj, _ = engines.jaxbody
    if id(pj) not in _JITTED:  # one jit (and one compile per batch size) per plant
        _JITTED[id(pj)] = pj, jax.jit(jax.vmap(jaxbody_poses_fn(engines), in_axes=(None, 0)))
    R, p = _JITTED[id(pj)][1](pj.CreateDefaultContext(jnp.float64),
                              jnp.asarray(qs, jnp.float64))
    return np.asarray(R), np.asarray(p)


def drake_poses(engines, qs):
    """Drake's body poses at ``qs`` (batch, nq), as `jaxbody_poses`."""
    pd, bd = engines.drake
    ctx, Rs, ps = pd.CreateDefaultContext(), [], []
    for q in qs:
        pd.SetPositions(ctx, q)
        X = [pd.EvalBodyPoseInWorld(ctx, b) for b in bd]
        Rs.append([x.rotation().matrix() for x in X])
        ps.append([x.translation() for x in X])
    return np.array(Rs), np.array(ps)


def pinocchio_poses(engines, qs):
    """Pinocchio's body poses at ``qs`` (batch, nq; jaxbody/Drake layout), as `jaxbody_poses`."""
    import pinocchio as pin

    model = engines.pinocchio
    data, Rs, ps = model.createData(), [], []
    for q in models.to_pinocchio(engines, qs):
        pin.forwardKinematics(model, data, q)
        oMi = [data.oMi[i + 1] for i in range(len(engines.spec.bodies))]
        Rs.append([X.rotation.copy() for X in oMi])  # copies: Pinocchio returns views of data
        ps.append([X.translation.copy() for X in oMi])
    return np.array(Rs), np.array(ps)


def body_poses(engines, qs):
    """Body poses at each q of ``qs`` (batch, nq; jaxbody/Drake layout) in each engine.

    Returns ``{engine: (R_WB (batch, n, 3, 3), p_WB (batch, n, 3))}``, bodies in spec order."""
    qs = np.atleast_2d(np.asarray(qs, float))
    return {"jaxbody": jaxbody_poses(engines, qs), "drake": drake_poses(engines, qs),
            "pinocchio": pinocchio_poses(engines, qs)}


def discrepancy(a, b):
    """Max relative difference between two ``(R, p)`` pose stacks."""
    err = 0.0
    for x, y in zip(a, b):
        x, y = np.asarray(x, float), np.asarray(y, float)
        err = max(err, np.abs(x - y).max() / max(1.0, np.abs(y).max()))
    return err


def check(engines, qs, tol=models.POSE_TOL):
    """Raises `PoseMismatch` unless all engines agree at every q in ``qs`` (batch, nq).

    Returns the largest discrepancy seen (relative to max(1, |x|))."""
    qs = np.atleast_2d(qs)
    poses, worst = body_poses(engines, qs), 0.0
    for name in ("jaxbody", "drake"):
        for k, q in enumerate(qs):
            err = discrepancy([x[k] for x in poses[name]], [x[k] for x in poses["pinocchio"]])
            if not err < tol:
                raise PoseMismatch(
                    f"{engines.spec.name}: {name} and pinocchio body poses differ by {err:.3e} "
                    f"(tolerance {tol:.0e}) at q = {np.array2string(q, precision=17)}")
            worst = max(worst, err)
    return worst


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=list(models.MODELS), choices=models.MODELS)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    import jax

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(args.seed)
    for name in args.models:
        engines = models.build(name)
        err = check(engines, models.random_q(engines, rng, args.samples))
        print(f"{name:10s} nq={engines.nq:3d} nv={engines.nv:3d} bodies="
              f"{len(engines.spec.bodies):3d}  max discrepancy {err:.2e}  OK")


if __name__ == "__main__":
    main()
