"""Forward dynamics with a singular articulated inertia raises naming the body (as Drake does),
instead of returning NaN; a regular model is unaffected."""

import jax
import numpy as np
import pytest

import jaxbody as jb
from tests.helpers.models import box_inertia


def _two_links(time_step=0.0):
    p = jb.MultibodyPlant(time_step)
    b1 = p.AddRigidBody("b1", box_inertia())
    b2 = p.AddRigidBody("b2")  # Drake's default: zero mass and inertia
    p.AddJoint(jb.RevoluteJoint("j1", p.world_frame(), b1.body_frame(), [0, 0, 1]))
    p.AddJoint(jb.RevoluteJoint("j2", b1.body_frame(), b2.body_frame(), [0, 1, 0]))
    p.Finalize()
    return p, b2


@pytest.fixture(scope="module")
def continuous():
    return _two_links()


def test_massless_leaf_body_is_named(continuous):
    p, _ = continuous
    with pytest.raises(ValueError, match="singular articulated body hinge inertia at body 'b2' "
                                         r"\(joint 'j2'\).*zero mass"):
        p.CalcGeneralizedAccelerations(p.CreateDefaultContext())


def test_point_mass_on_the_joint_axis_is_named(continuous):
    """Mass, but none of it off the axis: singular in every configuration."""
    p, b2 = continuous
    ctx = b2.SetMass(p.CreateDefaultContext(), 0.5)
    with pytest.raises(ValueError, match="body 'b2'.*no inertia along its motion"):
        p.CalcGeneralizedAccelerations(ctx)


def test_regular_inertia_is_finite_and_jit_is_unchecked(continuous):
    p, b2 = continuous
    ctx = b2.SetSpatialInertiaInBodyFrame(p.CreateDefaultContext(), box_inertia(0.5))
    assert np.all(np.isfinite(p.CalcGeneralizedAccelerations(ctx)))
    # Under jit nothing can raise: the result is NaN, as documented.
    assert np.all(np.isnan(jax.jit(p.CalcGeneralizedAccelerations)(p.CreateDefaultContext())))


def test_discrete_step_names_the_body():
    p, _ = _two_links(time_step=1e-3)
    with pytest.raises(ValueError, match="CalcDiscreteStep: .* body 'b2'"):
        p.CalcDiscreteStep(p.CreateDefaultContext())
