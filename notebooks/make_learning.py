"""Writes notebooks/learning.ipynb (run it, then execute the notebook).

    python notebooks/make_learning.py
"""

from pathlib import Path

from nbgen import write

CELLS = [
    ("md", """# Learning on jaxbody: Brax's PPO, and policy gradients through contact

`jaxbody.envs` environments are shaped as Brax's `Env` (`reset(key) -> State`,
`step(state, action) -> State`, the `State` carrying the physics `Context`), so Brax's trainers
train them as they are. This notebook trains

1. the **cart-pole swing-up** with Brax's PPO, against the best of 1,024 random-policy episodes;
2. example-robot-data's **Go1 standing** (dropped and tilted onto the ground, SAP contact,
   PD position targets on its 12 joints) with Brax's PPO, against the zero action (the PD
   controllers holding the standing posture) and random actions;
3. the **push** task (a PD-driven finger pushes a box to a goal through SAP contact) two ways:
   analytic policy gradients, a short optax loop over `jax.grad` of the batched rollout's return
   (exact gradients through every contact solve), and PPO; return against environment steps
   and wall time.

It saves the policies, reloads one, and renders a rollout to the HTML viewer. The rewards are
written out in `src/jaxbody/envs/`. `JAXBODY_NOTEBOOK_QUICK=1` (the test suite) runs every
section at small settings; the committed outputs are the full ones. Measured on 2 CPU cores."""),
    ("code", """import os, sys, time
from pathlib import Path
sys.path.insert(0, str(Path.cwd().parent))
import jax, jax.numpy as jnp, numpy as np, optax
jax.config.update("jax_enable_x64", True)
import jaxbody.envs as E
E.patch_jax_for_brax()  # Brax 0.14.2 calls two functions JAX 0.10 removed
from brax.io import model as brax_model
from brax.training.acme import running_statistics
from brax.training.agents.ppo import networks as ppo_networks, train as ppo
from jaxbody.visualization import export_html
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import IFrame, display
QUICK = os.environ.get("JAXBODY_NOTEBOOK_QUICK") == "1"
FIG = Path(os.environ.get("JAXBODY_FIGURE_DIR", "figures")); FIG.mkdir(exist_ok=True)
POLICIES = FIG / "policies"; POLICIES.mkdir(exist_ok=True)
print("quick settings" if QUICK else "full settings", jax.devices())


def episode_returns(env, policy, num_episodes, episode_length, key, arg=0.0):
    \"\"\"Returns of ``num_episodes`` episodes (no auto-reset: an episode that ends stops
    earning), ``policy(obs (B, n), key, arg) -> action (B, m)``; ``arg`` is traced (one compile
    for every value).\"\"\"
    reset, step = jax.vmap(env.reset), jax.vmap(env.step)

    @jax.jit
    def run(key, arg):
        k_reset, k_act = jax.random.split(key)
        s = reset(jax.random.split(k_reset, num_episodes))

        def body(carry, k):
            s, total, alive = carry
            s = step(s, policy(s.obs, k, arg))
            total = total + alive * s.reward
            return (s, total, alive * (1.0 - s.done)), None

        z = jnp.zeros(num_episodes)
        (s, total, _), _ = jax.lax.scan(body, (s, z, z + 1.0), jax.random.split(k_act, episode_length))
        return total

    return np.asarray(run(key, arg))


def random_policy(action_size):  # uniform in [-arg, arg]
    return lambda obs, k, arg: arg * jax.random.uniform(k, (obs.shape[0], action_size), minval=-1.0, maxval=1.0)


class Curve:
    \"\"\"Evaluation returns against environment steps and wall time (s since the start).\"\"\"
    def __init__(self):
        self.steps, self.returns, self.wall, self.t0 = [], [], [], time.perf_counter()
    def __call__(self, step, metrics):  # Brax's progress_fn
        self.add(step, float(metrics["eval/episode_reward"]))
    def add(self, step, ret, wall=None):
        self.steps.append(int(step)); self.returns.append(ret)
        self.wall.append(time.perf_counter() - self.t0 if wall is None else wall)"""),
    ("md", """## 1. Cart-pole swing-up with Brax's PPO

The pole starts hanging down; the reward pays for the pole upright and the cart centered
(`jaxbody.envs.CartPole`). Episodes of 250 control steps (5 s). A random policy never gets far:
the best of 1,024 random episodes is the bar."""),
    ("code", """cart = E.make("cartpole")
EPISODE = 250
random_cart = episode_returns(cart, random_policy(cart.action_size), 1024, EPISODE, jax.random.PRNGKey(3), 1.0)
print(f"random policies: mean {random_cart.mean():.1f}, best of 1024 {random_cart.max():.1f}")
cart_curve = Curve()
make_cart_policy, cart_params, _ = ppo.train(
    environment=cart, num_timesteps=200_000 if QUICK else 1_000_000, episode_length=EPISODE,
    num_envs=256, num_eval_envs=64, batch_size=256, unroll_length=20, num_minibatches=8,
    num_updates_per_batch=4, learning_rate=1e-3, entropy_cost=1e-2, discounting=0.97,
    reward_scaling=10.0, normalize_observations=True, num_evals=2 if QUICK else 11, seed=0,
    progress_fn=cart_curve)
cart_time = cart_curve.wall[-1]
print(f"PPO: return {cart_curve.returns[0]:.1f} -> {cart_curve.returns[-1]:.1f} after "
      f"{cart_curve.steps[-1]:,} steps in {cart_time:.0f} s ({cart_curve.steps[-1] / cart_time:,.0f} steps/s, "
      f"compile and evaluations included)")
first_above = next(s for s, r in zip(cart_curve.steps, cart_curve.returns) if r > random_cart.max())
print(f"first evaluation above the best random episode: {first_above:,} steps")
assert cart_curve.returns[-1] > random_cart.max() and cart_curve.returns[-1] > 5 * cart_curve.returns[0]
brax_model.save_params(POLICIES / "cartpole_ppo.params", cart_params[:2])  # normalizer, policy: all a policy needs"""),
    ("md", """## 2. Go1 standing with Brax's PPO

The robot starts 1–5 cm above its standing height, tilted by up to 0.1 rad, its joints perturbed by
up to 0.1 rad; each control step (0.02 s) is five 4 ms SAP steps, the action moving the 12 PD
position targets by up to 0.3 rad from the standing posture. Standing still at the posture earns
1 per step (`jaxbody.envs.Quadruped`). The PD controllers alone (zero action) already land it
well; PPO has to learn to do at least as well from a random start."""),
    ("code", """quad = E.make("quadruped")
QEP = 100  # 2 s
N_QUAD = 16 if QUICK else 64
zero_quad = episode_returns(quad, random_policy(12), N_QUAD, QEP, jax.random.PRNGKey(5), 0.0)  # the zero action
random_quad = episode_returns(quad, random_policy(12), N_QUAD, QEP, jax.random.PRNGKey(5), 1.0)
print(f"zero action (PD holds the posture): {zero_quad.mean():.1f}; random actions: {random_quad.mean():.1f} "
      f"(best {random_quad.max():.1f}), of at most {QEP}")
assert zero_quad.min() > 0.8 * QEP  # the PD posture lands it upright at its standing height, every time
quad_curve = Curve()
if QUICK:  # the test suite: PPO's Go1 programs take minutes to compile on 2 cores; the outputs are the full run
    print("quick settings: PPO on Go1 not run")
else:
    make_quad_policy, quad_params, _ = ppo.train(
        environment=quad, num_timesteps=400_000, episode_length=QEP, num_envs=128, num_eval_envs=64,
        batch_size=128, unroll_length=10, num_minibatches=8, num_updates_per_batch=4,
        learning_rate=3e-4, entropy_cost=1e-3, discounting=0.97, reward_scaling=1.0,
        normalize_observations=True, num_evals=9, seed=0, progress_fn=quad_curve)
    quad_time = quad_curve.wall[-1]
    print(f"PPO: return {quad_curve.returns[0]:.1f} -> {quad_curve.returns[-1]:.1f} after "
          f"{quad_curve.steps[-1]:,} steps in {quad_time:.0f} s ({quad_curve.steps[-1] / quad_time:,.0f} steps/s, "
          f"compile and evaluations included)")
    brax_model.save_params(POLICIES / "go1_stand_ppo.params", quad_params[:2])"""),
    ("md", """## 3. Push: analytic policy gradients through contact, and PPO

A 2-layer tanh policy (14 → 32 → 2) acts on 16 pushes of 1 s (50 control steps, 100 SAP steps
each) per update; the loss is minus their mean return, and `jax.grad` of it goes through every
SAP solve (the implicit function theorem at each solve, no smoothing). Evaluated on 16 held-out
goals. PPO gets the same task and episode length."""),
    ("code", """push = E.make("push")
BATCH, HORIZON = 16, 50
APG_ITERATIONS = 60 if QUICK else 300
reset_b, step_b = jax.vmap(push.reset), jax.vmap(push.step)

def init_mlp(key, sizes=(14, 32, 2)):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        key, k = jax.random.split(key)
        layers.append((jax.random.normal(k, (a, b)) * (0.1 / np.sqrt(a)), jnp.zeros(b)))
    return layers

def mlp_policy(layers, obs):
    h = obs
    for W, b in layers:
        h = jnp.tanh(h @ W + b)  # hidden layers, and the action's [-1, 1]
    return h

def rollout_loss(layers, key):
    s = reset_b(jax.random.split(key, BATCH))
    def body(s, _):
        s = step_b(s, mlp_policy(layers, s.obs))
        return s, s.reward
    s, rewards = jax.lax.scan(body, s, None, length=HORIZON)
    return -jnp.mean(jnp.sum(rewards, 0)), jnp.mean(s.metrics["distance"])

opt = optax.adam(1e-2)

@jax.jit
def update(layers, opt_state, key):
    (loss, distance), grad = jax.value_and_grad(rollout_loss, has_aux=True)(layers, key)
    updates, opt_state = opt.update(grad, opt_state, layers)
    finite = jnp.all(jnp.array([jnp.all(jnp.isfinite(g)) for g in jax.tree.leaves(grad)]))
    return optax.apply_updates(layers, updates), opt_state, loss, distance, finite

layers = init_mlp(jax.random.PRNGKey(0)); opt_state = opt.init(layers)
HELD_OUT = jax.random.PRNGKey(99)

def evaluate(layers):  # return and final distance on the held-out goals (the update is dropped)
    _, _, loss, distance, _ = update(layers, opt_state, HELD_OUT)
    return -float(loss), float(distance)

apg_curve, eval_time = Curve(), 0.0
ret0, d0 = evaluate(layers)
apg_curve.add(0, ret0, 0.0)
key = jax.random.PRNGKey(1)
for i in range(1, APG_ITERATIONS + 1):
    key, k = jax.random.split(key)
    layers, opt_state, _, _, finite = update(layers, opt_state, k)
    assert bool(finite), "a gradient through the contact rollout is not finite"
    if i % 20 == 0 or i == APG_ITERATIONS:
        wall = time.perf_counter() - apg_curve.t0 - eval_time
        t = time.perf_counter(); ret, d = evaluate(layers); eval_time += time.perf_counter() - t
        apg_curve.add(i * BATCH * HORIZON, ret, wall)
print(f"APG: held-out return {ret0:.2f} -> {apg_curve.returns[-1]:.2f}, final distance to the goal "
      f"{d0:.3f} -> {d:.3f} m ({d0 / d:.1f}x closer) after {apg_curve.steps[-1]:,} environment steps, "
      f"{apg_curve.wall[-1]:.0f} s (compile included)")
assert d < d0 / 1.8
brax_model.save_params(POLICIES / "push_apg.params", layers)"""),
    ("code", """push_curve = Curve()
if QUICK:  # the test suite: as for Go1, the outputs are the full run
    print("quick settings: PPO on the push task not run")
else:
    make_push_policy, push_params, _ = ppo.train(
        environment=push, num_timesteps=600_000, episode_length=HORIZON, num_envs=256,
        num_eval_envs=16, batch_size=256, unroll_length=10, num_minibatches=8,
        num_updates_per_batch=4, learning_rate=1e-3, entropy_cost=1e-3, discounting=0.97,
        reward_scaling=1.0, normalize_observations=True, num_evals=11, seed=0, progress_fn=push_curve)
    print(f"PPO: return {push_curve.returns[0]:.2f} -> {push_curve.returns[-1]:.2f} after "
          f"{push_curve.steps[-1]:,} steps in {push_curve.wall[-1]:.0f} s")
    best_ppo = max(push_curve.returns)
    apg_best = max(apg_curve.returns)
    reach = next((s for s, r in zip(push_curve.steps, push_curve.returns) if r >= apg_best), None)
    print(f"APG's best held-out return {apg_best:.2f} after {apg_curve.steps[-1]:,} steps; PPO's best "
          f"{best_ppo:.2f}" + ("" if reach is None else f", first reached at {reach:,} steps"))
    brax_model.save_params(POLICIES / "push_ppo.params", push_params[:2])"""),
    ("md", """## Learning curves"""),
    ("code", """fig, ax = plt.subplots(1, 4, figsize=(18, 3.8))
ax[0].plot(cart_curve.steps, cart_curve.returns, "o-", label="PPO")
ax[0].axhline(random_cart.max(), ls="--", c="gray", label="best of 1024 random")
ax[0].set(xlabel="environment steps", ylabel="evaluation return", title="cart-pole swing-up")
ax[1].plot(quad_curve.steps, quad_curve.returns, "o-", label="PPO")
ax[1].axhline(zero_quad.mean(), ls="--", c="k", label="zero action (PD posture)")
ax[1].axhline(random_quad.mean(), ls="--", c="gray", label="random actions")
ax[1].set(xlabel="environment steps", title="Go1 standing")
for c, name in ((apg_curve, "APG (grad through SAP)"), (push_curve, "PPO")):
    ax[2].plot(np.maximum(c.steps, 1), c.returns, "o-", label=name)
    ax[3].plot(c.wall, c.returns, "o-", label=name)
ax[2].set(xscale="log", xlabel="environment steps", title="push: return vs steps")
ax[3].set(xlabel="wall time (s, compile included)", title="push: return vs time")
for a in ax: a.legend(fontsize=8)
fig.tight_layout(); fig.savefig(FIG / "learning_curves.png", dpi=80); plt.show()"""),
    ("md", """## Saved policies, reloaded, and a rollout in the HTML viewer

The PPO policies are Brax parameter files (`brax.io.model`); the APG policy is the MLP's layers
saved the same way. The cart-pole policy is reloaded into a fresh policy function and gives the
same deterministic return as before; the APG push policy is rolled out on one held-out goal and
exported to the HTML viewer."""),
    ("code", """net = ppo_networks.make_ppo_networks(cart.observation_size, cart.action_size,
                                     preprocess_observations_fn=running_statistics.normalize)
make_again = ppo_networks.make_inference_fn(net)
reloaded = brax_model.load_params(POLICIES / "cartpole_ppo.params")
def deterministic(obs, k, params):  # the parameters are the traced argument: one compile for both
    return make_again(params, deterministic=True)(obs, k)[0]
before = episode_returns(cart, deterministic, 8, EPISODE, jax.random.PRNGKey(7), cart_params[:2])
after = episode_returns(cart, deterministic, 8, EPISODE, jax.random.PRNGKey(7), reloaded)
print(f"deterministic returns, trained {before.mean():.2f}, reloaded {after.mean():.2f}")
np.testing.assert_allclose(after, before)

apg_layers = brax_model.load_params(POLICIES / "push_apg.params")
@jax.jit
def push_episode(key):
    def body(s, _):
        s = push.step(s, mlp_policy(apg_layers, s.obs))
        return s, (s.pipeline_state.q, s.metrics["distance"])
    s0 = push.reset(key)
    _, (qs, dist) = jax.lax.scan(body, s0, None, length=HORIZON)
    return jnp.concatenate([s0.pipeline_state.q[None], qs]), dist, s0.info["goal"]
qs, dist, goal = push_episode(jax.random.PRNGKey(11))
print(f"goal {np.round(np.asarray(goal), 3)} m; distance {float(dist[0]):.3f} -> {float(dist[-1]):.3f} m")
times = np.arange(HORIZON + 1) * push.dt
export_html(push.plant, np.asarray(qs), FIG / "push_apg.html", times=times, title="push: APG policy")
display(IFrame("figures/push_apg.html", width=700, height=400))"""),
    ("md", """## Numbers

The summary the README quotes."""),
    ("code", """print(f"cart-pole PPO: {cart_curve.steps[-1]:,} steps, {cart_time:.0f} s, {cart_curve.steps[-1] / cart_time:,.0f} steps/s; "
      f"return {cart_curve.returns[0]:.1f} -> {cart_curve.returns[-1]:.1f} (best random {random_cart.max():.1f}); "
      f"above the best random after {first_above:,} steps, "
      f"{cart_curve.wall[cart_curve.steps.index(first_above)]:.0f} s")
if quad_curve.steps: print(f"Go1 standing PPO: {quad_curve.steps[-1]:,} steps, {quad_time:.0f} s, {quad_curve.steps[-1] / quad_time:,.0f} steps/s; "
      f"return {quad_curve.returns[0]:.1f} -> {quad_curve.returns[-1]:.1f} (zero action {zero_quad.mean():.1f}, "
      f"random {random_quad.mean():.1f})")
print(f"push APG: {apg_curve.steps[-1]:,} steps, {apg_curve.wall[-1]:.0f} s; return {apg_curve.returns[0]:.2f} -> "
      f"{apg_curve.returns[-1]:.2f}, distance {d0:.3f} -> {d:.3f} m")
if push_curve.steps: print(f"push PPO: {push_curve.steps[-1]:,} steps, {push_curve.wall[-1]:.0f} s; return {push_curve.returns[0]:.2f} -> "
      f"{push_curve.returns[-1]:.2f}")"""),
]

if __name__ == "__main__":
    write(CELLS, Path(__file__).resolve().parent / "learning.ipynb")
