"""`compile_model`: a finalized plant's builder state -> its frozen `Model`.

The only place that reads the builder's element objects on behalf of the engine: everything
the engine functions need is copied here into typed NumPy tables and records
(`jaxbody.model`). The plant compiles its model at Finalize and again after any setter Drake
allows afterwards (``_model_changed``), so a model never changes once made. Its key is the hash
of its own fields (`jaxbody.model.content_key`): nothing the builder holds outside the model
takes part, and nothing the model holds is left out.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.algorithms import kinematics as kin
from jaxbody.contact.discrete_layout import (
    CouplerRows,
    DiscreteLayout,
    PdRows,
    limit_rows,
    point_pair_rows,
    tree_layout,
    weld_rows,
)
from jaxbody.core.context import Context
from jaxbody.forces.gravity import UniformGravityFieldElement
from jaxbody.geometry.geometry_instance import Role
from jaxbody.math.rigid_transform import RigidTransform
from jaxbody.model import Model
from jaxbody.model.constraint_spec import ConstraintSpec
from jaxbody.model.contact_spec import ContactSpec
from jaxbody.model.content_key import content_key
from jaxbody.model.tables import ActuatorTable, BodyTable, FrameTable, InstanceTable, JointTable
from jaxbody.plant.contact_settings import DiscreteContactApproximation
from jaxbody.plant.default_parameters import default_parameters


def _stack(n, joints, start, count, getter):
    out = np.full(n, np.nan)
    for j in joints:
        out[start(j): start(j) + count(j)] = getter(j)
    return out


def _joint_table(plant) -> JointTable:
    topo, joints = plant._topology, plant._joints
    node = np.full(len(joints), -1, np.int64)
    node[topo.node_joint[1:]] = np.arange(1, topo.num_nodes)
    return JointTable(
        names=tuple(j.name() for j in joints), type_names=tuple(j.type_name() for j in joints),
        kinds=tuple(j.kind for j in joints),
        instance=np.asarray([int(j.model_instance()) for j in joints], np.int64),
        q_start=np.asarray([j.position_start() for j in joints], np.int64),
        nq=np.asarray([j.num_positions() for j in joints], np.int64),
        v_start=np.asarray([j.velocity_start() for j in joints], np.int64),
        nv=np.asarray([j.num_velocities() for j in joints], np.int64), node=node,
        q_lower=_stack(topo.nq, joints, lambda j: j.position_start(), lambda j: j.num_positions(),
                       lambda j: j.position_lower_limits()),
        q_upper=_stack(topo.nq, joints, lambda j: j.position_start(), lambda j: j.num_positions(),
                       lambda j: j.position_upper_limits()),
        v_lower=_stack(topo.nv, joints, lambda j: j.velocity_start(),
                       lambda j: j.num_velocities(), lambda j: j.velocity_lower_limits()),
        v_upper=_stack(topo.nv, joints, lambda j: j.velocity_start(),
                       lambda j: j.num_velocities(), lambda j: j.velocity_upper_limits()),
        a_lower=_stack(topo.nv, joints, lambda j: j.velocity_start(),
                       lambda j: j.num_velocities(), lambda j: j.acceleration_lower_limits()),
        a_upper=_stack(topo.nv, joints, lambda j: j.velocity_start(),
                       lambda j: j.num_velocities(), lambda j: j.acceleration_upper_limits()),
        random_samplers=tuple(j._random_sampler for j in joints))


def _frame_table(plant) -> FrameTable:
    frames = plant._frames
    return FrameTable(
        names=tuple(f.name() for f in frames),
        instance=np.asarray([int(f.model_instance()) for f in frames], np.int64),
        body=np.asarray([int(f.body().index()) for f in frames], np.int64))


def _actuator_table(plant) -> ActuatorTable:
    acts = plant._actuators
    return ActuatorTable(
        names=tuple(a.name() for a in acts),
        instance=np.asarray([int(a.model_instance()) for a in acts], np.int64),
        dof=np.asarray([a.joint().velocity_start() for a in acts], np.int64),
        q=np.asarray([a.joint().position_start() for a in acts], np.int64),
        effort_limit=np.asarray([a.effort_limit() for a in acts], float),
        has_pd=np.asarray([a.has_controller() for a in acts], bool))


def _instance_table(plant) -> InstanceTable:
    q_index, v_index, a_index = [], [], []
    empty = np.zeros(0, np.int64)
    for mi in range(len(plant._instance_names)):
        js = [j for j in plant._joints if int(j.model_instance()) == mi]
        q_index.append(np.concatenate(
            [np.arange(j.position_start(), j.position_start() + j.num_positions())
             for j in sorted(js, key=lambda j: j.position_start())] + [empty]).astype(np.int64))
        v_index.append(np.concatenate(
            [np.arange(j.velocity_start(), j.velocity_start() + j.num_velocities())
             for j in sorted(js, key=lambda j: j.velocity_start())] + [empty]).astype(np.int64))
        a_index.append(np.asarray([int(a.index()) for a in plant._actuators
                                   if int(a.model_instance()) == mi], np.int64))
    return InstanceTable(tuple(plant._instance_names), tuple(q_index), tuple(v_index),
                         tuple(a_index))


def _body_table(plant) -> BodyTable:
    gravity = plant._force_elements[0]
    assert isinstance(gravity, UniformGravityFieldElement)
    off = gravity._disabled
    return BodyTable(
        names=tuple(b.name() for b in plant._bodies),
        instance=np.asarray([int(b.model_instance()) for b in plant._bodies], np.int64),
        gravity_disabled=np.asarray([int(b.index()) for b in plant._bodies
                                     if int(b.model_instance()) in off], np.int64))


def _default_body_poses(plant, parameters):
    """(R_WB (nb, 3, 3), p_WB (nb, 3)) in BodyIndex order at the default state (host)."""
    with jax.ensure_compile_time_eval():
        topo = plant._topology
        ctx = Context(time=jnp.zeros(()), q=jnp.asarray(plant._default_q, jnp.float64),
                      v=jnp.zeros(topo.nv, jnp.float64),
                      parameters=jax.tree.map(lambda x: jnp.asarray(x, jnp.float64), parameters))
        jk = kin.joint_kinematics(topo, ctx.q, ctx.v)
        pk = kin.position_kinematics(topo, ctx.q, ctx.parameters, jk)
        nodes = topo.body_node
        return np.asarray(pk.R_WB[nodes]), np.asarray(pk.p_WB[nodes])


def _constraint_spec(plant, parameters) -> ConstraintSpec:
    """The specs, ball and weld ones with every ``p_BQ`` / ``X_BQ`` set: Q at P in the default
    configuration where not given (Drake's rule)."""
    balls, welds = plant._balls, plant._welds
    if any(s.p_BQ is None for s in balls) or any(s.X_BQ is None for s in welds):
        R, p = _default_body_poses(plant, parameters)

        def pose(b):
            return RigidTransform(R[b], p[b])

        resolved = []
        for s in balls:
            if s.p_BQ is None:
                p_WP = np.asarray(pose(s.body_A).multiply(np.asarray(s.p_AP)))
                p_BQ = np.asarray(pose(s.body_B).inverse().multiply(p_WP))
                s = dataclasses.replace(s, p_BQ=tuple(float(x) for x in p_BQ))
            resolved.append(s)
        balls = resolved
        resolved = []
        for s in welds:
            if s.X_BQ is None:
                X_BQ = pose(s.body_B).inverse().multiply(pose(s.body_A).multiply(s.X_AP))
                s = dataclasses.replace(s, X_BQ=RigidTransform(
                    np.asarray(X_BQ.GetAsMatrix4(), float)))
            resolved.append(s)
        welds = resolved
    return ConstraintSpec(tuple(plant._couplers), tuple(balls), tuple(plant._distances),
                          tuple(welds), tuple(plant._constraint_order))


def _contact_spec(plant) -> ContactSpec:
    geoms = tuple(plant._collision_geometries())
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    pairs = plant._collision_pairs if plant._collision_pairs is not None else empty
    point_pairs = tuple(plant._point_pairs) if plant._point_pairs else empty
    return ContactSpec(
        geometries=geoms,
        geometry_body=np.asarray([int(g.body().index()) for g in geoms], np.int64),
        geometry_ids=np.asarray([int(g.geometry_id()) for g in geoms], np.int64),
        R_BG=np.asarray([g.pose_in_body().rotation().matrix() for g in geoms],
                        float).reshape(-1, 3, 3),
        p_BG=np.asarray([g.pose_in_body().translation() for g in geoms], float).reshape(-1, 3),
        collision_pairs=tuple(pairs), point_pairs=point_pairs,
        hydro_pairs=tuple(plant._hydroelastic_pairs),
        query_options=plant.get_contact_query_options(),
        default_parameters=dict(getattr(plant, "_default_contact_parameters", {})),
        has_friction=np.asarray(getattr(plant, "_has_friction", ()), bool),
        continuous=(not plant.is_discrete()) and len(pairs[0]) > 0,
        stiction_tolerance=float(plant.stiction_tolerance()),
        max_active_contacts=getattr(plant, "_max_active_contacts", None),
        capacity_setting=getattr(plant, "_contact_capacity", "auto"))


# The discrete layout's name of Drake's approximations that use Hunt-Crossley (None: kSap).
_HUNT_CROSSLEY = {DiscreteContactApproximation.kSimilar: "similar",
                  DiscreteContactApproximation.kLagged: "lagged"}


def _discrete_layout(plant, joints: JointTable, actuators: ActuatorTable,
                     constraints: ConstraintSpec) -> DiscreteLayout:
    topo = plant._topology
    body_node = topo.body_node
    couplers = [(plant._joints[c.joint0_index], plant._joints[c.joint1_index])
                for c in constraints.couplers]
    pd = actuators.pd
    balls, dists, welds = constraints.balls, constraints.distances, constraints.welds
    return DiscreteLayout(
        trees=tree_layout(topo),
        limits=limit_rows(joints.q_start, joints.nq, joints.v_start, joints.nv, joints.q_lower,
                          joints.q_upper),
        couplers=CouplerRows(
            np.array([[a.velocity_start(), b.velocity_start()] for a, b in couplers],
                     np.int64).reshape(-1, 2),
            np.array([[a.position_start(), b.position_start()] for a, b in couplers],
                     np.int64).reshape(-1, 2)),
        balls=point_pair_rows(body_node, [s.body_A for s in balls], [s.p_AP for s in balls],
                              [s.body_B for s in balls], [s.p_BQ for s in balls]),
        distances=point_pair_rows(body_node, [s.body_A for s in dists],
                                  [s.p_AP for s in dists], [s.body_B for s in dists],
                                  [s.p_BQ for s in dists]),
        welds=weld_rows(body_node, [s.body_A for s in welds],
                        [np.asarray(s.X_AP.rotation().matrix()) for s in welds],
                        [np.asarray(s.X_AP.translation()) for s in welds],
                        [s.body_B for s in welds],
                        [np.asarray(s.X_BQ.rotation().matrix()) for s in welds],
                        [np.asarray(s.X_BQ.translation()) for s in welds]),
        pd=PdRows(pd.astype(np.int64), actuators.dof[pd], actuators.q[pd],
                  actuators.effort_limit[pd]),
        hunt_crossley=_HUNT_CROSSLEY.get(plant.get_discrete_contact_approximation()),
        stiction_tolerance=float(plant.stiction_tolerance()))


def compile_model(plant) -> Model:
    """The `Model` of a finalized plant, as its builder state is now (host values, also when
    the first computation that needs it is being traced)."""
    with jax.ensure_compile_time_eval():
        joints, actuators = _joint_table(plant), _actuator_table(plant)
        parameters = default_parameters(plant)
        constraints = _constraint_spec(plant, parameters)
        fields = dict(
            time_step=plant.time_step(), topology=plant._topology, bodies=_body_table(plant),
            frames=_frame_table(plant),
            joints=joints, actuators=actuators, instances=_instance_table(plant),
            force_elements=tuple(plant._force_elements),
            default_q=np.asarray(plant._default_q, float).copy(), default_parameters=parameters,
            constraints=constraints, contact=_contact_spec(plant),
            visual_geometries=tuple(g for g in plant._geometries if g.role() is Role.kIllustration),
            discrete=_discrete_layout(plant, joints, actuators, constraints),
            forward_dynamics_method="aba")
        return Model(key=content_key(sorted(fields.items(), key=lambda kv: kv[0]), owner=plant), **fields)
