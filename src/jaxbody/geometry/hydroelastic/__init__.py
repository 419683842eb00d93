"""Hydroelastic contact: compliant volume meshes with pressure fields, rigid surface meshes,
contact surfaces and their quadrature points for SAP."""
