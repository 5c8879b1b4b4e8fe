"""A small HTTP/1.1 client on sockets and TLS (kubelite.client.tls, or an ssl.SSLContext): what a
short command needs to talk to an API server, without httpx's import (about half of a `get ns`
started from scratch).

It speaks the subset of httpx.Client that `Transport` uses: `request()` and `stream()` with
params, headers, a body and a timeout, keep-alive connections (several idle ones, so that
discovery's concurrent GETs each get their own), chunked and sized bodies, TLS with the
kubeconfig's context and an optional SNI name. Responses answer `status_code`, `headers.get`,
`content`, `text`, `json()`, `iter_lines()` and `read()` as httpx's do. Authentication plugins
(httpx.Auth) are not supported: the caller keeps httpx for those.
"""
from __future__ import annotations

import _thread  # threading's Lock without threading's import, on every command's path
import json
from urllib.parse import urlencode, urlsplit

# Characters a request path may carry unescaped (httpx's, from WHATWG's path percent-encode set).
_PATH_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/%[]\\^|")
_MAX_HEADER_BYTES = 1 << 20
_IDLE_LIMIT = 10


class HTTPError(Exception):
    """Base of this client's failures (mirrors httpx.HTTPError for the Transport)."""


class ConnectError(HTTPError):
    pass


class TimeoutException(HTTPError):
    pass


class ReadError(HTTPError):
    """The connection broke or the server answered something that is not HTTP/1.1."""


class WriteError(HTTPError):
    pass


class Headers:
    """Response headers: case-insensitive `get`, repeated fields joined with ", " as httpx does."""

    def __init__(self, items: list[tuple[str, str]]):
        self._items = items
        merged: dict[str, str] = {}
        for key, value in items:
            key = key.lower()
            merged[key] = f"{merged[key]}, {value}" if key in merged else value
        self._merged = merged

    def get(self, key: str, default=None):
        return self._merged.get(key.lower(), default)

    def __getitem__(self, key: str) -> str:
        return self._merged[key.lower()]

    def __contains__(self, key: str) -> bool:
        return key.lower() in self._merged

    def multi_items(self) -> list[tuple[str, str]]:
        return list(self._items)


class URL:
    """What logging reads of a request's URL: its text and its query."""

    def __init__(self, text: str, query: str):
        self._text = text
        self.params = query

    def __str__(self) -> str:
        return self._text


class Request:
    def __init__(self, method: str, url: URL):
        self.method = method
        self.url = url


class Response:
    def __init__(self, status_code: int, reason: str | None, headers: Headers, request: Request, body_iter, on_close):
        self.status_code = status_code
        self._reason = reason  # None: the status code's standard phrase, looked up if logging asks
        self.headers = headers
        self.request = request
        self._body_iter = body_iter
        self._on_close = on_close
        self._content: bytes | None = None
        self._complete = False  # the whole body was read: the connection can serve another request

    @property
    def reason_phrase(self) -> str:
        if self._reason is None:
            self._reason = _reason(self.status_code)
        return self._reason

    @property
    def is_stream_consumed(self) -> bool:
        return self._content is not None

    def read(self) -> bytes:
        if self._content is None:
            self._content = b"".join(self._body_iter)
            self._complete = True
            self.close()
        return self._content

    @property
    def content(self) -> bytes:
        return self.read()

    @property
    def text(self) -> str:
        return self.read().decode(_charset(self.headers.get("content-type", "")), "replace")

    def json(self):
        return json.loads(self.read())

    def iter_bytes(self):
        for chunk in self._body_iter:
            if chunk:
                yield chunk
        self._complete = True

    def iter_lines(self):
        """Lines as httpx's line decoder cuts them (str.splitlines, a trailing part kept back)."""
        pending = ""
        for chunk in self.iter_bytes():
            text = pending + chunk.decode("utf-8", "replace")
            lines = text.splitlines()
            if text and not text.endswith(("\n", "\r")):
                pending = lines.pop() if lines else ""
            else:
                pending = ""
            yield from lines
        if pending:
            yield pending

    def close(self) -> None:
        if self._on_close is not None:
            on_close, self._on_close = self._on_close, None
            on_close(self._complete)


