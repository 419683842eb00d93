"""Writes notebooks/batched_rollouts.ipynb (run it, then execute the notebook).

    python notebooks/make_batched_rollouts.py
"""

from pathlib import Path

from nbgen import write

CELLS = [
    ("md", """# 4096 quadrupeds at once: batched contact rollouts

Unitree's **A1** (example-robot-data's URDF, its primitive collision shapes) trots on the
ground with SAP contact. Every environment gets its own **trunk mass** (±20 %) and **friction
coefficient** (μ ∈ [0.3, 1.0]) — both are `Context` parameters, so the randomization is just a
batch of contexts — and `jax.vmap` runs them all. `jaxbody.simulation.sharding.sharded_vmap`
splits the batch over the devices (JAX's `Mesh`, `NamedSharding` and `shard_map`). On a CPU-only
machine this notebook makes one host device per core
(`XLA_FLAGS=--xla_force_host_platform_device_count`), so both cores of a 2-core machine work,
and each device runs its part of the batch in vmapped chunks of 16 environments
(`chunk_size=16`): a vmapped SAP solve iterates until its slowest member converges, so small
chunks waste fewer Newton iterations and stay in cache. On a GPU, drop `chunk_size`."""),
    ("code", """import os, sys, time
from pathlib import Path
if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):  # before jax starts
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                               + f" --xla_force_host_platform_device_count={len(os.sched_getaffinity(0))}")
sys.path.insert(0, str(Path.cwd().parent))
import jax, jax.numpy as jnp, numpy as np
jax.config.update("jax_enable_x64", True)
import jaxbody as jb
from jaxbody.simulation.sharding import sharded_vmap
from jaxbody.visualization import export_html, plot_contact_forces, plot_solver_iterations
from benchmarks.robot_files import add_packages, robot
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import IFrame, display
FIG = Path(os.environ.get("JAXBODY_FIGURE_DIR", "figures")); FIG.mkdir(exist_ok=True)
print(jax.devices())"""),
    ("code", """DT = 2e-3
plant = jb.MultibodyPlant(DT)
parser = jb.Parser(plant); add_packages(parser.package_map())
parser.AddModels(robot("a1_description/urdf/a1.urdf"))
LEGS, PARTS = ("FR", "FL", "RR", "RL"), ("hip", "thigh", "calf")
for leg in LEGS:
    for part in PARTS:
        plant.AddJointActuator(f"{leg}_{part}", plant.GetJointByName(f"{leg}_{part}_joint"))
robot_geometry = jb.GeometrySet([g.geometry_id() for g in plant.GetGeometries(jb.Role.kProximity)])
plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair(("a1", robot_geometry), ("a1", robot_geometry))
ground = jb.ProximityProperties()
jb.AddContactMaterial(point_stiffness=2e4, friction=jb.CoulombFriction(0.8, 0.8), properties=ground)
ground.AddProperty("material", "relaxation_time", 0.01)
plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(), "ground", ground)
plant.set_max_active_contacts(16)  # the deepest 16 of the collision query's point slots
plant.Finalize()
nq, nv = plant.num_positions(), plant.num_velocities()
print(f"nq = {nq}, nv = {nv}, actuators = {plant.num_actuators()}, "
      f"candidate pairs = {len(plant.GetCollisionCandidates())}, point slots = {plant.CalcPointContacts(plant.CreateDefaultContext()).phi.shape[0]}")"""),
    ("code", """qj = np.array([plant.GetJointByName(f"{l}_{p}_joint").position_start() for l in LEGS for p in PARTS])
vj = np.array([plant.GetJointByName(f"{l}_{p}_joint").velocity_start() for l in LEGS for p in PARTS])
STAND = np.tile([0.0, 0.8, -1.6], 4)
trunk = plant.GetBodyByName("trunk")
ctx0 = plant.CreateDefaultContext()
q0 = np.asarray(ctx0.q).copy(); q0[qj] = STAND
ctx0 = plant.SetFreeBodyPose(plant.SetPositions(ctx0, q0), plant.GetBodyByName("base"), jb.RigidTransform([0, 0, 0.32]))
PHASE = jnp.repeat(jnp.array([0.0, np.pi, np.pi, 0.0]), 3)   # trot: diagonal legs together
AMP = jnp.tile(jnp.array([0.0, 0.3, 0.5]), 4)

def policy(t, x, params):
    \"\"\"A trot: PD to a sinusoidal joint reference, stepping at 2 Hz.\"\"\"
    q_ref = STAND + AMP * jnp.sin(2 * np.pi * 2.0 * t + PHASE)
    return 40.0 * (q_ref - x[qj]) - 1.0 * x[nq + vj]

def randomized(key):
    \"\"\"One environment: trunk mass x U(0.8, 1.2), friction U(0.3, 1.0), a small push.\"\"\"
    k1, k2, k3 = jax.random.split(key, 3)
    scale = jax.random.uniform(k1, (), minval=0.8, maxval=1.2)
    mu = jax.random.uniform(k2, (), minval=0.3, maxval=1.0)
    ctx = trunk.SetMass(ctx0, scale * trunk.get_mass(ctx0))
    ctx = plant.SetContactParameters(ctx, static_friction=mu, dynamic_friction=mu)  # every geometry
    return ctx.replace(v=ctx0.v + 0.05 * jax.random.normal(k3, (nv,)))

CHUNK = 25  # steps per compiled call

def advance(ctx):
    r = jb.discrete_rollout(plant, ctx, policy, CHUNK, save_trajectory=False)
    x = r.final_state
    # a contact the collision query or the slot cap had to drop is reported, never silent
    return (ctx.replace(time=ctx.time + CHUNK * DT, q=x[:nq], v=x[nq:]), r.iterations.mean(),
            r.converged.min(), r.contact_overflow.any())"""),
    ("md", """## 4096 randomized environments for 0.5 s

`step` advances every environment by `CHUNK` = 25 steps (one compiled `lax.scan` per
environment); the first call compiles."""),
    ("code", """step = sharded_vmap(advance, chunk_size=16)
B = int(os.environ.get("JAXBODY_NOTEBOOK_BATCH", 4096))  # the test suite runs 512
ctxs = jax.vmap(randomized)(jax.random.split(jax.random.PRNGKey(1), B))
masses = np.asarray(ctxs.parameters.mass[:, int(trunk.index())])
mus = np.asarray(ctxs.parameters.contact["dynamic_friction"][:, 0])
base_p = plant.GetJointByName("base").position_start() + 4
snaps, iters, conv, over, times = [np.asarray(ctxs.q)], [], [], [], []
for k in range(10):
    t0 = time.perf_counter()
    ctxs, it, ok, ov = step(ctxs)
    jax.block_until_ready(ctxs); times.append(time.perf_counter() - t0)
    snaps.append(np.asarray(ctxs.q)); iters.append(np.asarray(it)); conv.append(np.asarray(ok))
    over.append(np.asarray(ov))
snaps = np.stack(snaps)  # (11, B, nq)
run = sum(times[1:])
print(f"{len(jax.devices())} device(s), {os.cpu_count()} CPU(s); first call (compile + 25 steps) {times[0]:.1f} s")
print(f"{B} envs x {9 * CHUNK} more steps in {run:.1f} s: {B * 9 * CHUNK / run:,.0f} env-steps/s; "
      f"all SAP solves converged: {bool(np.all(np.stack(conv) == 1))}; mean Newton iterations/step {np.mean(iters):.2f}")
n_over = int(np.any(np.stack(over), axis=0).sum())
print(f"environments where a contact may have been dropped (contact overflow): {n_over}")
height = snaps[:, :, base_p + 2]; forward = snaps[-1, :, base_p] - snaps[0, :, base_p]
print(f"trunk height at 0.5 s: {height[-1].mean():.3f} ± {height[-1].std():.3f} m; fallen (< 0.15 m): {(height[-1] < 0.15).sum()}")
assert np.all(np.stack(conv) == 1), "a SAP solve did not converge"
assert n_over == 0, "a contact was dropped: raise the contact capacity"
assert np.all(height[-1] >= 0.15), 'an environment fell'"""),
    ("md", """## Throughput while trotting

From the states at 0.5 s (every foot in contact or about to be), the first B environments are
advanced 25 more steps: compile time (a new batch size compiles on its first call: first call
minus the timed second call) and run time apart; env-steps/s = B × 25 / run time."""),
    ("code", """rows = []
for Bt in (256, B):
    sub = jax.tree_util.tree_map(lambda x: x[:Bt], ctxs)
    t0 = time.perf_counter(); jax.block_until_ready(step(sub)); t_first = time.perf_counter() - t0
    t0 = time.perf_counter(); out = step(sub); jax.block_until_ready(out); t_run = time.perf_counter() - t0
    assert not bool(np.any(out[3])), "a contact was dropped"
    rows.append((Bt, max(t_first - t_run, 0.0), t_run, Bt * CHUNK / t_run, float(np.mean(out[1]))))
print("| batch | compile (s) | run 25 steps (s) | env-steps/s | Newton iterations/step |")
print("|---:|---:|---:|---:|---:|")
for Bt, tc, tr, r, it in rows:
    print(f"| {Bt} | {tc:.1f} | {tr:.2f} | {r:,.0f} | {it:.2f} |")"""),
    ("code", """t = np.arange(11) * CHUNK * DT
fig, ax = plt.subplots(1, 3, figsize=(15, 3.8))
ax[0].plot(t, np.percentile(height, 50, axis=1), label="median")
ax[0].fill_between(t, np.percentile(height, 5, axis=1), np.percentile(height, 95, axis=1), alpha=0.3, label="5–95 %")
ax[0].set(xlabel="t (s)", ylabel="trunk height (m)", title=f"{B} environments"); ax[0].legend()
sc = ax[1].scatter(masses, forward, c=mus, s=3, cmap="viridis"); fig.colorbar(sc, ax=ax[1], label="μ")
ax[1].set(xlabel="trunk mass (kg)", ylabel="forward travel in 0.5 s (m)", title="randomization")
ax[2].hist(forward, bins=50); ax[2].set(xlabel="forward travel (m)", ylabel="environments")
fig.tight_layout(); fig.savefig(FIG / "batched_rollouts.png", dpi=80); plt.show()"""),
    ("md", """## One environment, watched

The first environment again, one step at a time with its contact forces, exported to a single
HTML file (collision geometry, contact force arrows) and plotted."""),
    ("code", """one = jax.vmap(randomized)(jax.random.split(jax.random.PRNGKey(1), 1))
one = jax.tree_util.tree_map(lambda x: x[0], one)
r = jb.discrete_rollout(plant, one, policy, 250, save_contacts=True)
xs, tt = np.asarray(r.states), np.asarray(r.times)
f, a = np.asarray(r.contact_forces), np.asarray(r.contact_active)
export_html(plant, xs[1:], FIG / "a1_trot.html", times=tt[1:], role=jb.Role.kProximity,
            contact_points=np.asarray(r.contact_points), contact_forces=f, contact_mask=a, title="A1 trot")
fig = plot_contact_forces(tt[1:], f, a); fig.savefig(FIG / "a1_contact_forces.png", dpi=80); display(fig)
fig = plot_solver_iterations(np.asarray(r.iterations), tt[1:]); fig.savefig(FIG / "a1_solver_iterations.png", dpi=80); display(fig)
display(IFrame("figures/a1_trot.html", width=700, height=400))"""),
    ("md", """## Several devices, several hosts

`sharded_vmap` places the batch axis of every input on a 1-D `Mesh` of `jax.devices()` with
`NamedSharding(mesh, P("batch"))`; XLA runs each shard on its device. The test suite checks this
on 4 forced host CPU devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4`) against one
device. Across hosts, call `jax.distributed.initialize()` on every host first (see the README);
`jax.devices()` then spans all hosts and the same code shards the global batch."""),
]


def main():
    write(CELLS, Path(__file__).with_name("batched_rollouts.ipynb"))


if __name__ == "__main__":
    main()
