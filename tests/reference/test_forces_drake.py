"""Force elements against pydrake at random states: each element's generalized forces (for the
free bodies A and B these are the body spatial forces [torque about Bo; force] in World),
time derivatives with both forward-dynamics methods, energies and powers, the bushing's spatial
forces on frames A and C, its roll-pitch-yaw angles and rates, and the gimbal-lock error."""

import functools

import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("pydrake")

from pydrake.math import RollPitchYaw as DrakeRollPitchYaw  # noqa: E402
from pydrake.multibody.tree import MultibodyForces as DrakeMultibodyForces  # noqa: E402

import jaxbody as jb  # noqa: E402
from tests.helpers import force_models as fm  # noqa: E402

REL_TOL = 1e-10
NUM_STATES = 3


def _close(a, b, tol=REL_TOL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    err = np.abs(a - b).max(initial=0.0) / max(1.0, np.abs(b).max(initial=0.0))
    assert err < tol, f"relative error {err:.3e} >= {tol:.1e}"


@functools.cache
def _build_case(kind):
    pj, ij = fm.build("jaxbody", kind)
    pd, id_ = fm.build("drake", kind)
    rng = np.random.default_rng(hash(kind) % 1000)
    states = []
    for _ in range(NUM_STATES):
        q, v = fm.random_state(rng, pj)
        cj = pj.SetVelocities(pj.SetPositions(pj.CreateDefaultContext(), jnp.asarray(q)),
                              jnp.asarray(v))
        cd = pd.CreateDefaultContext()
        pd.SetPositions(cd, q)
        pd.SetVelocities(cd, v)
        states.append((cj, cd))
    return kind, pj, ij, pd, id_, states


# Fixtures by what applies: pydrake has no bushing energy, and the bushing-specific checks need
# a bushing; each test runs only on the kinds it applies to (no skips).
WITH_BUSHING = [k for k in fm.KINDS if k in ("bushing", "all")]
WITHOUT_BUSHING = [k for k in fm.KINDS if k not in WITH_BUSHING]


@pytest.fixture(scope="module", params=fm.KINDS)
def case(request):
    return _build_case(request.param)


@pytest.fixture(scope="module", params=WITHOUT_BUSHING)
def energy_case(request):
    return _build_case(request.param)


@pytest.fixture(scope="module", params=WITH_BUSHING)
def bushing_case(request):
    return _build_case(request.param)


@pytest.fixture(scope="module")
def bushing_only_case():
    return _build_case("bushing")


def test_layout_matches(case):
    _, pj, _, pd, _, _ = case
    assert (pj.num_positions(), pj.num_velocities()) == (pd.num_positions(), pd.num_velocities())
    assert pj.num_force_elements() == pd.num_force_elements()
    for name in ("jc", "jd", "je", "A", "B"):
        assert pj.GetJointByName(name).position_start() == pd.GetJointByName(name).position_start()


def test_force_elements_contribution(case):
    _, pj, _, pd, _, states = case
    for cj, cd in states:
        fd = DrakeMultibodyForces(pd)
        pd.CalcForceElementsContribution(cd, fd)
        fj = pj.CalcForceElementsContribution(cj)
        _close(pj.CalcGeneralizedForces(cj, fj), pd.CalcGeneralizedForces(cd, fd))
        _close(fj.generalized_forces(), fd.generalized_forces())


def test_time_derivatives_both_methods(case):
    _, pj, _, pd, _, states = case
    for cj, cd in states:
        xd = pd.AllocateTimeDerivatives()
        pd.CalcTimeDerivatives(cd, xd)
        ref = xd.CopyToVector()
        for method in ("aba", "crba"):
            _close(pj.CalcTimeDerivatives(cj, method=method), ref)
        r = pj.CalcImplicitTimeDerivativesResidual(cj, jnp.asarray(ref))
        assert np.abs(np.asarray(r)).max() < 1e-9


def test_inverse_dynamics_excludes_force_elements(case):
    _, pj, _, pd, _, states = case
    cj, cd = states[0]
    vdot = np.linspace(-1, 1, pj.num_velocities())
    _close(pj.CalcInverseDynamics(cj, jnp.asarray(vdot), jb.MultibodyForces(pj)),
           pd.CalcInverseDynamics(cd, vdot, DrakeMultibodyForces(pd)))


def test_energy_and_power(energy_case):
    """pydrake does not implement the bushing's energy; tests/forces checks jaxbody's."""
    kind, pj, _, pd, _, states = energy_case
    for cj, cd in states:
        _close(pj.CalcPotentialEnergy(cj), pd.CalcPotentialEnergy(cd))
        _close(pj.CalcConservativePower(cj), pd.CalcConservativePower(cd))
        _close(pj.CalcNonConservativePower(cj), pd.CalcNonConservativePower(cd))


def test_bushing_forces_angles_rates(bushing_case):
    kind, pj, ij, pd, id_, states = bushing_case
    for name in ("bushing", "bushing_world"):
        bj, bd = ij[name], id_[name]
        for cj, cd in states:
            FA, FC = bd.CalcBushingSpatialForceOnFrameA(cd), bd.CalcBushingSpatialForceOnFrameC(cd)
            _close(bj.CalcBushingSpatialForceOnFrameA(cj).get_coeffs(), FA.get_coeffs())
            _close(bj.CalcBushingSpatialForceOnFrameC(cj).get_coeffs(), FC.get_coeffs())
            R_AC = pd.CalcRelativeRotationMatrix(cd, bd.frameA(), bd.frameC())
            rpy = DrakeRollPitchYaw(R_AC)
            _close(bj.CalcBushingRollPitchYawAngles(cj).vector(), rpy.vector())
            w_AC_A = bd.frameC().CalcSpatialVelocity(cd, bd.frameA(), bd.frameA()).rotational()
            _close(bj.CalcBushingRollPitchYawAngleRates(cj),
                   rpy.CalcRpyDtFromAngularVelocityInParent(w_AC_A))


def test_bushing_parameters_round_trip(bushing_only_case):
    kind, pj, ij, pd, id_, states = bushing_only_case
    bj, bd = ij["bushing"], id_["bushing"]
    cj, cd = states[0]
    for getter, setter in (("GetTorqueStiffnessConstants", "SetTorqueStiffnessConstants"),
                           ("GetTorqueDampingConstants", "SetTorqueDampingConstants"),
                           ("GetForceStiffnessConstants", "SetForceStiffnessConstants"),
                           ("GetForceDampingConstants", "SetForceDampingConstants")):
        _close(getattr(bj, getter)(cj), getattr(bd, getter)(cd))
        new = np.array([1.5, 2.5, 3.5])
        getattr(bd, setter)(cd, new)
        cj = getattr(bj, setter)(cj, jnp.asarray(new))
        _close(getattr(bj, getter)(cj), new)
    _close(bj.CalcBushingSpatialForceOnFrameC(cj).get_coeffs(),
           bd.CalcBushingSpatialForceOnFrameC(cd).get_coeffs())
    xd = pd.AllocateTimeDerivatives()
    pd.CalcTimeDerivatives(cd, xd)
    _close(pj.CalcTimeDerivatives(cj), xd.CopyToVector())


def test_bushing_gimbal_lock_raises_like_drake(bushing_only_case):
    kind, pj, ij, pd, id_, states = bushing_only_case
    bj, bd = ij["bushing_world"], id_["bushing_world"]
    cj, cd = states[0]
    # Frame C (A's body frame) pitched by π/2 relative to frame bushW (yawed by 0.2 in W).
    R_WA = jb.RotationMatrix.MakeZRotation(0.2) @ jb.RotationMatrix.MakeYRotation(np.pi / 2)
    quat = np.asarray(R_WA.ToQuaternion())
    s = pj.GetJointByName("A").position_start()
    q = np.asarray(cj.q).copy()
    q[s:s + 4] = quat
    pd.SetPositions(cd, q)
    with pytest.raises(RuntimeError, match="gimbal"):
        bd.CalcBushingSpatialForceOnFrameA(cd)
    cj = pj.SetPositions(cj, jnp.asarray(q))
    with pytest.raises(ValueError, match="gimbal-lock"):
        bj.CalcBushingSpatialForceOnFrameA(cj)
    with pytest.raises(ValueError, match="gimbal-lock"):
        bj.CalcBushingSpatialForceOnFrameC(cj)


def _inputs_model(engine):
    tree, math, plant_mod = fm._modules(engine)
    plant = plant_mod.MultibodyPlant(0.0)
    robot, box = plant.AddModelInstance("robot"), plant.AddModelInstance("box")
    links, parent = [], plant.world_frame()
    for i in range(3):
        link = plant.AddRigidBody(f"l{i}", robot, fm._inertia(tree, 1.0 + i, [0, 0, -0.2], .1, .1, .4))
        F = plant.AddFrame(tree.FixedOffsetFrame(f"F{i}", parent, math.RigidTransform(
            math.RollPitchYaw([0.1 * i, 0.2, 0.0]), [0.0, 0.0, -0.4 if i else 0.0])))
        j = plant.AddJoint(tree.RevoluteJoint(f"j{i}", F, link.body_frame(), [0, 1, 0.2 * i], 0.05))
        plant.AddJointActuator(f"a{i}", j, effort_limit=[2.0, np.inf, 0.5][i])
        links.append(link)
        parent = link.body_frame()
    b = plant.AddRigidBody("box", box, fm._inertia(tree, 2.0, [0.1, 0, 0], .3, .2, .1))
    plant.set_gravity_enabled(robot, False)
    plant.Finalize()
    return plant, robot, box, links, b


def test_inputs_saturation_gravity_and_applied_forces():
    from pydrake.multibody.math import SpatialForce as DrakeSpatialForce
    from pydrake.multibody.plant import ExternallyAppliedSpatialForce as DrakeEASF

    pj, robot, box, lj, bj = _inputs_model("jaxbody")
    pd, robot_d, box_d, ld, bd = _inputs_model("drake")
    assert not pj.is_gravity_enabled(robot) and pj.is_gravity_enabled(box)
    rng = np.random.default_rng(5)
    q, v = rng.uniform(-1, 1, pj.num_positions()), rng.normal(size=pj.num_velocities())
    q[3:7] /= np.linalg.norm(q[3:7])
    cj = pj.SetVelocities(pj.SetPositions(pj.CreateDefaultContext(), jnp.asarray(q)), jnp.asarray(v))
    cd = pd.CreateDefaultContext()
    pd.SetPositions(cd, q)
    pd.SetVelocities(cd, v)
    _close(pj.CalcGravityGeneralizedForces(cj), pd.CalcGravityGeneralizedForces(cd))
    _close(pj.CalcPotentialEnergy(cj), pd.CalcPotentialEnergy(cd))
    _close(pj.CalcConservativePower(cj), pd.CalcConservativePower(cd))
    u = np.array([5.0, -3.0, -4.0])  # beyond the limits 2 and 0.5 of actuators 0 and 2
    tau_app = rng.normal(size=pj.num_velocities())
    pd.get_actuation_input_port().FixValue(cd, u)
    pd.get_applied_generalized_force_input_port().FixValue(cd, tau_app)
    forces_d, forces_j = [], []
    for body_d, body_j in ((ld[1], lj[1]), (bd, bj), (ld[2], lj[2])):
        p, F = rng.normal(size=3), rng.normal(size=6)
        e = DrakeEASF()
        e.body_index, e.p_BoBq_B, e.F_Bq_W = body_d.index(), p, DrakeSpatialForce(F[:3], F[3:])
        forces_d.append(e)
        forces_j.append(jb.ExternallyAppliedSpatialForce(body_j.index(), jnp.asarray(p),
                                                         jb.SpatialForce(F[:3], F[3:])))
    pd.get_applied_spatial_force_input_port().FixValue(cd, forces_d)
    xd = pd.AllocateTimeDerivatives()
    pd.CalcTimeDerivatives(cd, xd)
    for method in ("aba", "crba"):
        _close(pj.CalcTimeDerivatives(cj, jnp.asarray(u), applied_generalized_force=jnp.asarray(tau_app),
                                      applied_spatial_force=forces_j, method=method), xd.CopyToVector())
    # Per-model-instance actuation gives the same result.
    per_instance = {robot: jnp.asarray(u)}
    _close(pj.CalcTimeDerivatives(cj, per_instance, applied_generalized_force=jnp.asarray(tau_app),
                                  applied_spatial_force=forces_j), xd.CopyToVector())