def _charset(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            return value.strip('"')
    return "utf-8"


class _Connection:
    """One socket and its read buffer."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""
        self.reused = False
        self.fresh = False

    def fill(self) -> bool:
        data = self.sock.recv(65536)
        if not data:
            return False
        self.buffer += data
        return True

    def read_until(self, marker: bytes, limit: int) -> bytes:
        while True:
            at = self.buffer.find(marker)
            if at >= 0:
                line, self.buffer = self.buffer[:at], self.buffer[at + len(marker):]
                return line
            if len(self.buffer) > limit:
                raise ReadError("response header too large")
            if not self.fill():
                raise ReadError("Server disconnected without sending a response.")

    def read_exact(self, size: int) -> bytes:
        while len(self.buffer) < size:
            if not self.fill():
                raise ReadError("peer closed connection without sending complete message body")
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def readable(self) -> bool:
        """An idle keep-alive connection that has something to read was closed by the server."""
        import select

        try:
            return bool(select.select([self.sock], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def _ascii_host(host: str) -> str | bytes:
    """A host name as the socket and ssl modules would encode it, already encoded when that is plain
    ASCII: they encode a str with the idna codec, whose import (stringprep, unicodedata) would
    cost every command. Anything else is left to the codec, its errors included."""
    try:
        raw = host.encode("ascii")
    except UnicodeEncodeError:
        return host
    labels = raw.split(b".")
    if not raw or len(labels[-1]) >= 64 or not all(0 < len(label) < 64 for label in labels[:-1]):
        return host
    return raw


class _EarlyOpen:
    """A connection being opened in the background: `done` is held until it is open or failed."""

    def __init__(self):
        self.done = _thread.allocate_lock()
        self.done.acquire()
        self.error: BaseException | None = None

    def wait(self) -> None:
        with self.done:
            pass
        if self.error is not None:
            raise self.error


class Client:
    """Requests to one server (`base_url`), over a small pool of keep-alive connections."""

    def __init__(self, base_url: str, *, headers: dict | None = None, ssl_context=None,
                 timeout: float | None = None, connect_timeout: float = 30.0, sni: str | None = None):
        parts = urlsplit(base_url)
        self.scheme = parts.scheme
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.prefix = parts.path.rstrip("/")
        self.base_url = base_url
        self.headers = list((headers or {}).items())
        self._ssl = ssl_context
        self._sni = sni or self.host
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._idle: list[_Connection] = []
        self._lock = _thread.allocate_lock()
        self._closed = False
        self._early: _EarlyOpen | None = None
        host = f"[{self.host}]" if ":" in self.host else self.host
        default_port = 443 if parts.scheme == "https" else 80
        self._host_header = host if self.port == default_port else f"{host}:{self.port}"

    # -- the httpx.Client subset ----------------------------------------------------------------

    def request(self, method: str, path: str, *, params=None, content: bytes | None = None, headers=None,
                extensions=None, timeout=None) -> Response:
        response = self._send(method, path, params, content, headers, timeout)
        response.read()
        return response

    def stream(self, method: str, path: str, *, params=None, headers=None, timeout=None, extensions=None):
        return _Streaming(self._send(method, path, params, None, headers, timeout))

    def connect_early(self) -> None:
        """Open the first connection in the background while the caller gets its first request
        ready: the TCP and TLS handshakes, the server's part of them included, overlap the
        command's own work instead of going before its first request. That request waits for
        the connection, and fails as opening it failed."""
        if self._early is None:
            self._early = _EarlyOpen()
            _thread.start_new_thread(self._open_early, (self._early,))

    def _open_early(self, early: "_EarlyOpen") -> None:
        try:
            conn = self._open()
        except BaseException as err:  # the first request's to raise, in the caller's thread
            early.error = err
        else:
            conn.fresh = True
            self._release(conn, True)
        finally:
            early.done.release()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    # -- one exchange ---------------------------------------------------------------------------

    def _send(self, method, path, params, body, headers, timeout) -> Response:
        target, query = self._target(path, params)
        head = self._head(method, target, headers, body)
        read_timeout = self.timeout if timeout is None else timeout
        for attempt in (1, 2):
            conn = self._checkout()
            try:
                conn.sock.settimeout(read_timeout)
                conn.sock.sendall(head + body if body else head)
                status, reason, items = self._read_head(conn)
            except TimeoutError:  # socket.timeout
                conn.close()
                raise TimeoutException("timed out") from None
            except (ReadError, OSError) as err:
                conn.close()
                # A kept-alive connection the server had just closed: once more on a new one.
                if conn.reused and attempt == 1:
                    continue
                if isinstance(err, HTTPError):
                    raise
                raise ReadError(str(err) or type(err).__name__) from err
            break
        resp_headers = Headers(items)
        url = URL(f"{self.scheme}://{self._host_header}{target}", query)
        body_iter, reusable = _body(conn, method, status, resp_headers)
        return Response(status, reason, resp_headers, Request(method, url), body_iter,
                        lambda complete: self._release(conn, complete and reusable))

    def _target(self, path: str, params) -> tuple[str, str]:
        path, _, query = path.partition("?")
        path = self.prefix + _quote_path(path if path.startswith("/") else "/" + path)
        extra = _encode_params(params)
        query = "&".join(q for q in (query, extra) if q)
        return (f"{path}?{query}" if query else path), query

    def _head(self, method: str, target: str, headers, body: bytes | None) -> bytes:
        lines = [f"{method} {target} HTTP/1.1"] + [f"{k}: {v}" for k, v in self._fields(method, headers, body)]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _fields(self, method: str, headers, body: bytes | None) -> list[tuple[str, str]]:
        """The request's header fields as httpx sends them; a request's header replaces the
        client's of that name."""
        own = _header_items(headers)
        names = {k.lower() for k, _ in own}
        fields = [(k, v) for k, v in self.headers if k.lower() not in names] + own
        names |= {k.lower() for k, _ in fields}
        out = [("Host", self._host_header)]
        if "accept" not in names:
            out.append(("Accept", "*/*"))
        if "connection" not in names:
            out.append(("Connection", "keep-alive"))
        out += fields
        if body is not None or method in ("POST", "PUT", "PATCH"):
            out.append(("Content-Length", str(len(body or b""))))
        return out

    def _read_head(self, conn: _Connection):
        while True:
            raw = conn.read_until(b"\r\n\r\n", _MAX_HEADER_BYTES).decode("latin-1")
            status_line, *header_lines = raw.split("\r\n")
            version, _, rest = status_line.partition(" ")
            code, _, reason = rest.partition(" ")
            if not version.startswith("HTTP/") or not code.isdigit():
                raise ReadError(f"invalid HTTP response: {status_line[:80]!r}")
            items = []
            for line in header_lines:
                key, sep, value = line.partition(":")
                if sep:
                    items.append((key.strip(), value.strip()))
            if int(code) != 100:
                return int(code), reason, items

    def _checkout(self) -> _Connection:
        early, self._early = self._early, None
        if early is not None:
            early.wait()
        with self._lock:
            if self._closed:
                raise HTTPError("the client is closed")
            while self._idle:
                conn = self._idle.pop()
                if conn.fresh:  # opened early, no request yet (a TLS session ticket may be waiting)
                    conn.fresh = False
                    return conn
                if not conn.buffer and not conn.readable():
                    conn.reused = True
                    return conn
                conn.close()
        return self._open()

    def _open(self) -> _Connection:
        from kubelite.client import tls  # here: the embedded cluster's client (AppClient) opens none

        try:
            sock = tls.connect(_ascii_host(self.host), self.port, self.connect_timeout)
        except TimeoutError:  # socket.timeout
            raise TimeoutException("timed out") from None
        except OSError as err:
            raise ConnectError(str(err)) from err
        if self.scheme == "https":
            try:
                sock = self._ssl.wrap_socket(sock, server_hostname=_ascii_host(self._sni))
            except TimeoutError:  # socket.timeout
                sock.close()
                raise TimeoutException("timed out") from None
            except OSError as err:
                sock.close()
                raise ConnectError(str(err)) from err
        return _Connection(sock)

    def _release(self, conn: _Connection, reusable: bool) -> None:
        with self._lock:
            if reusable and not self._closed and len(self._idle) < _IDLE_LIMIT:
                self._idle.append(conn)
                return
        conn.close()


class AppClient(Client):
    """The same requests handed to an in-process ASGI app through a door (server.door.AppDoor):
    the embedded cluster without sockets."""

    def __init__(self, door, base_url: str, *, headers: dict | None = None):
        super().__init__(base_url, headers=headers)
        self._door = door

    def _send(self, method, path, params, body, headers, timeout) -> Response:
        from kubelite.server.door import DoorError, http_scope

        target, query = self._target(path, params)
        raw_path = target.partition("?")[0].encode("ascii")
        fields = [(k.lower().encode("latin-1"), str(v).encode("latin-1"))
                  for k, v in self._fields(method, headers, body)]
        scope = http_scope(method, self.scheme, self.host, self.port, raw_path, query.encode("ascii"), fields)
        try:
            status, raw_headers, chunks = self._door.call(scope, body or b"")
        except DoorError as err:
            raise ReadError(str(err)) from err
        items = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw_headers]
        url = URL(f"{self.scheme}://{self._host_header}{target}", query)
        return Response(status, None, Headers(items), Request(method, url),
                        _door_chunks(chunks), lambda complete: chunks.close())

    def close(self) -> None:
        self._closed = True


