"""Calling a webhook: where it lives (clientConfig.url, or a Service resolved to an endpoint)
and the HTTPS POST, bounded by the webhook's timeoutSeconds.

Failures are `CallFailed` with the text Go's HTTP client and client-go's REST client would give
(`Post "https://...?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`), so the
apiserver's `failed calling webhook "x": failed to call webhook: ...` reads as kube-apiserver's.
"""
from __future__ import annotations

import base64
import binascii
import errno
import json
import socket
import ssl
import threading
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlsplit

from kubelite.server import errors


class CallFailed(Exception):
    """The webhook could not be called, or its answer could not be read.

    `status` is the StatusError the failure is reported as when the hook is the one rejecting
    the request (a non-2xx answer keeps its code)."""

    def __init__(self, reason: str, status: errors.StatusError | None = None):
        super().__init__(reason)
        self.reason = reason
        self.status = status


@dataclass(frozen=True)
class Target:
    """Where to POST: `url` as shown in errors, `connect` the address actually dialled, and the
    name the server certificate must carry."""

    url: str
    connect: str
    server_name: str | None = None


def go_duration(seconds: int) -> str:
    return f"{int(seconds)}s"


class Resolver:
    """Service references to endpoints, from the cluster's Services and Endpoints(Slices).
    `read(group, resource, namespace, name)` returns a stored object or None;
    `slices(namespace, service)` the EndpointSlices of a Service."""

    def __init__(self, read: Callable[[str, str, str, str], dict | None],
                 slices: Callable[[str, str], list[dict]]):
        self.read = read
        self.slices = slices

    def target(self, client_config: dict) -> Target:
        url = client_config.get("url")
        if url:
            return Target(str(url), str(url))
        service = client_config.get("service") or {}
        namespace, name = str(service.get("namespace") or ""), str(service.get("name") or "")
        port = int(service.get("port") or 443)
        path = str(service.get("path") or "")
        server_name = f"{name}.{namespace}.svc"
        shown = f"https://{server_name}:{port}{path}"
        host, target_port = self._endpoint(namespace, name, port)
        netloc = f"[{host}]" if ":" in host else host
        return Target(shown, f"https://{netloc}:{target_port}{path}", server_name)

    def _endpoint(self, namespace: str, name: str, port: int) -> tuple[str, int]:
        svc = self.read("", "services", namespace, name)
        if svc is None:
            raise CallFailed(f'service "{name}" not found')
        spec = svc.get("spec") or {}
        if spec.get("type") == "ExternalName":
            return str(spec.get("externalName") or ""), port
        svc_port = next((p for p in spec.get("ports") or () if isinstance(p, dict) and p.get("port") == port), None)
        if svc_port is None:
            raise CallFailed(f'no service port {port} found for service "{name}"')
        found = self._from_endpoints(namespace, name, svc_port) or self._from_slices(namespace, name, svc_port)
        if found is None:
            raise CallFailed(f'no endpoints available for service "{name}"')
        return found

    def _from_endpoints(self, namespace: str, name: str, svc_port: dict) -> tuple[str, int] | None:
        endpoints = self.read("", "endpoints", namespace, name)
        for subset in (endpoints or {}).get("subsets") or ():
            ports = [p for p in subset.get("ports") or () if isinstance(p, dict)]
            match = next((p for p in ports if p.get("name", "") == svc_port.get("name", "")), None)
            addresses = subset.get("addresses") or ()
            if match is not None and addresses:
                return str(addresses[0].get("ip")), int(match.get("port"))
        return None

    def _from_slices(self, namespace: str, name: str, svc_port: dict) -> tuple[str, int] | None:
        for eps in self.slices(namespace, name):
            ports = [p for p in eps.get("ports") or () if isinstance(p, dict)]
            match = next((p for p in ports if (p.get("name") or "") == (svc_port.get("name") or "")), None)
            ready = [e for e in eps.get("endpoints") or ()
                     if (e.get("conditions") or {}).get("ready") is not False and e.get("addresses")]
            if match is not None and ready:
                return str(ready[0]["addresses"][0]), int(match.get("port"))
        return None


