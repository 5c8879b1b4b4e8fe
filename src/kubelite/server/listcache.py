"""A LIST's items kept encoded between requests, while the stored object is unchanged.

A LIST of 1,000 objects spent nearly all its time on each item: decoding the stored JSON,
putting it in Go's field order, encoding it again. An item's bytes in a response depend only
on the stored value (its key and mod_revision) and the version it is served as, so they are
kept here under that key and reused while the mod_revision is the same. The LIST itself still
reads the store at the current revision (a write acknowledged by any process is in it); only
the per-item work is skipped. kube-apiserver keeps encoded objects in its watch cache for
the same reason.
"""
from __future__ import annotations

import threading
import weakref

from kubelite.server.handlers.http import encode_json

# Past this many bytes of encoded items the entries are dropped all at once (refilling costs one
# slow LIST). A budget in bytes rather than entries: 100,000 small objects fit (a few hundred
# bytes each), a cache of huge objects stays bounded. Entries that also keep their decoded
# object (Tables) count three times their encoding.
MAX_BYTES = 256 * 1024 * 1024
ENTRY_OVERHEAD = 256  # the Entry, its key and the dict slot, roughly
_EMPTY_LABELS: dict = {}
# A value no stored object holds: where the items go in a list's encoding.
MARK = "\x00kubelite-list-items\x00"
MARK_JSON = b'"\\u0000kubelite-list-items\\u0000"'


class Entry:
    """One stored object as a LIST serves it. `obj` (the decoded item, never to be changed) and
    `parts` (encoded pieces of Table rows) are kept only once a Table of it was asked for."""

    __slots__ = ("mod_revision", "served_as", "encoded", "labels", "obj", "parts")

    def __init__(self, mod_revision: int, served_as: tuple, encoded: bytes, labels: dict):
        self.mod_revision = mod_revision
        self.served_as = served_as
        self.encoded = encoded
        self.labels = labels
        self.obj: dict | None = None
        self.parts: dict = {}


class ListFrame:
    """A list kind's JSON around its items: `head` + items joined by commas + `tail`."""

    def __init__(self, r):
        self.kind = r.list_kind or f"{r.kind}List"
        self.api_version = r.api_version
        self.typed = not r.crd  # typed lists do not repeat kind/apiVersion on each item
        self.served_as = (self.kind, self.api_version)
        self._bare = None  # split({}), computed once per request


    def _body(self, metadata: dict, items: list) -> dict:
        return {"kind": self.kind, "apiVersion": self.api_version, "metadata": metadata, "items": items}

    def split(self, metadata: dict) -> tuple[bytes, bytes] | None:
        """(head, tail) of the list with this metadata around its items (built-in lists end
        with their items; custom ones sort their keys), or None if they cannot be found."""
        marked = encode_json(self._body(metadata, [MARK]))
        at = marked.find(MARK_JSON)
        if at < 0 or marked.find(MARK_JSON, at + 1) >= 0:
            return None
        return marked[:at], marked[at + len(MARK_JSON):]

    def item(self, obj: dict) -> dict:
        """The object as an item of this list."""
        return {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")} if self.typed else obj

    def encode_item(self, obj: dict) -> bytes | None:
        """The item's bytes exactly as the whole list's encoding writes them."""
        item = self.item(obj)
        if self._bare is None:
            self._bare = self.split({}) or ()
        around = self._bare
        if not around:
            return None
        full = encode_json(self._body({}, [item]))
        head, tail = around
        if not (full.startswith(head) and full.endswith(tail)):
            return None
        return full[len(head):len(full) - len(tail)]


class EncodedItems:
    """Thread-safe map from a store key to its latest encoded item."""

    def __init__(self, max_bytes: int = MAX_BYTES):
        self._entries: dict[str, Entry] = {}
        self._max = max_bytes
        self._bytes = 0
        self._lock = threading.Lock()

    def entry(self, frame: ListFrame, kv, decode, keep_object: bool = False) -> Entry | None:
        """The cached entry for `kv`, or a new one made with `decode(kv)`; None if it cannot be
        spliced (the caller then encodes the list the ordinary way). With `keep_object` the
        entry also holds the item as a dict."""
        served_as = frame.served_as
        found = self._entries.get(kv.key)
        if found is not None and found.mod_revision == kv.mod_revision and found.served_as == served_as:
            if keep_object and found.obj is None:
                found.obj = frame.item(decode(kv))
                with self._lock:
                    self._bytes += 2 * len(found.encoded)
            return found
        obj = decode(kv)
        encoded = frame.encode_item(obj)
        if encoded is None:
            return None
        labels = (obj.get("metadata") or {}).get("labels")
        entry = Entry(kv.mod_revision, served_as, encoded, labels if isinstance(labels, dict) else _EMPTY_LABELS)
        if keep_object:
            entry.obj = frame.item(obj)
        size = _size(entry)
        with self._lock:
            replaced = self._entries.get(kv.key)
            if replaced is not None:
                self._bytes -= _size(replaced)
            if self._bytes + size > self._max:
                self._entries.clear()
                self._bytes = 0
            self._entries[kv.key] = entry
            self._bytes += size
        return entry

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """The bytes the entries are counted as (what MAX_BYTES bounds)."""
        return self._bytes


def _size(entry: Entry) -> int:
    return ENTRY_OVERHEAD + len(entry.encoded) * (3 if entry.obj is not None else 1)


_BY_API: "weakref.WeakKeyDictionary[object, EncodedItems]" = weakref.WeakKeyDictionary()
_BY_API_LOCK = threading.Lock()


def for_api(api) -> EncodedItems:
    """The cache of one APIServer (each server of a process has its own)."""
    return _per_api(_BY_API, api, EncodedItems)


_READERS: "weakref.WeakKeyDictionary[object, object]" = weakref.WeakKeyDictionary()


def reader_for(api):
    """What one APIServer's LISTs read: its store, through watch caches (server.watchcache)."""
    from kubelite.server.watchcache import WatchCaches

    return _per_api(_READERS, api, lambda: WatchCaches(api.store))


def _per_api(table, api, make):
    with _BY_API_LOCK:
        found = table.get(api)
        if found is None:
            found = table[api] = make()
        return found
