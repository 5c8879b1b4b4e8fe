"""Discovery (/api, /apis, /api/v1, /apis/<group>[/<version>], aggregated) and OpenAPI documents,
rendered by kubelite.server.discovery / kubelite.server.openapi."""
from __future__ import annotations

from kubelite.server import errors
from kubelite.server.handlers.http import Request, Response
from kubelite.server.routing import RequestInfo


def _documents(api):
    docs = getattr(api, "_discovery", None)
    if docs is None:
        from kubelite.server.discovery import Discovery

        docs = api._discovery = Discovery(api.registry)
    return docs


def serve(api, request: Request, info: RequestInfo) -> Response:
    if request.method != "GET":
        raise errors.method_not_allowed()
    from kubelite.server import discovery

    docs = _documents(api)
    parts = info.parts
    if len(parts) == 1:
        version = discovery.aggregated_version(request.header("accept"))
        if version is not None:
            body = docs.aggregated(legacy=parts[0] == "api", version=version)
            return _document(body, request, discovery.aggregated_content_type(version))
        return _document(docs.api() if parts[0] == "api" else docs.apis(), request)
    if parts[0] == "api" and len(parts) == 2:
        return _document(docs.resources("", parts[1]), request)
    if parts[0] == "apis" and len(parts) == 2:
        return _document(docs.group(parts[1]), request)
    if parts[0] == "apis" and len(parts) == 3:
        return _document(docs.resources(parts[1], parts[2]), request)
    raise errors.not_found_path()


def _document(body: bytes | None, request: Request, content_type: str = "application/json") -> Response:
    if body is None:
        raise errors.not_found_path()
    from kubelite.server import discovery

    tag = discovery.etag(body)
    headers = [("Etag", tag), ("Vary", "Accept")]
    if request.header("if-none-match") == tag:
        return Response(status=304, body=b"", content_type=content_type, headers=headers)
    return Response(status=200, body=body, content_type=content_type, headers=headers)


# OpenAPI media types as kube-openapi's handlers name them (type, subtype); the first clause of
# the client's Accept that one of them matches picks the form, in this order of preference.
_PB_V2, _PB_V2_OLD = "com.github.proto-openapi.spec.v2.v1.0+protobuf", "com.github.proto-openapi.spec.v2@v1.0+protobuf"
_PB_V3, _PB_V3_OLD = "com.github.proto-openapi.spec.v3.v1.0+protobuf", "com.github.proto-openapi.spec.v3@v1.0+protobuf"
_V2_OFFERS = ("json", _PB_V2_OLD, _PB_V2)
_V3_OFFERS = ("json", _PB_V3, _PB_V3_OLD)
_GZIP_MIN_SIZE = 1400  # smaller /openapi/v2 bodies go uncompressed, as the Go gzip handler does


def _accept_clauses(accept: str | None) -> list[tuple[str, str]]:
    """(type, subtype) of each Accept clause, highest q first (specific before wildcard on ties)."""
    clauses = []
    for index, part in enumerate((accept or "*/*").split(",")):
        media, *params = [p.strip() for p in part.split(";")]
        if not media:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        main, _, sub = media.partition("/")
        if media == "*":
            main, sub = "*", "*"
        clauses.append((-q, main == "*", sub == "*", index, main, sub or "*"))
    return [(c[4], c[5]) for c in sorted(clauses)]


def negotiate_openapi(accept: str | None, offers: tuple[str, ...]) -> str | None:
    """The `application/<subtype>` offer the Accept header selects, or None (406)."""
    for main, sub in _accept_clauses(accept):
        for offer in offers:
            if main in ("application", "*") and sub in (offer, "*"):
                return offer
    return None


def _etag_matches(header: str | None, tag: str) -> bool:
    if not header:
        return False
    return any(candidate.strip().removeprefix("W/") in (tag, "*") for candidate in header.split(","))


