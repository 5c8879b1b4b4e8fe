"""A TLS client connection on the interpreter's own `_ssl` and `_socket` modules.

Every command against a server opens one TLS connection. The `ssl` module's import (with
`socket`, `selectors`, `base64` and the enum conversions both run at import) is ~5 ms of a
~50 ms `get`; what a client connection uses of it is a context with the kubeconfig's CA and key
pair, a handshake, reads and writes, all of which `_ssl` provides. The exceptions are the ones
`ssl` and `socket` raise (they re-export `_ssl`'s and `_socket`'s), so callers and their error
messages are unchanged. What it does not cover (the system's CA bundle) is left to `ssl`.
"""
from __future__ import annotations

import _socket
import _ssl


class Context:
    """The subset of ssl.SSLContext that transport and http1 use."""

    def __init__(self, verify: bool = True):
        self.raw = _ssl._SSLContext(_ssl.PROTOCOL_TLS_CLIENT)  # verifies the chain and the host name
        if not verify:
            self.raw.check_hostname = False
            self.raw.verify_mode = _ssl.CERT_NONE

    def load_verify_locations(self, cadata: str) -> None:
        self.raw.load_verify_locations(cadata=cadata)

    def load_cert_chain(self, certfile: str, keyfile: str) -> None:
        self.raw.load_cert_chain(certfile, keyfile)

    def wrap_socket(self, sock, server_hostname):
        """The handshake over a connected socket, in the socket's timeout; `sock` is closed by the
        caller when it fails, as with ssl."""
        if isinstance(server_hostname, bytes):
            server_hostname = server_hostname.decode("ascii")
        tls = self.raw._wrap_socket(sock, False, server_hostname)
        tls.do_handshake()
        return Socket(sock, tls)


class Socket:
    """A TLS connection: the socket (kept here, _ssl holds it only weakly) and its TLS state."""

    def __init__(self, sock, tls):
        self.sock = sock
        self.tls = tls

    def settimeout(self, timeout: float | None) -> None:
        self.sock.settimeout(timeout)

    def fileno(self) -> int:
        return self.sock.fileno()

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[self.tls.write(view):]

    def recv(self, size: int) -> bytes:
        try:
            return self.tls.read(size)
        except _ssl.SSLEOFError:  # a close without TLS's goodbye reads as the end, as in ssl's default
            return b""

    def close(self) -> None:
        self.tls = None
        self.sock.close()


class _TCPSocket(_socket.socket):
    """_socket's socket with what _ssl needs of a Python one: a weak reference to it."""

    __slots__ = ("__weakref__",)


def connect(host, port: int, timeout: float | None):
    """A TCP connection to the first of the host's addresses that answers (socket.create_connection),
    with Nagle's delay off: requests are written whole."""
    error = None
    for family, kind, proto, _, address in _socket.getaddrinfo(host, port, 0, _socket.SOCK_STREAM):
        sock = _TCPSocket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(address)
        except OSError as err:
            sock.close()
            error = err
            continue
        sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        return sock
    raise error if error is not None else OSError("getaddrinfo returns an empty list")
