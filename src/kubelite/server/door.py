"""The in-process door to the ASGI app, without any HTTP library: one request in, the status,
headers and body chunks out. A streaming request (a watch, a followed log) runs on a private
event-loop thread, so a caller can block on it chunk by chunk; any other request runs to its end
on the calling thread, sparing the hand-over between threads (which cost a test suite's short
requests more than their work did: bench/api.py). Such a request never waits on anything but
its own work, so the app's coroutine is driven straight to its end without an event loop (and
asyncio is not even imported: a tenth of a short embedded command); only one with a deadline of
its own (?timeout=), whose storage work goes to a thread the deadline can cut, gets a loop of the
calling thread.

Two clients stand on it: server.inprocess (an httpx transport, for tests and the Python API)
and the embedded CLI's client.http1.AppClient (which spares a short command httpx's import).
"""
from __future__ import annotations

import sys
import threading
from urllib.parse import parse_qsl, unquote

TYPE_CHECKING = False
if TYPE_CHECKING:
    import asyncio
    import queue

_DONE = object()


class DoorError(Exception):
    """The app failed (raised, or returned without a response)."""


class AppDoor:
    def __init__(self, app, *, owns_app: bool = True, before=None):
        self.app = app
        self._before = before  # called with each request's scope before the app sees it
        # A door that does not own the app (a Cluster's, which has several clients) leaves the
        # app's watches running when it closes; the owner shuts the app down.
        self._owns_app = owns_app
        self._loop: asyncio.AbstractEventLoop | None = None  # the streams' loop, started when first needed
        self._thread: threading.Thread | None = None
        self._here = threading.local()  # each calling thread's own loop
        self._here_loops: list[asyncio.AbstractEventLoop] = []
        self._lock = threading.Lock()
        self.closed = False

    def call(self, scope: dict, body: bytes) -> tuple[int, list[tuple[bytes, bytes]], "BodyChunks"]:
        """Run the app on one request; its status and raw headers, and the body as it comes."""
        if self.closed:
            raise DoorError("in-process transport is closed")
        if self._before is not None:
            self._before(scope)
        query = _query(scope)
        if not streams(scope, query) and not _loop_running():
            return self._call_here(scope, body, loop=_deadline(query))
        return self._call_on_loop_thread(scope, body)

    def _call_here(self, scope: dict, body: bytes, loop: bool) -> tuple[int, list[tuple[bytes, bytes]], "Complete"]:
        """The whole request on the calling thread: the body is complete on return. Driven
        without an event loop unless `loop` (a request with a deadline: see the module's text)."""
        sent: list[dict] = []

        async def send(message):
            sent.append(message)

        # The request is this call's alone: the app may do its storage work right here rather
        # than hand it to another thread (two thread switches per request, a quarter of a small
        # test's CPU: bench/api.py).
        from kubelite.server.handlers.http import INLINE

        scope = {**scope, "extensions": {**(scope.get("extensions") or {}), INLINE: {}}}
        try:
            if loop:
                self._here_loop().run_until_complete(self.app(scope, _receiver(body, None), send))
            else:
                _drive(self.app(scope, _receiver(body, None), send))
        except Exception as exc:
            raise DoorError(f"in-process request failed: {exc}") from exc
        if not sent:
            raise DoorError("in-process app returned no response")
        start, body_messages = sent[0], sent[1:]
        complete = Complete(b"".join(m.get("body", b"") for m in body_messages))
        return start["status"], list(start.get("headers", [])), complete

    def _here_loop(self) -> asyncio.AbstractEventLoop:
        loop = getattr(self._here, "loop", None)
        if loop is None:
            import asyncio

            loop = self._here.loop = asyncio.new_event_loop()
            with self._lock:
                self._here_loops.append(loop)
        return loop

    def _streams_loop(self) -> asyncio.AbstractEventLoop:
        import asyncio

        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, name="kubelite-inprocess",
                                                daemon=True)
                self._thread.start()
            return self._loop

    def _call_on_loop_thread(self, scope: dict, body: bytes) -> tuple[int, list[tuple[bytes, bytes]], "BodyChunks"]:
        import asyncio
        import queue

        loop = self._streams_loop()
        messages: queue.Queue = queue.Queue()
        disconnected = asyncio.Event()
        app = self.app
        receive = _receiver(body, disconnected)

        async def send(message):
            messages.put(message)

        async def run():
            try:
                await app(scope, receive, send)
            except BaseException as exc:  # surfaces in the calling thread
                messages.put(exc)
            finally:
                messages.put(_DONE)

        asyncio.run_coroutine_threadsafe(run(), loop)
        start = messages.get()
        if isinstance(start, BaseException):
            raise DoorError(f"in-process request failed: {start}") from start
        if start is _DONE:
            raise DoorError("in-process app returned no response")
        chunks = BodyChunks(messages, lambda: loop.call_soon_threadsafe(disconnected.set))
        return start["status"], list(start.get("headers", [])), chunks

    def close(self, shutdown_app: bool | None = None) -> None:
        """Stop the loop; also end the app's open streams if this door owns the app (or
        `shutdown_app` says so: the owner closing its last clients)."""
        if self.closed:
            return
        self.closed = True
        if shutdown_app is None:
            shutdown_app = self._owns_app
        shutdown = getattr(self.app, "shutdown", None) if shutdown_app else None
        with self._lock:
            loop, thread, here = self._loop, self._thread, list(self._here_loops)
        if loop is not None:
            import asyncio

            ended = asyncio.run_coroutine_threadsafe(_wind_down(shutdown), loop)
            try:
                ended.result(timeout=WIND_DOWN)
            except Exception:  # noqa: BLE001 - a task that would not end in time: the loop stops anyway
                pass
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=5)
            if not thread.is_alive():
                loop.close()
        elif shutdown is not None:
            shutdown()  # no stream was ever opened: nothing waits on the app's loop
        for each in here:
            if not each.is_running():  # a loop still answering a request is left to its thread
                each.close()


