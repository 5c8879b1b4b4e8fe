"""TLS on the API port as Go's net/http serves it: plain HTTP gets an answer, not a hang-up.

A client speaking HTTP to the HTTPS port (`curl http://127.0.0.1:6443/`) gets Go's
`400 Bad Request` "Client sent an HTTP request to an HTTPS server." and the connection closes.
Each connection starts with a small protocol that looks at the first five bytes (a TLS record
header, or the start of an HTTP request line), then either hands the connection, those bytes
included, to TLS and the real HTTP protocol, or answers as Go does.

Each TLS connection reads into a buffer of 64 KiB, not asyncio's 256 KiB (SSLProtocol.max_size):
the buffer lives as long as the connection, zero-filled, and every read of decrypted data asks for
that much before it is cut to the record (at most 16 KiB). 32 connections held 8 MiB of them, and
the heap they were carved from stayed behind the load: bench/server_load.py's RSS after its full
load went from 146-156 to ~126 MB.
"""
from __future__ import annotations

import asyncio
import asyncio.sslproto
import ssl

# net/http's tlsRecordHeaderLooksLikeHTTP: the first five bytes of the usual request lines.
_HTTP_STARTS = (b"GET /", b"HEAD ", b"POST ", b"PUT /", b"OPTIO")
_PLAIN_HTTP_ANSWER = b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
_HEADER = 5  # a TLS record header
_TLS_HANDSHAKE = 0x16


class _TLS(asyncio.sslproto.SSLProtocol):
    max_size = 64 * 1024  # four TLS records of plaintext a read; asyncio's 256 KiB per connection


def sniffing_protocol(protocol_class, context: ssl.SSLContext):
    """A protocol class (made with the arguments of `protocol_class`) serving TLS with `context`."""

    class Sniffing(asyncio.Protocol):
        def __init__(self, **kwargs):
            self._make = lambda: protocol_class(**kwargs)
            self._transport: asyncio.Transport | None = None
            self._head = b""

        def connection_made(self, transport) -> None:
            self._transport = transport

        def data_received(self, data: bytes) -> None:
            self._head += data
            if len(self._head) < _HEADER:
                return
            if self._head[0] == _TLS_HANDSHAKE:
                self._start_tls()
            elif self._head[:_HEADER] in _HTTP_STARTS:
                self._transport.write(_PLAIN_HTTP_ANSWER)
                self._transport.close()
            else:  # neither TLS nor HTTP: Go's TLS handshake fails and the connection closes
                self._transport.close()

        def eof_received(self) -> bool:
            return False

        def _start_tls(self) -> None:
            loop = asyncio.get_running_loop()
            tls = _TLS(loop, self._make(), context, None, server_side=True)
            self._transport.set_protocol(tls)
            tls.connection_made(self._transport)
            head, self._head = self._head, b""
            while head:  # the bytes read so far go to TLS first
                view = tls.get_buffer(len(head))
                size = min(len(view), len(head))
                view[:size] = head[:size]
                tls.buffer_updated(size)
                head = head[size:]

    return Sniffing
