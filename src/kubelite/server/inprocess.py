"""The in-process door: an httpx transport that calls the ASGI app directly, without sockets.

httpx's own ASGITransport is async-only; this one is synchronous (httpx.Client) and runs the
app on a private event-loop thread, so that watch streams can be consumed chunk by chunk
while the caller blocks on them.
"""
from __future__ import annotations

import asyncio
import queue
import threading
from urllib.parse import unquote

import httpx

_DONE = object()


class InProcessTransport(httpx.BaseTransport):
    def __init__(self, app, *, owns_app: bool = True):
        self.app = app
        # A transport that does not own the app (a Cluster's, which has several clients) leaves
        # the app's watches running when it closes; the owner shuts the app down.
        self._owns_app = owns_app
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="kubelite-inprocess",
                                        daemon=True)
        self._thread.start()
        self._closed = False

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self._closed:
            raise httpx.TransportError("in-process transport is closed")
        body = request.read()
        messages: queue.Queue = queue.Queue()
        disconnected = asyncio.Event()
        scope = _scope(request)
        app = self.app

        async def receive():
            nonlocal body
            if body is not None:
                chunk, body = body, None
                return {"type": "http.request", "body": chunk, "more_body": False}
            await disconnected.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            messages.put(message)

        async def run():
            try:
                await app(scope, receive, send)
            except BaseException as exc:  # surfaces in the calling thread
                messages.put(exc)
            finally:
                messages.put(_DONE)

        asyncio.run_coroutine_threadsafe(run(), self._loop)
        start = messages.get()
        if isinstance(start, BaseException):
            raise httpx.TransportError(f"in-process request failed: {start}") from start
        if start is _DONE:
            raise httpx.TransportError("in-process app returned no response")
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in start.get("headers", [])]
        stream = _BodyStream(messages, lambda: self._loop.call_soon_threadsafe(disconnected.set))
        return httpx.Response(start["status"], headers=headers, stream=stream,
                              extensions={"http_version": b"HTTP/1.1"})

    def close(self, shutdown_app: bool | None = None) -> None:
        """Stop the loop; also end the app's open streams if this transport owns the app (or
        `shutdown_app` says so: the owner closing its last clients)."""
        if self._closed:
            return
        self._closed = True
        if shutdown_app is None:
            shutdown_app = self._owns_app
        shutdown = getattr(self.app, "shutdown", None) if shutdown_app else None
        if shutdown is not None:
            self._loop.call_soon_threadsafe(shutdown)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


class _BodyStream(httpx.SyncByteStream):
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
                raise httpx.ReadError(f"in-process response failed: {message}") from message
            chunk = message.get("body", b"")
            if chunk:
                yield chunk
            if not message.get("more_body", False):
                self._finished = True

    def close(self) -> None:
        # Tells a streaming handler (watch) that its reader is gone, as a closed socket would.
        self._on_close()


def _scope(request: httpx.Request) -> dict:
    url = request.url
    raw_path = url.raw_path.split(b"?", 1)[0]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": url.scheme or "http",
        "path": unquote(raw_path.decode("ascii")),
        "raw_path": raw_path,
        "query_string": url.query,
        "root_path": "",
        "headers": [(k.lower(), v) for k, v in request.headers.raw],
        "client": ("127.0.0.1", 0),
        "server": (url.host or "kubelite", url.port or 80),
    }
