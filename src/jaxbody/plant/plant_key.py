"""`PlantKey`: an immutable stand-in for a plant as a static argument of ``jax.jit``.

JAX keeps a static argument as the key of its compiled code. A `MultibodyPlant` is mutable:
setters that Drake allows after Finalize change its content (and its hash), and a key object
whose hash changes poisons the cache (the old code is served again, even to a new plant equal
to the changed one). A `PlantKey` freezes the plant's identity at the moment it is made: it
compares and hashes by the plant's compiled `Model` (immutable, recompiled by such setters), and
hands traced code the plant itself.

Example:
    >>> import jax, jaxbody as jb
    >>> from jaxbody.plant.plant_key import PlantKey
    >>> plant = jb.MultibodyPlant(0.0)
    >>> _ = plant.AddRigidBody("b", jb.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    >>> plant.Finalize()
    >>> f = jax.jit(lambda key, c: key.plant.CalcMassMatrix(c), static_argnums=0)
    >>> f(PlantKey(plant), plant.CreateDefaultContext()).shape
    (6, 6)
"""

from __future__ import annotations


class PlantKey:
    """A finalized plant with the identity of its current compiled model.

    Attributes:
        plant: the `MultibodyPlant` (for tracing).
        model: its `jaxbody.model.Model` when the key was made (the identity).
    """

    __slots__ = ("plant", "model")

    def __init__(self, plant):
        self.plant = plant
        self.model = plant.compiled_model()

    def __hash__(self):
        return hash(self.model)

    def __eq__(self, other):
        return isinstance(other, PlantKey) and other.model == self.model

    def __repr__(self):
        return f"PlantKey({self.model.key[:12]})"
