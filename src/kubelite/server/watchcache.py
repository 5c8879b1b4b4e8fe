"""A watch cache: the current objects of one resource in memory, kept by a watch on the store.

A LIST of 1,000 objects read them all from SQLite on every request. kube-apiserver answers a
LIST from its watch cache instead, and since 1.31 (ConsistentListFromCache) even a LIST with
resourceVersion="" does: it asks etcd for the current revision, waits until the cache has seen
every event up to it, and answers from the cache. This does the same: `range()` reads the
store's current revision, makes the store hand every write committed so far to the cache's
watcher (`sync_watchers`), applies the queued events, and answers from memory. The answer
holds every write acknowledged before the request, whichever process made it (another server
on the same SQLite file or etcd included). The list's resourceVersion is the revision the
cache has reached (at least the one read from the store).

Only what the cache can answer exactly is answered from it: the current state (revision 0), in
full (no limit, no continuation). Anything else, and any failure of the watch (the store closed,
compacted past it), goes to the store; a failed cache is rebuilt by the next LIST.
"""
from __future__ import annotations

import bisect
import threading

from kubelite.server.storage.base import EventType, RangeResult, Store
from kubelite.server.storage.errors import StorageError
from kubelite.server.storage.memory import MemoryStore


class ResourceCache:
    """The live KVs under one resource prefix (every namespace), in key order."""

    def __init__(self, store, prefix: str):
        self._store = store
        self._prefix = prefix
        self._lock = threading.Lock()
        page = store.range(prefix)
        self._kvs = {kv.key: kv for kv in page.kvs}
        self._keys = [kv.key for kv in page.kvs]  # sorted, as the store returns them
        self._revision = page.revision
        self._watcher = store.watch(prefix, from_revision=page.revision)
        self.broken = False
        # Applying events as they come keeps the queue short between LISTs.
        threading.Thread(target=self._follow, name=f"kubelite-watch-cache:{prefix}", daemon=True).start()

    def _follow(self) -> None:
        watcher = self._watcher
        while not self.broken and not watcher.closed:
            watcher.wait()
            with self._lock:
                self._drain()

    def _drain(self) -> None:
        """Apply every queued event (under the lock)."""
        try:
            while True:
                event = self._watcher.next(timeout=0)
                if event is None:
                    break
                self._apply(event)
        except StorageError:
            self.broken = True
        if self._watcher.closed:
            self.broken = True

    def _apply(self, event) -> None:
        key = event.kv.key
        if event.type == EventType.DELETED:
            if self._kvs.pop(key, None) is not None:
                del self._keys[bisect.bisect_left(self._keys, key)]
        else:
            if key not in self._kvs:
                bisect.insort(self._keys, key)
            self._kvs[key] = event.kv
        self._revision = max(self._revision, event.revision)

    def range(self, prefix: str) -> RangeResult | None:
        """Every current key under `prefix` (within this resource), or None if the cache failed."""
        wanted = self._store.current_revision()
        self._store.sync_watchers()  # every write committed up to `wanted` is queued for us now
        with self._lock:
            self._drain()
            if self.broken:
                return None
            start = bisect.bisect_left(self._keys, prefix)
            end = bisect.bisect_left(self._keys, prefix + "\U0010ffff", start)
            kvs = [self._kvs[key] for key in self._keys[start:end]]
            return RangeResult(kvs, False, max(self._revision, wanted))

    def close(self) -> None:
        self.broken = True
        self._watcher.close()


class WatchCaches:
    """A store's reads, with the current state of a resource served from its ResourceCache.

    Has the store's `range` and `count` (what APIServer.list_items reads through)."""

    def __init__(self, store):
        self._store = store
        self._caches: dict[str, ResourceCache] = {}
        self._lock = threading.Lock()

    def usable(self) -> bool:
        # A store whose watchers learn of a write only later must be able to catch them up.
        return isinstance(self._store, MemoryStore) or type(self._store).sync_watchers is not Store.sync_watchers

    def _cache(self, resource_prefix: str) -> ResourceCache | None:
        with self._lock:
            cache = self._caches.get(resource_prefix)
            if cache is None or cache.broken:
                try:
                    cache = self._caches[resource_prefix] = ResourceCache(self._store, resource_prefix)
                except StorageError:
                    return None
            return cache

    def range(self, prefix: str, *, start_after=None, limit: int = 0, revision: int = 0) -> RangeResult:
        if start_after is None and not limit and not revision and self.usable():
            for _ in range(2):  # a cache found failed is built anew once
                cache = self._cache(_resource_prefix(prefix))
                page = cache.range(prefix) if cache is not None else None
                if page is not None:
                    return page
        return self._store.range(prefix, start_after=start_after, limit=limit, revision=revision)

    def count(self, prefix: str, *, start_after=None, revision: int = 0) -> int:
        return self._store.count(prefix, start_after=start_after, revision=revision)

    def close(self) -> None:
        with self._lock:
            caches, self._caches = list(self._caches.values()), {}
        for cache in caches:
            cache.close()


def _resource_prefix(prefix: str) -> str:
    """/registry/GROUP/RESOURCE/ of a list prefix (which may go on with NAMESPACE/)."""
    parts = prefix.split("/")
    return "/".join(parts[:4]) + "/"
