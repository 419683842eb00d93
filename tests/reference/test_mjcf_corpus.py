"""Every MJCF file shipped in the ``mujoco`` wheel, loaded by MuJoCo and by jaxbody: the counts
and every rejection with its reason are printed (run with -s), jaxbody loads every file MuJoCo
loads except those using what jaxbody's MJCF reader refuses (fluid forces, non-convex meshes
that give a body its inertia),
and each model loaded by both has the same bodies with the same spatial inertias and the same
number of degrees of freedom. (Dynamics are compared with MuJoCo in test_mjcf_mujoco.py.)"""

import glob
import os
import warnings

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

import jaxbody as jb  # noqa: E402
from tests.parsers.mujoco_coordinates import body_inertias  # noqa: E402

INERTIA_TOL = 1e-12  # relative to max(1, mass)
# The documented gaps of the MJCF reader: fluid forces, the inertia of non-convex meshes.
UNSUPPORTED = ("fluid forces", "the mesh is not convex")
# Inertias from meshes: MuJoCo keeps principal moments from its own eigensolver, which for the
# near-isotropic dodecahedron (convex.xml, ray.xml) differ from the exact ones by ~3e-9.
MESH_INERTIA_TOL = 1e-8  # relative to the largest moment
FILES = sorted(glob.glob(os.path.join(os.path.dirname(mujoco.__file__), "**", "*.xml"),
                         recursive=True))


def _short(path):
    return os.path.relpath(path, os.path.dirname(mujoco.__file__))


@pytest.fixture(scope="module")
def corpus():
    """{path: (MuJoCo model or None, MuJoCo's reason, jaxbody plant or None, jaxbody's reason)}"""
    out = {}
    for path in FILES:
        with open(path, "rb") as f:
            if b"<mujoco" not in f.read(4096):
                continue
        try:
            ref = (mujoco.MjModel.from_xml_path(path), None)
        except Exception as e:  # MuJoCo raises ValueError
            ref = (None, str(e).splitlines()[0])
        plant = jb.MultibodyPlant(0.0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", jb.ParseWarning)
                jb.Parser(plant).AddModels(path)
            plant.Finalize()
            got = (plant, None)
        except jb.ParseError as e:
            got = (None, e.reason)
        out[path] = ref + got
    return out


def test_the_same_files_load(corpus):
    loaded = [p for p, c in corpus.items() if c[2] is not None]
    accepted = [p for p, c in corpus.items() if c[0] is not None]
    print(f"\n{len(loaded)} of {len(corpus)} MJCF files load in jaxbody; MuJoCo loads "
          f"{len(accepted)}")
    for path, (_, why_ref, plant, why) in corpus.items():
        if plant is None or why_ref is not None:
            print(f"  {_short(path)}: jaxbody: {why or 'loads'}; MuJoCo: {why_ref or 'loads'}")
    missing = [_short(p) for p in accepted if corpus[p][2] is None
               and not any(u in corpus[p][3] for u in UNSUPPORTED)]
    assert not missing, f"MuJoCo loads but jaxbody rejects: {missing}"
    assert len(loaded) >= 30


def test_loaded_models_match_mujoco_inertias(corpus):
    compared = 0
    for path, (mj, _, plant, _) in corpus.items():
        if mj is None or plant is None:
            continue
        assert plant.num_velocities() == mj.nv and plant.num_positions() == mj.nq, _short(path)
        for i in range(1, mj.nbody):
            name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, i) or f"body{i}"
            m, c, I, I_mj = body_inertias(plant, mj, i, name)
            scale = INERTIA_TOL * max(1.0, mj.body_mass[i])
            assert abs(m - mj.body_mass[i]) <= scale, (_short(path), name)
            if m > 0:
                assert np.abs(c - mj.body_ipos[i]).max() <= scale, (_short(path), name)
            tol = max(scale, MESH_INERTIA_TOL * np.abs(I_mj).max() if mj.nmesh else 0.0)
            assert np.abs(I - I_mj).max() <= tol, (_short(path), name)
            compared += 1
    print(f"\n{compared} bodies compared with MuJoCo")
    assert compared > 100
