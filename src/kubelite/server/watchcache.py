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

The cache also keeps a window of its resource's latest events (WINDOW of them), as
kube-apiserver's watch cache does: a watch from a resourceVersion the store has compacted away
but the window still covers is served from it (`watch_from`) instead of ending with 410 Gone.
"""
from __future__ import annotations

import bisect
import collections
import threading

from kubelite.server.storage.base import EventType, RangeResult, Store
from kubelite.server.storage.errors import StorageError
from kubelite.server.storage.memory import MemoryStore
from kubelite.server.storage.watch import Watcher

# Events of a resource kept for watches from before the store's compaction point (kube-apiserver
# keeps at least 100 and sizes its window to ~75 s of events, up to 100 Ki).
WINDOW = 1024


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
        self._window: collections.deque = collections.deque(maxlen=WINDOW)
        self._window_floor = page.revision  # every event after this revision is in the window
        self._followers: set[Watcher] = set()  # watches served from the window, fed from here
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
        except StorageError as err:
            self._break(err)
        if self._watcher.closed:
            self._break(StorageError("the watch cache's watch ended"))

    def _break(self, error: StorageError) -> None:
        self.broken = True
        followers, self._followers = list(self._followers), set()
        for follower in followers:
            follower.fail(error)

    def _apply(self, event) -> None:
        if len(self._window) == self._window.maxlen:
            self._window_floor = self._window[0].revision
        self._window.append(event)
        for follower in list(self._followers):
            follower.offer(event)
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

    def watch_from(self, prefix: str, revision: int) -> Watcher | None:
        """A watcher of the events under `prefix` after `revision`, from the window and then as
        they come; None if the window does not reach back to `revision`."""
        self._store.sync_watchers()
        with self._lock:
            self._drain()
            if self.broken or revision < self._window_floor:
                return None
            watcher = Watcher(prefix, revision, self._followers.discard)
            for event in self._window:
                watcher.offer(event)
            self._followers.add(watcher)
            return watcher

    def close(self) -> None:
        self._break(StorageError("the watch cache was closed"))
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

    def watch_from(self, prefix: str, revision: int) -> Watcher | None:
        """A watch from a compacted `revision` served from the resource's event window, or None."""
        if not self.usable():
            return None
        cache = self._cache(_resource_prefix(prefix))
        return cache.watch_from(prefix, revision) if cache is not None else None

    def follow(self, prefix: str) -> None:
        """Keep a cache (and so an event window) of this prefix's resource from now on."""
        if self.usable():
            self._cache(_resource_prefix(prefix))

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
