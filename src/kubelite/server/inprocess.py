"""The in-process door as an httpx transport: calls the ASGI app directly, without sockets.

httpx's own ASGITransport is async-only; this one is synchronous (httpx.Client) and runs the
app on a private event-loop thread (server.door), so that watch streams can be consumed chunk
by chunk while the caller blocks on them.
"""
from __future__ import annotations

import httpx

from kubelite.server.door import AppDoor, DoorError, http_scope


class InProcessTransport(httpx.BaseTransport):
    def __init__(self, app, *, owns_app: bool = True):
        self.app = app
        self._door = AppDoor(app, owns_app=owns_app)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        url = request.url
        scope = http_scope(request.method, url.scheme, url.host or "kubelite", url.port or 80,
                           url.raw_path.split(b"?", 1)[0], url.query,
                           [(k.lower(), v) for k, v in request.headers.raw])
        try:
            status, raw_headers, chunks = self._door.call(scope, body)
        except DoorError as err:
            raise httpx.TransportError(str(err)) from err.__cause__
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw_headers]
        return httpx.Response(status, headers=headers, stream=_BodyStream(chunks),
                              extensions={"http_version": b"HTTP/1.1"})

    def close(self, shutdown_app: bool | None = None) -> None:
        """Stop the loop; also end the app's open streams if this transport owns the app (or
        `shutdown_app` says so: the owner closing its last clients)."""
        self._door.close(shutdown_app)


class _BodyStream(httpx.SyncByteStream):
    def __init__(self, chunks):
        self._chunks = chunks

    def __iter__(self):
        try:
            yield from self._chunks
        except DoorError as err:
            raise httpx.ReadError(str(err)) from err.__cause__

    def close(self) -> None:
        # Tells a streaming handler (watch) that its reader is gone, as a closed socket would.
        self._chunks.close()
