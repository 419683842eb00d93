"""Scale-out across processes: two processes on this machine, one CPU device each, joined by
``jax.distributed.initialize`` on a localhost coordinator (gloo CPU collectives), run one batched
discrete contact rollout with ``sharded_vmap`` over the global batch. The gathered result equals
the single-process run to 1e-12, and a run in which one process computes a wrong shard fails
the same comparison. The README's "Many environments, many devices, many hosts" recipe, tested.
"""

import os
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from tests.helpers import compile_flags

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT_S = 120  # per launch: both processes must be done by then, or both are killed

# What every host runs (the README's recipe). argv: out.npy; the process layout comes from the
# environment: JAXBODY_COORDINATOR (host:port of process 0), JAXBODY_NUM_PROCESSES,
# JAXBODY_PROCESS_ID; none of them: one process, no jax.distributed (the reference run).
# JAXBODY_TEST_PERTURB_PROCESS=i: process i perturbs its copy of the inputs, so its shard of the
# result is wrong (the mutated run).
SCRIPT = textwrap.dedent("""
    import os, sys
    import jax
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    n = int(os.environ.get("JAXBODY_NUM_PROCESSES", "1"))
    pid = int(os.environ.get("JAXBODY_PROCESS_ID", "0"))
    if n > 1:
        jax.distributed.initialize(coordinator_address=os.environ["JAXBODY_COORDINATOR"],
                                   num_processes=n, process_id=pid, initialization_timeout=60)
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import multihost_utils
    from jax.sharding import NamedSharding, PartitionSpec as P
    import jaxbody as jb
    from benchmarks.contact_scenes import FreeBody, Geom, Scene, build, initial_state
    from jaxbody.simulation.sharding import batch_mesh, sharded_vmap

    scene = Scene([FreeBody("ball", 1.0, (0.004,) * 3, (0, 0, 0.1))],
                  [Geom("ball", ("sphere", 0.1)), Geom("world", ("halfspace",))])
    plant, _ = build(scene, "jaxbody")  # discrete SAP, one sphere resting on the ground
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    B = 4  # the global batch
    vs = np.random.default_rng(0).normal(size=(B, plant.num_velocities()))
    masses = 1.0 + 0.1 * np.arange(B)

    def run(v, m):
        c = plant.get_body(jb.BodyIndex(1)).SetMass(ctx.replace(v=v), m)
        return jb.discrete_rollout(plant, c, num_steps=5, save_trajectory=False).final_state

    step = sharded_vmap(run)
    results = []
    if "JAXBODY_TEST_PERTURB_PROCESS" not in os.environ:
        # every host passes the same global batch (jax checks that it is the same)
        results.append(step(jnp.asarray(vs), jnp.asarray(masses)))
    # every host builds only its own rows into one global array
    split = NamedSharding(batch_mesh(), P("batch"))
    rows = slice(pid * B // n, (pid + 1) * B // n)
    local_vs = vs[rows] + (1e-3 if os.environ.get("JAXBODY_TEST_PERTURB_PROCESS") == str(pid) else 0)
    results.append(step(jax.make_array_from_process_local_data(split, local_vs),
                        jax.make_array_from_process_local_data(split, masses[rows])))
    out = results[-1]
    gathered = [multihost_utils.process_allgather(x, tiled=True) for x in results]
    print("PROCESS", jax.process_index(), "OF", jax.process_count(), "DEVICES",
          len(jax.devices()), "LOCAL", len(jax.local_devices()), "SHARDS",
          len(out.sharding.device_set), "ADDRESSABLE", len(out.addressable_shards), flush=True)
    if pid == 0:
        np.save(sys.argv[1], np.stack([np.asarray(g) for g in gathered]))
""")


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _start(tmp_path, name, num_processes, perturb=None):
    """Starts ``num_processes`` copies of SCRIPT (one CPU device each) on a fresh localhost port;
    returns the processes and where process 0 writes its gathered results."""
    out = tmp_path / f"{name}.npy"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAXBODY_", "XLA_FLAGS"))}
    if compile_flags.in_effect():  # the suite's compile flags, nothing else of XLA_FLAGS
        env["XLA_FLAGS"] = compile_flags.in_effect()
    env.update(JAX_PLATFORMS="cpu", PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "src")]),
               # the perturbed pair compiles what the first pair compiled: reuse it
               JAX_COMPILATION_CACHE_DIR=str(tmp_path.parent / "jax_cache"),
               JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0")
    if num_processes > 1:
        env.update(JAXBODY_COORDINATOR=f"localhost:{_free_port()}",
                   JAXBODY_NUM_PROCESSES=str(num_processes))
    if perturb is not None:
        env["JAXBODY_TEST_PERTURB_PROCESS"] = str(perturb)
    procs = []
    for i in range(num_processes):
        procs.append(subprocess.Popen([sys.executable, "-c", SCRIPT, str(out)],
                                      env=dict(env, JAXBODY_PROCESS_ID=str(i)), cwd=ROOT,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    return procs, out


def _launch(tmp_path, *groups):
    """Runs every group ``(name, num_processes, perturb)`` at once; waits for all within
    TIMEOUT_S; kills every process still running on any failure; returns, per group, process
    0's gathered results and every process's output."""
    started = []
    try:
        for name, n, perturb in groups:
            started.append(_start(tmp_path, name, n, perturb))
        deadline = time.monotonic() + TIMEOUT_S
        logs = [[p.communicate(timeout=max(1.0, deadline - time.monotonic()))[0] for p in procs]
                for procs, _ in started]
    finally:
        for procs, _ in started:  # a failed or hung peer must not outlive the test
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    results = []
    for (procs, out), group_logs in zip(started, logs):
        for i, (p, log) in enumerate(zip(procs, group_logs)):
            assert p.returncode == 0, f"process {i} of {len(procs)} failed:\n{log[-3000:]}"
        results.append((np.load(out), group_logs))
    return results


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The single-process run (one process, one device, no jax.distributed) and the two-process
    run, started together."""
    return _launch(tmp_path_factory.mktemp("runs"), ("single", 1, None), ("two", 2, None))


def test_two_processes_equal_one_process(runs):
    (single, single_log), (two, two_logs) = runs
    assert "PROCESS 0 OF 1 DEVICES 1" in single_log[0]
    for i, log in enumerate(two_logs):  # the batch really was split: one shard per process
        assert f"PROCESS {i} OF 2 DEVICES 2 LOCAL 1 SHARDS 2 ADDRESSABLE 1" in log, log[-2000:]
    reference = single[0]
    assert reference.shape == (4, 13) and two.shape == single.shape == (2, 4, 13)
    assert not np.allclose(reference[0], reference[1])  # distinct environments, distinct results
    # the global batch on every host, and each host's own rows only: both equal one process
    for x in (*two, single[1]):
        np.testing.assert_allclose(x, reference, rtol=1e-12, atol=1e-12)


def test_a_wrong_shard_fails_the_comparison(tmp_path, runs):
    reference = runs[0][0][0]
    ((x,), _), = _launch(tmp_path, ("perturbed", 2, 1))  # process 1 computes a wrong shard
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(x, reference, rtol=1e-12, atol=1e-12)
    # process 0's shard (the first half of the batch) is still right; process 1's is not
    np.testing.assert_allclose(x[:2], reference[:2], rtol=1e-12, atol=1e-12)
    assert np.abs(x[2:] - reference[2:]).max() > 1e-6
