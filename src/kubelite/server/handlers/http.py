"""A request and responses as the ASGI app sees them (no web framework: the surface is small)."""
from __future__ import annotations

import json
import sys

from kubelite.record import Record, factory, uncompared
from kubelite.schema.goorder import as_served

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import AsyncIterator

    from kubelite.server.routing import Query

JSON = "application/json"
# The ASGI scope extension of a request whose event loop serves it alone (server.door).
INLINE = "kubelite.inline"
# kube-apiserver pretty-prints for these User-Agents, compact JSON for every other client.
_PRETTY_AGENTS = ("curl", "Wget", "Mozilla/5.0")


def loop_running() -> bool:
    """Whether an event loop runs this request. The in-process door (server.door) drives a short
    request's coroutine without one: such a request must not wait on futures, threads or sleeps
    (it does its work right there), and asyncio itself is not imported then."""
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and asyncio._get_running_loop() is not None


# Records, not dataclasses: the same declarations without dataclasses' import (inspect, ast, dis)
# and the methods it compiles at every start of a short command.
class Request(Record):
    method: str
    path: str
    query: Query
    headers: dict[str, str]  # lower-cased names; repeated headers joined with ", "
    body: bytes = b""
    too_large: bool = False  # the body exceeded the server's limit (answered 413)
    user: object = None  # who the request runs as (auth.user.UserInfo), set by the app's gate
    client_cert: bytes | None = None  # the TLS client certificate (DER), verified against the CA
    route: object = None  # what the path names (routing.RequestInfo), set by the app's dispatch
    clock: object = None  # the cluster's clock (the moment Tables' ages count to), set by the app
    inline: bool = False  # its event loop serves it alone: storage work may block it (server.door)
    parsed: object = uncompared(None, repr=False)  # routing.request_info's answer, once asked

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)

    @property
    def content_type(self) -> str:
        return (self.header("content-type") or "").split(";")[0].strip().lower()

    @property
    def pretty(self) -> bool:
        if self.query.flag("pretty"):
            return True
        agent = self.header("user-agent") or ""
        return agent.startswith(_PRETTY_AGENTS)


class Response(Record):
    status: int = 200
    body: bytes = b""
    content_type: str = JSON
    headers: list[tuple[str, str]] = factory(list)


class StreamingResponse(Record):
    """A chunked response (watch): each item of `chunks` is sent as it is produced."""

    chunks: AsyncIterator[bytes]
    status: int = 200
    content_type: str = JSON
    headers: list[tuple[str, str]] = factory(list)


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def encode_json(value, pretty: bool = False, in_order: bool = False) -> bytes:
    """JSON as Go's encoder writes it: HTML-sensitive characters escaped, one trailing newline.
    `in_order`: the value's keys are already in its server's order (an aggregated API's kinds)."""
    if not in_order:
        value = as_served(value)  # key order: Go struct order for built-in kinds, sorted for custom ones
    if pretty:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    else:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if any(ch in text for ch in _GO_ESCAPES):
        text = "".join(_GO_ESCAPES.get(ch, ch) for ch in text)
    return text.encode() + b"\n"


def stored_as_served(value: bytes, kind: str, api_version: str, uid: str, revision: int) -> bytes | None:
    """What encode_json gives for an object stored as `value` (compact JSON, ASCII only, its keys
    already in the order it is served in, no resourceVersion) once decoded and given `revision`:
    the bytes themselves, resourceVersion put after the uid as ObjectMeta's order has it. None
    when they may differ (escapes: non-ASCII, control or HTML-sensitive characters; kind and
    apiVersion other than the ones served)."""
    value = bytes(value)
    if b"\\u" in value or b"<" in value or b">" in value or b"&" in value:
        return None
    head = b'{"kind":"%s","apiVersion":"%s","metadata":{' % (kind.encode(), api_version.encode())
    if not value.startswith(head):
        return None
    mark = b'"uid":"%s"' % uid.encode()
    at = value.find(mark, len(head))
    if at < 0 or value.find(b'"resourceVersion":', len(head), at) >= 0:
        return None
    at += len(mark)
    return b"%s,\"resourceVersion\":\"%d\"%s\n" % (value[:at], revision, value[at:])


def json_response(value, status: int = 200, request: Request | None = None,
                  headers: list[tuple[str, str]] | None = None) -> Response:
    pretty = request.pretty if request is not None else False
    return Response(status=status, body=encode_json(value, pretty), headers=list(headers or []))


def text_response(text: str, status: int = 200) -> Response:
    return Response(status=status, body=text.encode(), content_type="text/plain; charset=utf-8")