def _door_chunks(chunks):
    from kubelite.server.door import DoorError

    try:
        yield from chunks
    except DoorError as err:
        raise ReadError(str(err)) from err


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


class _Streaming:
    """`with client.stream(...) as response`: the response, closed at the end of the block."""

    def __init__(self, response: Response):
        self.response = response

    def __enter__(self) -> Response:
        return self.response

    def __exit__(self, *exc) -> None:
        self.response.close()


def _body(conn: _Connection, method: str, status: int, headers: Headers):
    """The body's chunks as an iterator, and whether the connection can serve another request."""
    keep = "close" not in (headers.get("connection") or "").lower()
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return iter(()), keep
    if "chunked" in (headers.get("transfer-encoding") or "").lower():
        return _chunks(conn), keep
    length = headers.get("content-length")
    if length is not None and length.strip().isdigit():
        return _sized(conn, int(length)), keep
    return _until_close(conn), False


def _guard(read):
    """Socket failures while reading a body become this client's errors."""
    def wrapper(*args):
        try:
            yield from read(*args)
        except TimeoutError:  # socket.timeout
            raise TimeoutException("timed out") from None
        except OSError as err:
            raise ReadError(str(err) or type(err).__name__) from err
    return wrapper


@_guard
def _sized(conn: _Connection, size: int):
    while size > 0:
        if not conn.buffer and not conn.fill():
            raise ReadError("peer closed connection without sending complete message body")
        chunk, conn.buffer = conn.buffer[:size], conn.buffer[size:]
        size -= len(chunk)
        yield chunk


