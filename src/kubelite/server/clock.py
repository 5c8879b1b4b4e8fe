"""The cluster's clock: every time-dependent behaviour of a controller reads it.

A real cluster follows wall time. A Clock follows it too, plus however far `advance` has moved
it: a test (or the Python API's `Cluster.advance`) can skip ten minutes and see what a real
cluster shows ten minutes later. A FakeClock moves only when told, so that deadlines, delays and
schedules happen exactly when the test says, however loaded the machine.
"""
from __future__ import annotations

import datetime
import math
import threading
import time

UTC = datetime.timezone.utc


# Below this much of a second, fromtimestamp's rounding to microseconds stays in the second.
_LAST_WHOLE_MICROSECOND = 0.999999


class Clock:
    """Wall time, moved forward by every `advance` (never back)."""

    def __init__(self) -> None:
        self._offset = 0.0
        self._offset_lock = threading.Lock()

    def time(self) -> float:
        """Seconds since the epoch."""
        return time.time() + self._offset

    def advance(self, seconds: float) -> None:
        """From now on, read `seconds` later than wall time says (on top of earlier advances)."""
        if seconds < 0:
            raise ValueError(f"a clock cannot go back ({seconds} s)")
        with self._offset_lock:
            self._offset += seconds

    def now(self) -> datetime.datetime:
        return datetime.datetime.fromtimestamp(self.time(), UTC)

    # The second last formatted and its text: every write stamps a time or two (its creation,
    # its managedFields entry, conditions), mostly within the second before. (The seconds one
    # formatted: a time that rounds up to the next microsecond's second is formatted each time.)
    _formatted: tuple[float, str] = (math.inf, "")

    def rfc3339(self) -> str:
        """Now, at second precision, as the API writes timestamps."""
        now = self.time()
        second, text = self._formatted
        if not second <= now < second + _LAST_WHOLE_MICROSECOND:
            text = format_time(datetime.datetime.fromtimestamp(now, UTC))
            second = math.floor(now)
            if now - second < _LAST_WHOLE_MICROSECOND:
                self._formatted = (second, text)
        return text

    def rfc3339_micro(self) -> str:
        """Now, at microsecond precision (MicroTime fields: leases, events.k8s.io eventTime)."""
        return self.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class FakeClock(Clock):
    """A clock that moves only when told; starts at wall time unless given a start.

    The wall-time start is rounded to half past its second: objects keep whole seconds, so a
    deadline counted from a stored time falls up to a second before the clock's; at a fixed half
    second, steps of a tenth never land on that boundary, and runs repeat exactly."""

    def __init__(self, start: float | None = None):
        self._now = math.floor(time.time()) + 0.5 if start is None else float(start)
        self._lock = threading.Lock()

    def time(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock cannot go back ({seconds} s)")
        with self._lock:
            self._now += seconds

    def set(self, epoch_seconds: float) -> None:
        with self._lock:
            self._now = float(epoch_seconds)


def format_time(moment: datetime.datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str | None) -> float | None:
    """Seconds since the epoch of an RFC 3339 timestamp (Time or MicroTime); None if absent or bad."""
    if not text or not isinstance(text, str):
        return None
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
