"""CalcSpatialInertia and EvalBodySpatialAccelerationInWorld in closed form (the pydrake
cross-checks are in tests/reference), and their errors."""

import jax.numpy as jnp
import numpy as np
import pytest

import jaxbody as jb
from tests.helpers.models import box_inertia, pendulum, point_mass_at


@pytest.fixture(scope="module")
def pend():
    return pendulum(length=0.8, mass=2.0)


def test_spatial_inertia_of_a_point_mass_pendulum(pend):
    """At angle θ about y the particle is at 0.8 (−sin θ, 0, −cos θ) in W."""
    p, link = pend
    th = 0.4
    ctx = p.SetPositions(p.CreateDefaultContext(), jnp.asarray([th]))
    M = p.CalcSpatialInertia(ctx, p.world_frame(), [link.index()])
    want = jb.SpatialInertia.PointMass(2.0, 0.8 * np.array([-np.sin(th), 0.0, -np.cos(th)]))
    np.testing.assert_allclose(M.CopyToFullMatrix6(), want.CopyToFullMatrix6(), atol=1e-14)
    # About the body's own frame: the parameters themselves.
    Mb = p.CalcSpatialInertia(ctx, link.body_frame(), [link.index()])
    np.testing.assert_allclose(Mb.CopyToFullMatrix6(),
                               point_mass_at(2.0, [0, 0, -0.8]).CopyToFullMatrix6(), atol=1e-14)


def test_spatial_inertia_errors(pend):
    p, link = pend
    ctx = p.CreateDefaultContext()
    with pytest.raises(ValueError, match="CalcSpatialInertia: body_indexes has a repeated body"):
        p.CalcSpatialInertia(ctx, p.world_frame(), [link.index(), link.index()])
    with pytest.raises(ValueError, match="CalcSpatialInertia: 7 is not a body index"):
        p.CalcSpatialInertia(ctx, p.world_frame(), [7])


def test_discrete_body_acceleration_is_the_step_rate():
    """A free box on a discrete plant without contact falls at exactly g: A_WB = [0; g]."""
    p = jb.MultibodyPlant(1e-3)
    box = p.AddRigidBody("box", box_inertia())
    p.Finalize()
    A = p.EvalBodySpatialAccelerationInWorld(p.CreateDefaultContext(), box)
    np.testing.assert_allclose(A.get_coeffs(), [0, 0, 0, 0, 0, -9.81], atol=1e-12)


def test_body_of_another_plant_is_refused(pend):
    p, _ = pend
    _, other = pendulum()
    with pytest.raises(ValueError, match="EvalBodySpatialAccelerationInWorld: body 'link' "
                                         "belongs to another plant"):
        p.EvalBodySpatialAccelerationInWorld(p.CreateDefaultContext(), other)
