"""Narrow-phase kernels: derivatives (check_grads in forward and reverse mode), finite
gradients at degenerate configurations, and vmap equal to a loop."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from jaxbody.geometry import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Sphere
from jaxbody.geometry.collision import compute_pair
from jaxbody.geometry.collision.kernels import get_kernel
from jaxbody.geometry.collision.shape_data import encode_shape, shape_kind, stack_params
from tests.helpers.collision import pose, rotvec_pose, write_box_obj

GRAD_TOL = 1e-5  # check_grads atol/rtol (finite differences in float64)

# (A, B, x0 = [rotation vector of A; position of A]); B is fixed at the origin, rotated.
CASES = [
    ("sphere-sphere", Sphere(0.2), Sphere(0.15), [0.1, 0.2, 0.3, 0.2, 0.1, 0.15]),
    ("sphere-box-out", Sphere(0.1), Box(0.4, 1.0, 0.6), [0.1, 0.2, 0.3, 0.3, 0.1, 0.35]),
    ("sphere-box-in", Sphere(0.1), Box(0.4, 1.0, 0.6), [0.1, 0.2, 0.3, 0.05, 0.1, 0.25]),
    ("sphere-capsule", Sphere(0.1), Capsule(0.2, 1.0), [0.1, 0.2, 0.3, 0.25, 0.05, 0.3]),
    ("sphere-cylinder", Sphere(0.1), Cylinder(0.2, 1.0), [0.1, 0.2, 0.3, 0.25, 0.05, 0.3]),
    ("sphere-halfspace", Sphere(0.1), HalfSpace(), [0.1, 0.2, 0.3, 0.2, 0.1, 0.05]),
    ("sphere-ellipsoid", Sphere(0.1), Ellipsoid(0.2, 0.3, 0.5), [0.1, 0.2, 0.3, 0.1, 0.2, 0.4]),
    ("box-halfspace", Box(0.4, 1.0, 0.6), HalfSpace(), [0.3, -0.2, 0.1, 0.0, 0.0, 0.3]),
    ("capsule-halfspace", Capsule(0.1, 1.0), HalfSpace(), [0.3, 1.2, 0.1, 0.0, 0.0, 0.1]),
    ("cylinder-halfspace", Cylinder(0.2, 1.0), HalfSpace(), [0.3, 1.2, 0.1, 0.0, 0.0, 0.2]),
    ("ellipsoid-halfspace", Ellipsoid(0.2, 0.3, 0.5), HalfSpace(), [0.4, 0.3, 0.1, 0, 0, 0.3]),
    ("capsule-capsule", Capsule(0.1, 1.0), Capsule(0.15, 0.8), [0.3, 1.2, 0.1, 0.05, 0.1, 0.2]),
    ("capsule-box", Capsule(0.05, 1.0), Box(1.0, 1.0, 1.0), [0.2, 2.3, 0.1, 0.5, 0.02, 0.53]),
    ("box-box", Box(0.5, 0.6, 0.7), Box(1.0, 1.2, 0.8), [0.3, 0.2, 0.1, 0.05, 0.1, 0.7]),
]
X_B = pose(rpy=(0.2, -0.1, 0.3))


def _phi_fn(a, b):
    kernel = get_kernel(shape_kind(a), shape_kind(b))
    pa = {k: jnp.asarray(v) for k, v in encode_shape(a).items()}
    pb = {k: jnp.asarray(v) for k, v in encode_shape(b).items()}
    XB = (jnp.asarray(X_B[0]), jnp.asarray(X_B[1]))
    return jax.jit(lambda x: kernel(pa, rotvec_pose(x), pb, XB, False).phi)


@pytest.mark.parametrize("name, a, b, x0", CASES, ids=[c[0] for c in CASES])
def test_check_grads_of_phi_wrt_pose(name, a, b, x0):
    f = _phi_fn(a, b)
    x0 = jnp.asarray(x0, float)
    assert np.all(np.isfinite(np.asarray(f(x0))))
    check_grads(f, (x0,), order=1, modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)


def test_check_grads_sphere_convex(tmp_path):
    mesh = Convex(write_box_obj(tmp_path / "b.obj", (0.4, 1.0, 0.6)))
    for x0 in ([0.1, 0.2, 0.3, 0.3, 0.1, 0.35], [0.1, 0.2, 0.3, 0.05, 0.1, 0.25]):
        check_grads(_phi_fn(Sphere(0.1), mesh), (jnp.asarray(x0),), order=1,
                    modes=("fwd", "rev"), atol=GRAD_TOL, rtol=GRAD_TOL)


DEGENERATE = [
    ("concentric-spheres", Sphere(0.2), (0.0, 0.0, 0.0), Sphere(0.1), (0.0, 0.0, 0.0)),
    ("sphere-center-on-box-face", Sphere(0.1), (0.1, 0.0, 0.3), Box(0.4, 1.0, 0.6), (0, 0, 0)),
    ("sphere-center-at-box-center", Sphere(0.1), (0.0, 0.0, 0.0), Box(0.4, 1.0, 0.6), (0, 0, 0)),
    ("sphere-on-capsule-axis", Sphere(0.1), (0.0, 0.0, 0.2), Capsule(0.2, 1.0), (0, 0, 0)),
    ("sphere-on-cylinder-axis", Sphere(0.1), (0.0, 0.0, 0.2), Cylinder(0.2, 1.0), (0, 0, 0)),
    ("sphere-at-ellipsoid-center", Sphere(0.1), (0.0, 0.0, 0.0), Ellipsoid(0.2, 0.3, 0.5),
     (0, 0, 0)),
    ("upright-cylinder-on-ground", Cylinder(0.2, 1.0), (0.0, 0.0, 0.45), HalfSpace(), (0, 0, 0)),
    ("aligned-boxes", Box(1, 1, 1), (0.0, 0.0, 0.95), Box(1, 1, 1), (0, 0, 0)),
    ("capsule-flat-on-box", Capsule(0.05, 0.4), (0.0, 0.0, 0.54), Box(1, 1, 1), (0, 0, 0)),
    ("parallel-capsules", Capsule(0.1, 1.0), (0.15, 0.0, 0.0), Capsule(0.1, 1.0), (0, 0, 0)),
]


@pytest.mark.parametrize("name, a, pa, b, pb", DEGENERATE, ids=[d[0] for d in DEGENERATE])
def test_gradients_are_finite_at_degenerate_configurations(name, a, pa, b, pb):
    kernel = get_kernel(shape_kind(a), shape_kind(b))
    A = {k: jnp.asarray(v) for k, v in encode_shape(a).items()}
    B = {k: jnp.asarray(v) for k, v in encode_shape(b).items()}

    def f(p_a, R_a):
        c = kernel(A, (R_a, p_a), B, (jnp.eye(3), jnp.asarray(pb, float)), False)
        return jnp.sum(jnp.where(c.valid, c.phi, 0.0)) + jnp.sum(c.p_WCa) + jnp.sum(c.nhat_BA_W)

    value, g = jax.value_and_grad(f, argnums=(0, 1))(jnp.asarray(pa, float), jnp.eye(3))
    assert np.isfinite(float(value))
    assert all(np.all(np.isfinite(np.asarray(x))) for x in g)


def test_vmap_equals_loop():
    rng = np.random.default_rng(0)
    shapes_b = [Box(*rng.uniform(0.2, 1.0, 3)) for _ in range(5)]
    pb = {k: jnp.asarray(v) for k, v in stack_params([encode_shape(s) for s in shapes_b]).items()}
    pa = {"radius": jnp.asarray(rng.uniform(0.05, 0.3, 5))}
    R = jnp.asarray(np.stack([pose(rpy=rng.normal(size=3))[0] for _ in range(5)]))
    p = jnp.asarray(rng.uniform(-0.5, 0.5, (5, 3)))
    kernel = get_kernel("Sphere", "Box")
    batched = jax.vmap(lambda a, Ra, pA, b: kernel(a, (Ra, pA), b, (jnp.eye(3), jnp.zeros(3))))(
        pa, R, p, pb)
    for i in range(5):
        one = compute_pair(Sphere(float(pa["radius"][i])), (R[i], p[i]), shapes_b[i], pose())
        for x, y in zip(batched, one):
            np.testing.assert_allclose(np.asarray(x[i]), np.asarray(y), atol=1e-14)
