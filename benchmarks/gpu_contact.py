"""The GPU benchmark's contact sections (`benchmarks.gpu`): batched rollouts by jaxbody (SAP)
and MJX in the same process, scene by scene and batch by batch; ``contact``: the scenes of
`contact_scenes`, ``mesh``: the example-robot-data robots of `mesh_scenes` with their hull
meshes (URDFs written beforehand by ``python -m benchmarks.mesh_robots --write-hulls DIR``)."""

from __future__ import annotations

import numpy as np

from benchmarks import contact_engines as ce
from benchmarks.contact_scenes import SCENES
from benchmarks.gpu_report import attempt


# ---- engines --------------------------------------------------------------------------------
class SceneEngines:
    """A scene's jaxbody and MJX engines and its perturbed initial states (built once)."""

    def __init__(self, jb, q, v, info, mujoco_engine, args):
        """``jb``: a `contact_engines.JaxbodyContact`; ``q``, ``v``: (batch, ·) initial states;
        ``mujoco_engine()``: the scene's `contact_engines.MujocoContact` (MJX runs its model)."""
        self.jb, self.q, self.v, self.info = jb, q, v, info
        self.mjx, self.mjx_error = None, None
        if "mjx" in args.engines:
            try:
                from mujoco import mjx  # noqa: F401 (fails here if MJX is missing)

                mj = mujoco_engine()
                self.mjx = ce.MjxContact(mj, args.dtype)
                self.info["mujoco_ngeom"] = int(mj.model.ngeom)
            except Exception as e:  # noqa: BLE001 (ImportError, or jax/MJX versions at odds)
                self.mjx_error = f"MJX unavailable: {type(e).__name__}: {e}"[:2000]
        self.env0 = {}  # engine -> env 0's final state at the first batch run

    @classmethod
    def of_scene(cls, name, args):
        """A `contact_scenes.SCENES` scene."""
        scene = SCENES[name]()
        jb = ce.JaxbodyContact(scene, args.dtype, cg_forcing=args.cg_forcing)
        rng = np.random.default_rng([args.seed, list(SCENES).index(name)])
        q, v = ce.perturbed_states(scene, jb.plant, max(args.batches), rng)
        plant = jb.plant
        info = {"nq": plant.num_positions(), "nv": plant.num_velocities(),
                "num_collision_geometries": len(scene.geoms),
                "num_candidate_pairs": len(plant.GetCollisionCandidates())}
        return cls(jb, q, v, info, lambda: ce.MujocoContact(scene, plant), args)

    @classmethod
    def of_robot(cls, name, args):
        """A `mesh_scenes.ROBOTS` robot from ``{args.mesh_dir}/{name}_hulls.urdf``, dropped
        (limp) from its `mesh_scenes.initial_q`."""
        import os

        from benchmarks import mesh_scenes as ms

        urdf = os.path.join(args.mesh_dir, f"{name}_hulls.urdf")
        if not os.path.exists(urdf):
            raise FileNotFoundError(f"{urdf}: write it first (python -m benchmarks.mesh_robots "
                                    f"--write-hulls {args.mesh_dir} --robots {name})")
        _, weld, self_collision = ms.ROBOTS[name]
        plant = ms.jaxbody_plant(urdf, weld, self_collision)
        jb = ce.JaxbodyContact(None, args.dtype, plant=plant, cg_forcing=args.cg_forcing)
        rng = np.random.default_rng([args.seed, 100 + list(ms.ROBOTS).index(name)])
        q0 = ms.initial_q(plant, ms.POSTURES.get(name))
        q, v = ms.perturbed_states(plant, q0, max(args.mesh_batches), rng)
        cost = plant.get_contact_query_cost()
        info = {"nq": plant.num_positions(), "nv": plant.num_velocities(), "urdf": urdf,
                "self_collision": self_collision, "candidate_pairs": cost.candidate_pairs,
                "evaluated_pairs": cost.evaluated_pairs, "gjk_epa_pairs": cost.gjk_epa_pairs}
        return cls(jb, q, v, info,
                   lambda: ms.mujoco_engine(urdf, plant, weld, self_collision), args)

    def run(self, engine, batch, steps, repeats):
        q, v = self.q[:batch], self.v[:batch]
        if engine == "jaxbody":
            call, comp, (x, it, ok) = self.jb.compiled(q, v, steps)
            out = {"sap_max_iterations": int(np.max(it)),
                   "sap_mean_env_max_iterations": float(np.mean(it)),
                   "sap_all_converged": bool(np.min(ok) > 0)}
        else:
            call, comp, (qpos, qvel) = self.mjx.compiled(q, v, steps)
            x, out = np.concatenate([np.asarray(qpos), np.asarray(qvel)], axis=1), {}
        x = np.asarray(x)
        out["all_finite"] = bool(np.isfinite(x).all())
        first, x0 = self.env0.setdefault(engine, (batch, x[0]))
        out["env0_rel_diff_vs_first_batch"] = float(np.abs(x[0] - x0).max()
                                                    / max(np.abs(x0).max(), 1e-3))
        out["first_batch"] = first
        t = ce.timed(call, repeats)
        return dict(out, **comp, **t, env_steps_per_s=batch * steps / t["run_median_s"])


