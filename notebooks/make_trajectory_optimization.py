"""Writes notebooks/trajectory_optimization.ipynb (run it, then execute the notebook).

    python notebooks/make_trajectory_optimization.py
"""

from pathlib import Path

from nbgen import write

CELLS = [
    ("md", """# Trajectory optimization with jaxbody gradients

Two problems solved by **shooting** with gradients from `jax.grad` through jaxbody's simulation
and an `optax` optimizer:

1. **Acrobot swing-up** (no contact): Drake's acrobot, semi-implicit Euler rollout, single
   shooting over the elbow torque at every step, L-BFGS.
2. **Planar pushing** (contact-rich): a sphere finger on an x–y carriage pushes a free box across
   the floor to a goal. Every step is a SAP contact solve; its gradient comes from the implicit
   function theorem at the solver's optimum, not from differentiating the Newton iterations.
   The decision variables are the finger's reference waypoints, tracked by a PD law."""),
    ("code", """import sys, time
from pathlib import Path
sys.path.insert(0, str(Path.cwd().parent))  # the repository root (for running from notebooks/)
import jax, jax.numpy as jnp, numpy as np, optax
jax.config.update("jax_enable_x64", True)
import jaxbody as jb
from jaxbody.geometry.collision import ContactQueryOptions
from jaxbody.visualization import export_html, plot_joint_trajectories
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import IFrame, display
import os
FIG = Path(os.environ.get("JAXBODY_FIGURE_DIR", "figures")); FIG.mkdir(exist_ok=True)"""),
    ("md", """## 1. Acrobot swing-up

Drake's acrobot parameters (`examples/acrobot`): two 1 kg links, l₁ = 1 m, joint damping 0.1,
an actuator at the elbow only. From hanging straight down (q = 0) reach upright
(q₁ = π, q₂ = 0, v = 0) at T = 4 s. Decision variables: u_k for N = 200 semi-implicit Euler
steps of 20 ms."""),
    ("code", """def acrobot():
    plant = jb.MultibodyPlant(0.0)
    l1, lc1, lc2, Ic1, Ic2 = 1.0, 0.5, 1.0, 0.083, 0.33
    M1 = jb.SpatialInertia.MakeFromCentralInertia(1.0, np.array([0, 0, -lc1]), jb.RotationalInertia(Ic1, Ic1, Ic1))
    M2 = jb.SpatialInertia.MakeFromCentralInertia(1.0, np.array([0, 0, -lc2]), jb.RotationalInertia(Ic2, Ic2, Ic2))
    link1, link2 = plant.AddRigidBody("link1", M1), plant.AddRigidBody("link2", M2)
    plant.AddJoint(jb.RevoluteJoint("shoulder", plant.world_frame(), link1.body_frame(), [0, 1, 0], 0.1))
    F = plant.AddFrame(jb.FixedOffsetFrame("elbow_frame", link1.body_frame(), jb.RigidTransform([0, 0, -l1])))
    elbow = plant.AddJoint(jb.RevoluteJoint("elbow", F, link2.body_frame(), [0, 1, 0], 0.1))
    plant.AddJointActuator("elbow", elbow)
    for link, L, color in ((link1, 1.0, [0.9, 0.4, 0.1, 1]), (link2, 2.0, [0.1, 0.5, 0.9, 1])):
        plant.RegisterVisualGeometry(link, jb.RigidTransform([0, 0, -L / 2]), jb.Cylinder(0.04, L), "rod", color)
    plant.Finalize()
    return plant

plant = acrobot()
ctx0 = plant.CreateDefaultContext()
N, dt = 200, 0.02
goal = jnp.array([np.pi, 0.0, 0.0, 0.0])

def states(u):
    return jb.rollout(plant, ctx0, num_steps=N, dt=dt, controls=u[:, None],
                      integrator="semi_implicit_euler").states

def cost(u):
    e = states(u)[-1] - goal
    return 100.0 * e[:2] @ e[:2] + 10.0 * e[2:] @ e[2:] + 1e-4 * dt * jnp.sum(u ** 2)

value_and_grad = jax.jit(jax.value_and_grad(cost))
opt = optax.lbfgs()

@jax.jit
def iterate(u, state):
    l, g = value_and_grad(u)
    updates, state = opt.update(g, state, u, value=l, grad=g, value_fn=cost)
    return optax.apply_updates(u, updates), state, l

u = 0.5 * jnp.sin(jnp.linspace(0, 8 * np.pi, N))  # a gentle initial pumping guess
state = opt.init(u)
t0 = time.perf_counter()
costs = []
for i in range(300):
    u, state, l = iterate(u, state)
    costs.append(float(l))
print(f"300 L-BFGS iterations in {time.perf_counter() - t0:.1f} s (compile included)")
x = states(u)
err = x[-1] - goal
print(f"final state {np.round(np.asarray(x[-1]), 4)}; |q - q_goal| = {float(jnp.linalg.norm(err[:2])):.2e} rad, "
      f"|v| = {float(jnp.linalg.norm(err[2:])):.2e} rad/s, max |u| = {float(jnp.abs(u).max()):.1f} N·m")
assert float(jnp.linalg.norm(err[:2])) < 0.05, 'the swing-up missed the goal'"""),
    ("code", """t = np.arange(N + 1) * dt
fig, ax = plt.subplots(1, 3, figsize=(14, 3.5))
ax[0].semilogy(costs); ax[0].set(xlabel="iteration", ylabel="cost", title="acrobot: cost")
ax[1].plot(t, x[:, 0], label="q₁ shoulder"); ax[1].plot(t, x[:, 1], label="q₂ elbow")
ax[1].axhline(np.pi, ls=":", c="k"); ax[1].set(xlabel="t (s)", ylabel="rad", title="joint angles"); ax[1].legend()
ax[2].step(t[:-1], u, where="post"); ax[2].set(xlabel="t (s)", ylabel="N·m", title="elbow torque")
fig.tight_layout(); fig.savefig(FIG / "acrobot_swingup.png", dpi=80); plt.show()
export_html(plant, np.asarray(x), FIG / "acrobot_swingup.html", times=t, title="acrobot swing-up")
display(IFrame("figures/acrobot_swingup.html", width=700, height=400))"""),
    ("md", """## 2. Pushing a box to a goal through contact (SAP)

A 0.5 kg box (20 × 20 × 10 cm) rests on the floor (multi-point box–ground contact, μ = 0.4).
A 4 cm sphere finger rides an x–y carriage (two prismatic joints, actuated) at 5 cm height. A PD
law tracks a piecewise-linear reference through K = 9 waypoints; the waypoints are optimized so
that after 0.8 s (80 SAP steps of 10 ms) the box's center is at the goal."""),
    ("code", """def pusher(dt=0.01):
    plant = jb.MultibodyPlant(dt)
    plant.set_contact_query_options(ContactQueryOptions(single_point=False))  # the box rests on its face
    def material():
        p = jb.ProximityProperties()
        jb.AddContactMaterial(point_stiffness=1e5, friction=jb.CoulombFriction(0.4, 0.4), properties=p)
        p.AddProperty("material", "relaxation_time", 0.02)
        return p
    box = plant.AddRigidBody("box", jb.SpatialInertia.SolidBoxWithMass(0.5, 0.2, 0.2, 0.1))
    plant.RegisterCollisionGeometry(box, jb.RigidTransform(), jb.Box(0.2, 0.2, 0.1), "box", material())
    plant.RegisterVisualGeometry(box, jb.RigidTransform(), jb.Box(0.2, 0.2, 0.1), "box", [0.85, 0.55, 0.2, 1])
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(), "floor", material())
    carriage = plant.AddRigidBody("carriage", jb.SpatialInertia.SolidSphereWithMass(0.1, 0.01))
    finger = plant.AddRigidBody("finger", jb.SpatialInertia.SolidSphereWithMass(0.2, 0.04))
    rail = plant.AddFrame(jb.FixedOffsetFrame("rail", plant.world_frame(), jb.RigidTransform([0, 0, 0.05])))
    jx = plant.AddJoint(jb.PrismaticJoint("x", rail, carriage.body_frame(), [1, 0, 0]))
    jy = plant.AddJoint(jb.PrismaticJoint("y", carriage.body_frame(), finger.body_frame(), [0, 1, 0]))
    plant.AddJointActuator("ax", jx); plant.AddJointActuator("ay", jy)
    plant.RegisterCollisionGeometry(finger, jb.RigidTransform(), jb.Sphere(0.04), "finger", material())
    plant.RegisterVisualGeometry(finger, jb.RigidTransform(), jb.Sphere(0.04), "finger", [0.2, 0.4, 0.9, 1])
    plant.Finalize()
    return plant, box, jx, jy

pplant, box, jx, jy = pusher()
ctx = pplant.SetFreeBodyPose(pplant.CreateDefaultContext(), box, jb.RigidTransform([0, 0, 0.05]))
q0 = np.asarray(ctx.q).copy(); q0[jx.position_start()] = -0.145  # finger just touching the box
ctx = ctx.replace(q=jnp.asarray(q0))
nq = pplant.num_positions()
ix, iy, vx, vy = jx.position_start(), jy.position_start(), jx.velocity_start(), jy.velocity_start()
box_p = pplant.GetJointByName("box").position_start() + 4  # x, y, z after the quaternion
NP, K = 80, 9
tk = jnp.linspace(0.0, NP * pplant.time_step(), K)
goal_xy = jnp.array([0.25, 0.06])

def pd(t, x, refs):
    r = jnp.stack([jnp.interp(t, tk, refs[:, 0]), jnp.interp(t, tk, refs[:, 1])])
    return 200.0 * (r - x[jnp.array([ix, iy])]) - 20.0 * x[nq + jnp.array([vx, vy])]

def push_cost(refs):
    xN = jb.discrete_rollout(pplant, ctx, pd, NP, params=refs, save_trajectory=False).final_state
    return 100.0 * jnp.sum((xN[box_p:box_p + 2] - goal_xy) ** 2) + 1e-3 * jnp.sum(jnp.diff(refs, axis=0) ** 2)

push_vg = jax.jit(jax.value_and_grad(push_cost))
refs = jnp.stack([jnp.linspace(-0.145, 0.15, K), jnp.zeros(K)], -1)  # push straight ahead
opt2 = optax.adam(0.01); st2 = opt2.init(refs)
push_costs = []
t0 = time.perf_counter()
for i in range(60):
    l, g = push_vg(refs)
    push_costs.append(float(l))
    upd, st2 = opt2.update(g, st2)
    refs = optax.apply_updates(refs, upd)
print(f"60 Adam iterations in {time.perf_counter() - t0:.1f} s (compile included)")
r = jb.discrete_rollout(pplant, ctx, pd, NP, params=refs, save_contacts=True)
final_xy = np.asarray(r.final_state[box_p:box_p + 2])
print(f"box final center {np.round(final_xy, 4)} m, goal {np.asarray(goal_xy)}: "
      f"error {1e3 * np.linalg.norm(final_xy - np.asarray(goal_xy)):.1f} mm; "
      f"SAP iterations per step: mean {float(r.iterations.mean()):.1f}, max {int(r.iterations.max())}, "
      f"all converged: {bool(np.all(np.asarray(r.converged) == 1))}; "
      f"contact overflow: {'step ' + str(int(r.first_overflow_step)) if int(r.first_overflow_step) >= 0 else 'none'}")
assert np.linalg.norm(final_xy - np.asarray(goal_xy)) < 0.01, "the push missed the goal"
assert np.all(np.asarray(r.converged) == 1), "a SAP solve did not converge"
assert int(r.first_overflow_step) == -1, 'a contact was dropped'"""),
    ("code", """xs = np.asarray(r.states); tt = np.asarray(r.times)
fig, ax = plt.subplots(1, 3, figsize=(14, 3.5))
ax[0].semilogy(push_costs); ax[0].set(xlabel="iteration", ylabel="cost", title="pusher: cost")
ax[1].plot(xs[:, box_p], xs[:, box_p + 1], label="box center")
ax[1].plot(xs[:, ix], xs[:, iy], label="finger")
ax[1].plot(*np.asarray(goal_xy), "k*", ms=12, label="goal"); ax[1].plot(refs[:, 0], refs[:, 1], "o:", label="waypoints")
ax[1].set(xlabel="x (m)", ylabel="y (m)", title="paths", aspect="equal"); ax[1].legend(fontsize=8)
f = np.asarray(r.contact_forces); a = np.asarray(r.contact_active)
ax[2].plot(tt[1:], np.linalg.norm((f * a[..., None]).sum(1), axis=-1)); ax[2].set(xlabel="t (s)", ylabel="N", title="|Σ contact forces on A|")
fig.tight_layout(); fig.savefig(FIG / "pusher.png", dpi=80); plt.show()
export_html(pplant, xs[1:], FIG / "pusher.html", times=tt[1:], contact_points=np.asarray(r.contact_points),
            contact_forces=f, contact_mask=a, title="pushing a box")
display(IFrame("figures/pusher.html", width=700, height=400))"""),
]


def main():
    write(CELLS, Path(__file__).with_name("trajectory_optimization.ipynb"))


if __name__ == "__main__":
    main()
