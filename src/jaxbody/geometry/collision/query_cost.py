"""What one evaluation of a compiled point-contact query costs, from its static structure:
how many candidate pairs it has, how many it evaluates after the caps
(`ContactQueryOptions.max_pairs_per_group`, ``max_hull_pairs_per_group``), how many of those
run GJK/EPA on convex hulls (mesh collision geometry) and with what iteration budget, and how
many point slots the SAP problem gets. ``jaxbody simulate`` prints it (`describe`)."""

from __future__ import annotations

from typing import NamedTuple

from jaxbody.geometry.collision import epa, gjk
from jaxbody.geometry.collision.polytope_pairs import uses_gjk_epa


class QueryCost(NamedTuple):
    """Attributes:
        candidate_pairs: collision candidates (after the filters).
        evaluated_pairs: pairs evaluated per query (the closest ones, where a cap applies).
        gjk_epa_pairs: of those, convex-hull pairs whose depth and normal come from GJK/EPA.
        large_hull_pairs: of those, pairs against large hulls (O(vertices) per iteration:
            the GJK/EPA pairs and spheres, capsules, cylinders against big hulls).
        max_iterations: GJK's plus EPA's iteration budget of one GJK/EPA pair.
        slots: contact point slots (the SAP problem's size before compaction).
        culled: whether a cap leaves candidate pairs out of some query.
        touching_only: whether the GJK/EPA pairs are solved only when their bounding volumes
            touch (one point per pair: `hull_group`), so that a query usually solves far fewer.
    """

    candidate_pairs: int
    evaluated_pairs: int
    gjk_epa_pairs: int
    large_hull_pairs: int
    max_iterations: int
    slots: int
    culled: bool
    touching_only: bool = False


def query_cost(query) -> QueryCost:
    """The `QueryCost` of a `ContactQuery`."""
    groups = query.groups
    both = [g for g in groups if "vertices" in g.params_a and "vertices" in g.params_b]
    return QueryCost(
        candidate_pairs=sum(len(g.pair) for g in groups),
        evaluated_pairs=sum(g.evaluated for g in groups),
        gjk_epa_pairs=sum(g.evaluated for g in both if uses_gjk_epa(g.params_a, g.params_b)),
        large_hull_pairs=sum(g.evaluated for g in groups if g.large_hull),
        max_iterations=gjk.MAX_ITERATIONS + epa.MAX_ITERATIONS,
        slots=int(query.num_points), culled=any(g.culled for g in groups),
        touching_only=bool(query.options.single_point))


def describe(cost: QueryCost) -> str:
    """One line, e.g. "28 candidate pairs, 28 evaluated per query; 21 by GJK/EPA on convex
    hulls (at most 112 iterations each)"."""
    out = f"{cost.candidate_pairs} candidate pair{'' if cost.candidate_pairs == 1 else 's'}, "
    out += f"{cost.evaluated_pairs} evaluated per query"
    if cost.culled:
        out += " (the closest, by bounding spheres and boxes)"
    if cost.gjk_epa_pairs:
        when = " when their bounding boxes touch" if cost.touching_only else ""
        out += (f"; {cost.gjk_epa_pairs} by GJK/EPA on convex hulls{when} (at most "
                f"{cost.max_iterations} iterations each)")
    others = cost.large_hull_pairs - cost.gjk_epa_pairs
    if others:
        out += f"; {others} primitive against a large hull"
    return out
