"""A controller's work queue: keys to reconcile, each at most once in the queue, some after a delay.

As client-go's workqueue: adding a key already waiting does nothing; a key due later is held
until the cluster's clock reaches it; failed keys come back after a growing backoff.
"""
from __future__ import annotations

import heapq
import itertools
from collections import OrderedDict

# Backoff of a key whose sync failed: first retry at once (a lost race usually succeeds on a
# fresh read), then doubling from 50 ms up to 30 s.
_BACKOFF_START = 0.05
_BACKOFF_MAX = 30.0


class WorkQueue:
    def __init__(self, clock):
        self._clock = clock
        self._ready: OrderedDict[str, None] = OrderedDict()
        self._delayed: list[tuple[float, int, str]] = []
        self._due: dict[str, float] = {}
        self._failures: dict[str, int] = {}
        self._seq = itertools.count()

    def add(self, key: str) -> None:
        self._ready[key] = None
        self._due.pop(key, None)

    def add_after(self, key: str, seconds: float) -> None:
        """Reconcile `key` once `seconds` have passed on the cluster's clock (at once if <= 0)."""
        if seconds <= 0:
            self.add(key)
            return
        due = self._clock.time() + seconds
        if key in self._ready:
            return
        current = self._due.get(key)
        if current is not None and current <= due:
            return
        self._due[key] = due
        heapq.heappush(self._delayed, (due, next(self._seq), key))

    def retry(self, key: str) -> None:
        """`key` failed: back off before the next try."""
        n = self._failures.get(key, 0)
        self._failures[key] = n + 1
        if n == 0:
            self.add(key)
        else:
            # the exponent capped: after 1,024 failures 2 ** n would be no float
            self.add_after(key, min(_BACKOFF_START * 2 ** min(n - 1, 64), _BACKOFF_MAX))

    def forget(self, key: str) -> None:
        """`key` succeeded: its backoff starts over."""
        self._failures.pop(key, None)

    def pop(self) -> str | None:
        """The next key due now, or None."""
        self._promote()
        if not self._ready:
            return None
        key, _ = self._ready.popitem(last=False)
        return key

    def ready(self) -> int:
        """How many keys are due now."""
        self._promote()
        return len(self._ready)

    def next_due(self) -> float | None:
        """Clock time of the earliest delayed key (None if none is waiting)."""
        self._promote()
        if self._ready:
            return self._clock.time()
        while self._delayed:
            due, _, key = self._delayed[0]
            if self._due.get(key) == due:
                return due
            heapq.heappop(self._delayed)
        return None

    def __len__(self) -> int:
        return len(self._ready)

    def _promote(self) -> None:
        now = self._clock.time()
        while self._delayed and self._delayed[0][0] <= now:
            due, _, key = heapq.heappop(self._delayed)
            if self._due.get(key) == due:
                del self._due[key]
                self._ready[key] = None