def run_contact(args, report, planner):
    """The ``contact`` section: `contact_scenes` scenes at ``--batches``."""
    _run(args, report, planner, "contact", args.scenes, args.batches, SceneEngines.of_scene)


def run_mesh(args, report, planner):
    """The ``mesh`` section: `mesh_scenes` robots at ``--mesh-batches`` (rows of section
    ``contact`` whose scene is ``<robot>_hulls``, as the README's GPU table reads them)."""
    _run(args, report, planner, "mesh", args.mesh_robots, args.mesh_batches,
         SceneEngines.of_robot, suffix="_hulls")


def _run(args, report, planner, section, names, batches, build, suffix=""):
    later = args.sections[args.sections.index(section) + 1:]
    deadline = args.deadline_s - (args.dynamics_reserve_s if "dynamics" in later else 0)
    engines = {}
    for batch in batches:
        for name in names:
            if name not in engines:
                try:
                    engines[name] = build(name, args)
                except Exception as e:  # noqa: BLE001
                    engines[name] = f"{type(e).__name__}: {e}"
                report.data["scenes"][name + suffix] = getattr(engines[name], "info", engines[name])
            se, rows = engines[name], {}
            for engine in ("jaxbody", "mjx"):
                if engine not in args.engines:
                    continue
                base = {"section": "contact", "scene": name + suffix, "engine": engine, "batch": batch,
                        "steps": args.steps, "dtype": args.dtype}
                if isinstance(se, str):
                    rows[engine] = report.add(dict(base, error=se))
                    continue
                if engine == "mjx" and se.mjx is None:
                    rows[engine] = report.add(dict(base, skipped=se.mjx_error))
                    continue
                case, work = (section, name, engine), batch * args.steps
                repeats, why = planner.plan(case, work, deadline)
                if repeats is None:
                    rows[engine] = report.add(dict(base, skipped=why))
                    continue
                rows[engine] = row = attempt(report, base, se.run, engine, batch, args.steps,
                                             repeats)
                if "error" not in row:
                    planner.done(case, row, work)
            j, m = rows.get("jaxbody", {}), rows.get("mjx", {})
            if "env_steps_per_s" in j and "env_steps_per_s" in m:  # > 1: jaxbody faster
                j["speedup_vs_mjx"] = j["env_steps_per_s"] / m["env_steps_per_s"]
                print(f"{'':>32s} speedup vs MJX (env-steps/s, jaxbody/mjx) = "
                      f"{j['speedup_vs_mjx']:.3g}", flush=True)
                report.write()
