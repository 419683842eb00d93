"""MJCF compiler and option settings that change the dynamics, against MuJoCo (float64):
``<compiler settotalmass>``, ``<option gravity>``, ``<flag gravity="disable">``, body
``gravcomp``, mesh geoms (their inertia from the closed mesh, scaled, through ``meshdir``), and
what jaxbody refuses or skips with a diagnostic naming the line (fluid forces, height fields).

M, the bias forces (C·v − τ_g), the passive forces (MuJoCo's ``qfrc_passive``, which holds
``qfrc_gravcomp``) and the accelerations agree with MuJoCo to 1e-10 relative at random states.
The models have hinge and slide joints only, so MuJoCo's qvel is jaxbody's v up to order.
"""

import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

import jaxbody as jb  # noqa: E402
from tests.parsers.mujoco_coordinates import MujocoCoordinates, body_inertias  # noqa: E402

jax.config.update("jax_enable_x64", True)

REL_TOL = 1e-10  # relative to max(1, |MuJoCo's value|)
MESH_INERTIA_TOL = 1e-8  # MuJoCo's near-isotropic dodecahedron: its eigensolver, see below

# A unit cube (8 vertices, outward triangles) as an OBJ file.
CUBE_OBJ = "\n".join(["v 0 0 0", "v 1 0 0", "v 1 1 0", "v 0 1 0", "v 0 0 1", "v 1 0 1",
                      "v 1 1 1", "v 0 1 1", "f 1 3 2", "f 1 4 3", "f 5 6 7", "f 5 7 8",
                      "f 1 2 6", "f 1 6 5", "f 2 3 7", "f 2 7 6", "f 3 4 8", "f 3 8 7",
                      "f 4 1 5", "f 4 5 8"]) + "\n"

# settotalmass, gravity, gravcomp (0.5 and 2) and a mesh geom that sets its body's inertia.
MODEL = """
<mujoco model="fidelity">
  <compiler settotalmass="14" meshdir="meshes" angle="radian"/>
  <option gravity="0.5 -1 -7"/>
  <asset><mesh name="block" file="cube.obj" scale="0.2 0.3 0.5"/></asset>
  <worldbody>
    <body name="a" pos="0 0 1" gravcomp="0.5">
      <joint name="ja" axis="0 1 0" damping="0.3"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 -0.4" size="0.05"/>
      <body name="b" pos="0.3 0 -0.4" gravcomp="2">
        <joint name="jb" type="slide" axis="1 0 0.2"/>
        <joint name="jc" axis="1 0 0"/>
        <geom type="mesh" mesh="block" pos="0.1 0 0" euler="0.3 0.2 0.1" density="700"/>
        <geom type="box" size="0.1 0.05 0.02"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

NO_GRAVITY = """
<mujoco model="weightless">
  <option><flag gravity="disable"/></option>
  <worldbody>
    <body name="a" gravcomp="1">
      <joint name="ja" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.1 -0.4" size="0.05"/>
      <body name="b" pos="0.3 0.1 -0.4">
        <joint name="jb" axis="1 0 0"/>
        <geom type="box" size="0.1 0.05 0.02" pos="0 0.1 0"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _write_model(folder):
    os.makedirs(folder / "meshes", exist_ok=True)
    (folder / "meshes" / "cube.obj").write_text(CUBE_OBJ)
    path = folder / "fidelity.xml"
    path.write_text(MODEL)
    return str(path)


