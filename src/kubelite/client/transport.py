"""Talking to an API server: HTTP(S) to any server, or in-process to the embedded one.

`Transport.request()` is the one door used by discovery and the dynamic client; whether the
bytes travel over a TLS socket or straight into the ASGI app is invisible above it.

HTTP: one keep-alive connection pool per process (kubelite.client.http1; httpx only for an exec
plugin's refreshing credentials, and loaded only then), the kubeconfig's TLS and
credentials, `--request-timeout`, and retries with backoff for idempotent requests when the
server says 429/503 or the connection is reset. Failures become `ApiError` (with the server's
Status) or `ConnectionFailed` (with kubectl's wording).
"""
from __future__ import annotations

import math
import os
import pathlib
import sys
import time

from kubelite.client import server_warnings
from kubelite.client.errors import ApiError, ConnectionFailed
from kubelite.client.kubeconfig import Connection
from kubelite.home import kubelite_home

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Iterator


def _import_httpx():
    """httpx, without its command-line tool: the package's __init__ loads it (click, pygments)
    whenever those happen to be installed, a cost paid on every kubelite start for nothing."""
    if "httpx" in sys.modules:
        return sys.modules["httpx"]
    sys.modules.setdefault("httpx._main", None)  # None: `from ._main import main` fails, httpx falls back
    try:
        import httpx
    finally:
        if sys.modules.get("httpx._main", 0) is None:
            del sys.modules["httpx._main"]
    return httpx


def __getattr__(name: str):
    # `from kubelite.client.transport import httpx` still works, importing httpx only then: the
    # common commands never load it (its import costs as much as the rest of a `get`).
    if name == "httpx":
        return _import_httpx()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _http_errors() -> tuple[type, ...]:
    """The failures a client may raise: http1's, and httpx's when an httpx client is in use."""
    from kubelite.client import http1

    httpx = sys.modules.get("httpx")
    return (http1.HTTPError, httpx.HTTPError) if httpx is not None else (http1.HTTPError,)


def _is_timeout(err: BaseException) -> bool:
    from kubelite.client import http1

    httpx = sys.modules.get("httpx")
    return isinstance(err, http1.TimeoutException) or (httpx is not None and isinstance(err, httpx.TimeoutException))

EMBEDDED_URL = "http://kubelite.embedded"
# The User-Agent starts "kubectl/" on purpose: a server names the field manager of a write sent without
# fieldManager after the User-Agent up to its first "/", and kubectl sends several writes that way
# (scale, --raw create/replace, set env's follow-ups...), so its managedFields say "kubectl". Sending
# fieldManager=kubectl instead would differ from kubectl on the wire (the query of a --raw URL is the
# user's, audit logs show the parameter); the agent's tail still names kubelite for whoever reads logs.
USER_AGENT = "kubectl/v1.32.0 (linux/amd64) kubernetes/kubelite-0.1"
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_STATUS = frozenset({429, 503})
MAX_ATTEMPTS = 4