_CONTEXTS: dict[str, ssl.SSLContext] = {}
_CONTEXTS_LOCK = threading.Lock()


def _ssl_context(ca_bundle: str | None) -> ssl.SSLContext:
    """Trust the configuration's caBundle (base64 PEM), else the system's roots."""
    key = ca_bundle or ""
    with _CONTEXTS_LOCK:
        context = _CONTEXTS.get(key)
        if context is None:
            context = ssl.create_default_context()
            if ca_bundle:
                try:
                    pem = base64.b64decode(ca_bundle)
                    context = ssl.create_default_context(cadata=pem.decode("ascii", "replace"))
                except (binascii.Error, ValueError, ssl.SSLError) as err:
                    raise CallFailed(f"unable to load root certificates: {err}") from None
            _CONTEXTS[key] = context
        return context


class _Clients:
    """Idle HTTPS clients per trusted CA, so that calls reuse their connections (kept alive, as
    kube-apiserver's are). A call has its client to itself: one abandoned at its deadline is
    closed, never handed to another call."""

    _IDLE = 4  # per CA bundle

    def __init__(self):
        self._idle: dict[str, list] = {}
        self._lock = threading.Lock()

    def checkout(self, ca_bundle: str | None):
        import httpx

        with self._lock:
            idle = self._idle.get(ca_bundle or "")
            if idle:
                return idle.pop()
        return httpx.Client(verify=_ssl_context(ca_bundle), trust_env=False)

    def checkin(self, ca_bundle: str | None, client) -> None:
        with self._lock:
            idle = self._idle.setdefault(ca_bundle or "", [])
            if len(idle) < self._IDLE:
                idle.append(client)
                return
        client.close()


_CLIENTS = _Clients()


def post(target: Target, ca_bundle: str | None, body: dict, timeout: int) -> object:
    """POST the review, return the decoded JSON answer (CallFailed on any failure)."""
    import httpx

    query = f"timeout={go_duration(timeout)}"
    shown = f"{target.url}{'&' if '?' in target.url else '?'}{query}"
    connect = f"{target.connect}{'&' if '?' in target.connect else '?'}{query}"
    headers = {"Content-Type": "application/json", "Accept": "application/json, */*",
               "User-Agent": "kube-apiserver-admission"}
    extensions = {}
    if target.server_name:
        parts = urlsplit(target.url)
        headers["Host"] = parts.netloc
        extensions["sni_hostname"] = target.server_name
    data = json.dumps(body, separators=(",", ":")).encode()
    client = _CLIENTS.checkout(ca_bundle)
    outcome: list = []
    # Which of the two threads closes an abandoned call's client: the call's own, once it has
    # left the client. Closed under a read of its socket, the descriptor would be free for the
    # next connection opened (another webhook call's), whose bytes that read would then take.
    ending = threading.Lock()
    abandoned: list = []

    def call() -> None:
        try:
            outcome.append(client.post(connect, content=data, headers=headers, extensions=extensions,
                                       timeout=httpx.Timeout(float(timeout))))
        except Exception as err:  # noqa: BLE001 (handed to the caller's thread)
            outcome.append(err)
        with ending:
            if abandoned:
                client.close()

    # httpx bounds each phase (connect, each read); Go bounds the whole call by the webhook's
    # timeout: the call runs beside us and is abandoned at the deadline, its connection shut down.
    worker = threading.Thread(target=call, name="kubelite-webhook-call", daemon=True)
    worker.start()
    worker.join(timeout)
    with ending:
        if not outcome:
            abandoned.append(True)
            _shut_down(client)
    if abandoned:
        raise CallFailed(f'Post "{shown}": context deadline exceeded')
    result = outcome[0]
    if isinstance(result, Exception):
        client.close()
    else:
        _CLIENTS.checkin(ca_bundle, client)
    if isinstance(result, httpx.TimeoutException):
        raise CallFailed(f'Post "{shown}": context deadline exceeded')
    if isinstance(result, httpx.ConnectError):
        raise CallFailed(f'Post "{shown}": {_dial_error(result, connect)}')
    if isinstance(result, httpx.HTTPError):
        raise CallFailed(f'Post "{shown}": EOF')
    if isinstance(result, Exception):
        raise result
    return _decode(result)


