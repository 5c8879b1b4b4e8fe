"""clone(): a deep copy of a JSON value (dicts, lists, strings, numbers), several times faster
than copy.deepcopy.

The server copies every object it is handed and every object it stores (so that no caller and
no cache shares a mutable value with another); on a cluster's hot paths those copies were a
fifth of the CPU. A pickle round trip is done in C and keeps what deepcopy keeps for plain data
(types, shared references inside the value); anything pickle cannot take (or a document too
deep for it) is copied by copy.deepcopy, as before.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")

_PROTOCOL = 5  # pickle.HIGHEST_PROTOCOL


def _load_pickler() -> None:
    """The C pickler itself (what pickle.dumps/loads are; the pickle module's own import is ~1 ms),
    at the first copy: a command that only reads copies nothing and does without _pickle's import."""
    global _dumps, _loads
    try:
        from _pickle import dumps, loads
    except ImportError:  # an interpreter without it
        from pickle import dumps, loads
    _dumps, _loads = dumps, loads


def _dumps(value, protocol: int) -> bytes:  # until the first copy: load the pickler, then use it
    _load_pickler()
    return _dumps(value, protocol)


def _loads(data: bytes):  # (clone looks it up before _dumps runs: the first copy comes here too)
    _load_pickler()
    return _loads(data)


def clone(value: T) -> T:
    """A deep copy of `value` (equal to copy.deepcopy's for JSON values)."""
    try:
        return _loads(_dumps(value, _PROTOCOL))
    except Exception:  # not picklable (a lambda, a lock, a local class...): deepcopy decides
        import copy

        return copy.deepcopy(value)
