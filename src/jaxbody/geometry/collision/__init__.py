"""Point-contact collision queries: narrow-phase kernels, candidate pairs, culling, and Drake's
combination of contact properties.

- `kernels.compute_pair`: contact points of two shapes at given poses (one pair).
- `query.calc_point_contacts`: every contact point of a plant (``MultibodyPlant.
  CalcPointContacts`` is the entry point), as `PointContacts`.
- Conventions (Drake's ``PenetrationAsPointPair``): φ < 0 when penetrating, ``p_WCa`` on A's
  surface deepest in B, ``p_WCb`` on B's surface deepest in A, ``nhat_BA_W`` from B into A,
  A's GeometryId below B's.
"""

from jaxbody.geometry.collision._util import ContactPoints
from jaxbody.geometry.collision.contact_properties import (
    DEFAULT_POINT_CONTACT_STIFFNESS,
    DEFAULT_RELAXATION_TIME,
    combine_contact_parameters,
)
from jaxbody.geometry.collision.kernels import compute_pair, get_kernel, is_supported
from jaxbody.geometry.collision.query import (
    PHI_INVALID,
    ContactQuery,
    ContactQueryOptions,
    PointContacts,
    calc_point_contacts,
)
from jaxbody.geometry.collision.query_cost import QueryCost, query_cost

__all__ = [
    "DEFAULT_POINT_CONTACT_STIFFNESS", "DEFAULT_RELAXATION_TIME", "PHI_INVALID", "ContactPoints",
    "ContactQuery", "ContactQueryOptions", "PointContacts", "QueryCost", "calc_point_contacts",
    "combine_contact_parameters", "compute_pair", "get_kernel", "is_supported", "query_cost",
]
