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


def openapi(api, request: Request) -> Response:
    if request.method != "GET":
        raise errors.method_not_allowed()
    docs = getattr(api, "_openapi", None)
    if docs is None:
        from kubelite.server.openapi import OpenAPI

        docs = api._openapi = OpenAPI(api.registry)
    path = request.path.rstrip("/")
    if path == "/openapi/v2":
        return _document(docs.v2(), request)
    if path == "/openapi/v3":
        return _document(docs.v3_index_bytes(), request)
    if path.startswith("/openapi/v3/"):
        response = _document(docs.v3(path[len("/openapi/v3/"):]), request)
        if request.query.get("hash"):
            response.headers.append(("Cache-Control", "public, immutable"))
        return response
    raise errors.not_found_path()
