"""Compliant hydroelastic capsules: Drake's tetrahedral mesh and its extent field.

A capsule (radius R, cylinder length L, axis z, centered) has the segment between (0, 0, ±L/2) as
its medial axis, and the distance to its boundary is R minus the distance to that segment. Drake
(``MakeCapsuleVolumeMesh``) meshes it with only those two end points inside, so the extent (1 on
the segment, 0 on the surface) is linear along every radial line:

* n = ⌊2πR/h⌋ points per circle of latitude, clamped to [3, 706] (h the resolution hint), and
  c = ⌊n/2⌋ circles per hemisphere at polar angles π/2 − kπ/(2c), k = 0 … c−1 (k = 0 the
  equator); the vertices are the two MA end points (top first), the two poles, then per circle
  and per longitude 2πj/n a top point and its mirror image in the bottom hemisphere;
* each quadrilateral between neighboring circles is the base of a pyramid (2 tetrahedra) with
  its hemisphere's MA end point as apex; the polar caps are fans of tetrahedra from the poles;
  the cylinder between the equators is n prisms (3 tetrahedra each) around the MA segment.
"""

from __future__ import annotations

import math

import numpy as np

from jaxbody.geometry.hydroelastic.cylinder_mesh import positive_lengths, split_prism, split_pyramid
from jaxbody.geometry.hydroelastic.meshes import SoftMesh, VolumeMesh, volume_mesh

__all__ = ["MAX_POINTS_PER_CIRCLE", "capsule_extent", "capsule_points_per_circle",
           "capsule_soft_mesh", "capsule_volume_mesh"]

MAX_POINTS_PER_CIRCLE = 706  # Drake's cap: about a million tetrahedra


def capsule_points_per_circle(radius, resolution_hint) -> int:
    """n = ⌊2πR/h⌋ clamped to [3, 706]: the points per circle of latitude."""
    R, hint = positive_lengths(radius=radius, resolution_hint=resolution_hint)
    return int(min(max(2.0 * math.pi * R / hint, 3.0), float(MAX_POINTS_PER_CIRCLE)))


def capsule_volume_mesh(radius, length, resolution_hint) -> VolumeMesh:
    """Drake's compliant capsule mesh (axis along z, centered) for the given resolution hint."""
    R, L, _ = positive_lengths(radius=radius, length=length, resolution_hint=resolution_hint)
    n = capsule_points_per_circle(R, resolution_hint)
    c = n // 2
    half = L / 2.0
    theta_step = (math.pi / 2.0) / c
    phi_step = 2.0 * math.pi / n
    cos_phi = np.array([math.cos(j * phi_step) for j in range(n)])
    sin_phi = np.array([math.sin(j * phi_step) for j in range(n)])
    # (circle, longitude, top/bottom, xyz)
    caps = np.empty((c, n, 2, 3))
    for k in range(c):
        theta = math.pi / 2.0 - k * theta_step
        rs = R * math.sin(theta)
        z = R * math.cos(theta) + half
        caps[k, :, :, 0] = (rs * cos_phi)[:, None]
        caps[k, :, :, 1] = (rs * sin_phi)[:, None]
        caps[k, :, 0, 2], caps[k, :, 1, 2] = z, -z
    vertices = np.concatenate([[[0.0, 0.0, half], [0.0, 0.0, -half], [0.0, 0.0, half + R],
                                [0.0, 0.0, -(half + R)]], caps.reshape(-1, 3)])

    medial_top, medial_bottom, pole_top, pole_bottom = 0, 1, 2, 3
    k = np.arange(c)[:, None]
    j = np.arange(n)[None, :]
    j1 = (j + 1) % n

    def top(k, j):  # the top hemisphere's point on circle k at longitude j
        return 4 + 2 * (n * k + j)

    def bot(k, j):  # its mirror image
        return 5 + 2 * (n * k + j)

    kk = k[:-1]  # quadrilaterals between circle k and circle k + 1 (toward the pole)
    ones = np.ones((c - 1, n), dtype=np.int64)
    band = np.concatenate([
        split_pyramid(top(kk + 1, j) * ones, top(kk + 1, j1) * ones, top(kk, j1) * ones,
                      top(kk, j) * ones, medial_top * ones),
        split_pyramid(bot(kk, j) * ones, bot(kk, j1) * ones, bot(kk + 1, j1) * ones,
                      bot(kk + 1, j) * ones, medial_bottom * ones)], axis=-2)
    last = c - 1
    j, j1 = j[0], j1[0]
    full = np.ones(n, dtype=np.int64)
    ring = np.concatenate([
        np.stack([pole_top * full, top(last, j1), top(last, j), medial_top * full], -1)[:, None],
        np.stack([pole_bottom * full, bot(last, j), bot(last, j1), medial_bottom * full],
                 -1)[:, None],
        split_prism(medial_bottom * full, bot(0, j), bot(0, j1), medial_top * full, top(0, j),
                    top(0, j1))], axis=1)
    return volume_mesh(vertices, np.concatenate([band.reshape(-1, 4), ring.reshape(-1, 4)]))


def capsule_extent(num_vertices: int) -> np.ndarray:
    """The extent at the vertices of a capsule mesh: 1 at the two MA end points (vertices 0 and
    1), 0 at every other vertex (all on the surface)."""
    extent = np.zeros(int(num_vertices))
    extent[:2] = 1.0
    return extent


def capsule_soft_mesh(radius, length, resolution_hint) -> SoftMesh:
    """The compliant capsule's mesh and extent field (pressure = E·extent)."""
    mesh = capsule_volume_mesh(radius, length, resolution_hint)
    return SoftMesh(mesh, capsule_extent(mesh.num_vertices()))
