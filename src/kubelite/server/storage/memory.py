"""MemoryStore: the contract held in Python structures, for tests and throwaway servers."""

from __future__ import annotations

import bisect
import threading

from .base import KV, Event, EventType, RangeResult, Store
from .errors import Compacted, Conflict, FutureRevision, KeyExists, NotFound, StoreClosed
from .keys import (
    check_key,
    check_limit,
    check_prefix,
    check_revision,
    check_start_after,
    check_value,
    prefix_end,
    range_start,
)
from .watch import Watcher


class MemoryStore(Store):
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._revision = 1
        self._compacted = 0
        self._live: dict[str, KV] = {}
        self._live_keys: list[str] = []  # sorted
        # Every write, in revision order, and per key (for reads at old revisions).
        self._log: list[Event] = []
        self._history: dict[str, list[Event]] = {}
        self._history_keys: list[str] = []  # sorted
        self._watchers: set[Watcher] = set()
        self._closed = False

    # -- reads ------------------------------------------------------------------

    def get(self, key: str) -> KV | None:
        check_key(key)
        with self._lock:
            self._check_open()
            return self._live.get(key)

    def current_revision(self) -> int:
        with self._lock:
            self._check_open()
            return self._revision

    def compact_revision(self) -> int:
        with self._lock:
            self._check_open()
            return self._compacted

    def range(self, prefix, *, start_after=None, limit=0, revision=0) -> RangeResult:
        check_prefix(prefix)
        check_start_after(start_after)
        check_limit(limit)
        check_revision("revision", revision)
        with self._lock:
            self._check_open()
            at = self._resolve_revision(revision)
            if at == self._revision:
                keys, lookup = self._live_keys, self._live.get
            else:
                keys, lookup = self._history_keys, lambda k: self._value_at(k, at)
            kvs, more = _collect(keys, lookup, prefix, start_after, limit)
            return RangeResult(kvs, more, at)

    def count(self, prefix: str, *, start_after: str | None = None, revision: int = 0) -> int:
        check_prefix(prefix)
        check_start_after(start_after)
        check_revision("revision", revision)
        with self._lock:
            self._check_open()
            if self._resolve_revision(revision) != self._revision:
                return super().count(prefix, start_after=start_after, revision=revision)
            bound, inclusive = range_start(prefix, start_after)
            first = (bisect.bisect_left if inclusive else bisect.bisect_right)(self._live_keys, bound)
            end = prefix_end(prefix)
            last = len(self._live_keys) if end is None else bisect.bisect_left(self._live_keys, end)
            return max(last - first, 0)

    def _resolve_revision(self, revision: int) -> int:
        if revision == 0:
            return self._revision
        if revision > self._revision:
            raise FutureRevision(revision, self._revision)
        if revision < self._compacted:
            raise Compacted(revision, self._compacted)
        return revision

    def _value_at(self, key: str, revision: int) -> KV | None:
        events = self._history.get(key, [])
        i = bisect.bisect_right(events, revision, key=lambda e: e.revision)
        if i == 0 or events[i - 1].type is EventType.DELETED:
            return None
        return events[i - 1].kv

    # -- writes ------------------------------------------------------------------

    def create(self, key: str, value: bytes) -> KV:
        check_key(key)
        value = check_value(value)
        with self._lock:
            self._check_open()
            current = self._live.get(key)
            if current is not None:
                raise KeyExists(key, current)
            revision = self._revision + 1
            kv = KV(key, value, revision, revision)
            self._commit(Event(EventType.ADDED, kv, None, revision))
            return kv

    def update(self, key: str, value: bytes, expected_mod_revision: int | None) -> KV:
        check_key(key)
        value = check_value(value)
        check_revision("expected_mod_revision", expected_mod_revision, optional=True)
        with self._lock:
            self._check_open()
            current = self._expect(key, expected_mod_revision)
            revision = self._revision + 1
            kv = KV(key, value, current.create_revision, revision)
            self._commit(Event(EventType.MODIFIED, kv, current, revision))
            return kv

    def delete(self, key: str, expected_mod_revision: int | None = None) -> KV:
        check_key(key)
        check_revision("expected_mod_revision", expected_mod_revision, optional=True)
        with self._lock:
            self._check_open()
            current = self._expect(key, expected_mod_revision)
            revision = self._revision + 1
            kv = KV(key, current.value, current.create_revision, revision)
            self._commit(Event(EventType.DELETED, kv, current, revision))
            return kv

    def _expect(self, key: str, expected: int | None) -> KV:
        current = self._live.get(key)
        if current is None:
            raise NotFound(key)
        if expected is not None and current.mod_revision != expected:
            raise Conflict(key, expected, current)
        return current

    def _commit(self, event: Event) -> None:
        key = event.kv.key
        self._revision = event.revision
        if event.type is EventType.DELETED:
            del self._live[key]
            self._live_keys.pop(bisect.bisect_left(self._live_keys, key))
        else:
            if key not in self._live:
                bisect.insort(self._live_keys, key)
            self._live[key] = event.kv
        self._log.append(event)
        if key not in self._history:
            bisect.insort(self._history_keys, key)
            self._history[key] = []
        self._history[key].append(event)
        for watcher in list(self._watchers):
            watcher.offer(event)

    # -- watch and compaction -------------------------------------------------------

    def watch(self, prefix: str, from_revision: int = 0) -> Watcher:
        check_prefix(prefix)
        check_revision("from_revision", from_revision)
        with self._lock:
            self._check_open()
            if from_revision == 0:
                from_revision = self._revision
            elif from_revision < self._compacted:
                raise Compacted(from_revision, self._compacted)
            watcher = Watcher(prefix, from_revision, self._forget)
            start = bisect.bisect_right(self._log, from_revision, key=lambda e: e.revision)
            for event in self._log[start:]:
                watcher.offer(event)
            self._watchers.add(watcher)
            return watcher

    def _forget(self, watcher: Watcher) -> None:
        with self._lock:
            self._watchers.discard(watcher)

    def compact(self, revision: int) -> None:
        check_revision("revision", revision)
        with self._lock:
            self._check_open()
            if revision <= self._compacted:
                raise Compacted(revision, self._compacted)
            if revision > self._revision:
                raise FutureRevision(revision, self._revision)
            self._compacted = revision
            start = bisect.bisect_right(self._log, revision, key=lambda e: e.revision)
            self._log = self._log[start:]
            for key in list(self._history):
                kept = _compact_history(self._history[key], revision)
                if kept:
                    self._history[key] = kept
                else:
                    del self._history[key]
            self._history_keys = sorted(self._history)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            watchers, self._watchers = list(self._watchers), set()
        for watcher in watchers:
            watcher.close()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed()


def _compact_history(events: list[Event], revision: int) -> list[Event]:
    """A key's writes after ``revision``, plus its value as of ``revision`` if live."""
    split = bisect.bisect_right(events, revision, key=lambda e: e.revision)
    kept = events[split:]
    if split and events[split - 1].type is not EventType.DELETED:
        kept.insert(0, events[split - 1])
    return kept


def _collect(keys, lookup, prefix, start_after, limit) -> tuple[list[KV], bool]:
    bound, inclusive = range_start(prefix, start_after)
    index = (bisect.bisect_left if inclusive else bisect.bisect_right)(keys, bound)
    end = prefix_end(prefix)
    kvs: list[KV] = []
    for i in range(index, len(keys)):
        key = keys[i]
        if end is not None and key >= end:
            break
        kv = lookup(key)
        if kv is None:
            continue
        if limit and len(kvs) == limit:
            return kvs, True
        kvs.append(kv)
    return kvs, False

