"""Reversed joints: a joint whose child body is inboard of its parent (a chain built tip first, a
joint with the world as its child). As Drake's reversed mobilizers, the joint keeps its q and v.

Against pydrake on random trees with some joints flipped (parent and child swapped, with their
frames): the coordinate order, body poses and velocities, M, C·v, gravity, inverse and forward
dynamics (1e-10). The reversed kinds' H and Ḣv against derivatives of their X_MF(q). vmap and
gradients. Loops still raise.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxbody as jb
from jaxbody.engine.dynamics import analytic_state_derivatives
from jaxbody.joints import kind_registry
from jaxbody.joints.reversed_kind import reversed_kind
from jaxbody.math.so3 import unskew
from tests.helpers import random_trees as rt

TOL = 1e-10
KINDS = ("revolute", "prismatic", "screw", "universal", "planar", "ball_rpy", "weld",
         "rpy_floating", "quaternion_floating")


def _flipped(js):
    return dataclasses.replace(js, parent=js.child, child=js.parent, R_PF=js.R_BM,
                               p_PF=js.p_BM, R_BM=js.R_PF, p_BM=js.p_PF)


DRAKE_REVERSIBLE = ("revolute", "prismatic", "weld")  # what Drake 1.51 can reverse


def _spec(seed, flip_kinds=DRAKE_REVERSIBLE, num_bodies=7):
    """A random tree whose joints of ``flip_kinds`` are flipped with probability ½; its first
    joint (from the world) is made one of them and flipped: world as its child."""
    rng = np.random.default_rng(900 + seed)
    spec = rt.random_tree(rng, num_bodies, kinds=KINDS, free_fraction=0.0)
    spec.actuated = []
    for js in spec.joints:
        js.damping = 0.0  # forward dynamics is checked against Drake's M, C and gravity
    spec.joints[0].kind = flip_kinds[seed % len(flip_kinds)]
    flips = rng.uniform(size=len(spec.joints)) < 0.5
    flips[0] = True
    spec.joints = [_flipped(js) if f and js.kind in flip_kinds else js
                   for js, f in zip(spec.joints, flips)]
    return spec, rng


def _quantities(plant, ctx, bodies, vdot, tau, forces):
    out = {"M": plant.CalcMassMatrix(ctx), "Cv": plant.CalcBiasTerm(ctx),
           "g": plant.CalcGravityGeneralizedForces(ctx),
           "id": plant.CalcInverseDynamics(ctx, vdot, forces(plant, np.zeros_like(tau))),
           "fd": plant.CalcGeneralizedAccelerations(ctx, applied_forces=forces(plant, tau))}
    for b in bodies:
        out[f"X_{b.name()}"] = plant.EvalBodyPoseInWorld(ctx, b).GetAsMatrix4()
        out[f"V_{b.name()}"] = plant.EvalBodySpatialVelocityInWorld(ctx, b).get_coeffs()
    return out


@pytest.mark.parametrize("seed", range(3))
def test_flipped_trees_match_pydrake(seed):
    pytest.importorskip("pydrake")
    from pydrake.multibody.tree import MultibodyForces

    spec, rng = _spec(seed)
    plant, dplant = rt.build_jaxbody(spec), rt.build_drake(spec)
    assert any(j.child_body().index() == 0 for j in plant._joints)
    for k in range(len(spec.joints)):
        j, dj = plant.GetJointByName(f"joint{k}"), dplant.GetJointByName(f"joint{k}")
        assert (j.position_start(), j.velocity_start()) == (dj.position_start(),
                                                            dj.velocity_start())
    q, v = rt.random_state(rng, plant)
    vdot, tau = rng.normal(size=(2, plant.num_velocities()))
    ctx = plant.SetVelocities(plant.SetPositions(plant.CreateDefaultContext(), jnp.asarray(q)),
                              jnp.asarray(v))
    dctx = dplant.CreateDefaultContext()
    dplant.SetPositions(dctx, q)
    dplant.SetVelocities(dctx, v)
    bodies = [plant.GetBodyByName(f"body{i}") for i in range(1, len(spec.masses) + 1)]
    dbodies = [dplant.GetBodyByName(b.name()) for b in bodies]

    def dforces(p, t):
        f = MultibodyForces(p)
        f.mutable_generalized_forces()[:] = t
        return f

    mine = _quantities(plant, ctx, bodies, jnp.asarray(vdot), jnp.asarray(tau),
                       lambda p, t: jb.MultibodyForces(p, jnp.asarray(t)))
    want = {"M": dplant.CalcMassMatrix(dctx), "Cv": dplant.CalcBiasTerm(dctx),
            "g": dplant.CalcGravityGeneralizedForces(dctx),
            "id": dplant.CalcInverseDynamics(dctx, vdot, dforces(dplant, np.zeros_like(tau)))}
    M, rhs = want["M"], tau + want["g"] - want["Cv"]
    want["fd"] = np.linalg.solve(M, rhs)
    for b, db in zip(bodies, dbodies):
        want[f"X_{b.name()}"] = dplant.EvalBodyPoseInWorld(dctx, db).GetAsMatrix4()
        want[f"V_{b.name()}"] = dplant.EvalBodySpatialVelocityInWorld(dctx, db).get_coeffs()
    for key, value in want.items():
        scale = max(1.0, np.abs(value).max())
        assert np.abs(np.asarray(mine[key]) - value).max() < TOL * scale, key


@pytest.mark.parametrize("base", [k for k in kind_registry.ALL_KINDS if k.nv > 0],
                         ids=lambda k: k.name)
def test_reversed_subspaces_are_derivatives_of_the_inverse_pose(base):
    kind = reversed_kind(base)
    rng = np.random.default_rng(1)
    q = rng.uniform(-1.0, 1.0, size=(1, base.nq))
    if base.has_quaternion:
        quat = rng.normal(size=4)
        q[0, :4] = quat / np.linalg.norm(quat)
    q = jnp.asarray(q)
    v = jnp.asarray(rng.normal(size=(1, base.nv)))
    c = {"axis": np.array([[0.0, 0.6, 0.8]]), "pitch": np.array([0.3]),
         "semi_axes": np.array([[0.3, 0.5, 0.7]])}  # each kind reads what it needs
    qdot = jnp.einsum("kij,kj->ki", kind.N(q, c), v)
    (R, p), (Rd, pd) = jax.jvp(lambda x: kind.transform(x, c), (q,), (qdot,))
    V = kind.subspace(q, c)[0] @ v[0]
    np.testing.assert_allclose(V[:3], unskew(Rd[0] @ R[0].T), atol=1e-12)
    np.testing.assert_allclose(V[3:], pd[0], atol=1e-12)
    _, Hd = jax.jvp(lambda x: kind.subspace(x, c), (q,), (qdot,))
    np.testing.assert_allclose(kind.subspace_dot_v(q, v, c)[0], Hd[0] @ v[0], atol=1e-12)


def test_vmap_and_gradients():
    spec, rng = _spec(0, num_bodies=4)
    plant = rt.build_jaxbody(spec)
    assert not analytic_state_derivatives(plant.compiled_model())  # reversed kinds take the autodiff path
    base = plant.CreateDefaultContext()

    def fd(q, v):
        return plant.CalcGeneralizedAccelerations(plant.SetVelocities(
            plant.SetPositions(base, q), v))

    states = [rt.random_state(rng, plant) for _ in range(3)]
    qs, vs = (jnp.asarray(np.stack(x)) for x in zip(*states))
    np.testing.assert_allclose(jax.jit(jax.vmap(fd))(qs, vs),
                               np.stack([fd(q, v) for q, v in zip(qs, vs)]), atol=1e-11)
    check_grads(jax.jit(fd), (qs[0], vs[0]), order=1, modes=["fwd", "rev"], eps=1e-6)


def test_loops_still_raise():
    plant = jb.MultibodyPlant(0.0)
    M = jb.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1)
    a, b = plant.AddRigidBody("a", M), plant.AddRigidBody("b", M)
    plant.AddJoint(jb.RevoluteJoint("wa", plant.world_frame(), a.body_frame(), [0, 0, 1]))
    plant.AddJoint(jb.RevoluteJoint("ba", b.body_frame(), a.body_frame(), [0, 0, 1]))
    plant.AddJoint(jb.RevoluteJoint("bw", b.body_frame(), plant.world_frame(), [0, 0, 1]))
    with pytest.raises(ValueError, match="Kinematic loop: body 'b' is reached through joints"):
        plant.Finalize()
    plant = jb.MultibodyPlant(0.0)
    a, b = plant.AddRigidBody("a", M), plant.AddRigidBody("b", M)
    plant.AddJoint(jb.RevoluteJoint("wa", plant.world_frame(), a.body_frame(), [0, 0, 1]))
    plant.AddJoint(jb.RevoluteJoint("ab", a.body_frame(), b.body_frame(), [0, 0, 1]))
    plant.AddJoint(jb.RevoluteJoint("bw", b.body_frame(), plant.world_frame(), [0, 0, 1]))
    with pytest.raises(ValueError, match="body 'b' is reached through joints 'bw' and 'ab'"):
        plant.Finalize()


def _inverse_custom(kind):
    """A CustomJoint moving like a joint of ``kind`` seen from its child: X(q) = X_FM(q)⁻¹,
    with the kind's q̇ = N(q) v, so q and v mean what they mean for the joint."""
    c = {"axis": np.array([[0.0, 0.6, 0.8]]), "pitch": np.array([0.3])}

    def X(q):
        R, p = kind.transform(q[None], c)
        return R[0].T, -R[0].T @ p[0]

    def N(q):
        return kind.N(q[None], c)[0]

    return X, N


