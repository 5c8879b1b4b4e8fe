"""Periodic compaction, the way kube-apiserver drives etcd.

Every ``interval`` the compactor compacts at the revision it saw one interval
earlier, so clients always have at least one interval of history to resume a
watch or a paged list from. Run it in the long-lived server only; when several
processes share a store, a compaction that lost the race is simply skipped.
"""

from __future__ import annotations

import threading

from .base import Store
from .errors import Compacted, StorageError, StoreClosed

DEFAULT_INTERVAL = 300.0  # kube-apiserver's --etcd-compaction-interval default (5m)


class Compactor:
    def __init__(self, store: Store, interval: float = DEFAULT_INTERVAL):
        if interval <= 0:
            raise StorageError(f"compaction interval must be positive, got {interval!r}")
        self.store = store
        self.interval = interval
        self._previous: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> int | None:
        """One round: compact at the revision seen last round; returns it if compacted."""
        target, self._previous = self._previous, self.store.current_revision()
        if target is None or target <= self.store.compact_revision():
            return None
        try:
            self.store.compact(target)
        except Compacted:  # another process compacted further meanwhile
            return None
        return target

    def start(self) -> "Compactor":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="kubelite-compactor", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
            except StoreClosed:
                return
            except StorageError:  # a closed or unreachable store: try again next round
                continue

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
