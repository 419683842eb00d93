"""MeshcatVisualizer: scene tree, poses from a Context, animations of trajectories, overlays,
recording, live forwarding and argument checks."""

import math

import numpy as np
import pytest
import umsgpack

import jaxbody as jb
from jaxbody.visualization import MeshcatVisualizer, export_html
from tests.visualization.viz_fixtures import RecordingWindow

TOL = 1e-12
F32_TOL = 1e-6  # animation keys travel as float32


def _matrix(column_major):
    return np.asarray(column_major).reshape(4, 4).T


def _floats(ext):
    return np.frombuffer(ext.data, np.float32)


def pendulum(visual=True):
    """Double pendulum about y with visual (or only collision) geometry on each link."""
    plant = jb.MultibodyPlant(0.0)
    a = plant.AddRigidBody("a", jb.SpatialInertia.PointMass(1.0, np.array([0, 0, -0.5])))
    b = plant.AddRigidBody("b", jb.SpatialInertia.PointMass(0.5, np.array([0, 0, -0.4])))
    for body, L in ((a, 0.5), (b, 0.4)):
        X = jb.RigidTransform(p=[0, 0, -L])
        if visual:
            plant.RegisterVisualGeometry(body, X, jb.Sphere(0.05), "bob", [1, 0, 0, 1])
        plant.RegisterCollisionGeometry(body, X, jb.Sphere(0.05), "bob", jb.CoulombFriction())
    plant.AddJoint(jb.RevoluteJoint("j1", plant.world_frame(), a.body_frame(), [0, 1, 0]))
    F = plant.AddFrame(jb.FixedOffsetFrame("tip", a.body_frame(), jb.RigidTransform(p=[0, 0, -0.5])))
    plant.AddJoint(jb.RevoluteJoint("j2", F, b.body_frame(), [0, 1, 0]))
    plant.Finalize()
    return plant, a, b


def fake_rollout(T, dt):
    """A `RolloutResult` of a swinging double pendulum (arrays only: nothing to compile)."""
    t = dt * np.arange(T)
    q = np.stack([np.cos(3 * t), 0.5 * np.sin(5 * t)], -1)
    v = np.stack([-3 * np.sin(3 * t), 2.5 * np.cos(5 * t)], -1)
    states = np.concatenate([q, v], -1)
    return jb.RolloutResult(t, states, states[-1], -1)


def test_scene_tree_and_publish_match_the_plant():
    plant, a, b = pendulum()
    viz = MeshcatVisualizer(plant)
    assert viz.role() is jb.Role.kIllustration
    assert viz.GetBodyPath(b) == "/jaxbody/DefaultModelInstance/b"
    assert sorted(viz.scene().objects()) == ["/jaxbody/DefaultModelInstance/a/bob_0",
                                             "/jaxbody/DefaultModelInstance/b/bob_2"]
    ctx = plant.SetPositions(plant.CreateDefaultContext(), np.array([0.3, -0.7]))
    viz.Publish(ctx)
    for body in (a, b):
        X_WB = np.asarray(plant.EvalBodyPoseInWorld(ctx, body).GetAsMatrix4())
        np.testing.assert_allclose(_matrix(viz.scene().transforms()[viz.GetBodyPath(body)]),
                                   X_WB, atol=TOL)
    X_BG = _matrix(viz.scene().transforms()["/jaxbody/DefaultModelInstance/b/bob_2"])
    np.testing.assert_allclose(X_BG[:3, 3], [0, 0, -0.4])


def test_collision_geometry_is_the_fallback_and_can_be_chosen():
    plant, _, _ = pendulum(visual=False)
    assert MeshcatVisualizer(plant).role() is jb.Role.kProximity
    plant, _, _ = pendulum()
    viz = MeshcatVisualizer(plant, role=jb.Role.kProximity)
    assert sorted(viz.scene().objects())[0].endswith("/a/bob_1")
    with pytest.raises(ValueError, match="role"):
        MeshcatVisualizer(plant, role="visual")


