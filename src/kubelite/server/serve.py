"""Serving the ASGI app over HTTPS with uvicorn (httptools, HTTP/1.1 keep-alive), in the foreground.

uvicorn installs the SIGINT/SIGTERM handlers; we also tell the app, so that open watch
streams end at once and the shutdown is prompt and clean.
"""
from __future__ import annotations

import contextlib
import signal
import socket
import threading
from typing import Callable


def bind(host: str, port: int) -> socket.socket:
    """Bind the listening socket ourselves so that port 0 yields a known free port before serving."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Inherited by accepted connections on Linux. uvicorn writes a response's head and body
    # separately; with Nagle's algorithm the body then waits for the client's delayed ACK of
    # the head (~40 ms per request on keep-alive connections).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(app, sock: socket.socket, certfile: str, keyfile: str,
          on_started: Callable[[], None] | None = None, client_ca: str | None = None) -> None:
    """Run until SIGINT/SIGTERM. Blocks. With `client_ca`, clients may present a certificate
    signed by it (verified in the TLS handshake; the app reads who it names)."""
    import ssl

    import uvicorn

    config = uvicorn.Config(
        app,
        http="httptools",
        loop="asyncio",
        lifespan="on",
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
        log_level="warning",
        access_log=False,
        timeout_keep_alive=75,
        timeout_graceful_shutdown=3,
        server_header=False,
        # No X-Forwarded-* rewriting of the scope's client and scheme: the app reads neither, and
        # the middleware was one more coroutine call per request.
        proxy_headers=False,
        date_header=True,
        ssl_ca_certs=client_ca,
        ssl_cert_reqs=ssl.CERT_OPTIONAL if client_ca else ssl.CERT_NONE,
        ws=_websocket_protocol(),
    )
    # uvicorn builds the TLS context; the connections then start plain, so that one speaking
    # HTTP to this HTTPS port gets Go's 400 answer (kubelite.server.tlssniff).
    # Small requests are answered without uvicorn's Task and ASGI messages (kubelite.server.http11).
    from kubelite.server.http11 import answering_protocol
    from kubelite.server.tlssniff import sniffing_protocol

    config.load()
    protocol = answering_protocol(_with_client_cert(config.http_protocol_class), app)
    config.http_protocol_class = sniffing_protocol(protocol, config.ssl)
    config.ssl = None

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self):
            # uvicorn re-raises the signal after shutting down (exit status -15); a foreground
            # server that stopped cleanly on request exits 0 instead.
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

        def handle_exit(self, sig, frame):
            app.shutdown()
            super().handle_exit(sig, frame)

        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            if on_started is not None and not self.should_exit:
                on_started()

    from kubelite.server.memtrim import Trimmer

    trimmer = Trimmer().start()
    try:
        Server(config).run(sockets=[sock])
    finally:
        trimmer.stop()


def _websocket_protocol():
    """uvicorn's WebSocket protocol (wsproto's), imported at the first upgrade request: importing
    it at start was a tenth of the time to /readyz, for requests few clients make."""
    import importlib.util

    if importlib.util.find_spec("wsproto") is None:
        return "none"

    def protocol(**kwargs):
        from uvicorn.protocols.websockets.wsproto_impl import WSProtocol

        return WSProtocol(**kwargs)

    return protocol


_HOLD = 16 * 1024  # a write this small waits for the next one (a TLS record holds 16 KiB)


class _JoinedWrites:
    """A connection's transport that writes a response's head with its body. uvicorn writes them
    one after the other, and each write was a TLS record and a send of its own: a small write
    is held until the next one joins it, or until the loop's next turn at the latest."""

    __slots__ = ("_transport", "_loop", "_held")

    def __init__(self, transport, loop):
        self._transport, self._loop, self._held = transport, loop, None

    def write(self, data) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if len(data) <= _HOLD:
                self._transport.write(held + data)
                return
            self._transport.write(held)
        if len(data) < _HOLD and data:
            self._held = bytes(data)
            self._loop.call_soon(self._flush)
            return
        self._transport.write(data)

    def write_now(self, data) -> None:
        """Writes `data` at once, after what is held (a whole response: nothing joins it)."""
        held = self._held
        if held is not None:
            self._held = None
            data = held + data
        self._transport.write(data)

    def _flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self._transport.write(held)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def __getattr__(self, name):
        return getattr(self._transport, name)


def _with_client_cert(protocol_class):
    """The HTTP protocol, passing the TLS client certificate to the app in the ASGI scope
    (the `tls` extension's place for it)."""

    class WithClientCert(protocol_class):
        _client_cert: bytes | None = None  # the connection's, read at its first request (b"": none)

        def connection_made(self, transport) -> None:
            super().connection_made(_JoinedWrites(transport, self.loop))

        def on_message_begin(self) -> None:
            super().on_message_begin()
            der = self._client_cert
            if der is None:
                ssl_object = self.transport.get_extra_info("ssl_object")
                der = (ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None) or b""
                self._client_cert = der
            if der:
                self.scope["extensions"] = {"tls": {"client_cert_der": der}}

    return WithClientCert
