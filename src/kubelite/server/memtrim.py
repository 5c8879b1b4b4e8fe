"""Giving the C heap's free memory back to the system after a burst of large responses.

A LIST of 1,000 objects builds a body of about a megabyte, and the TLS layer a second one; at 32
connections those are freed by the hundred each second. glibc keeps freed heap pages (its mmap
threshold grows past such sizes after the first ones are freed) and the process stayed ~50 MB
above what it uses once the load was over: `malloc_trim(0)` in a served process, after a LIST
load at 32 connections, took its RSS from 117 MB to 83 MB.

The trimmer looks at the process's resident size once a second. It trims while a load goes on
when the size grew by `growth` since the last trim, and once more when the size stopped growing
while still `settled` above it (the load is over: what it freed can go). After a trim the size it
left is the new mark, so memory in use is never trimmed in a loop, and an idle or steady server
pays nothing but the look (one read of /proc/self/statm).

The serving process also keeps to ARENAS malloc arenas (glibc's M_ARENA_MAX; its default is 8 per
core): each thread that reads or writes for a request (the reads' executor, the writer threads)
otherwise got an arena of its own, and the heap each kept after a load was more than the trim gave
back (bench/server_load.py's RSS after its full load, the same tree: 123-125 MB with the default,
113-114 with 2). Arenas already made stay; threads started later share those.
"""
from __future__ import annotations

import os
import threading

GROWTH = 16 * 1024 * 1024
ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter (malloc.h)
SETTLED = 4 * 1024 * 1024
INTERVAL = 1.0


def _malloc_trim():
    """glibc's malloc_trim, or None where there is none (musl, macOS)."""
    import ctypes

    try:  # the symbols the process already has: no library search (find_library runs ldconfig)
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def _limit_arenas(arenas: int) -> None:
    """glibc's mallopt(M_ARENA_MAX, arenas); nothing where there is none (musl, macOS)."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    mallopt(_M_ARENA_MAX, arenas)


def resident_bytes() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class Trimmer:
    def __init__(self, growth: int = GROWTH, settled: int = SETTLED, interval: float = INTERVAL, trim=None,
                 resident=resident_bytes):
        self.growth = growth
        self.settled = settled
        self.interval = interval
        self._trim = trim
        self._resident = resident
        self._mark: int | None = None  # the size after the last trim (or the least seen since)
        self._base: int | None = None  # the size after the last trim once a load was over
        self._previous: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> bool:
        """One look: trim if the resident size grew by `growth` since the last trim, or stopped
        growing `settled` above where the last load left it; True if trimmed."""
        size = self._resident()
        if size is None:
            return False
        previous, self._previous = self._previous, size
        if self._mark is None:
            self._mark = self._base = size
            return False
        self._mark, self._base = min(self._mark, size), min(self._base, size)
        if size - self._mark >= self.growth:
            self._mark = self._trimmed(size)
            return True
        if previous is not None and size <= previous and size - self._base >= self.settled:
            self._mark = self._base = self._trimmed(size)
            return True
        return False

    def _trimmed(self, size: int) -> int:
        self._trim(0)
        after = self._resident()
        self._previous = after if after is not None else size
        return self._previous

    def start(self) -> "Trimmer":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="kubelite-memtrim", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        # ctypes is imported here, off the path to the server's first answer
        if self._trim is None:
            self._trim = _malloc_trim()
            if self._trim is not None:  # glibc's
                _limit_arenas(ARENAS)
        if self._trim is None or self._resident() is None:
            return
        while not self._stop.wait(self.interval):
            self.tick()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