class Transport:
    """Requests to one API server. Use as a context manager or call close()."""

    def __init__(self, client: httpx.Client, host: str, *, embedded: bool, verbosity: int = 0,
                 closer=None, sni: str | None = None, request_timeout: float | None = None):
        self._client = client
        self.request_timeout = request_timeout  # --request-timeout: also bounds a watch
        self.host = host  # host:port as kubectl names it in connection errors
        self.embedded = embedded
        self.verbosity = verbosity
        self._closer = closer
        self._extensions = {"sni_hostname": sni} if sni else None
        self.on_warning = server_warnings.print_once  # what a server's Warning header becomes

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        self._client.close()
        if self._closer is not None:
            self._closer()
            self._closer = None

    # -- requests --------------------------------------------------------------------------------

    def request(self, method: str, path: str, *, params: dict | None = None, body: bytes | None = None,
                content_type: str | None = None, accept: str | None = None,
                headers: dict | None = None, ok: tuple[int, ...] = ()) -> httpx.Response:
        """Send one request, retrying idempotent ones on 429/503/reset; raise ApiError on failure
        (unless the status is listed in `ok`)."""
        hdrs = dict(headers or {})
        if content_type:
            hdrs["Content-Type"] = content_type
        if accept:
            hdrs["Accept"] = accept
        attempt = 0
        while True:
            attempt += 1
            started = time.monotonic()
            try:
                response = self._client.request(method, path, params=_clean(params), content=body, headers=hdrs,
                                                extensions=self._extensions)
            except _http_errors() as err:
                if method in IDEMPOTENT and attempt < MAX_ATTEMPTS and _is_reset(err):
                    self._log(1, f"{method} {path}: connection reset, retrying")
                    time.sleep(_backoff(attempt))
                    continue
                raise self._connection_error(err) from None
            self._log_response(method, response, started, body)
            server_warnings.report(response.headers, self.on_warning)
            if response.status_code in RETRY_STATUS and method in IDEMPOTENT and attempt < MAX_ATTEMPTS:
                time.sleep(_retry_after(response, attempt))
                continue
            if response.status_code >= 400 and response.status_code not in ok:
                raise ApiError.from_response(response.status_code, response.content, method)
            return response

    def json(self, method: str, path: str, **kwargs) -> Any:
        return self.request(method, path, **kwargs).json()

    def stream(self, method: str, path: str, *, params: dict | None = None, accept: str | None = None,
               timeout: float | None = None) -> Iterator[bytes]:
        """Lines of a streaming response (watch); ApiError if the server refuses.

        `timeout` (else --request-timeout) bounds the whole stream, as kubectl's client timeout
        does: the stream then simply ends. The server is asked to end it then too
        (timeoutSeconds), since a silent stream would otherwise only end at the next read."""
        limit = timeout if timeout is not None else self.request_timeout
        hdrs = {"Accept": accept} if accept else {}
        query = dict(params or {})
        if limit and not query.get("timeoutSeconds"):
            query["timeoutSeconds"] = str(max(1, math.ceil(limit)))
        started = time.monotonic()
        receiving = False
        try:
            with self._client.stream(method, path, params=_clean(query), headers=hdrs,
                                     timeout=self._stream_timeout(limit),
                                     extensions=self._extensions) as response:
                self._log_response(method, response, started, None)
                server_warnings.report(response.headers, self.on_warning)
                if response.status_code >= 400:
                    response.read()
                    raise ApiError.from_response(response.status_code, response.content, method)
                receiving = True
                for line in response.iter_lines():
                    yield line
                    if limit and time.monotonic() - started >= limit:
                        return
        except _http_errors() as err:
            if receiving and _is_timeout(err):
                return  # the time allowed for the stream is over
            raise self._connection_error(err) from None

    def _stream_timeout(self, limit: float | None):
        from kubelite.client import http1

        if isinstance(self._client, http1.Client):
            return limit
        return _import_httpx().Timeout(limit, connect=30.0)

    # -- errors and logging ----------------------------------------------------------------------

    def _connection_error(self, err: Exception) -> ConnectionFailed:
        text = _root_cause(err)
        if "refused" in text.lower():
            return ConnectionFailed(
                f"The connection to the server {self.host} was refused - did you specify the right host or port?")
        if _is_timeout(err):
            return ConnectionFailed(f"Unable to connect to the server: net/http: request canceled "
                                    f"(Client.Timeout exceeded while awaiting headers)")
        return ConnectionFailed(f"Unable to connect to the server: {text}")

    def _log(self, level: int, text: str) -> None:
        if self.verbosity >= level:
            print(f"I{time.strftime('%m%d %H:%M:%S')} {text}", file=sys.stderr, flush=True)

    def _log_response(self, method: str, response: httpx.Response, started: float, body: bytes | None) -> None:
        if self.verbosity < 6:
            return
        elapsed = int((time.monotonic() - started) * 1000)
        self._log(6, f"{method} {response.request.url} {response.status_code} "
                     f"{response.reason_phrase} in {elapsed} milliseconds")
        if self.verbosity >= 8:
            if body:
                self._log(8, f"Request Body: {body.decode('utf-8', 'replace')}")
            if not response.is_stream_consumed and response.headers.get("content-type", "").startswith(
                    "application/json") and "watch" not in str(response.request.url.params):
                try:
                    self._log(8, f"Response Body: {response.read().decode('utf-8', 'replace')[:10000]}")
                except _http_errors():
                    pass


def _clean(params: dict | None) -> dict | None:
    if not params:
        return None
    return {k: v for k, v in params.items() if v is not None and v != ""}


def _root_cause(err: BaseException) -> str:
    seen = err
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__
    return str(seen) or str(err) or type(err).__name__