def _load(path_or_text):
    plant = jb.MultibodyPlant(0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", jb.ParseWarning)  # nothing here is read past
        if os.path.isfile(path_or_text):
            jb.Parser(plant).AddModels(path_or_text)
            mj = mujoco.MjModel.from_xml_path(path_or_text)
        else:
            jb.Parser(plant).AddModelsFromString(path_or_text, "xml")
            mj = mujoco.MjModel.from_xml_string(path_or_text)
    plant.Finalize()
    return plant, mj


def _errors(plant, mj, num_states=3, aba=False):
    """The largest relative error of M, bias, passive forces and accelerations (M⁻¹(τ − bias),
    or with ``aba`` the plant's `CalcGeneralizedAccelerations`)."""
    conv = MujocoCoordinates(mj, plant)
    rng = np.random.default_rng(3)
    qpos = np.stack([conv.random_qpos(mj, rng) for _ in range(num_states)])
    qvel = rng.normal(size=(num_states, mj.nv))
    T = conv.T(qpos[0])  # constant: hinges and slides only
    q = np.stack([conv.q(x) for x in qpos])

    def f(context, q, v):
        ctx = plant.SetVelocities(plant.SetPositions(context, q), v)
        M, tau_g = plant.CalcMassMatrix(ctx), plant.CalcGravityGeneralizedForces(ctx)
        bias = plant.CalcBiasTerm(ctx) - tau_g  # MuJoCo's qfrc_bias: C·v − τ_g
        # Every force element (gravity compensation included), damping and gravity, less gravity.
        passive = plant.CalcGeneralizedForces(ctx, plant.CalcForceElementsContribution(ctx)) - tau_g
        return {"M": M, "bias": bias, "passive": passive,
                "vdot": (plant.CalcGeneralizedAccelerations(ctx) if aba
                         else jnp.linalg.solve(M, passive - bias))}

    out = jax.jit(jax.vmap(f, in_axes=(None, 0, 0)))(
        plant.CreateDefaultContext(jnp.float64), jnp.asarray(q), jnp.asarray(qvel @ T.T))
    data, errs = mujoco.MjData(mj), {}
    for k in range(num_states):
        data.qpos[:], data.qvel[:] = qpos[k], qvel[k]
        mujoco.mj_forward(mj, data)
        M = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, data, M)
        passive = T.T @ np.asarray(out["passive"][k])
        for key, a, b in (("M", T.T @ np.asarray(out["M"][k]) @ T, M),
                          ("bias", T.T @ np.asarray(out["bias"][k]), data.qfrc_bias),
                          ("passive", passive, data.qfrc_passive),
                          ("vdot", T.T @ np.asarray(out["vdot"][k]), data.qacc)):
            err = np.abs(a - b).max() / max(1.0, np.abs(b).max())
            errs[key] = max(err, errs.get(key, 0.0))
    return errs


@pytest.fixture(scope="module")
def fidelity(tmp_path_factory):
    return _load(_write_model(tmp_path_factory.mktemp("mjcf")))


def test_settotalmass_gravity_gravcomp_and_mesh_match_mujoco(fidelity):
    plant, mj = fidelity
    masses = [float(plant.GetBodyByName(n).default_mass()) for n in ("a", "b")]
    assert sum(masses) == pytest.approx(14.0, rel=1e-14)
    np.testing.assert_allclose(masses, mj.body_mass[1:], rtol=1e-13)
    np.testing.assert_array_equal(plant.gravity_field().gravity_vector(), [0.5, -1, -7])
    assert len([e for i in range(plant.num_force_elements())
                if isinstance(e := plant.get_force_element(jb.forces.ForceElementIndex(i)),
                              jb.forces.GravityCompensation)]) == 2
    errs = _errors(plant, mj)
    print("\nsettotalmass + gravity + gravcomp + mesh:", {k: f"{e:.1e}" for k, e in errs.items()})
    assert max(errs.values()) < REL_TOL, errs


def test_forward_dynamics_matches_mujoco(fidelity):
    """The plant's own forward dynamics (contact included) equals MuJoCo's qacc: body b, with
    two joints, hangs from a through a massless body, and MuJoCo's parent-child filter keeps
    its geoms from touching a's capsule (they overlap at every state)."""
    errs = _errors(*fidelity, num_states=1, aba=True)
    assert errs["vdot"] < REL_TOL, errs


def test_filterparent_excludes_parent_child_contacts(tmp_path):
    plant, _ = _load(_write_model(tmp_path))
    pairs = {tuple(sorted(plant.GetGeometry(g).body().name() for g in pair))
             for pair in plant.GetCollisionCandidates()}
    assert ("a", "b") not in pairs
    text = open(_write_model(tmp_path)).read().replace(
        '<option gravity="0.5 -1 -7"/>',
        '<option gravity="0.5 -1 -7"><flag filterparent="disable"/></option>')
    (tmp_path / "fidelity.xml").write_text(text)
    plant, _ = _load(str(tmp_path / "fidelity.xml"))
    pairs = {tuple(sorted(plant.GetGeometry(g).body().name() for g in pair))
             for pair in plant.GetCollisionCandidates()}
    assert ("a", "b") in pairs


def test_mesh_geom_is_a_scaled_convex_hull(fidelity):
    plant, _ = fidelity
    body = plant.GetBodyByName("b")
    (convex,) = [plant.GetGeometry(g).shape() for g in plant.GetCollisionGeometriesForBody(body)
                 if isinstance(plant.GetGeometry(g).shape(), jb.Convex)]
    np.testing.assert_array_equal(np.asarray(convex.scale3()), [0.2, 0.3, 0.5])
    assert convex.filename().endswith(os.path.join("meshes", "cube.obj"))


