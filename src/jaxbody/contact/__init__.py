"""Contact: SAP's convex discrete step (`sap_solver`), its constraints and problem data."""

from jaxbody.contact.sap_problem import SapProblem, SapSolverParameters
from jaxbody.contact.sap_solver import SapStatistics, solve
from jaxbody.contact.tree_jacobian import TreeJacobian

__all__ = ["SapProblem", "SapSolverParameters", "SapStatistics", "TreeJacobian", "solve"]