class BodyChunks:
    """The response body's chunks; `close()` tells a streaming handler (watch) that its reader
    is gone, as a closed socket would. A failure of the app mid-body raises DoorError."""

    def __init__(self, messages: queue.Queue, on_close):
        self._messages = messages
        self._on_close = on_close
        self._finished = False

    def __iter__(self):
        while not self._finished:
            message = self._messages.get()
            if message is _DONE:
                self._finished = True
                return
            if isinstance(message, BaseException):
                self._finished = True
                raise DoorError(f"in-process response failed: {message}") from message
            chunk = message.get("body", b"")
            if chunk:
                yield chunk
            if not message.get("more_body", False):
                self._finished = True

    def close(self) -> None:
        self._on_close()


WIND_DOWN = 2.0  # seconds the tasks on a closing door's loop get to end


async def _wind_down(shutdown) -> None:
    """End what still runs on a closing door's loop before it stops: the app's streams (its
    shutdown, when the door owns it), then every other task, cancelled as a closed socket would
    end it. Stopped at once, a task made in the loop's last turn was never run: destroyed
    pending, its coroutine never awaited."""
    import asyncio

    if shutdown is not None:
        shutdown()
    current = asyncio.current_task()
    others = [task for task in asyncio.all_tasks() if task is not current]
    for task in others:
        task.cancel()
    if others:
        await asyncio.wait(others, timeout=WIND_DOWN)


def _receiver(body: bytes, disconnected: asyncio.Event | None):
    """The app's `receive`: the whole body at once, then the disconnect: at once for a request
    that does not stream, for a stream when its reader closes it (`disconnected`)."""
    pending = [body]

    async def receive():
        if pending:
            return {"type": "http.request", "body": pending.pop(), "more_body": False}
        if disconnected is not None:
            await disconnected.wait()
        return {"type": "http.disconnect"}

    return receive


class Complete:
    """A body answered in full (a request that does not stream): the same use as BodyChunks."""

    def __init__(self, body: bytes):
        self._body = body

    def __iter__(self):
        if self._body:
            yield self._body

    def close(self) -> None:
        pass


def _drive(coroutine) -> None:
    """Run a coroutine that never suspends to its end, without an event loop."""
    try:
        coroutine.send(None)
    except StopIteration:
        return
    coroutine.close()
    raise RuntimeError("the app waited on something outside the request (no event loop here)")


def _loop_running() -> bool:
    """Whether this thread runs an event loop (none can, while asyncio is not imported)."""
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and asyncio._get_running_loop() is not None


def _query(scope: dict) -> list[tuple[str, str]]:
    raw = scope.get("query_string", b"")
    return parse_qsl(raw.decode("latin-1")) if raw else []


def _deadline(query: list[tuple[str, str]]) -> bool:
    """A request with a deadline of its own (?timeout=)."""
    return any(key == "timeout" and value for key, value in query)


def streams(scope: dict, query: list[tuple[str, str]] | None = None) -> bool:
    """A watch or a followed log: its response goes on while the caller reads it."""
    if "/watch/" in scope.get("path", ""):
        return True
    return any(key in ("watch", "follow") and value.lower() in ("1", "t", "true", "y", "yes")
               for key, value in (_query(scope) if query is None else query))


def http_scope(method: str, scheme: str, host: str, port: int, raw_path: bytes, query: bytes,
               headers: list[tuple[bytes, bytes]]) -> dict:
    """The ASGI scope of one HTTP/1.1 request from the loopback."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": scheme or "http",
        "path": unquote(raw_path.decode("ascii")),
        "raw_path": raw_path,
        "query_string": query,
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 0),
        "server": (host, port),
    }