@pytest.mark.parametrize("seed", range(2))
def test_every_kind_reversed_equals_its_inverse_written_as_a_custom_joint(seed):
    """Drake reverses only revolute, prismatic and weld joints; jaxbody reverses every kind.
    A flipped joint of any kind equals, built the other way round, a CustomJoint whose pose is
    the inverse (H from autodiff there, from the reversal formula here)."""
    flip = ("ball_rpy", "universal", "planar", "quaternion_floating", "screw", "rpy_floating")
    spec, rng = _spec(seed, flip)
    original = rt._make_joint
    by_kind = {k.name: k for k in kind_registry.ALL_KINDS}
    customs = {name: _inverse_custom(by_kind[name]) for name in flip}
    axis_spec = np.array([0.0, 0.6, 0.8])

    def make(mod, js, name, F, M):
        if js.kind.startswith("inverse:"):
            base = by_kind[js.kind.split(":")[1]]
            X, N = customs[base.name]
            return jb.CustomJoint(name, F, M, X, base.nq, base.nv, qdot_map=N,
                                  has_quaternion=base.has_quaternion,
                                  default_positions=base.default_q())
        return original(mod, js, name, F, M)

    for js in spec.joints:  # the constants the inverse customs assume
        js.axis, js.pitch = axis_spec, 0.3
    flipped = rt.build_jaxbody(spec)
    # the same model built the other way round: each flipped joint unflipped, as its inverse
    other = dataclasses.replace(spec, joints=[
        dataclasses.replace(_flipped(js), kind="inverse:" + js.kind)
        if js.kind in flip and js.parent > js.child  # flipped (random trees have parent < child)
        else js for js in spec.joints])
    rt._make_joint = make
    try:
        straight = rt.build_jaxbody(other)
    finally:
        rt._make_joint = original
    assert any(g.kind.name.startswith("reversed:") for g in flipped._topology.groups)
    q, v = rt.random_state(rng, flipped)
    vdot, tau = rng.normal(size=(2, flipped.num_velocities()))
    bodies = [flipped.GetBodyByName(f"body{i}") for i in range(1, len(spec.masses) + 1)]

    def forces(p, t):
        return jb.MultibodyForces(p, jnp.asarray(t))

    got, want = ({k: np.asarray(x) for k, x in _quantities(
        p, p.SetVelocities(p.SetPositions(p.CreateDefaultContext(), jnp.asarray(q)),
                           jnp.asarray(v)),
        [p.GetBodyByName(b.name()) for b in bodies], jnp.asarray(vdot), jnp.asarray(tau),
        forces).items()} for p in (flipped, straight))
    for key, value in want.items():
        assert np.abs(got[key] - value).max() < TOL * max(1.0, np.abs(value).max()), key