def test_disabled_gravity_matches_mujoco():
    plant, mj = _load(NO_GRAVITY)
    ctx = plant.CreateDefaultContext(jnp.float64)
    assert float(jnp.abs(plant.CalcGravityGeneralizedForces(ctx)).max()) == 0.0
    errs = _errors(plant, mj)  # gravcomp="1" has no effect without gravity, as in MuJoCo
    print("\nflag gravity=disable:", {k: f"{e:.1e}" for k, e in errs.items()})
    assert max(errs.values()) < REL_TOL, errs


CONVEX_XML = os.path.join(os.path.dirname(mujoco.__file__), "mjx", "test_data", "convex.xml")


@pytest.mark.skipif(not os.path.isfile(CONVEX_XML), reason="the mujoco wheel has no convex.xml")
def test_stl_mesh_inertias_match_mujoco():
    """MuJoCo's convex.xml (STL meshes, scaled): masses and centers of mass to 1e-14; the
    inertias of the tetrahedron and pyramid to 1e-14, the dodecahedron's to 3e-9 (its inertia
    is isotropic, and MuJoCo keeps principal moments from its own eigensolver)."""
    plant = jb.MultibodyPlant(0.0)
    jb.Parser(plant).AddModels(CONVEX_XML)
    mj = mujoco.MjModel.from_xml_path(CONVEX_XML)
    for i in range(1, mj.nbody):
        m, c, I, I_mj = body_inertias(plant, mj, i,
                                      mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, i))
        assert m == pytest.approx(mj.body_mass[i], rel=1e-14)
        np.testing.assert_allclose(c, mj.body_ipos[i], atol=1e-14)
        np.testing.assert_allclose(I, I_mj, atol=MESH_INERTIA_TOL * np.abs(I_mj).max())


def _parse(text, tmp_path=None):
    plant = jb.MultibodyPlant(0.0)
    if tmp_path is None:
        return jb.Parser(plant).AddModelsFromString(text, "xml")
    path = tmp_path / "m.xml"
    path.write_text(text)
    return jb.Parser(plant).AddModels(str(path))


@pytest.mark.parametrize("attribute", ["density", "viscosity"])
def test_fluid_forces_are_refused_at_their_line(attribute):
    text = f'<mujoco>\n<option {attribute}="1.2"/>\n<worldbody/>\n</mujoco>'
    with pytest.raises(jb.ParseError, match=rf":2: <option>: error: <option {attribute}="):
        _parse(text)


def test_static_height_field_is_skipped_with_a_warning_a_moving_one_refused():
    body = '<body><joint/><geom size="0.1"/></body>'
    text = ('<mujoco>\n<asset><hfield name="h" nrow="2" ncol="2" size="1 1 0.1 0.1"/></asset>\n'
            '<worldbody>\n<geom type="hfield" hfield="h"/>\n' + body + '\n</worldbody>\n'
            '</mujoco>')
    with pytest.warns(jb.ParseWarning, match=r":4: <geom>: warning: hfield geom on the world"):
        _parse(text)
    moving = text.replace('<geom size="0.1"/>', '<geom type="hfield" hfield="h"/>')
    with pytest.raises(jb.ParseError, match=r":5: <geom>: error: hfield geoms are supported "
                                            "on the world body only"):
        _parse(moving)


def test_non_convex_mesh_that_sets_inertia_is_refused(tmp_path):
    # The cube with one corner pushed in: closed, not convex.
    (tmp_path / "dent.obj").write_text(CUBE_OBJ.replace("v 1 1 1", "v 0.6 0.6 0.6"))
    text = ('<mujoco>\n<asset><mesh file="dent.obj"/></asset>\n<worldbody>\n<body>\n<joint/>\n'
            '<geom type="mesh" mesh="dent"/>\n</body>\n</worldbody>\n</mujoco>')
    with pytest.raises(jb.ParseError, match=r":6: <geom>: error: mesh geom 'dent': the mesh is "
                                            "not convex"):
        _parse(text, tmp_path)
    # With an <inertial>, the mesh is only a collision shape, and loads.
    _parse(text.replace("<joint/>", '<joint/><inertial mass="1" diaginertia="1 1 1" pos="0 0 0"/>'),
           tmp_path)


def test_unsupported_flags_warn_at_their_line():
    text = '<mujoco>\n<option>\n<flag contact="disable" eulerdamp="disable"/>\n</option>\n</mujoco>'
    with pytest.warns(jb.ParseWarning, match=r':3: <flag>: warning: <flag contact="disable">'):
        _parse(text)
