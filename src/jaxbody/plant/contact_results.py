"""`ContactResults` and `PointPairContactInfo` (Drake's names): the contacts of one discrete step
(the hydroelastic ones are `hydroelastic_results.HydroelasticContactInfo`).

These are host-side records for inspection and reporting (the arrays inside a step stay in
`ContactSolution`). Conventions are Drake's: for a pair (A, B) the normal ``nhat_BA_W`` points
from B into A, ``contact_force()`` is the force f_Bc_W applied on body B at the contact point C,
``separation_speed()`` is the normal velocity of A relative to B (positive when separating) and
``slip_speed()`` the magnitude of the tangential relative velocity, both at the next velocities
(what the solver produced).
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

from jaxbody.core.elements import BodyIndex
from jaxbody.engine import continuous_contact


@dataclasses.dataclass(frozen=True)
class PenetrationAsPointPair:
    """Drake's ``PenetrationAsPointPair``: geometries, witness points, normal and depth."""

    id_A: int
    id_B: int
    p_WCa: np.ndarray
    p_WCb: np.ndarray
    nhat_BA_W: np.ndarray
    depth: float


@dataclasses.dataclass(frozen=True)
class PointPairContactInfo:
    """One point contact of a step (Drake's ``PointPairContactInfo``)."""

    _bodyA: BodyIndex
    _bodyB: BodyIndex
    _f_Bc_W: np.ndarray
    _p_WC: np.ndarray
    _separation_speed: float
    _slip_speed: float
    _point_pair: PenetrationAsPointPair

    def bodyA_index(self) -> BodyIndex:
        return self._bodyA

    def bodyB_index(self) -> BodyIndex:
        return self._bodyB

    def contact_force(self) -> np.ndarray:
        """f_Bc_W: the force on B at C, in World (N)."""
        return self._f_Bc_W

    def contact_point(self) -> np.ndarray:
        return self._p_WC

    def separation_speed(self) -> float:
        return self._separation_speed

    def slip_speed(self) -> float:
        return self._slip_speed

    def point_pair(self) -> PenetrationAsPointPair:
        return self._point_pair


class ContactResults:
    """The point contacts of one discrete step (Drake's ``ContactResults``), and, as jaxbody's
    extension, the impulses of the plant's constraints in that step (`constraint_impulse`)."""

    def __init__(self, infos, tau_contact=None, constraint_impulses=None, dt=None,
                 hydroelastic=()):
        self._infos = list(infos)
        self._hydro = list(hydroelastic)
        self._tau = None if tau_contact is None else np.asarray(tau_contact)
        self._constraints = dict(constraint_impulses or {})
        self._dt = dt

    def constraint_impulse(self, id) -> np.ndarray:
        """The impulse (N·s or N·m·s) of constraint ``id`` over the step, zero when inactive:
        a coupler's on joint 0's dof (1,); a distance constraint's along p̂ = p_PQ/‖p_PQ‖ on
        B at Q (1,); a ball constraint's on B at Q in World (3,); a weld's spatial impulse
        (angular, translational) on B at the midpoint of P and Q in World (6,). The body A
        receives the opposite."""
        key = int(id)
        if key not in self._constraints:
            raise ValueError(f"constraint_impulse: no constraint with id {id!r} (the plant has "
                             f"{len(self._constraints)})")
        return self._constraints[key]

    def constraint_force(self, id) -> np.ndarray:
        """`constraint_impulse` divided by the time step (N or N·m)."""
        return self.constraint_impulse(id) / self._dt

    def num_point_pair_contacts(self) -> int:
        return len(self._infos)

    def point_pair_contact_info(self, i) -> PointPairContactInfo:
        if not 0 <= int(i) < len(self._infos):
            raise IndexError(f"point_pair_contact_info: index {i} out of range "
                             f"[0, {len(self._infos)})")
        return self._infos[int(i)]

    def num_hydroelastic_contacts(self) -> int:
        return len(self._hydro)

    def hydroelastic_contact_info(self, i):
        """The i-th `HydroelasticContactInfo` (a contact surface and the spatial force on body
        A at its centroid)."""
        if not 0 <= int(i) < len(self._hydro):
            raise IndexError(f"hydroelastic_contact_info: index {i} out of range "
                             f"[0, {len(self._hydro)})")
        return self._hydro[int(i)]

    def generalized_contact_forces(self) -> np.ndarray:
        """τ_contact = Jᵀγ/δt over all velocities (N or N·m)."""
        return self._tau

    def __repr__(self):
        return (f"ContactResults(num_point_pair_contacts={len(self._infos)}, "
                f"num_hydroelastic_contacts={len(self._hydro)})")


