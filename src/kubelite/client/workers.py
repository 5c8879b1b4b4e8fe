"""A few worker threads and the futures of what they run, for a command's requests side by side.

concurrent.futures' ThreadPoolExecutor does this, and importing it imports logging (~3-4 ms of an
`apply -f`'s start, for a logger it never writes to). What the command uses of it is small:
submit work, wait for each result in turn, map a function over a few items, and join the
threads at the end.
"""
from __future__ import annotations

import _thread
import threading
from _queue import SimpleQueue

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable


class Future:
    """The outcome of one submitted work: its value, or the exception it raised."""

    __slots__ = ("_finished", "_lock", "_value", "_error")

    def __init__(self):
        self._finished = False
        self._lock = _thread.allocate_lock()
        self._lock.acquire()  # released when the work is done
        self._value: Any = None
        self._error: BaseException | None = None

    def _set(self, value: Any, error: BaseException | None) -> None:
        self._value, self._error = value, error
        self._finished = True
        self._lock.release()

    def done(self) -> bool:
        return self._finished

    def exception(self) -> BaseException | None:
        """The work's exception (None if it returned), once it is done."""
        if not self._finished:
            with self._lock:
                pass
        return self._error

    def result(self) -> Any:
        error = self.exception()
        if error is not None:
            raise error
        return self._value


class Pool:
    """Up to `workers` threads, started as work comes; leaving the `with` block waits for them."""

    def __init__(self, workers: int):
        self._workers = workers
        self._queue: SimpleQueue = SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._idle_lock = _thread.allocate_lock()

    def submit(self, work: Callable, *args: Any) -> Future:
        future = Future()
        self._queue.put((future, work, args))
        with self._idle_lock:
            if self._idle:
                self._idle -= 1  # an idle thread takes it
                start = False
            else:  # (at the most threads, the first to finish takes it)
                start = len(self._threads) < self._workers
        if start:
            thread = threading.Thread(target=self._run, name=f"kubelite-worker-{len(self._threads)}", daemon=True)
            self._threads.append(thread)
            thread.start()
        return future

    def map(self, work: Callable, items: Iterable) -> list:
        """work(item) for each item side by side; the results in order (the first error raised)."""
        return [future.result() for future in [self.submit(work, item) for item in items]]

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            future, work, args = task
            try:
                future._set(work(*args), None)
            except BaseException as err:  # noqa: BLE001 - handed to whoever waits for it
                future._set(None, err)
            with self._idle_lock:
                self._idle += 1

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc_info) -> None:
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join()