def _shut_down(client) -> None:
    """Ends an abandoned call's exchanges at once: its connections are shut down (not closed: the
    descriptors stay the call's), so a read waiting on one returns and the call ends with an error.
    Reached through httpx's and httpcore's internals; without them the call ends at its own
    timeouts (a connection being opened has no socket to shut down yet either)."""
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    for connection in getattr(pool, "connections", ()):
        stream = getattr(getattr(connection, "_connection", None), "_network_stream", None)
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            try:
                # the socket's own shutdown, not ssl's: that one would also drop the TLS state
                # under the reading thread
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass  # already closed or never connected


def _dial_error(err: Exception, url: str) -> str:
    cause = err.__cause__ or err.__context__
    while cause is not None and not isinstance(cause, OSError) and (cause.__cause__ or cause.__context__):
        cause = cause.__cause__ or cause.__context__
    parts = urlsplit(url)
    where = f"{parts.hostname}:{parts.port or 443}"
    if isinstance(cause, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(err):
        text = str(getattr(cause, "verify_message", "") or err)
        if "hostname" in text or "IP address mismatch" in text:
            return f"tls: failed to verify certificate: x509: certificate is not valid for {parts.hostname}"
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    if isinstance(cause, ssl.SSLError):
        return f"remote error: tls: {cause.reason or 'handshake failure'}".lower()
    if isinstance(cause, ConnectionRefusedError) or getattr(cause, "errno", None) == errno.ECONNREFUSED \
            or "Connection refused" in str(err):
        return f"dial tcp {where}: connect: connection refused"
    if "Name or service not known" in str(err) or "nodename nor servname" in str(err):
        return f"dial tcp: lookup {parts.hostname}: no such host"
    return f"dial tcp {where}: {err}"


def _decode(response) -> object:
    """client-go's REST client: a non-2xx answer is an error (a Status body kept as such), a
    2xx one must decode as JSON."""
    body = response.content
    content_type = (response.headers.get("content-type") or "application/json").split(";")[0].strip().lower()
    if not 200 <= response.status_code <= 206:
        raise CallFailed(*_unexpected(response.status_code, body, content_type))
    if content_type not in ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf"):
        raise CallFailed(f"serializer for {content_type} doesn't exist")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as err:
        raise CallFailed(f"couldn't get version/kind; json parse error: {_go_json_error(err, body)}") from None


def _go_json_error(err: Exception, body: bytes) -> str:
    text = body.lstrip()
    if not text:
        return "unexpected end of JSON input"
    first = chr(text[0])
    if first not in '{["-0123456789tfn':
        return f"invalid character '{first}' looking for beginning of value"
    return str(err)


_GENERIC = {
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    409: ("AlreadyExists", "the server reported a conflict"),
    422: ("Invalid", "the server rejected our request due to an error in our request"),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: ("Timeout", "the server was unable to return a response in the time allotted, but may still be "
                     "processing the request"),
}


def _unexpected(code: int, body: bytes, content_type: str) -> tuple[str, errors.StatusError]:
    """The error client-go makes of a non-2xx answer (a Status body, else a generic one)."""
    if content_type == "application/json":
        try:
            status = json.loads(body)
        except ValueError:
            status = None
        if isinstance(status, dict) and status.get("kind") == "Status" and status.get("message"):
            err = errors.StatusError(int(status.get("code") or code), str(status.get("reason") or ""),
                                     str(status["message"]))
            return err.message, err
    message = body.decode("utf-8", "replace").strip() if content_type.startswith("text/") else "unknown"
    reason, text = _GENERIC.get(code, ("", f"the server responded with the status code {code} but did not "
                                          "return more information"))
    if code == 403:
        reason, text = "Forbidden", message
    elif code not in _GENERIC and code >= 500:
        reason, text = "InternalError", f"an error on the server ({json.dumps(message)}) has prevented the request " \
                                        "from succeeding"
    err = errors.StatusError(code, reason or "Unknown", text,
                             causes=[{"reason": "UnexpectedServerResponse", "message": message}])
    return text, err
