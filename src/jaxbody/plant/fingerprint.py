"""The content fingerprint of a finalized plant: what jit compares when a plant is a static key.

A finalized `MultibodyPlant` is hashable and compares equal to another plant built the same way,
so that equal models share compiled code (``jax.jit(..., static_argnums=...)`` and the plant's
own jitted conveniences). That is safe only if *every* value that traced code may read off the
plant (effort and position limits, joint axes, damping defaults, force-element constants,
geometry, contact and solver settings, ...) takes part in the comparison. A hand-kept list of
"static" fields misses some (an actuator's effort limit once did, and two plants differing only
in it shared a compiled rollout). So the fingerprint walks the whole builder state instead:

- every attribute of the plant, recursively, except its one `DerivedCaches` record (the
  compiled model, the key itself: values computed from the plant, never part of
  its identity; left out by type, so no attribute-naming convention can let a cache in);
- every element in the plant's element lists in full; an element referred to from inside
  another element (a joint's frames, a geometry's body, the owning plant) by type and index;
- NumPy and concrete JAX arrays by dtype, shape and bytes; numbers, strings, enums, typed indices
  by type and value; dataclasses, slotted classes and plain objects by type and fields;
- anything else (a user callable, an opaque handle) by identity, which never shares compiled code.

The walk sees the state as it is when the key is first needed; setters that may run after
``Finalize()`` call ``_invalidate_content_key()``.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib

import jax
import numpy as np

from jaxbody.core.elements import MultibodyElement


@dataclasses.dataclass(eq=False)
class DerivedCaches:
    """What a finalized plant computes from its own content and keeps for reuse; left out of
    the fingerprint. Each field is None until first needed (compiled code lives in the engine's
    caches keyed by the model, never here)."""

    content_key: str | None = None  # the fingerprint itself
    model: object = None  # the compiled `jaxbody.model.Model`


def _fields(obj):
    """(name, value) pairs of an object's instance state, in a deterministic order."""
    items = {}
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name):
                items[name] = getattr(obj, name)
    items.update(getattr(obj, "__dict__", {}))
    return sorted((k, v) for k, v in items.items() if not isinstance(v, DerivedCaches))


class _Writer:
    """Feeds a canonical byte encoding of a Python object graph into a hash."""

    def __init__(self, plant):
        self._plant = plant
        self._h = hashlib.sha256()
        self._active = set()  # ids on the current path (cycle guard)

    def tag(self, *parts):
        for p in parts:
            b = p if isinstance(p, bytes) else str(p).encode()
            self._h.update(len(b).to_bytes(8, "little"))
            self._h.update(b)

    def digest(self) -> str:
        return self._h.hexdigest()

    def value(self, obj, element_in_full=False):
        t = type(obj)
        name = f"{t.__module__}.{t.__qualname__}"
        if obj is None or isinstance(obj, bool | int | float | complex | str | bytes):
            self.tag(name, repr(obj))
        elif isinstance(obj, enum.Enum):
            self.tag(name, obj.name)
        elif isinstance(obj, np.ndarray | np.generic | jax.Array):
            a = np.asarray(obj)
            if a.dtype == object:
                self.tag("object-array", a.shape)
                for x in a.ravel():
                    self.value(x)
            else:
                self.tag("array", a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes())
        elif obj is self._plant:
            self.tag("plant")
        elif isinstance(obj, MultibodyElement) and not element_in_full:
            self.tag("ref", name, repr(obj._index))
        elif isinstance(obj, list | tuple):
            self.tag(name, len(obj))
            for x in obj:
                self.value(x, element_in_full)
        elif isinstance(obj, set | frozenset):
            encoded = sorted(_encode(x, self._plant) for x in obj)
            self.tag(name, len(encoded), *encoded)
        elif isinstance(obj, dict):
            items = sorted((_encode(k, self._plant), v) for k, v in obj.items())
            self.tag(name, len(items))
            for k, v in items:
                self.tag(k)
                self.value(v, element_in_full)
        elif dataclasses.is_dataclass(obj) or hasattr(obj, "__dict__") or hasattr(t, "__slots__"):
            if callable(obj) and not dataclasses.is_dataclass(obj) and not hasattr(obj, "__dict__"):
                self.tag("opaque", name, id(obj))
                return
            if id(obj) in self._active:
                self.tag("cycle", name)
                return
            self._active.add(id(obj))
            fields = _fields(obj)
            if callable(obj) and not fields:  # a function, a lambda: identity only
                self.tag("callable", name, id(obj))
            else:
                self.tag("object", name, len(fields))
                for k, v in fields:
                    self.tag(k)
                    self.value(v)
            self._active.discard(id(obj))
        else:
            self.tag("opaque", name, id(obj))


def _encode(obj, plant) -> str:
    w = _Writer(plant)
    w.value(obj)
    return w.digest()


def plant_fingerprint(plant) -> str:
    """A SHA-256 hex digest of everything a finalized plant holds, caches excluded."""
    w = _Writer(plant)
    with jax.ensure_compile_time_eval():
        for name, value in _fields(plant):
            w.tag(name)
            w.value(value, element_in_full=True)
    return w.digest()
