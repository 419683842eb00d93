"""`TreeJacobian`: the per-tree contact Jacobian equals the dense one, on a synthetic layout and
on a plant whose contacts join two free bodies, the world, a welded body and two links of one
chain (a constraint within one tree)."""

import dataclasses

import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from jaxbody.contact.discrete_problem import StepData, build_problem
from jaxbody.contact.tree_jacobian import TreeJacobian
from jaxbody.engine import dynamics, point_contact


def _dense_from_blocks(blocks, trees, dof_map, nv):
    n, _, m, _ = blocks.shape
    J = np.zeros((n, m, nv + 1))
    for c in range(n):
        for s in range(2):
            for k, i in enumerate(dof_map[trees[c, s]]):
                J[c, :, i] += blocks[c, s, :, k]
    return J[..., :nv]


def _check_against_dense(Jt, J, rng):
    n, m, nv = J.shape
    v, g, w = rng.normal(size=nv), rng.normal(size=(n, m)), rng.uniform(0.5, 2, size=nv)
    G = rng.normal(size=(n, m, m))
    G = G @ np.swapaxes(G, 1, 2)
    np.testing.assert_allclose(Jt.to_dense(), J, atol=1e-14)
    np.testing.assert_allclose(Jt.apply(jnp.asarray(v)), J @ v, atol=1e-12)
    np.testing.assert_allclose(Jt.apply_transpose(jnp.asarray(g)),
                               np.einsum("cin,ci->n", J, g), atol=1e-12)
    np.testing.assert_allclose(Jt.congruence(jnp.asarray(G)),
                               np.einsum("cin,cij,cjm->nm", J, G, J), atol=1e-11)
    np.testing.assert_allclose(Jt.weighted_gram(jnp.asarray(w)),
                               np.einsum("cin,n,cjn->cij", J, w, J), atol=1e-12)
    if not Jt.is_dense:  # tree layout: round trip, and the diagonal tree blocks of JᵀGJ
        np.testing.assert_array_equal(Jt.from_tree(Jt.to_tree(jnp.asarray(v))), v)
        H = np.einsum("cin,cij,cjm->nm", J, G, J)
        blocks = np.asarray(Jt.tree_congruence(jnp.asarray(G)))
        dof_map = np.asarray(Jt.dof_map)
        for t, row in enumerate(dof_map[:-1]):
            idx = row[row < nv]
            np.testing.assert_allclose(blocks[t][:idx.size, :idx.size], H[np.ix_(idx, idx)],
                                       atol=1e-11)


def test_synthetic_layout_matches_dense():
    rng = np.random.default_rng(0)
    dof_tree = np.array([0, 2, 1, 0, 2, 2, 0, 1, 2, 2])  # uneven trees, interleaved dofs
    dof_map, dof_slot, pair_slot = TreeJacobian.layout(dof_tree, 3)
    assert dof_map.shape == (4, 5) and np.all(dof_map[3] == 10)
    np.testing.assert_array_equal(dof_map.ravel()[dof_slot], np.arange(10))
    n, d = 7, dof_map.shape[1]
    trees = np.array([[0, 1], [2, 3], [3, 1], [1, 0], [2, 0], [0, 3], [1, 2]])
    blocks = rng.normal(size=(n, 2, 3, d))
    blocks = np.where((dof_map[trees] == 10)[:, :, None, :], 0.0, blocks)
    J = _dense_from_blocks(blocks, trees, dof_map, 10)
    Jt = TreeJacobian(jnp.asarray(blocks), jnp.asarray(trees), jnp.asarray(dof_map),
                      jnp.asarray(dof_slot), jnp.asarray(pair_slot))
    _check_against_dense(Jt, J, rng)
    _check_against_dense(TreeJacobian.from_dense(jnp.asarray(J)), J, rng)


def _sphere_props(k=1e5):
    props = jb.ProximityProperties()
    jb.AddContactMaterial(dissipation=0.0, point_stiffness=k,
                          friction=jb.CoulombFriction(0.5, 0.5), properties=props)
    props.AddProperty("material", "relaxation_time", 0.01)
    return props


