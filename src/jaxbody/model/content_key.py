"""`content_key`: the SHA-256 of a compiled `Model`'s own contents, its identity as a jit key.

A `Model` compares equal to another, and shares compiled code with it
(``jax.jit(f, static_argnums=0)(model, ...)``), exactly when their content keys do. That is safe
only if every value the engine may read off the model takes part, and it does by construction:
the key encodes the model's records, not a hand-kept list of "static" fields:

- NumPy and concrete JAX arrays by dtype, shape and bytes; numbers, strings, enums and typed
  indices by type and value; tuples, NamedTuples, dicts, sets and dataclasses by type and
  contents; classes (joint kinds) by qualified name;
- an element the model holds in its tuples (a force element) in full, by type and fields; an
  element referred to from inside another object (a spring's bodies, a geometry's body) by
  type and index; the plant an element points back to (``owner``) by a tag;
- anything else (a user callable such as a joint's random distribution, an opaque handle) by
  identity, which never shares compiled code with another object.

The builder's state never enters: `jaxbody.plant.compile_model` copies what the engine reads
into the model, and the key is computed from that copy.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib

import jax
import numpy as np

from jaxbody.core.elements import MultibodyElement


def _fields(obj):
    """(name, value) pairs of an object's instance state, in a deterministic order."""
    items = {}
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name):
                items[name] = getattr(obj, name)
    items.update(getattr(obj, "__dict__", {}))
    return sorted(items.items(), key=lambda kv: kv[0])


class _Writer:
    """Feeds a canonical byte encoding of an object graph into a SHA-256."""

    def __init__(self, owner):
        self._owner = owner
        self._h = hashlib.sha256()
        self._active = set()  # ids on the current path (cycle guard)

    def tag(self, *parts):
        for p in parts:
            b = p if isinstance(p, bytes) else str(p).encode()
            self._h.update(len(b).to_bytes(8, "little"))
            self._h.update(b)

    def digest(self) -> str:
        return self._h.hexdigest()

    def value(self, obj, element_in_full):  # noqa: C901 - one branch per kind of value
        t = type(obj)
        name = f"{t.__module__}.{t.__qualname__}"
        if obj is None or isinstance(obj, bool | int | float | complex | str | bytes):
            self.tag(name, repr(obj))
        elif isinstance(obj, enum.Enum):
            self.tag(name, obj.name)
        elif isinstance(obj, type):
            self.tag("class", obj.__module__, obj.__qualname__)
        elif isinstance(obj, np.ndarray | np.generic | jax.Array):
            a = np.asarray(obj)
            if a.dtype == object:
                self.tag("object-array", a.shape)
                for x in a.ravel():
                    self.value(x, element_in_full)
            else:
                self.tag("array", a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes())
        elif self._owner is not None and obj is self._owner:
            self.tag("owner")
        elif isinstance(obj, MultibodyElement) and not element_in_full:
            self.tag("ref", name, repr(obj._index))
        elif isinstance(obj, list | tuple):
            self.tag(name, len(obj))
            for x in obj:
                self.value(x, element_in_full)
        elif isinstance(obj, set | frozenset):
            encoded = sorted(self._encode(x) for x in obj)
            self.tag(name, len(encoded), *encoded)
        elif isinstance(obj, dict):
            items = sorted(((self._encode(k), v) for k, v in obj.items()), key=lambda kv: kv[0])
            self.tag(name, len(items))
            for k, v in items:
                self.tag(k)
                self.value(v, element_in_full)
        elif dataclasses.is_dataclass(obj) or hasattr(obj, "__dict__") or hasattr(t, "__slots__"):
            self._object(obj, name)
        else:
            self.tag("opaque", name, id(obj))

    def _object(self, obj, name):
        """A record or element by its fields (elements inside it by reference); a function or a
        callable handle by identity."""
        if callable(obj) and not dataclasses.is_dataclass(obj) and not hasattr(obj, "__dict__"):
            self.tag("opaque", name, id(obj))
            return
        if id(obj) in self._active:
            self.tag("cycle", name)
            return
        self._active.add(id(obj))
        fields = _fields(obj)
        if callable(obj) and (not fields or not dataclasses.is_dataclass(obj)
                              and hasattr(obj, "__code__")):
            self.tag("callable", name, id(obj))  # a function, a lambda, a closure
        else:
            self.tag("object", name, len(fields))
            for k, v in fields:
                self.tag(k)
                self.value(v, False)
        self._active.discard(id(obj))

    def _encode(self, obj) -> str:
        w = _Writer(self._owner)
        w.value(obj, False)
        return w.digest()


def content_key(fields, owner=None) -> str:
    """A SHA-256 hex digest of ``fields`` (a model's (name, value) pairs).

    Args:
        fields: iterable of (name, value); elements found directly in the values (not inside
            another element) are encoded in full.
        owner: the object elements point back to (the plant), encoded as a tag.
    """
    w = _Writer(owner)
    with jax.ensure_compile_time_eval():
        for name, value in fields:
            w.tag(name)
            w.value(value, True)
    return w.digest()
