"""Storage: an etcd-shaped key-value store behind one interface.

Keys are strings such as ``/registry/apps/deployments/default/nginx``, values
are bytes (the object's JSON). One global revision numbers every write; a
key's ``mod_revision`` is the object's resourceVersion. Backends: MemoryStore
(tests), SQLiteStore (the embedded default), EtcdStore (``etcd://``, several servers).
See ``base.Store`` for the contract of every operation.
"""

from __future__ import annotations

import os

from .base import KV, Event, EventType, RangeResult, Store
from .compactor import Compactor
from .errors import (
    Compacted,
    Conflict,
    FutureRevision,
    KeyExists,
    NotFound,
    StorageError,
    StoreClosed,
)
from .watch import Watcher

__all__ = [
    "KV",
    "Event",
    "EventType",
    "RangeResult",
    "Store",
    "Watcher",
    "Compactor",
    "StorageError",
    "KeyExists",
    "NotFound",
    "Conflict",
    "Compacted",
    "FutureRevision",
    "StoreClosed",
    "open_store",
]


def open_store(url_or_path: str | os.PathLike) -> Store:
    """Open a store from a URL or a path.

    ``memory://`` or ``memory:``; ``sqlite:///abs/path``, ``sqlite://rel/path``, ``sqlite:PATH``
    or a plain path; ``etcd://host:port[,host:port...]`` (``etcds://`` or ``?cacert=&cert=&key=``
    for TLS, see ``etcd.parse_url``).
    """
    target = os.fspath(url_or_path)
    if not isinstance(target, str) or not target:
        raise StorageError(f"storage location must be a non-empty path or URL, got {target!r}")
    scheme, sep, rest = target.partition("://")
    if not sep:
        scheme, colon, rest = target.partition(":")
        if not colon or scheme.lower() not in ("memory", "sqlite"):
            return _sqlite(target)
    scheme = scheme.lower()
    if scheme == "memory":
        if rest:
            raise StorageError(f"memory:// takes no path, got {target!r}")
        from .memory import MemoryStore

        return MemoryStore()
    if scheme == "sqlite":
        if not rest:
            raise StorageError(f"sqlite:// needs a file path, e.g. sqlite:///var/lib/kubelite.db")
        return _sqlite(rest)
    if scheme in ("etcd", "etcds"):
        from .etcd import EtcdStore

        return EtcdStore(target)
    raise StorageError(
        f"unknown storage scheme {scheme!r} in {target!r}; "
        "expected memory://, sqlite://, etcd:// or a path"
    )


def _sqlite(path: str) -> Store:
    from .sqlite import SQLiteStore

    return SQLiteStore(os.path.expanduser(path))
