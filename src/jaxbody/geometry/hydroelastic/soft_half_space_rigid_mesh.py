"""The contact surface of a compliant half space S (Drake's slab: pressure E·depth/h below its
boundary plane, h the slab thickness) and a rigid triangle mesh R: every rigid triangle cut to
its part below the plane, as Drake's ``ComputeContactSurfaceFromCompliantHalfSpaceRigidMesh``.

One polygon slot per triangle (at most 4 vertices: a triangle cut by a plane). A triangle is
used only if its outward normal is within 5π/8 of the pressure gradient −E/h·Sz (Drake's
filter). The polygons are measured in World; each keeps its triangle's winding, so its normal
points out of R into S.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbody.geometry.hydroelastic.polygons import (
    ContactPolygons,
    area_normal_centroid,
    clip_by_half_space,
)
from jaxbody.geometry.hydroelastic.soft_rigid_mesh import COS_MAX_ANGLE


def _clip(tri, n, p):
    poly = jnp.concatenate([tri, tri[2:]], 0)  # room for a fourth vertex
    return clip_by_half_space(poly, jnp.asarray(3, jnp.int32), n, p)


def half_space_rigid_mesh_polygons(rigid, E, slab_thickness, X_WS, X_WR):
    """`ContactPolygons` (M = S, N = R; one slot per triangle) of a compliant half space S
    (its z ≤ 0) against a rigid mesh R.

    Args:
        rigid: (vertices, triangles, tri_normals, centers, radii) NumPy, in R.
        E: () S's modulus (Pa); slab_thickness: h (m, static).
        X_WS, X_WR: (R, p) poses in World.
    """
    W, tris, tri_n, _, _ = rigid
    R_WS, p_WS = X_WS
    R_WR, p_WR = X_WR
    dtype = p_WS.dtype
    n_R = R_WR.T @ R_WS[:, 2]  # the plane's normal in R (out of the half space)
    p_R = R_WR.T @ (p_WS - p_WR)
    tri_R = jnp.asarray(W, dtype)[jnp.asarray(tris)]  # (F, 3, 3)
    scale = E / slab_thickness
    grad_W = -scale * R_WS[:, 2]
    facing = (jnp.asarray(tri_n, dtype) @ R_WR.T) @ -R_WS[:, 2] > COS_MAX_ANGLE
    poly_R, count = jax.vmap(_clip, (0, None, None))(tri_R, n_R, p_R)
    poly_W = poly_R @ R_WR.T + p_WR
    area, normal, centroid = area_normal_centroid(poly_W)
    p0 = -((poly_R[:, 0] - p_R) @ n_R) * scale  # the pressure at the first vertex
    pressure = p0 + (centroid - poly_W[:, 0]) @ grad_W
    grad = jnp.broadcast_to(grad_W, area.shape + (3,))
    return ContactPolygons(
        area=area, centroid=centroid, normal=normal, pressure=pressure, grad_M=grad,
        grad_N=jnp.zeros_like(grad), vertices=poly_W, num_vertices=count,
        valid=facing & (count >= 3))