def _http_date(timestamp: float, zone: str = "GMT") -> str:
    import time

    return time.strftime(f"%a, %d %b %Y %H:%M:%S {zone}", time.gmtime(timestamp))


def _openapi_document(docs, request: Request, body: bytes, tag_source: bytes, content_type: str,
                      headers: list[tuple[str, str]] | None = None) -> Response:
    """A document answered the way Go's ServeContent does: strong ETag (of the JSON form),
    Last-Modified, 304 on a matching If-None-Match."""
    from kubelite.server import discovery

    tag = discovery.etag(tag_source)
    headers = [("Vary", "Accept"), ("Etag", tag), ("Last-Modified", _http_date(docs.last_modified())),
               ("Accept-Ranges", "bytes"), *(headers or [])]
    if _etag_matches(request.header("if-none-match"), tag):
        return Response(status=304, body=b"", content_type="", headers=headers)
    return Response(status=200, body=body, content_type=content_type, headers=headers)


def _not_acceptable() -> Response:
    return Response(status=406, body=b"", content_type="", headers=[("Vary", "Accept")])


def _gzip(docs, key: str, request: Request, response: Response) -> Response:
    """/openapi/v2 sits behind a gzip handler: compress when the client takes gzip."""
    encodings = [e.split(";")[0].strip().lower() for e in (request.header("accept-encoding") or "").split(",")]
    if response.status != 200 or "gzip" not in encodings or len(response.body) < _GZIP_MIN_SIZE:
        return response
    response.body = docs.gzipped(key, response.body)
    response.headers += [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]
    return response


def _v2(docs, request: Request) -> Response:
    offer = negotiate_openapi(request.header("accept"), _V2_OFFERS)
    if offer is None:
        return _not_acceptable()
    as_json = docs.v2()
    if offer == "json":
        return _gzip(docs, "v2", request, _openapi_document(docs, request, as_json, as_json, "application/json"))
    response = _openapi_document(docs, request, docs.v2_protobuf(), as_json, "application/" + _PB_V2)
    return _gzip(docs, "v2-protobuf", request, response)


def _v3_group_version(docs, request: Request, gv_path: str) -> Response:
    body = docs.v3(gv_path)
    if body is None:
        raise errors.not_found_path()
    offer = negotiate_openapi(request.header("accept"), _V3_OFFERS)
    if offer != "json":
        # The v3 protobuf form is not produced: refusing beats answering JSON to a protobuf reader.
        return _not_acceptable()
    current = docs.v3_hash(gv_path)
    requested = request.query.get("hash")
    if not requested:
        return _openapi_document(docs, request, body, body, "application/json")
    if requested != current:
        location = f"/openapi/v3/{gv_path}?hash={current}"
        # The content type is already set when Go's redirect runs, so it writes no HTML body.
        return Response(status=301, body=b"", content_type="application/json",
                        headers=[("Vary", "Accept"), ("Etag", f'"{current}"'), ("Location", location)])
    import time

    # A hash names one exact document: caches may keep it for good (kube-openapi's one year).
    expires = _http_date(time.time() + 365 * 24 * 3600, "UTC")
    return _openapi_document(docs, request, body, body, "application/json",
                             [("Cache-Control", "public, immutable"), ("Expires", expires)])


def openapi(api, request: Request) -> Response:
    if request.method != "GET":
        raise errors.method_not_allowed()
    docs = getattr(api, "_openapi", None)
    if docs is None:
        from kubelite.server.openapi import OpenAPI

        docs = api._openapi = OpenAPI(api.registry)
    path = request.path.rstrip("/")
    if path == "/openapi/v2":
        return _v2(docs, request)
    if path == "/openapi/v3":
        body = docs.v3_index_bytes()
        return _openapi_document(docs, request, body, body, "application/json")
    if path.startswith("/openapi/v3/"):
        return _v3_group_version(docs, request, path[len("/openapi/v3/"):])
    raise errors.not_found_path()
