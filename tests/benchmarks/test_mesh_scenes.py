"""The mesh-robot scenes of the mesh and GPU benchmarks (`benchmarks.mesh_scenes`): the hull URDF
(simplified hulls, file names relative to it), and MuJoCo's import of it in jaxbody's q/v layout:
at perturbed states every body sits where jaxbody puts it and moves as fast. Then the GPU
benchmark's mesh section end to end on the CPU (go2, 16-vertex hulls, batch 2, two steps,
jaxbody's rows)."""

import json
import os

import numpy as np
import pytest

pytest.importorskip("mujoco")

from benchmarks import mesh_scenes as ms  # noqa: E402
from benchmarks.robot_files import example_robot_data_dir  # noqa: E402

pytestmark = pytest.mark.skipif(example_robot_data_dir() is None,
                                reason="needs example-robot-data")


@pytest.fixture(scope="module")
def go2(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("hulls"))
    urdf = ms.hull_urdf("go2", folder, max_vertices=16)
    return folder, urdf, ms.jaxbody_plant(urdf, weld=False, self_collision=False)


def test_hull_urdf_writes_simplified_hulls_beside_it(go2):
    import trimesh

    folder, urdf, _ = go2
    names = sorted(f for f in os.listdir(folder) if f.endswith(".obj"))
    assert len(names) == 9  # go2's nine distinct collision meshes
    text = open(urdf).read()
    for name in names:
        assert f'filename="{name}"' in text  # relative: the folder can travel
        assert len(trimesh.load(os.path.join(folder, name), force="mesh").vertices) <= 16
    assert "<visual" not in text and text.count("drake:point_contact_stiffness") == 19


def test_mujoco_model_in_jaxbody_layout(go2):
    import mujoco

    _, urdf, plant = go2
    engine = ms.mujoco_engine(urdf, plant, weld=False, self_collision=False)
    m, d = engine.model, engine.data
    assert m.nq == plant.num_positions() and m.nv == plant.num_velocities()
    kinds = [j.kind for j in ms.joint_layout(plant)]
    assert kinds.count("free") == 1 and kinds.count("hinge") == 12
    q, v = ms.perturbed_states(plant, ms.initial_q(plant), 3, np.random.default_rng(1))
    v = np.random.default_rng(2).normal(size=v.shape)
    qm, vm = engine.to_mujoco(q, v)
    ctx = plant.CreateDefaultContext()
    for i in range(len(q)):
        c = plant.SetVelocities(plant.SetPositions(ctx, q[i]), v[i])
        d.qpos[:], d.qvel[:] = qm[i], vm[i]
        mujoco.mj_forward(m, d)
        for b in range(1, m.nbody):
            body = plant.GetBodyByName(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b))
            X = np.asarray(plant.EvalBodyPoseInWorld(c, body).GetAsMatrix4())
            np.testing.assert_allclose(d.xpos[b], X[:3, 3], atol=1e-12)
            np.testing.assert_allclose(d.xmat[b].reshape(3, 3), X[:3, :3], atol=1e-12)
            V = np.asarray(plant.EvalBodySpatialVelocityInWorld(c, body).get_coeffs())
            vel = np.zeros(6)  # [w; v] at the body's center of mass (xipos), world frame
            mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, b, vel, 0)
            vel[3:] += np.cross(vel[:3], d.xpos[b] - d.xipos[b])  # at the body frame's origin
            np.testing.assert_allclose(vel, V, atol=1e-10)


def test_gpu_benchmark_mesh_section(go2, tmp_path):
    from benchmarks import gpu

    folder, _, _ = go2
    # jaxbody's rows only: MJX's engine is the one checked above (its compile would take 16 s
    # here), and the jaxbody/MJX ratio is tested on the contact section (test_gpu_benchmark)
    gpu.main(["--sections", "mesh", "--mesh-robots", "go2", "--mesh-batches", "2", "--mesh-dir",
              folder, "--steps", "2", "--repeats", "1", "--engines", "jaxbody", "--hard-stop-s",
              "0", "--machine", "test", "--out-dir", str(tmp_path)])
    saved = json.loads((tmp_path / "gpu_test.json").read_text())
    (jb,) = saved["results"]
    assert (jb["section"], jb["scene"], jb["engine"], jb["batch"]) == ("contact", "go2_hulls",
                                                                       "jaxbody", 2)
    assert jb["all_finite"] and jb["sap_all_converged"] and jb["env_steps_per_s"] > 0
    info = saved["scenes"]["go2_hulls"]
    assert info["candidate_pairs"] == 19 and info["nv"] == 18  # hulls against the ground


def test_gpu_benchmark_mesh_section_names_the_missing_urdf(tmp_path):
    from benchmarks import gpu

    gpu.main(["--sections", "mesh", "--mesh-robots", "g1", "--mesh-batches", "2", "--mesh-dir",
              str(tmp_path), "--engines", "jaxbody", "--hard-stop-s", "0", "--machine", "test",
              "--out-dir", str(tmp_path)])
    (row,) = json.loads((tmp_path / "gpu_test.json").read_text())["results"]
    assert "g1_hulls.urdf: write it first" in row["error"] and "--write-hulls" in row["error"]
