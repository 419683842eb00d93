"""The engine: every computation of a compiled model as a pure function of
``(model, context, inputs)`` (`jaxbody.model.Model`, `jaxbody.core.context.Context`), grouped by
question: state and the q̇ ↔ v maps (`state`), kinematics (`kinematics`), mass properties,
point and hydroelastic contact slots, forces, dynamics, and the discrete step
(`discrete_step`). `MultibodyPlant` forwards its Drake-named methods here; an engine function
never reads a plant."""