def _is_reset(err: Exception) -> bool:
    from kubelite.client import http1

    if isinstance(err, (http1.ReadError, http1.WriteError)):
        return True
    httpx = sys.modules.get("httpx")
    if httpx is not None and isinstance(err, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return True
    return "reset" in _root_cause(err).lower()


def _backoff(attempt: int) -> float:
    return min(0.1 * (2 ** (attempt - 1)), 2.0)


def _retry_after(response: httpx.Response, attempt: int) -> float:
    value = response.headers.get("retry-after")
    try:
        return min(max(float(value), 0.0), 10.0) if value else _backoff(attempt)
    except ValueError:
        return _backoff(attempt)


# -- building transports ------------------------------------------------------------------------

def connect(conn: Connection, verbosity: int = 0) -> Transport:
    if conn.embedded:
        transport = embedded(verbosity=verbosity, timeout=conn.request_timeout)
    else:
        transport = http(conn, verbosity=verbosity)
    extra = impersonation_headers(conn)
    if extra:
        client = transport._client
        if isinstance(client.headers, list):  # an http1.Client
            client.headers = client.headers + extra
        else:
            client.headers = _import_httpx().Headers(list(client.headers.multi_items()) + extra)
    return transport


def impersonation_headers(conn: Connection) -> list[tuple[str, str]]:
    """Impersonate-* headers as client-go sends them (one Impersonate-Group per group)."""
    import urllib.parse

    if not conn.impersonate_user:
        if conn.impersonate_groups or conn.impersonate_uid:
            raise ConnectionFailed("error: requesting uid or groups for impersonation without specifying a "
                                   "username is not supported")
        return []
    headers = [("Impersonate-User", conn.impersonate_user)]
    headers += [("Impersonate-Group", group) for group in conn.impersonate_groups]
    if conn.impersonate_uid:
        headers.append(("Impersonate-Uid", conn.impersonate_uid))
    for key, values in (conn.impersonate_extra or {}).items():
        headers += [("Impersonate-Extra-" + urllib.parse.quote(key, safe=""), v) for v in values]
    return headers


def http(conn: Connection, verbosity: int = 0) -> Transport:
    from urllib.parse import urlsplit

    try:
        url = urlsplit(conn.server)
        url_port = url.port
    except ValueError:
        url = url_port = None
    if url is None or url.scheme not in ("http", "https") or not url.hostname:
        raise ConnectionFailed(f'error: the server URL "{conn.server}" is not valid')
    headers = {"User-Agent": USER_AGENT}
    auth = None
    if conn.exec and not conn.token:
        conn, auth = _exec_credentials(conn)
    if conn.token:
        headers["Authorization"] = f"Bearer {conn.token}"
    elif conn.username is not None and conn.password is not None:
        import base64

        basic = base64.b64encode(f"{conn.username}:{conn.password}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {basic}"
    https = url.scheme == "https"
    base_url = conn.server.rstrip("/")
    if auth is not None:  # an exec plugin's token, refreshed on 401: httpx's Auth flow
        client = _httpx_client(base_url, headers, auth, ssl_context(conn) if https else None, conn.request_timeout)
    else:
        from kubelite.client import http1

        context = tls_context(conn) if https else None
        client = http1.Client(base_url, headers=headers, ssl_context=context, timeout=conn.request_timeout or None,
                              sni=conn.tls_server_name)
        client.connect_early()
    port = url_port or (443 if url.scheme == "https" else 80)
    host = f"{url.hostname}:{port}" if ":" not in url.hostname else f"[{url.hostname}]:{port}"
    return Transport(client, host, embedded=False, verbosity=verbosity, sni=conn.tls_server_name,
                     request_timeout=conn.request_timeout)


def _httpx_client(base_url: str, headers: dict, auth, context, request_timeout: float | None):
    httpx = _import_httpx()
    timeout = httpx.Timeout(request_timeout if request_timeout else None, connect=30.0)
    return httpx.Client(base_url=base_url, headers=headers, auth=auth, verify=context or True, timeout=timeout,
                        trust_env=False, limits=httpx.Limits(max_keepalive_connections=10, keepalive_expiry=60))


def _exec_credentials(conn: Connection):
    """Run the kubeconfig's exec plugin: a client certificate goes into the TLS settings (fixed
    for the connection), a token into an auth that refreshes it when it expires."""
    from kubelite.client import execplugin
    from kubelite.record import replace

    plugin = execplugin.ExecPlugin(conn.exec, conn.exec_cluster)
    credential = plugin.credential()
    if credential.cert_data and credential.key_data:
        conn = replace(conn, cert_data=credential.cert_data, key_data=credential.key_data)
    return conn, (execplugin.auth(plugin) if credential.token else None)


def ssl_context(conn: Connection):
    """The TLS settings of a kubeconfig cluster and user as an ssl.SSLContext."""
    import ssl

    if conn.insecure:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif conn.ca_data:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        _load_ca(context, conn.ca_data)
    else:
        context = ssl.create_default_context()
    _load_client(context, conn)
    return context


def tls_context(conn: Connection):
    """The same settings for kubelite's own HTTP client: a client.tls context (without the `ssl`
    module's import) when the kubeconfig names its CA or skips verification, as kubelite's and
    most kubeconfigs do; ssl's for the system's CA bundle."""
    if not conn.insecure and not conn.ca_data:
        return ssl_context(conn)
    from kubelite.client import tls

    context = tls.Context(verify=not conn.insecure)
    if not conn.insecure:
        _load_ca(context, conn.ca_data)
    return _load_client(context, conn)


def _load_ca(context, ca_data: bytes) -> None:
    import _ssl

    try:
        context.load_verify_locations(cadata=ca_data.decode("ascii", "replace"))
    except (_ssl.SSLError, ValueError):
        raise ConnectionFailed("error: unable to load root certificates: unable to parse bytes as PEM block") \
            from None


def _load_client(context, conn: Connection):
    import _ssl  # ssl.SSLError is _ssl's

    if conn.cert_data and conn.key_data:
        try:
            _load_client_pair(context, conn.cert_data, conn.key_data)
        except _ssl.SSLError as err:
            raise ConnectionFailed(f"error: tls: failed to load the client certificate and key: "
                                   f"{err.reason or err}") from None
    return context


def _load_client_pair(context, cert: bytes, key: bytes) -> None:
    """ssl loads a client key pair only from files. Where the system has anonymous in-memory files
    (Linux), the pair never touches the disk (and tempfile, with random and shutil, is not imported
    by every command); elsewhere they are written privately, loaded and removed."""
    fds = _memory_files(2)
    if fds:
        try:
            for fd, data in zip(fds, (cert, key)):
                with os.fdopen(fd, "wb", closefd=False) as f:
                    f.write(data)
            context.load_cert_chain(*(f"/proc/self/fd/{fd}" for fd in fds))
        finally:
            for fd in fds:
                os.close(fd)
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kubelite-tls-") as tmp:
        paths = pathlib.Path(tmp, "client.crt"), pathlib.Path(tmp, "client.key")
        for path, data in zip(paths, (cert, key)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        context.load_cert_chain(*map(str, paths))


def _memory_files(count: int) -> list[int]:
    """File descriptors of anonymous in-memory files that can be opened by path; [] where there are none."""
    if not hasattr(os, "memfd_create") or not os.path.isdir("/proc/self/fd"):
        return []
    fds: list[int] = []
    try:
        while len(fds) < count:
            fds.append(os.memfd_create("kubelite-tls"))
    except OSError:
        for fd in fds:
            os.close(fd)
        return []
    return fds


def embedded(verbosity: int = 0, timeout: float | None = None, home: pathlib.Path | None = None) -> Transport:
    """The embedded local cluster, served in this process from the SQLite store in the home.

    The cluster catches up first (controllers act on what happened since the last command, at
    wall time), runs in the background while the command works, and settles before it ends.
    When nothing has happened since the last command's settle (Cluster.catch_up), the
    controllers are not loaded unless the command writes or watches."""
    from kubelite.server.cluster import Cluster

    home = home or kubelite_home()
    try:
        from kubelite.server.private import private_dir

        private_dir(home)
        cluster = Cluster(str(home / "state.db"))
    except Exception as err:
        raise ConnectionFailed(f"error: cannot open the embedded cluster in {home}: {err}") from None
    cluster.catch_up()
    from kubelite.client import http1

    client = http1.AppClient(cluster.door(), EMBEDDED_URL, headers={"User-Agent": USER_AGENT})

    def close() -> None:
        try:
            cluster.finish()
            cluster.compact_if_due(home / "compaction")
        finally:
            cluster.close()

    return Transport(client, "kubelite.embedded", embedded=True, verbosity=verbosity, closer=close,
                     request_timeout=timeout)
