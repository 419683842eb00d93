"""The point-contact query: candidate pairs compiled into vmapped kernel groups, culling, and
the per-point contact data (`PointContacts`) that the contact solver consumes.

Static structure (`ContactQuery`, NumPy, hashed by content) is built once per plant: the
candidate pairs (`candidates.py`) grouped by their pair of shape kinds, each group one
``jax.vmap`` of one kernel over static index arrays, with K points per pair. The pure function
`calc_point_contacts` maps body poses and the per-geometry contact parameters (jax.Arrays from
the Context) to P = Σ_groups m_g K_g point slots.

Culling: a group of n pairs evaluates at most m = ``max_pairs_per_group`` of them (or
``max_hull_pairs_per_group`` for large hulls). When n > m, a lower bound on each pair's distance
is computed for all n (the larger of the bounding spheres' gap ``‖c_A - c_B‖ - r_A - r_B`` and
the largest gap between the geometries' oriented bounding boxes over the 15 separating axes; or
the height of B's sphere above a half space), and ``jax.lax.top_k`` keeps the m closest; ``overflow`` is
True when a dropped pair's bounding volumes touch (its contact may be missed: raise the cap).
Groups of hull pairs that take GJK/EPA with one point per pair (`hull_group`) solve only the
pairs whose bound is <= 0, and report only penetrating ones (Drake's point pairs); their other
slots are invalid. When n <= m every pair is evaluated and slot i always holds the same pair,
so the static per-slot arrays `ContactQuery.body_a` etc. are available; with culling they are None and the
per-slot indices in `PointContacts` (dynamic) must be used.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbody.geometry.collision._util import ContactPoints, deepest_k, swap
from jaxbody.geometry.collision.contact_properties import combine_contact_parameters
from jaxbody.geometry.collision.convex_point import GJK_MIN_VERTICES
from jaxbody.geometry.collision.hull_group import near_groups_points
from jaxbody.geometry.collision.kernels import canonical, get_kernel, is_supported
from jaxbody.geometry.collision.pair_bounds import bound_distance
from jaxbody.geometry.collision.polytope_pairs import uses_gjk_epa
from jaxbody.geometry.collision.polytope_pairs import work_estimate as polytope_work
from jaxbody.geometry.collision.shape_data import (
    bounding_box_half,
    bounding_sphere,
    encode_shape,
    shape_kind,
    stack_params,
)

# φ reported in slots that hold no contact candidate (m); such slots also have valid = False.
PHI_INVALID = 1.0e3
# Refuse a query whose polytope pairs would cost more than this per evaluation (the panda's
# 108 self-collision pairs of ~150-vertex hulls: ~7e8; talos's, with 950-vertex hulls: ~1e11).
MAX_POLYTOPE_WORK = 5e9


@dataclasses.dataclass(frozen=True)
class ContactQueryOptions:
    """Options of the point-contact query.

    Attributes:
        single_point: Drake's one (deepest) point per pair (the default, as Drake's
            ``ComputePointPairPenetration``). False: multi-point manifolds (box faces, capsule
            and cylinder ends, polytope vertices), as MuJoCo has them: a box resting on the
            ground on its four corners instead of rocking on its deepest one; a difference
            from Drake (docs/differences_from_drake.md).
        max_pairs_per_group: evaluate at most this many candidate pairs per kind-pair group,
            the closest by bounding spheres (None: no cap).
        max_hull_pairs_per_group: the same cap for groups with large convex hulls (mesh
            collision geometry: hull pairs that run GJK/EPA, spheres, capsules and cylinders
            against hulls): a robot's self-collision pairs are many, few touch at once, and
            each costs O(hull vertices) per iteration (GJK/EPA pairs with one point per pair
            are solved only when their bounding volumes touch, `hull_group`). None: only
            ``max_pairs_per_group``. A step where a dropped pair's bounding volumes touch is
            flagged (``overflow``), never silent.
        max_points_per_pair: keep at most this many points of a pair, the deepest valid ones
            (``jax.lax.top_k``; matters for polytopes: a box-box pair has 17 candidates, a
            convex hull one per vertex). Ties are broken by vertex order, so a face with more
            vertices than the cap at equal depth keeps its first ones. None: no cap.
        max_hull_vertices: simplify every mesh's convex hull to at most this many of its
            vertices (≥ 4; `shape_data.simplify_hull`: the hull of the kept vertices lies
            inside the original, the farthest dropped vertex outside it by what
            `shape_data.hull_deviation` reports). Cheaper GJK/EPA on meshes of thousands of
            vertices; None (default): the exact hull, as Drake.
    """

    single_point: bool = True
    max_pairs_per_group: int | None = 128
    max_points_per_pair: int | None = 16
    max_hull_pairs_per_group: int | None = 48
    max_hull_vertices: int | None = None

    def __post_init__(self):
        for name, low in (("max_pairs_per_group", 1), ("max_points_per_pair", 1),
                          ("max_hull_pairs_per_group", 1), ("max_hull_vertices", 4)):
            m = getattr(self, name)
            if m is not None and (not isinstance(m, (int, np.integer)) or isinstance(m, bool)
                                  or m < low):
                raise ValueError(f"ContactQueryOptions: {name} must be an int >= {low} or "
                                 f"None, got {m!r}")


class PointContacts(NamedTuple):
    """Contact points over all P slots (in World, SI units).

    Attributes:
        phi: (P,) signed distance (m), < 0 when penetrating (`PHI_INVALID` in invalid slots).
        p_WC: (P, 3) contact point, Drake's stiffness-weighted ``wA p_WCa + wB p_WCb``.
        nhat_BA_W: (P, 3) unit normal from B into A.
        k: (P,) combined point stiffness (N/m).
        tau: (P,) combined relaxation (dissipation) time (s), SAP's τ_d.
        mu: (P,) combined dynamic friction (what SAP uses).
        mu_static: (P,) combined static friction.
        d: (P,) combined Hunt-Crossley dissipation (s/m).
        valid: (P,) bool; False for slots with no contact candidate (padding, unused
            manifold points). Ignore invalid slots.
        p_WCa: (P, 3) witness point on A; p_WCb: (P, 3) on B.
        body_a: (P,) BodyIndex of A's body; body_b: (P,) of B's (int32).
        geometry_a: (P,) GeometryId of A; geometry_b: (P,) of B (int32; A's id < B's id).
        overflow: () bool, True when culling dropped a pair whose bounding volumes touch.
    """

    phi: jax.Array
    p_WC: jax.Array
    nhat_BA_W: jax.Array
    k: jax.Array
    tau: jax.Array
    mu: jax.Array
    mu_static: jax.Array
    d: jax.Array
    valid: jax.Array
    p_WCa: jax.Array
    p_WCb: jax.Array
    body_a: jax.Array
    body_b: jax.Array
    geometry_a: jax.Array
    geometry_b: jax.Array
    overflow: jax.Array


@dataclasses.dataclass(frozen=True, eq=False)
class PairGroup:
    """Candidate pairs of one kind pair, evaluated by one vmapped kernel.

    ``ga``/``gb`` are the collision indices passed as the kernel's A and B (canonical kind
    order); ``swapped[i]`` is True where pair i's A (lower GeometryId) is the kernel's B.
    """

    kinds: tuple
    pair: np.ndarray  # (n,) index into the candidate list
    ga: np.ndarray
    gb: np.ndarray
    swapped: np.ndarray
    params_a: dict
    params_b: dict
    bound_a: tuple  # (centers (n, 3) in G, radii (n,), box half extents (n, 3) in G)
    bound_b: tuple
    points_per_pair: int
    evaluated: int  # m = min(n, cap)
    large_hull: bool = False  # O(hull vertices) per pair and iteration (`_large_hull_group`)

    @property
    def culled(self) -> bool:
        return self.evaluated < len(self.pair)


@dataclasses.dataclass(frozen=True, eq=False)
class ContactQuery:
    """The compiled point-contact query of a plant (static; see the module docstring).

    Attributes:
        geometry_ids: (G,) GeometryId of each collision geometry (collision order).
        geometry_body: (G,) BodyIndex of each collision geometry's body.
        R_BG, p_BG: (G, 3, 3), (G, 3) pose of each geometry in its body.
        pair_a, pair_b: (num_pairs,) collision indices of each candidate pair (A < B).
        groups: the `PairGroup` of each kind pair.
        options: the `ContactQueryOptions`.
        num_points: P.
        body_a, body_b, geometry_a, geometry_b: (P,) static BodyIndex / GeometryId per slot,
            or None when a group is culled (use the `PointContacts` fields then).
        key: content hash.
    """

    geometry_ids: np.ndarray
    geometry_body: np.ndarray
    R_BG: np.ndarray
    p_BG: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    groups: tuple
    options: ContactQueryOptions
    num_points: int
    body_a: np.ndarray | None
    body_b: np.ndarray | None
    geometry_a: np.ndarray | None
    geometry_b: np.ndarray | None
    key: str

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, ContactQuery) and other.key == self.key

    @property
    def culled(self) -> bool:
        return any(g.culled for g in self.groups)


def _describe(geom):
    return f"'{geom.name()}' ({type(geom.shape()).__name__}) on body '{geom.body().name()}'"


def build_contact_query(geometries, pair_a, pair_b, options) -> ContactQuery:
    """Compiles the query for collision geometries (collision order) and candidate pairs.

    Raises:
        ValueError: a candidate pair of shape kinds that no kernel supports, naming both
            geometries.
    """
    kinds = [shape_kind(g.shape()) for g in geometries]
    by_kinds = {}
    for p, (i, j) in enumerate(zip(pair_a, pair_b)):
        if not is_supported(kinds[i], kinds[j]):
            raise ValueError(f"Point contact between collision geometries "
                             f"{_describe(geometries[i])} and {_describe(geometries[j])} is "
                             "not supported (see jaxbody.geometry.collision.kernels); exclude "
                             "the pair with ExcludeCollisionGeometriesWithCollisionFilterGroupPair")
        by_kinds.setdefault(canonical(kinds[i], kinds[j]), []).append(p)
    encoded, bounds = {}, {}
    for g in sorted({int(x) for x in np.r_[pair_a, pair_b]}):
        encoded[g] = encode_shape(geometries[g].shape(), options.max_hull_vertices)
        bounds[g] = (*bounding_sphere(geometries[g].shape()),
                     bounding_box_half(geometries[g].shape()))
    cap = options.max_pairs_per_group
    groups, h = [], hashlib.sha256()
    work, biggest = 0, (0,)
    for (ka, kb), pairs in sorted(by_kinds.items()):
        pairs = np.asarray(pairs, np.int64)
        i, j = np.asarray(pair_a)[pairs], np.asarray(pair_b)[pairs]
        swapped = np.array([kinds[a] != ka for a in i]) if ka != kb else np.zeros(len(i), bool)
        ga, gb = np.where(swapped, j, i), np.where(swapped, i, j)
        pa = stack_params([encoded[int(g)] for g in ga])
        pb = stack_params([encoded[int(g)] for g in gb])
        n = len(pairs)
        m = n if cap is None else min(n, int(cap))
        hull_cap = options.max_hull_pairs_per_group
        large = _large_hull_group(ka, kb, pa, pb)
        if hull_cap is not None and large:
            m = min(m, int(hull_cap))
        kernel = get_kernel(ka, kb)
        K = jax.eval_shape(lambda a, b, k=kernel: k(a, _eye(), b, _eye(), options.single_point),
                           _first(pa), _first(pb)).phi.shape[0]
        if options.max_points_per_pair is not None:
            K = min(K, int(options.max_points_per_pair))
        bound = lambda gs: (np.stack([bounds[int(g)][0] for g in gs]),  # noqa: E731
                            np.array([bounds[int(g)][1] for g in gs]),
                            np.stack([bounds[int(g)][2] for g in gs]))
        groups.append(PairGroup((ka, kb), pairs, ga, gb, swapped, pa, pb, bound(ga), bound(gb),
                                int(K), m, large))
        if "vertices" in pa and "vertices" in pb:
            work += m * polytope_work(pa, pb, options.single_point)
            sizes = [len(encoded[int(a)]["vertices"]) + len(encoded[int(b)]["vertices"])
                     for a, b in zip(ga, gb)]
            k = int(np.argmax(sizes))
            biggest = max(biggest, (sizes[k], int(ga[k]), int(gb[k])))
        for arr in (pairs, ga, gb, *pa.values(), *pb.values()):
            h.update(np.ascontiguousarray(arr).tobytes())
        h.update(f"{ka}/{kb}/{K}/{m}".encode())
    if work > MAX_POLYTOPE_WORK:
        raise ValueError(
            f"The point-contact query would cost about {work:.1e} operations per evaluation in "
            f"polytope pairs (the largest: {_describe(geometries[biggest[1]])} against "
            f"{_describe(geometries[biggest[2]])}, {biggest[0]} hull vertices together); "
            f"the limit is {MAX_POLYTOPE_WORK:.0e}. Exclude self-collisions between large meshes "
            "(collision filter groups, ExcludeCollisionGeometriesWithCollisionFilterGroupPair), "
            "give those links simpler collision shapes, take Drake's one point per pair "
            "(the default, ContactQueryOptions(single_point=True); the CLI without "
            "--multi-point: no vertex-inside tests), lower "
            "ContactQueryOptions.max_pairs_per_group, or, for pure dynamics, "
            "plant.set_contact_enabled(False) before Finalize")
    ids = np.array([int(g.geometry_id()) for g in geometries], np.int64)
    body = np.array([int(g.body().index()) for g in geometries], np.int64)
    R_BG = np.stack([np.asarray(g.pose_in_body().rotation().matrix(), float) for g in geometries]
                    ) if geometries else np.zeros((0, 3, 3))
    p_BG = np.stack([np.asarray(g.pose_in_body().translation(), float) for g in geometries]
                    ) if geometries else np.zeros((0, 3))
    for arr in (ids, body, R_BG, p_BG, np.asarray(pair_a), np.asarray(pair_b)):
        h.update(np.ascontiguousarray(arr).tobytes())
    h.update(repr(options).encode())
    num_points = sum(g.evaluated * g.points_per_pair for g in groups)
    static = {k: None for k in ("body_a", "body_b", "geometry_a", "geometry_b")}
    if not any(g.culled for g in groups):
        slot_a = np.concatenate([np.repeat(np.asarray(pair_a)[g.pair], g.points_per_pair)
                                 for g in groups] + [np.zeros(0, np.int64)])
        slot_b = np.concatenate([np.repeat(np.asarray(pair_b)[g.pair], g.points_per_pair)
                                 for g in groups] + [np.zeros(0, np.int64)])
        static = {"body_a": body[slot_a], "body_b": body[slot_b],
                  "geometry_a": ids[slot_a], "geometry_b": ids[slot_b]}
    return ContactQuery(ids, body, R_BG, p_BG, np.asarray(pair_a, np.int64),
                        np.asarray(pair_b, np.int64), tuple(groups), options, int(num_points),
                        key=h.hexdigest(), **static)


def _large_hull_group(ka, kb, pa, pb) -> bool:
    """Whether a group's pairs cost O(large hull) each: two polytopes that take GJK/EPA, or a
    sphere, capsule or cylinder against a convex hull above `GJK_MIN_VERTICES` vertices (a half
    space against one is a cheap vertex pass)."""
    if "vertices" in pa and "vertices" in pb and uses_gjk_epa(pa, pb):
        return True
    return ("HalfSpace" not in (ka, kb) and
            any(k == "Convex" and p["vertices"].shape[-2] > GJK_MIN_VERTICES
                for k, p in ((ka, pa), (kb, pb))))


def _eye():
    return jnp.eye(3), jnp.zeros(3)


def _first(params):
    return {k: jnp.asarray(v[0]) for k, v in params.items()}


def _evaluate_group(query, group, R_WG, p_WG):
    """(points (m, K) flattened, pair index (m,), overflow) of one group."""
    X_a, X_b = (R_WG[group.ga], p_WG[group.ga]), (R_WG[group.gb], p_WG[group.gb])
    pa = {k: jnp.asarray(v) for k, v in group.params_a.items()}
    pb = {k: jnp.asarray(v) for k, v in group.params_b.items()}
    select = jnp.arange(len(group.pair))
    overflow = jnp.zeros((), bool)
    if group.culled:
        m = group.evaluated
        neg_d, idx = jax.lax.top_k(-jax.lax.stop_gradient(bound_distance(group, X_a, X_b)), m + 1)
        overflow = -neg_d[m] <= 0.0
        select = idx[:m]
        pick = lambda t: jax.tree_util.tree_map(lambda x: x[select], t)  # noqa: E731
        X_a, X_b, pa, pb = pick(X_a), pick(X_b), pick(pa), pick(pb)
    kernel = get_kernel(*group.kinds)
    K = group.points_per_pair

    def one(a, xa, b, xb):
        pts = kernel(a, xa, b, xb, query.options.single_point)
        return pts if pts.phi.shape[0] == K else deepest_k(pts, K)

    pts = jax.vmap(one)(pa, X_a, pb, X_b)
    return _slots(group, pts, select, overflow)


def _slots(group, pts, select, overflow):
    """(points (m, K) flattened, pair index (m,), overflow) of a group's evaluated pairs
    ``select`` (their A and B back in the candidates' order)."""
    pts = swap(pts, jnp.asarray(group.swapped)[select])
    flat = ContactPoints(*(x.reshape((-1,) + x.shape[2:]) for x in pts))
    return flat, jnp.asarray(group.pair)[select], overflow


def _near_pairs_only(group, options) -> bool:
    """Whether the group's pairs take GJK/EPA with one point per pair, so that only the pairs
    whose bounding volumes touch are solved (`hull_group`): separated pairs report no point,
    as in Drake's ``ComputePointPairPenetration``."""
    return (options.single_point and group.points_per_pair == 1
            and "edges" in group.params_a and "edges" in group.params_b
            and uses_gjk_epa(group.params_a, group.params_b))


def calc_point_contacts(query: ContactQuery, R_WB, p_WB, contact_parameters) -> PointContacts:
    """All contact points of a plant configuration.

    Args:
        query: the plant's `ContactQuery`.
        R_WB: (num_bodies, 3, 3), p_WB: (num_bodies, 3): body poses in World, BodyIndex order.
        contact_parameters: dict of (G,) arrays, keys of
            `contact_properties.PARAMETER_NAMES` (``Context.parameters.contact``).

    Returns:
        `PointContacts` over P = ``query.num_points`` slots.
    """
    dtype = p_WB.dtype
    gbody = query.geometry_body
    R_W = R_WB[gbody]
    R_WG = R_W @ jnp.asarray(query.R_BG, dtype)
    p_WG = p_WB[gbody] + jnp.einsum("gij,gj->gi", R_W, jnp.asarray(query.p_BG, dtype))
    parts, pair_idx, overflow = [], [], jnp.zeros((), bool)
    near = [i for i, g in enumerate(query.groups) if _near_pairs_only(g, query.options)]
    solved = dict(zip(near, near_groups_points([query.groups[i] for i in near], R_WG, p_WG)
                      if near else ()))
    for i, group in enumerate(query.groups):
        if i in solved:  # GJK/EPA on the pairs whose bounds touch, all groups at once
            pts, pair, over = _slots(group, *solved[i])
        else:
            pts, pair, over = _evaluate_group(query, group, R_WG, p_WG)
        parts.append(pts)
        pair_idx.append(jnp.repeat(pair, group.points_per_pair))
        overflow = overflow | over
    if not parts:
        z = jnp.zeros((0,), dtype)
        z3 = jnp.zeros((0, 3), dtype)
        zi = jnp.zeros((0,), jnp.int32)
        return PointContacts(z, z3, z3, z, z, z, z, z, jnp.zeros((0,), bool), z3, z3, zi, zi,
                             zi, zi, overflow)
    pts = ContactPoints(*(jnp.concatenate(x, 0) for x in zip(*parts)))
    pair = jnp.concatenate(pair_idx)
    ga, gb = jnp.asarray(query.pair_a)[pair], jnp.asarray(query.pair_b)[pair]
    props = combine_contact_parameters({k: v[ga] for k, v in contact_parameters.items()},
                                       {k: v[gb] for k, v in contact_parameters.items()})
    w_a = props["w_a"][:, None]
    p_WC = w_a * pts.p_WCa + (1.0 - w_a) * pts.p_WCb
    ids, body = jnp.asarray(query.geometry_ids, jnp.int32), jnp.asarray(gbody, jnp.int32)
    return PointContacts(
        phi=jnp.where(pts.valid, pts.phi, PHI_INVALID), p_WC=p_WC, nhat_BA_W=pts.nhat_BA_W,
        k=props["k"], tau=props["tau"], mu=props["mu"], mu_static=props["mu_static"],
        d=props["d"], valid=pts.valid, p_WCa=pts.p_WCa, p_WCb=pts.p_WCb,
        body_a=body[ga], body_b=body[gb], geometry_a=ids[ga], geometry_b=ids[gb],
        overflow=overflow)
