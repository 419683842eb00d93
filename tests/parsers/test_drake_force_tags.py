"""Drake's ``<drake:linear_bushing_rpy>``, ``<drake:linear_spring_damper>`` and
``<drake:ball_constraint>`` in URDF and SDFormat, against pydrake's parser: the force elements'
parameters, the time derivatives of two free bodies joined by a bushing and a spring-damper at
random states (1e-10 relative), and one SAP step of the ball-constrained pair (1e-10); errors
for missing or bad children name the element and line."""

import warnings

import numpy as np
import pytest

import jaxbody as jb

_I = '<inertial><mass value="{m}"/><origin xyz="0.01 0.02 0.03"/><inertia ixx="0.1" iyy="0.2" ' \
     'izz="0.25" ixy="0.01" ixz="0" iyz="0.02"/></inertial>'
_BUSHING_U = """<drake:linear_bushing_rpy>
    <drake:bushing_frameA name="fa"/><drake:bushing_frameC name="fc"/>
    <drake:bushing_torque_stiffness value="10 20 30"/>
    <drake:bushing_torque_damping value="0.4 0.5 0.6"/>
    <drake:bushing_force_stiffness value="70 80 90"/>
    <drake:bushing_force_damping value="1 1.1 1.2"/>
  </drake:linear_bushing_rpy>"""
_SPRING_U = """<drake:linear_spring_damper>
    <drake:linear_spring_damper_body_A name="a"/><drake:linear_spring_damper_body_B name="b"/>
    <drake:linear_spring_damper_p_AP value="0 0 0.1"/>
    <drake:linear_spring_damper_p_BQ value="0 0.2 0"/>
    <drake:linear_spring_damper_free_length value="0.5"/>
    <drake:linear_spring_damper_stiffness value="100"/>
    <drake:linear_spring_damper_damping value="3"/>
  </drake:linear_spring_damper>"""
_BALL_U = """<drake:ball_constraint>
    <drake:ball_constraint_body_A name="a"/><drake:ball_constraint_body_B name="b"/>
    <drake:ball_constraint_p_AP value="0 0 0.1"/>
    <drake:ball_constraint_p_BQ value="0 0.2 0"/>
  </drake:ball_constraint>"""


def urdf(*elements):
    return f"""<?xml version="1.0"?>
<robot name="r" xmlns:drake="http://drake.mit.edu">
  <link name="a">{_I.format(m=1)}</link>
  <link name="b">{_I.format(m=2)}</link>
  <frame name="fa" link="a" xyz="0.1 0 0" rpy="0 0.2 0"/>
  <frame name="fc" link="b" xyz="0 0.1 0" rpy="0.1 0 0.3"/>
  {"".join(elements)}
</robot>"""


_SI = ("<inertial><pose>0.01 0.02 0.03 0 0 0</pose><mass>{m}</mass><inertia><ixx>0.1</ixx>"
       "<iyy>0.2</iyy><izz>0.25</izz><ixy>0.01</ixy><ixz>0</ixz><iyz>0.02</iyz></inertia>"
       "</inertial>")


def _sdf_tag(urdf_text):
    """The SDFormat spelling of a URDF drake tag: name/value attributes become text."""
    import re

    text = re.sub(r'<(drake:\w+) name="([^"]*)"/>', r"<\1>\2</\1>", urdf_text)
    return re.sub(r'<(drake:\w+) value="([^"]*)"/>', r"<\1>\2</\1>", text)


def sdf(*elements):
    return f"""<?xml version="1.0"?>
<sdf version="1.9" xmlns:drake="http://drake.mit.edu"><model name="r">
  <link name="a"><pose>0.1 0 0.5 0 0 0</pose>{_SI.format(m=1)}</link>
  <link name="b"><pose>0 0.4 0.6 0.2 0 0</pose>{_SI.format(m=2)}</link>
  <frame name="fa" attached_to="a"><pose>0.1 0 0 0 0.2 0</pose></frame>
  <frame name="fc" attached_to="b"><pose>0 0.1 0 0.1 0 0.3</pose></frame>
  {"".join(_sdf_tag(e) for e in elements)}
</model></sdf>"""


DOCS = {"urdf": urdf, "sdf": sdf}


def _drake(text, kind, dt=0.0):
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import DiscreteContactApproximation, MultibodyPlant

    plant = MultibodyPlant(dt)
    if dt:
        plant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
    Parser(plant).AddModelsFromString(text, kind)
    plant.Finalize()
    return plant


def _jaxbody(text, kind, dt=0.0):
    plant = jb.MultibodyPlant(dt)
    with warnings.catch_warnings():
        warnings.simplefilter("error", jb.ParseWarning)
        jb.Parser(plant).AddModelsFromString(text, kind)
    plant.Finalize()
    return plant


def _state(rng, plant):
    """A random state: free-body quaternions normalized, positions and velocities O(1)."""
    q = rng.uniform(-0.5, 0.5, plant.num_positions())
    for i in range(0, plant.num_positions(), 7):  # two free bodies: [quat, p] each
        q[i:i + 4] /= np.linalg.norm(q[i:i + 4])
    return np.concatenate([q, rng.uniform(-1, 1, plant.num_velocities())])