@pytest.fixture(scope="module")
def scene():
    """A 3-link planar chain whose first and last links' spheres overlap, two free spheres
    overlapping each other and the ground, and a welded sphere one of them touches."""
    plant = jb.MultibodyPlant(1e-3)
    M = jb.SpatialInertia.SolidSphereWithMass(1.0, 0.05)
    r = 0.05
    links, parent = [], plant.world_body()
    for i in range(3):
        link = plant.AddRigidBody(f"link{i}", M)
        X = jb.RigidTransform(np.array([0.0, 0.0, 0.3]) if i == 0 else np.array([0.08, 0, 0]))
        frame = plant.AddFrame(jb.FixedOffsetFrame(f"F{i}", parent.body_frame(), X))
        plant.AddJoint(jb.RevoluteJoint(f"j{i}", frame, link.body_frame(), [0, 0, 1]))
        links.append(link)
        parent = link
    plant.RegisterCollisionGeometry(links[0], jb.RigidTransform(), jb.Sphere(r), "g0",
                                    _sphere_props())
    plant.RegisterCollisionGeometry(links[2], jb.RigidTransform(), jb.Sphere(r), "g2",
                                    _sphere_props())
    a = plant.AddRigidBody("a", M)
    b = plant.AddRigidBody("b", M)
    w = plant.AddRigidBody("welded", M)
    plant.WeldFrames(plant.world_frame(), w.body_frame(),
                     jb.RigidTransform(np.array([1.0, 0.09, 0.04])))
    for body in (a, b, w):
        plant.RegisterCollisionGeometry(body, jb.RigidTransform(), jb.Sphere(r), body.name(),
                                        _sphere_props())
    plant.RegisterCollisionGeometry(plant.world_body(), jb.RigidTransform(), jb.HalfSpace(),
                                    "ground", _sphere_props())
    plant.Finalize()
    ctx = plant.CreateDefaultContext()
    ctx = plant.SetFreeBodyPose(ctx, a, jb.RigidTransform(np.array([1.0, 0.0, 0.045])))
    ctx = plant.SetFreeBodyPose(ctx, b, jb.RigidTransform(np.array([1.0, 0.0, 0.13])))
    q = np.array(plant.GetPositions(ctx))
    for name, angle in (("j0", 0.3), ("j1", 2.2), ("j2", 2.0)):  # folds link 2 onto link 0
        q[plant.GetJointByName(name).position_start()] = angle
    rng = np.random.default_rng(1)
    ctx = plant.SetVelocities(plant.SetPositions(ctx, q), rng.normal(size=plant.num_velocities()))
    return plant, ctx


def test_contact_jacobian_gives_the_relative_contact_velocities(scene):
    plant, ctx = scene
    model = plant.compiled_model()
    dk = dynamics.kinematics(model, ctx)
    M = plant.CalcMassMatrix(ctx)
    pc = point_contact.contact_slots(model, ctx)
    problem, R_WC = build_problem(StepData(model.topology, model.discrete, model.time_step, dk,
                                           M, ctx.v, ctx.q, ctx.v), pc)
    p_WC = pc.p_WC
    active = np.asarray(problem.active_c) > 0
    names = {frozenset((plant.get_body(int(pc.body_a[i])).name(),
                        plant.get_body(int(pc.body_b[i])).name())) for i in np.flatnonzero(active)}
    assert frozenset({"link0", "link2"}) in names  # one tree
    assert frozenset({"a", "b"}) in names  # two trees
    assert any("welded" in p for p in names)  # a dof-less body
    assert any(plant.world_body().name() in p for p in names)  # the world

    def point_velocity(body_index, p):
        body = plant.get_body(int(body_index))
        X = plant.EvalBodyPoseInWorld(ctx, body)
        V = plant.EvalBodySpatialVelocityInWorld(ctx, body)
        w, v = np.asarray(V.rotational()), np.asarray(V.translational())
        return v + np.cross(w, np.asarray(p) - np.asarray(X.translation()))

    vc = np.asarray(problem.Jc.apply(ctx.v))
    for i in np.flatnonzero(active):
        rel = point_velocity(pc.body_a[i], p_WC[i]) - point_velocity(pc.body_b[i], p_WC[i])
        np.testing.assert_allclose(vc[i], np.asarray(R_WC[i]).T @ rel, atol=1e-12)
    # ... and every other product agrees with the dense Jacobian it stands for.
    _check_against_dense(problem.Jc, np.asarray(problem.Jc.to_dense()), np.random.default_rng(2))