@_guard
def _chunks(conn: _Connection):
    while True:
        size_line = conn.read_until(b"\r\n", 1 << 16).split(b";", 1)[0].strip()
        try:
            size = int(size_line, 16)
        except ValueError:
            raise ReadError(f"invalid chunk size {size_line[:20]!r}") from None
        if size == 0:
            while conn.read_until(b"\r\n", _MAX_HEADER_BYTES):  # trailers, up to the empty line
                pass
            return
        yield conn.read_exact(size)
        conn.read_exact(2)


@_guard
def _until_close(conn: _Connection):
    if conn.buffer:
        chunk, conn.buffer = conn.buffer, b""
        yield chunk
    while True:
        data = conn.sock.recv(65536)
        if not data:
            return
        yield data


def _quote_path(path: str) -> str:
    if all(c in _PATH_SAFE for c in path):
        return path
    from urllib.parse import quote

    return quote(path, safe="".join(_PATH_SAFE))


def _encode_params(params) -> str:
    """The query as httpx encodes it (urllib's urlencode of the items, lists as repeated keys)."""
    if not params:
        return ""
    if hasattr(params, "multi_items"):
        items = params.multi_items()
    elif isinstance(params, dict):
        items = []
        for key, value in params.items():
            if isinstance(value, (list, tuple)):
                items += [(key, _param_text(v)) for v in value]
            else:
                items.append((key, _param_text(value)))
    else:
        items = [(k, _param_text(v)) for k, v in params]
    return urlencode(items)


def _param_text(value) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    return "" if value is None else str(value)


def _header_items(headers) -> list[tuple[str, str]]:
    if not headers:
        return []
    if hasattr(headers, "multi_items"):
        return list(headers.multi_items())
    if isinstance(headers, dict):
        return list(headers.items())
    return list(headers)