def test_unfinalized_plant_and_bad_meshcat_raise():
    with pytest.raises(RuntimeError, match="Finalize"):
        MeshcatVisualizer(jb.MultibodyPlant(0.0))
    plant, _, _ = pendulum()
    with pytest.raises(TypeError, match="meshcat"):
        MeshcatVisualizer(plant, meshcat=object())


def test_unreadable_mesh_names_the_geometry(tmp_path):
    plant = jb.MultibodyPlant(0.0)
    plant.RegisterVisualGeometry(plant.world_body(), jb.RigidTransform(),
                                 jb.Mesh(str(tmp_path / "gone.obj")), "part")
    plant.Finalize()
    with pytest.raises(ValueError, match="geometry 'part' on body 'world'.*gone.obj"):
        MeshcatVisualizer(plant)


def test_trajectory_animation_tracks_match_body_poses():
    plant, a, b = pendulum()
    ctx = plant.SetPositions(plant.CreateDefaultContext(), np.array([1.0, 0.0]))
    out = fake_rollout(51, 0.01)
    viz = MeshcatVisualizer(plant)
    viz.PublishTrajectory(out, fps=None)
    anim = viz.scene().animation()
    assert anim["options"] == {"play": True, "repetitions": math.inf}
    clips = {c["path"]: c["clip"] for c in anim["animations"]}
    clip = clips[viz.GetBodyPath(b)]
    assert clip["fps"] == 1.0
    pos, quat = clip["tracks"]
    assert (pos["name"], pos["type"], quat["type"]) == (".position", "vector3", "quaternion")
    np.testing.assert_allclose(_floats(pos["times"]), np.asarray(out.times), atol=F32_TOL)
    q_last = np.asarray(out.states)[-1, :2]
    c_last = plant.SetPositions(ctx, q_last)
    X = plant.EvalBodyPoseInWorld(c_last, b)
    np.testing.assert_allclose(_floats(pos["values"]).reshape(-1, 3)[-1], X.translation(),
                               atol=F32_TOL)
    wxyz = np.asarray(X.rotation().ToQuaternion())
    xyzw = _floats(quat["values"]).reshape(-1, 4)[-1]
    assert min(np.abs(xyzw - np.r_[wxyz[1:], wxyz[0]]).max(),
               np.abs(xyzw + np.r_[wxyz[1:], wxyz[0]]).max()) < F32_TOL
    # the static pose is the first sample, for a paused viewer
    np.testing.assert_allclose(_matrix(viz.scene().transforms()[viz.GetBodyPath(a)]),
                               np.asarray(plant.EvalBodyPoseInWorld(ctx, a).GetAsMatrix4()), atol=TOL)
    umsgpack.packb(anim)  # msgpack-able as it stands


def test_resampling_keeps_about_fps_keys_per_second():
    plant, _, b = pendulum()
    times = np.linspace(0.0, 2.0, 2001)
    viz = MeshcatVisualizer(plant)
    viz.PublishTrajectory(np.zeros((2001, 2)), times, fps=30, play=False, loop=False)
    anim = viz.scene().animation()
    assert anim["options"] == {"play": False, "repetitions": 1}
    keys = _floats(anim["animations"][0]["clip"]["tracks"][0]["times"])
    assert len(keys) == 61 and keys[0] == 0.0 and keys[-1] == pytest.approx(2.0)


@pytest.mark.parametrize("traj, times, match", [
    (np.zeros((5, 3)), np.arange(5.0), "expected \\(T, 2\\) or \\(T, 4\\)"),
    (np.zeros((2, 5, 2)), np.arange(5.0), "batched"),
    (np.zeros((5, 2)), None, "times: required"),
    (np.zeros((5, 2)), np.arange(4.0), "times: expected shape \\(5,\\)"),
    (np.zeros((5, 2)), np.array([0, 1, 1, 2, 3.0]), "strictly increasing"),
    (np.full((5, 2), np.nan), np.arange(5.0), "finite"),
])
def test_bad_trajectories_raise(traj, times, match):
    plant, _, _ = pendulum()
    with pytest.raises(ValueError, match=match):
        MeshcatVisualizer(plant).PublishTrajectory(traj, times)


