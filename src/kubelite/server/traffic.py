"""Requests in flight, so that background work can give way to them.

A served cluster runs its API server and its controllers in one process, and Python runs one
thread at a time: a controller reconciling while a request is being answered holds the request
up (the interpreter hands over between threads every few milliseconds, and a request changes
threads several times). kube-apiserver and kube-controller-manager run side by side on cores of
their own; here the controllers wait, between two reconciliations, while a request is in flight,
for at most a bound, so that they still progress under a load that never stops.

Quiet means no request in flight for a little while (GRACE), not the moment the last one ends: a
client that keeps a few requests in flight (apply -f) has none in flight for a moment between two
of its answers and its next requests, and a reconciliation that starts then holds those up.

Streams (watches, logs that follow) count only until their answer starts: a client watching must
not hold the controllers back.

A busy spell's first second (BURST) is the API's alone: a controller waits through it, not just
COURTESY, and goes on once the API is quiet or the second is over; after it, the controllers
progress as before, COURTESY at a time. `apply -f` of 500 objects is such a spell (about 0.6 s
here), and the controllers reconciling its Deployments in the middle of it cost its answers a
fifth more time (0.84 s against 0.66 s, median of three), where giving way 50 ms rather than 20
had changed nothing: each wait ended in the middle of the spell anyway. A client that never lets
the API rest delays the controllers by that second once, not at every step.
"""
from __future__ import annotations

import threading
import time

COURTESY = 0.02  # the longest a controller waits for the requests in flight to finish
GRACE = 0.003  # how long no request must have been in flight for the API to be quiet
BURST = 1.0  # how long from its start a busy spell is the API's alone


class Traffic:
    def __init__(self):
        self._in_flight = 0
        self._ended = float("-inf")  # when the last request in flight ended (time.monotonic)
        self._busy_since = float("-inf")  # when the present busy spell began
        self._quiet = threading.Condition(threading.Lock())

    def enter(self) -> None:
        with self._quiet:
            if self._in_flight == 0:
                now = time.monotonic()
                if now - self._ended >= GRACE:
                    self._busy_since = now
            self._in_flight += 1

    def leave(self) -> None:
        with self._quiet:
            self._in_flight -= 1
            if self._in_flight <= 0:
                self._in_flight = 0
                self._ended = time.monotonic()
                self._quiet.notify_all()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def wait_quiet(self, timeout: float = COURTESY) -> bool:
        """Block until no request has been in flight for GRACE, at most `timeout` or until the
        busy spell is BURST old, whichever is later; True if quiet."""
        now = time.monotonic()
        if self._in_flight == 0 and now - self._ended >= GRACE:  # the usual case, without the lock
            return True
        deadline = max(now + timeout, self._busy_since + BURST)
        with self._quiet:
            while True:
                now = time.monotonic()
                if self._in_flight == 0 and now - self._ended >= GRACE:
                    return True
                if now >= deadline:
                    return False
                wait = deadline - now
                if self._in_flight == 0:
                    wait = min(wait, self._ended + GRACE - now)
                self._quiet.wait(wait)
