"""Roofline of the batched dynamics kernels: FLOPs per sample against achieved GFLOP/s.

    taskset -c 0 python -m benchmarks.roofline [--models panda go1 g1] [--batch 64]

For each model and kernel of `benchmarks.dynamics` (``jax.jit(jax.vmap(kernel))``, one device),
XLA's own cost analysis of the compiled program gives the floating-point operations and the
bytes its instructions touch; divided by the batch, they are per sample. The batch is one
batch-minor chunk (64 members), so that no loop hides work from the analysis (XLA counts a loop
body once); LAPACK calls (the Cholesky of ``fd_crba`` and of ``aba_jac``'s mass-matrix inverse)
are not counted. The roofs are measured in the same run on the same core: the peak of a
1024 × 1024 float64 matrix product (XLA's own dot) and the bandwidth of a 256 MiB array sum.

XLA's byte count charges every operand of every instruction as if it came from memory, while a
batch of 64 samples stays in the core's caches: the operand traffic it implies is an upper bound
on memory traffic, so the table reports the fraction of the arithmetic peak and the operand
GB/s beside the streaming bandwidth, not an attainable bound from them. Results go to
``benchmarks/results/roofline_<machine>.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import models, urdf_models  # noqa: E402
from benchmarks.dynamics import KERNELS, jaxbody_kernels  # noqa: E402
from benchmarks.forward_kinematics import (  # noqa: E402
    default_machine_name,
    machine_info,
    measure,
    versions,
)


def roofs(repeats):
    """(peak GFLOP/s of a float64 matrix product, GB/s of a streaming sum), measured here."""
    import jax
    import jax.numpy as jnp

    n = 1024
    a = jnp.asarray(np.random.default_rng(0).normal(size=(n, n)))
    mm = jax.jit(lambda x: x @ x).lower(a).compile()
    t = measure(lambda: jax.block_until_ready(mm(a)), repeats, 0.2)["run_min_s"]
    big = jnp.ones(1 << 25)  # 256 MiB of float64
    total = jax.jit(jnp.sum).lower(big).compile()
    tb = measure(lambda: jax.block_until_ready(total(big)), repeats, 0.2)["run_min_s"]
    return 2 * n**3 / t / 1e9, big.nbytes / tb / 1e9


def kernel_row(plant, context, kernel, batch, q, v, x, repeats):
    import jax
    import jax.numpy as jnp

    f = jax.jit(jax.vmap(jaxbody_kernels(plant)[kernel], in_axes=(None, 0, 0, 0)))
    args = [jnp.asarray(a[:batch]) for a in (q, v, x)]
    compiled = f.lower(context, *args).compile()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    st = measure(lambda: jax.block_until_ready(compiled(context, *args)), repeats, 0.05)
    flops, nbytes = cost.get("flops", float("nan")), cost.get("bytes accessed", float("nan"))
    t = st["run_median_s"] / batch
    return {"kernel": kernel, "engine": "jaxbody", "batch": batch,
            "flops_per_sample": flops / batch, "bytes_per_sample": nbytes / batch,
            "intensity_flops_per_byte": flops / nbytes, "per_sample_median_s": t,
            "achieved_gflops": flops / batch / t / 1e9,
            "achieved_gbs": nbytes / batch / t / 1e9, **st}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["panda", "go1", "g1"])
    ap.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=KERNELS)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--machine", default=default_machine_name())
    ap.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)
    import jax

    jax.config.update("jax_enable_x64", True)
    peak, bandwidth = roofs(args.repeats)
    print(f"roofs: float64 matrix product {peak:.1f} GFLOP/s, streaming sum {bandwidth:.1f} GB/s")
    rng = np.random.default_rng(args.seed)
    rows = []
    for name in args.models:
        engines = urdf_models.build_engines(name)
        plant, _ = engines.jaxbody
        context = plant.CreateDefaultContext()
        q = models.random_q(engines, rng, args.batch)
        v, x = rng.normal(size=(2, args.batch, engines.nv))
        for kernel in args.kernels:
            r = dict(model=name, nv=engines.nv, **kernel_row(plant, context, kernel, args.batch,
                                                            q, v, x, args.repeats))
            r["fraction_of_peak"] = r["achieved_gflops"] / peak
            rows.append(r)
            print(f"{name:6s} {kernel:8s} {r['flops_per_sample']:10.0f} FLOP/sample "
                  f"{r['intensity_flops_per_byte']:5.2f} FLOP/B  "
                  f"{r['per_sample_median_s'] * 1e6:8.2f} us/sample  "
                  f"{r['achieved_gflops']:6.2f} GFLOP/s ({100 * r['fraction_of_peak']:.1f}% of "
                  f"the peak), {r['achieved_gbs']:6.1f} GB/s of operands", flush=True)
    report = {"benchmark": "roofline",
              "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
              "machine": machine_info(), "versions": versions(),
              "settings": {k: (str(p) if isinstance(p, Path) else p) for k, p in vars(args).items()},
              "roofs": {"peak_gflops_float64_matmul": peak, "bandwidth_gbs_stream_sum": bandwidth},
              "results": rows}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"roofline_{args.machine}.json"
    path.write_text(json.dumps(report, indent=1, default=float) + "\n")
    print(f"\nwrote {path}")
    return report


if __name__ == "__main__":
    main()