def test_rollout_without_samples_raises():
    plant, _, _ = pendulum()
    out = jb.RolloutResult(None, None, np.zeros(4), -1)  # rollout(..., save_trajectory=False)
    with pytest.raises(ValueError, match="save_trajectory=False"):
        MeshcatVisualizer(plant).PublishTrajectory(out)


def test_contact_overlays_static_and_animated():
    plant, _, _ = pendulum()
    viz = MeshcatVisualizer(plant)
    pts = np.array([[0.1, 0.0, 0.0], [0.2, 0.0, 0.0]])
    f = np.array([[0.0, 0.0, 10.0], [0.0, 0.0, -5.0]])
    viz.Publish(plant.CreateDefaultContext(), contact_points=pts, contact_forces=f,
                contact_mask=[True, False], force_scale=0.01)
    T = viz.scene().transforms()
    np.testing.assert_allclose(_matrix(T["/jaxbody/overlays/contacts/0/point"])[:3, 3], pts[0])
    np.testing.assert_allclose(_matrix(T["/jaxbody/overlays/contacts/0/force/shaft"])[2, 2], 0.1)
    props = {(c["path"], c["property"]): c["value"] for c in viz.scene().commands()
             if c["type"] == "set_property"}
    assert props[("/jaxbody/overlays/contacts/1/point", "visible")] is False
    # animated: (T, P, 3); the arrow of a -z force points down
    times = np.linspace(0, 1, 4)
    P = np.repeat(pts[None], 4, 0)
    F = np.repeat(f[None], 4, 0)
    viz.PublishTrajectory(np.zeros((4, 2)), times, contact_points=P, contact_forces=F, fps=None)
    clips = {c["path"]: c["clip"]["tracks"] for c in viz.scene().animation()["animations"]}
    quat = _floats(clips["/jaxbody/overlays/contacts/1/force"][1]["values"]).reshape(-1, 4)[0]
    np.testing.assert_allclose(np.abs(quat), [1, 0, 0, 0], atol=F32_TOL)  # half turn about x
    lengths = _floats(clips["/jaxbody/overlays/contacts/0/force/shaft"][0]["values"]).reshape(-1, 3)
    np.testing.assert_allclose(lengths[:, 2], 0.3, atol=F32_TOL)  # automatic: largest is 0.3 m
    assert clips["/jaxbody/overlays/contacts/0/point"][1]["values"] == [True] * 4


@pytest.mark.parametrize("kwargs, match", [
    (dict(contact_points=np.zeros((4, 2, 2)), contact_forces=np.zeros((4, 2, 2))), "contact_points"),
    (dict(contact_points=np.zeros((4, 2, 3)), contact_forces=np.zeros((4, 3, 3))), "contact_forces"),
    (dict(contact_points=np.zeros((4, 2, 3)), contact_forces=np.zeros((4, 2, 3)),
          contact_mask=np.ones((4, 3), bool)), "contact_mask"),
    (dict(contact_points=np.full((4, 1, 3), np.nan), contact_forces=np.zeros((4, 1, 3))), "non-finite"),
    (dict(contact_points=np.zeros((4, 1, 3)), contact_forces=np.ones((4, 1, 3)), force_scale=-1.0),
     "force_scale"),
])
def test_bad_contact_arrays_raise(kwargs, match):
    plant, _, _ = pendulum()
    with pytest.raises(ValueError, match=match):
        MeshcatVisualizer(plant).PublishTrajectory(np.zeros((4, 2)), np.arange(4.0), **kwargs)


def test_masked_contacts_may_hold_nan():
    plant, _, _ = pendulum()
    pts = np.full((3, 1, 3), np.nan)
    MeshcatVisualizer(plant).PublishTrajectory(np.zeros((3, 2)), np.arange(3.0), contact_points=pts,
                                               contact_forces=pts, contact_mask=np.zeros((3, 1)))


