"""Watcher: the consumer side of a watch, usable from threads and from asyncio.

A backend feeds a watcher with ``offer(event)`` in revision order (and ends it with
``fail(error)``); the watcher
keeps only events under its prefix and after its starting revision, and queues
them until the consumer takes them. Asyncio consumers are woken through
``loop.call_soon_threadsafe`` so no thread is parked per watch.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from .errors import StorageError

TYPE_CHECKING = False  # asyncio and typing for annotations only: a short command imports neither
if TYPE_CHECKING:
    import asyncio
    from typing import Callable, Iterator

    from .base import Event


class Watcher:
    def __init__(
        self,
        prefix: str,
        from_revision: int,
        on_close: Callable[["Watcher"], None] | None = None,
    ):
        self.prefix = prefix
        self.from_revision = from_revision
        self._on_close = on_close
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._events: deque[Event] = deque()
        self._error: StorageError | None = None
        self._closed = False
        self._async_waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = []

    # -- producer side (the backend) ---------------------------------------

    def offer(self, event: Event) -> None:
        """Queue ``event`` if it is under the prefix and after the starting revision."""
        if event.revision <= self.from_revision:
            return
        if not event.kv.key.startswith(self.prefix):
            return
        with self._lock:
            if self._closed or self._error is not None:
                return
            self._events.append(event)
            self._wake()

    def fail(self, error: StorageError) -> None:
        """End the stream with ``error``, after the events already queued."""
        with self._lock:
            if not self._closed and self._error is None:
                self._error = error
                self._wake()
        self._detach()

    def _wake(self) -> None:
        self._ready.notify_all()
        waiters, self._async_waiters = self._async_waiters, []
        for loop, future in waiters:
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # that loop is closed; nobody is waiting any more
                pass

    # -- consumer side --------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def _take(self) -> tuple[bool, Event | None]:
        """(done, event) under the lock: done means "stop waiting"."""
        if self._events:
            return True, self._events.popleft()
        if self._error is not None:
            error, self._error = self._error, None
            self._closed = True
            raise error
        if self._closed:
            return True, None
        return False, None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until an event (or the end) is waiting, without taking it; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while not (self._events or self._error is not None or self._closed):
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._ready.wait(remaining)
            return True

    def next(self, timeout: float | None = None) -> Event | None:
        """The next event; None on timeout or once the watcher is closed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                done, event = self._take()
                if done:
                    return event
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._ready.wait(remaining)

    async def anext(self, timeout: float | None = None) -> Event | None:
        """Like next(), without blocking the event loop."""
        import asyncio

        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            with self._lock:
                done, event = self._take()
                if done:
                    return event
                future = loop.create_future()
                self._async_waiters.append((loop, future))
            remaining = None if deadline is None else deadline - loop.time()
            try:
                if remaining is not None and remaining <= 0:
                    raise asyncio.TimeoutError
                await asyncio.wait_for(future, remaining)
            except asyncio.TimeoutError:
                self._forget_waiter(future)
                with self._lock:
                    done, event = self._take()
                return event
            except BaseException:
                self._forget_waiter(future)
                raise

    def _forget_waiter(self, future: asyncio.Future) -> None:
        with self._lock:
            self._async_waiters = [w for w in self._async_waiters if w[1] is not future]

    def __iter__(self) -> Iterator[Event]:
        while True:
            event = self.next()
            if event is None:
                return
            yield event

    def __aiter__(self) -> "Watcher":
        return self

    async def __anext__(self) -> Event:
        event = await self.anext()
        if event is None:
            raise StopAsyncIteration
        return event

    def close(self) -> None:
        """Stop the stream: pending events are dropped, waiting consumers get None."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._events.clear()
            self._error = None
            self._wake()
        self._detach()

    def _detach(self) -> None:
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close(self)

    def __enter__(self) -> "Watcher":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)
