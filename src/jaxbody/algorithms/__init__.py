"""Pure tree-pass kernels over a static `Topology` (kinematics, Jacobians, center of mass)."""