def test_bad_jacobians_get_clear_errors():
    from jaxbody.contact import SapProblem, solve

    with pytest.raises(ValueError, match=r"from_dense: J must have shape \(n, m, nv\)"):
        TreeJacobian.from_dense(np.ones((3, 6)))
    z = jnp.zeros
    p = SapProblem(jnp.eye(3), z(3), z((1, 3, 3)), jnp.ones((1, 3)), z((1, 3)), jnp.ones(1),
                   jnp.ones(1), z((0, 3)), z(0), z(0), z(0), jnp.ones(3))
    with pytest.raises(TypeError, match="TreeJacobian.from_dense"):
        solve(p, z(3))


def test_tree_blocked_free_motion_and_problem_equal_the_dense_ones(scene):
    """On a plant of several trees the step makes A = M + δt·D by tree blocks, never dense
    (`crba.mass_matrix_tree_blocks`): the blocks, v*, the SAP problem's A, Hessian and solution
    equal those made from the dense mass matrix."""
    from jaxbody.contact import sap_problem as sp
    from jaxbody.contact.sap_solver import solve
    from jaxbody.engine import discrete_step as ds
    from jaxbody.math.small_spd import gather_blocks

    plant, ctx = scene
    model = plant.compiled_model()
    dt, nv = model.time_step, plant.num_velocities()
    dk, A_tree, v_star = ds.free_motion_of(model, ctx, None)
    dof_map = model.discrete.trees.dof_map
    assert A_tree.shape == (dof_map.shape[0],) + 2 * (dof_map.shape[1],)  # blocks, not (nv, nv)
    M = np.asarray(plant.CalcMassMatrix(ctx))
    np.testing.assert_allclose(A_tree, gather_blocks(jnp.asarray(M), dof_map), atol=1e-13)
    v_dot = np.asarray(plant.CalcGeneralizedAccelerations(ctx))  # M⁻¹k, dense (no damping)
    np.testing.assert_allclose(v_star, np.asarray(ctx.v) + dt * v_dot, rtol=1e-11, atol=1e-13)
    pc = point_contact.contact_slots(model, ctx)
    blocked, _ = build_problem(StepData(model.topology, model.discrete, dt, dk, A_tree, v_star,
                                        ctx.q, ctx.v), pc)
    dense, _ = build_problem(StepData(model.topology, model.discrete, dt, dk, jnp.asarray(M),
                                      v_star, ctx.q, ctx.v), pc)
    assert blocked.A is None and blocked.A_tree is not None
    np.testing.assert_allclose(sp.dense_A(blocked), M, atol=1e-13)
    np.testing.assert_allclose(sp.diagonal_A(blocked), np.diagonal(M), atol=1e-13)
    np.testing.assert_allclose(blocked.Rc, dense.Rc, rtol=1e-12)  # Delassus estimates
    v = jnp.asarray(np.random.default_rng(5).normal(size=nv))
    np.testing.assert_allclose(sp.hessian(blocked, v), sp.hessian(dense, v), atol=1e-10)
    v_b, st_b = solve(blocked, ctx.v)
    v_d, st_d = solve(dense, ctx.v)
    assert st_b.converged == 1.0 and st_b.iterations == st_d.iterations
    np.testing.assert_allclose(v_b, v_d, rtol=1e-12, atol=1e-13)
    with pytest.raises(ValueError, match="A may be None only when A_tree"):
        solve(dataclasses.replace(blocked, A_tree=None), ctx.v)


def test_a_plant_of_several_trees_without_contact_geometry_steps_in_free_motion():
    """No contact slots at all (the empty contact Jacobian in tree form): the step is free
    motion, v = v*."""
    plant = jb.MultibodyPlant(1e-3)
    M = jb.SpatialInertia.SolidSphereWithMass(1.0, 0.05)
    for name in ("a", "b"):
        plant.AddRigidBody(name, M)
    link = plant.AddRigidBody("link", M)
    plant.AddJoint(jb.RevoluteJoint("j", plant.world_frame(), link.body_frame(), [0, 1, 0]))
    plant.Finalize()
    ctx = plant.CreateDefaultContext()
    ctx = plant.SetVelocities(ctx, np.random.default_rng(0).normal(size=plant.num_velocities()))
    from jaxbody.engine import discrete_step as ds

    _, _, v_star = ds.free_motion_of(plant.compiled_model(), ctx, None)
    nxt = plant.CalcDiscreteStep(ctx)
    np.testing.assert_allclose(nxt.context.v, v_star, atol=1e-15)
    v_dot = np.asarray(plant.CalcGeneralizedAccelerations(ctx))
    np.testing.assert_allclose(v_star, np.asarray(ctx.v) + 1e-3 * v_dot, rtol=1e-12,
                               atol=1e-13)
