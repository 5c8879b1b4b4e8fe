"""Requests in flight, so that background work can give way to them.

A served cluster runs its API server and its controllers in one process, and Python runs one
thread at a time: a controller reconciling while a request is being answered holds the request
up (the interpreter hands over between threads every few milliseconds, and a request changes
threads several times). kube-apiserver and kube-controller-manager run side by side on cores of
their own; here the controllers wait, between two reconciliations, while a request is in flight,
for at most a bound, so that they still progress under a load that never stops.

Streams (watches, logs that follow) count only until their answer starts: a client watching must
not hold the controllers back.
"""
from __future__ import annotations

import threading

COURTESY = 0.02  # the longest a controller waits for the requests in flight to finish


class Traffic:
    def __init__(self):
        self._in_flight = 0
        self._quiet = threading.Condition(threading.Lock())

    def enter(self) -> None:
        with self._quiet:
            self._in_flight += 1

    def leave(self) -> None:
        with self._quiet:
            self._in_flight -= 1
            if self._in_flight <= 0:
                self._in_flight = 0
                self._quiet.notify_all()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def wait_quiet(self, timeout: float = COURTESY) -> bool:
        """Block while requests are in flight, at most `timeout`; True if none is."""
        if self._in_flight == 0:  # the usual case, without the lock
            return True
        with self._quiet:
            return self._quiet.wait_for(lambda: self._in_flight == 0, timeout)
