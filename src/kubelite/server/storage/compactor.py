"""Periodic compaction, the way kube-apiserver drives etcd.

Every ``interval`` the compactor compacts at the revision it saw one interval
earlier, so clients always have at least one interval of history to resume a
watch or a paged list from. Run it in the long-lived server only; when several
processes share a store, a compaction that lost the race is simply skipped.
"""

from __future__ import annotations

import json
import os
import pathlib
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


def compact_if_due(store: Store, mark: pathlib.Path, now: float, interval: float = DEFAULT_INTERVAL) -> int | None:
    """The Compactor's round for processes too short-lived to run one (the embedded CLI): `mark`
    holds the revision seen when it was written; once `interval` has passed, compact at that
    revision and mark again. Returns the revision compacted at, if any."""
    try:
        seen = json.loads(mark.read_text())
        marked_at, revision = float(seen["time"]), int(seen["revision"])
    except (OSError, ValueError, KeyError, TypeError):  # none yet, or unreadable: start one
        _write_mark(mark, now, store.current_revision())
        return None
    if 0 <= now - marked_at < interval:
        return None
    compacted = None
    if revision > store.compact_revision():
        try:
            store.compact(revision)
            compacted = revision
        except Compacted:  # another process compacted further meanwhile
            pass
    _write_mark(mark, now, store.current_revision())
    return compacted


def _write_mark(mark: pathlib.Path, now: float, revision: int) -> None:
    # private (0600, as everything beside the store) and replaced whole
    temporary = mark.with_name(f".{mark.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"time": now, "revision": revision}, f)
    os.replace(temporary, mark)
