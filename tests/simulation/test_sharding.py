"""Sharded batched rollouts: the same results on 4 forced host CPU devices as on one."""

import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbody.simulation.sharding import batch_mesh, shard_batch, sharded_vmap
from tests.helpers import compile_flags

SCRIPT = textwrap.dedent("""
    import sys
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np
    import jaxbody as jb
    from benchmarks.contact_scenes import FreeBody, Geom, Scene, build, initial_state
    from jaxbody.simulation.sharding import sharded_vmap

    scene = Scene([FreeBody("ball", 1.0, (0.004,) * 3, (0, 0, 0.12))],
                  [Geom("ball", ("sphere", 0.1)), Geom("world", ("halfspace",))])
    plant, _ = build(scene, "jaxbody")
    q0, v0 = initial_state(scene, plant, "jaxbody")
    ctx = plant.CreateDefaultContext().replace(q=jnp.asarray(q0), v=jnp.asarray(v0))
    B = 8
    vs = jnp.asarray(np.random.default_rng(0).normal(size=(B, plant.num_velocities())))
    masses = 1.0 + 0.1 * jnp.arange(B)

    def run(v, m):
        c = plant.get_body(jb.BodyIndex(1)).SetMass(ctx.replace(v=v), m)
        return jb.discrete_rollout(plant, c, num_steps=50, save_trajectory=False).final_state

    out = sharded_vmap(run)(vs, masses)
    chunked = sharded_vmap(run, chunk_size=3)(vs, masses)  # 2 (or 8) members a device
    print("DEVICES", len(jax.devices()), "SHARDS", len(out.sharding.device_set),
          len(chunked.sharding.device_set))
    np.save(sys.argv[1], np.stack([np.asarray(out), np.asarray(chunked)]))
""")


def _run(tmp_path, n_devices):
    flags = f"{compile_flags.in_effect()} --xla_force_host_platform_device_count={n_devices}"
    env = dict(os.environ, XLA_FLAGS=flags.strip(), JAX_PLATFORMS="cpu")
    out = tmp_path / f"out{n_devices}.npy"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    res = subprocess.run([sys.executable, "-c", SCRIPT, str(out)], env=env, cwd=root,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return np.load(out), res.stdout


@pytest.mark.slow
def test_four_forced_host_devices_equal_one_device(tmp_path):
    x4, log4 = _run(tmp_path, 4)
    x1, log1 = _run(tmp_path, 1)
    assert "DEVICES 4 SHARDS 4 4" in log4 and "DEVICES 1" in log1
    for x in (x4[0], x4[1], x1[1]):  # sharded, sharded in chunks, chunked: all equal one vmap
        np.testing.assert_allclose(x, x1[0], rtol=1e-12, atol=1e-12)


def test_shard_batch_rejects_a_batch_that_does_not_divide():
    mesh = batch_mesh()
    if mesh.devices.size == 1:
        out = shard_batch({"x": jnp.ones((3, 2))}, mesh)
        assert out["x"].shape == (3, 2)
    else:
        with pytest.raises(ValueError, match="not a multiple"):
            shard_batch({"x": jnp.ones((mesh.devices.size + 1, 2))}, mesh)


def test_sharded_vmap_equals_vmap_on_one_device():
    f = sharded_vmap(lambda a, b: a * b + jnp.sin(a))
    a, b = jnp.arange(4.0), jnp.ones(4)
    np.testing.assert_allclose(f(a, b), jax.vmap(lambda a, b: a * b + jnp.sin(a))(a, b))


@pytest.mark.parametrize("chunk_size", [1, 3, 4, 8])
def test_chunked_sharded_vmap_equals_vmap(chunk_size):
    fn = lambda a, b: {"y": a * b + jnp.sin(a), "z": jnp.cumsum(a)}  # noqa: E731
    a, b = jnp.arange(24.0).reshape(8, 3), jnp.linspace(0, 1, 8)[:, None]
    want = jax.vmap(fn)(a, b)
    got = sharded_vmap(fn, chunk_size=chunk_size)(a, b)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-14)


@pytest.mark.parametrize("bad", [0, -2, 2.5, True, "16"])
def test_sharded_vmap_rejects_a_bad_chunk_size(bad):
    with pytest.raises(ValueError, match="chunk_size must be a positive int"):
        sharded_vmap(jnp.sin, chunk_size=bad)