def test_triads_and_center_of_mass():
    plant, a, b = pendulum()
    viz = MeshcatVisualizer(plant)
    viz.AddTriads()
    viz.AddTriads([plant.GetFrameByName("tip")], length=0.05)
    objs = viz.scene().objects()
    assert f"{viz.GetBodyPath(a)}/triad_a/z" in objs
    tip = _matrix(viz.scene().transforms()[f"{viz.GetBodyPath(a)}/triad_tip"])
    np.testing.assert_allclose(tip[:3, 3], [0, 0, -0.5])
    viz.ShowCenterOfMass()
    ctx = plant.SetPositions(plant.CreateDefaultContext(), np.array([0.4, 0.2]))
    viz.Publish(ctx)
    com = _matrix(viz.scene().transforms()["/jaxbody/overlays/center_of_mass"])[:3, 3]
    np.testing.assert_allclose(com, plant.CalcCenterOfMassPositionInWorld(ctx), atol=TOL)
    viz.PublishTrajectory(np.zeros((3, 2)), np.arange(3.0))
    paths = [c["path"] for c in viz.scene().animation()["animations"]]
    assert "/jaxbody/overlays/center_of_mass" in paths


def test_recording_publishes():
    plant, _, _ = pendulum()
    viz = MeshcatVisualizer(plant)
    with pytest.raises(RuntimeError, match="nothing was recorded"):
        viz.PublishRecording()
    viz.StartRecording()
    ctx = plant.CreateDefaultContext()
    for k in range(3):
        viz.Publish(plant.SetPositions(ctx.replace(time=0.1 * k), np.array([0.1 * k, 0.0])))
    viz.StopRecording()
    viz.PublishRecording(fps=None)
    keys = _floats(viz.scene().animation()["animations"][0]["clip"]["tracks"][0]["times"])
    np.testing.assert_allclose(keys, [0.0, 0.1, 0.2], atol=F32_TOL)


def test_live_window_gets_every_command_and_the_camera():
    plant, _, _ = pendulum()
    w = RecordingWindow()
    viz = MeshcatVisualizer(plant, meshcat=w)
    viz.SetCameraPose([2.0, -1.0, 0.5], [0.0, 0.0, 0.0])
    viz.PublishTrajectory(np.zeros((3, 2)), np.arange(3.0))
    kinds = [c["type"] for c in w.sent]
    assert kinds.count("set_object") == 2 and kinds[-1] == "set_animation"
    cam = [c for c in w.sent if c["type"] == "set_property"][0]
    assert cam["value"] == [2.0, 0.5, 1.0]  # World (x, y, z) -> meshcat camera (x, z, -y)
    with pytest.raises(ValueError, match="finite"):
        viz.SetCameraPose([np.inf, 0, 0], [0, 0, 0])


def test_default_camera_frames_the_model():
    plant, _, _ = pendulum()
    viz = MeshcatVisualizer(plant)
    cam, target = viz.DefaultCameraPose()
    np.testing.assert_allclose(target, [0, 0, -0.7], atol=TOL)  # bobs span z in [-0.95, -0.45]
    assert 0.5 < np.linalg.norm(cam - target) < 5


def test_export_html_writes_one_file(tmp_path):
    plant, _, _ = pendulum()
    path = export_html(plant, np.zeros((3, 2)), tmp_path / "x.html", times=np.arange(3.0),
                       triads=True, center_of_mass=True, camera=([2, 0, 0], [0, 0, 0]))
    with open(path, encoding="utf-8") as f:
        html = f.read()
    assert "<title>x.html</title>" in html and "jaxbody-scene" in html


def test_real_meshcat_server_receives_the_scene():
    meshcat = pytest.importorskip("meshcat")
    vis = meshcat.Visualizer()
    try:
        plant, _, _ = pendulum()
        viz = MeshcatVisualizer(plant, meshcat=vis)
        viz.PublishTrajectory(np.zeros((3, 2)), np.arange(3.0))
        html = vis.static_html()
        assert html.count("viewer.handle_command_bytearray") >= len(viz.scene().commands()) - 1
    finally:
        proc = vis.window.server_proc
        if proc is not None:
            proc.kill()
            proc.wait()