@pytest.mark.parametrize("kind", ["urdf", "sdf"])
def test_bushing_and_spring_damper_equal_drake(kind):
    pytest.importorskip("pydrake")
    from pydrake.multibody.tree import ForceElementIndex

    text = DOCS[kind](_BUSHING_U, _SPRING_U)
    dp, jp = _drake(text, kind), _jaxbody(text, kind)
    names = [type(p.get_force_element(ForceElementIndex(i) if p is dp else
                                      jb.ForceElementIndex(i))).__name__
             for p in (dp, jp) for i in range(p.num_force_elements())]
    n = dp.num_force_elements()
    assert names[:n] == names[n:] == ["UniformGravityFieldElement", "LinearBushingRollPitchYaw",
                                      "LinearSpringDamper"]
    db, jbsh = dp.get_force_element(ForceElementIndex(1)), jp.get_force_element(
        jb.ForceElementIndex(1))
    assert (db.frameA().name(), db.frameC().name()) == (jbsh.frameA().name(),
                                                        jbsh.frameC().name()) == ("fa", "fc")
    for g in ("torque_stiffness_constants", "torque_damping_constants",
              "force_stiffness_constants", "force_damping_constants"):
        np.testing.assert_array_equal(getattr(db, g)(), getattr(jbsh, g)())
    ds, js = dp.get_force_element(ForceElementIndex(2)), jp.get_force_element(
        jb.ForceElementIndex(2))
    assert (ds.bodyA().name(), ds.bodyB().name()) == (js.bodyA().name(), js.bodyB().name())
    for g in ("p_AP", "p_BQ"):
        np.testing.assert_array_equal(getattr(ds, g)(), getattr(js, g)())
    for g in ("free_length", "stiffness", "damping"):
        assert getattr(ds, g)() == getattr(js, g)()
    rng = np.random.default_rng(0)
    dctx, jctx = dp.CreateDefaultContext(), jp.CreateDefaultContext()
    np.testing.assert_allclose(np.asarray(jp.GetPositions(jctx)), dp.GetPositions(dctx),
                               atol=1e-14)
    for _ in range(4):
        x = _state(rng, dp)
        dp.SetPositionsAndVelocities(dctx, x)
        ref = dp.EvalTimeDerivatives(dctx).CopyToVector()
        got = np.asarray(jp.CalcTimeDerivatives(jp.SetPositionsAndVelocities(jctx, x)))
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10 * np.abs(ref).max())


@pytest.mark.parametrize("kind", ["urdf", "sdf"])
def test_ball_constraint_step_equals_drake(kind):
    pytest.importorskip("pydrake")
    dt = 1e-2
    text = DOCS[kind](_BALL_U, _SPRING_U)
    dp, jp = _drake(text, kind, dt), _jaxbody(text, kind, dt)
    assert dp.num_constraints() == jp.num_constraints() == 1
    from pydrake.systems.analysis import Simulator

    rng = np.random.default_rng(1)
    for _ in range(2):
        x = _state(rng, dp)
        sim = Simulator(dp)
        dp.SetPositionsAndVelocities(sim.get_mutable_context(), x)
        sim.Initialize()
        sim.AdvanceTo(dt)
        ref = dp.GetPositionsAndVelocities(sim.get_context())
        jctx = jp.SetPositionsAndVelocities(jp.CreateDefaultContext(), x)
        r = jp.CalcDiscreteStep(jctx)
        got = np.concatenate([r.context.q, r.context.v])
        nq = dp.num_positions()
        np.testing.assert_allclose(got[nq:], ref[nq:], rtol=0,
                                   atol=1e-10 * np.abs(ref[nq:]).max())
        np.testing.assert_allclose(got[:nq], ref[:nq], rtol=0, atol=1e-10)


@pytest.mark.parametrize("kind", ["urdf", "sdf"])
def test_ball_constraint_on_a_continuous_plant_is_an_error(kind):
    with pytest.raises(jb.ParseError, match=r":\d+: .*drake:ball_constraint.*discrete"):
        jb.Parser(jb.MultibodyPlant(0.0)).AddModelsFromString(DOCS[kind](_BALL_U), kind)


@pytest.mark.parametrize("kind", ["urdf", "sdf"])
@pytest.mark.parametrize("element, old, new, message", [
    (_SPRING_U, '<drake:linear_spring_damper_damping value="3"/>', "",
     "drake:linear_spring_damper_damping"),
    (_SPRING_U, 'free_length value="0.5"', 'free_length value="-1"', "free_length"),
    (_BUSHING_U, 'frameC name="fc"', 'frameC name="nope"', "nope"),
    (_BUSHING_U, 'force_damping value="1 1.1 1.2"', 'force_damping value="1 1.1"',
     "drake:bushing_force_damping"),
    (_BALL_U, 'body_B name="b"', 'body_B name="fa"', "fa"),
])
def test_bad_children_name_element_and_line(kind, element, old, new, message):
    text = DOCS[kind](element.replace(old, new))
    with pytest.raises(jb.ParseError, match=r":\d+: ") as e:
        jb.Parser(jb.MultibodyPlant(0.01)).AddModelsFromString(text, kind)
    assert message in str(e.value)