def constraint_impulses(slots, solution) -> dict:
    """{constraint id: impulse} from the plant's [(kind, slot)] by id and a `ContactSolution`."""
    arrays = {"coupler": solution.coupler_impulses, "ball": solution.ball_impulses,
              "distance": solution.distance_impulses, "weld": solution.weld_impulses}
    return {i: np.atleast_1d(np.asarray(arrays[kind])[slot])
            for i, (kind, slot) in enumerate(slots)}


def make_contact_results(point_contacts, solution, dt, slots=(), point_slots=None,
                         hydroelastic=()) -> ContactResults:
    """`ContactResults` from a step's `PointContacts` and `ContactSolution` (host arrays);
    ``slots``: the plant's constraints as [(kind, slot within the kind)] by id;
    ``point_slots``: the slots that are point contacts (None: all);
    ``hydroelastic``: the step's `HydroelasticContactInfo` records."""
    impulses = constraint_impulses(slots, solution)
    if point_contacts is None:
        return ContactResults([], solution.tau_contact, impulses, dt, hydroelastic)
    active = np.asarray(solution.active) > 0
    if point_slots is not None:
        active = active & np.isin(np.arange(active.shape[0]), point_slots)
    R = np.asarray(solution.R_WC)
    gamma = np.asarray(solution.gamma)
    vc = np.asarray(solution.vc)
    pc = point_contacts
    body_a, body_b = np.asarray(pc.body_a), np.asarray(pc.body_b)
    geo_a, geo_b = np.asarray(pc.geometry_a), np.asarray(pc.geometry_b)
    infos = []
    for i in np.flatnonzero(active):
        f_A = R[i] @ gamma[i] / dt
        pair = PenetrationAsPointPair(int(geo_a[i]), int(geo_b[i]), np.asarray(pc.p_WCa[i]),
                                      np.asarray(pc.p_WCb[i]), np.asarray(pc.nhat_BA_W[i]),
                                      float(-np.asarray(pc.phi[i])))
        infos.append(PointPairContactInfo(BodyIndex(int(body_a[i])), BodyIndex(int(body_b[i])),
                                          -f_A, np.asarray(solution.p_WC[i]), float(vc[i, 2]),
                                          float(np.hypot(vc[i, 0], vc[i, 1])), pair))
    return ContactResults(infos, solution.tau_contact, impulses, dt, hydroelastic)


def continuous_contact_results(model, context) -> ContactResults:
    """Drake's ``ContactResults`` of a continuous plant (``model``) at ``context``: a
    ``PointPairContactInfo`` per penetrating pair whose normal force is positive. As Drake's
    continuous plant reports it, ``separation_speed()`` is the approach speed vₙ = v_AcBc·n̂_BA
    (positive while the bodies approach) and ``contact_force()`` the force on B at the midpoint
    C. Host-side; the caller checks the context."""
    tau, out = continuous_contact.contact_results(model, context)
    tau = np.asarray(tau)
    if out is None:
        return ContactResults([], tau)
    pc, pf, _, _ = jax.tree.map(np.asarray, out)
    infos = []
    for i in np.flatnonzero(pf.active):
        pair = PenetrationAsPointPair(int(pc.geometry_a[i]), int(pc.geometry_b[i]), pc.p_WCa[i],
                                      pc.p_WCb[i], pc.nhat_BA_W[i], float(-pc.phi[i]))
        infos.append(PointPairContactInfo(BodyIndex(int(pc.body_a[i])), BodyIndex(int(pc.body_b[i])),
                                          -pf.f_A[i], pf.p_WC[i], float(pf.vn[i]),
                                          float(pf.slip[i]), pair))
    return ContactResults(infos, tau)
