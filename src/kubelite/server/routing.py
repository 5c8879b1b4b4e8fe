"""URL -> what is being asked: API prefix, group, version, namespace, resource, name,
subresource and verb, the way kube-apiserver's request-info resolver reads a path.

Pure: no registry lookups here (whether the resource exists is the handler's question).
"""
from __future__ import annotations

from urllib.parse import parse_qs

from kubelite.record import FrozenRecord

API_PREFIXES = ("api", "apis")
# Subresources of a namespace that keep "namespaces" as the resource (…/namespaces/NAME/status).
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})

_VERB_BY_METHOD = {"POST": "create", "PUT": "update", "PATCH": "patch"}


class Query:
    """Query parameters; the first value wins, as Go's url.Values.Get."""

    def __init__(self, raw: str | bytes = ""):
        if isinstance(raw, bytes):
            raw = raw.decode("latin-1")
        self._values: dict[str, list[str]] = parse_qs(raw, keep_blank_values=True)

    def get(self, key: str, default: str | None = None) -> str | None:
        values = self._values.get(key)
        return values[0] if values else default

    def get_all(self, key: str) -> list[str]:
        return list(self._values.get(key, []))

    def __contains__(self, key: str) -> bool:
        return key in self._values

    def flag(self, key: str) -> bool:
        """A boolean parameter as the apiserver's conversion reads it ("true", "1", ...)."""
        value = self.get(key)
        return value is not None and value.lower() in ("1", "t", "true", "y", "yes")


class RequestInfo(FrozenRecord):  # a frozen dataclass, without dataclasses' import at every start
    path: str
    method: str
    is_resource_request: bool = False
    api_prefix: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    verb: str = ""
    parts: tuple[str, ...] = ()

    @property
    def group_version(self) -> str:
        return f"{self.api_group}/{self.api_version}" if self.api_group else self.api_version


def request_info(request) -> RequestInfo:
    """What the request's path names, resolved once: the gate, the deadline and the dispatch
    each ask."""
    info = request.parsed
    if info is None:
        info = request.parsed = parse_request(request.method, request.path, request.query)
    return info


# Answers kept by (method, path, ?watch): the same paths come again and again (a collection's
# creates, a client's GET then PATCH of each object, controllers' reads); RequestInfo is frozen.
_PARSED: dict[tuple, RequestInfo] = {}
_PARSED_KEPT = 4096


def parse_request(method: str, path: str, query: Query) -> RequestInfo:
    """Resolve a request path (without query string) to a RequestInfo."""
    key = (method, path, query.flag("watch"))
    info = _PARSED.get(key)
    if info is None:
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()
        info = _PARSED[key] = _parse(method, path, key[2])
    return info


def _parse(method: str, path: str, watch: bool) -> RequestInfo:
    method = method.upper()
    parts = tuple(p for p in path.strip("/").split("/") if p)
    if not parts or parts[0] not in API_PREFIXES:
        return _non_resource(path, method, parts)
    prefix = parts[0]
    rest = list(parts[1:])
    if prefix == "api":
        if not rest:
            return _non_resource(path, method, parts)
        group, version, rest = "", rest[0], rest[1:]
    else:
        if len(rest) < 2:
            return _non_resource(path, method, parts)
        group, version, rest = rest[0], rest[1], rest[2:]
    if not rest:
        # /api/v1, /apis/apps/v1: discovery documents, not resources.
        return RequestInfo(path=path, method=method, api_prefix=prefix, api_group=group,
                           api_version=version, verb=method.lower(), parts=parts)

    verb = _VERB_BY_METHOD.get(method, "")
    if method in ("GET", "HEAD"):
        verb = "get"
    elif method == "DELETE":
        verb = "delete"
    # The deprecated /watch/ path segment is still accepted by the apiserver.
    if rest[0] == "watch":
        rest = rest[1:]
        verb = "watch"

    namespace = ""
    if rest[0] == "namespaces":
        if len(rest) > 1:
            namespace = rest[1]
            if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
                rest = rest[2:]
    resource = rest[0] if rest else ""
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    if len(rest) > 3:
        # Deeper paths (e.g. pods/NAME/proxy/...) name a subresource with a trailing path.
        subresource = "/".join(rest[2:])

    if not name:
        if verb == "get":
            verb = "watch" if watch else "list"
        elif verb == "delete":
            verb = "deletecollection"
    return RequestInfo(
        path=path, method=method, is_resource_request=True, api_prefix=prefix, api_group=group,
        api_version=version, namespace=namespace, resource=resource, subresource=subresource,
        name=name, verb=verb, parts=parts,
    )


def _non_resource(path: str, method: str, parts: tuple[str, ...]) -> RequestInfo:
    return RequestInfo(path=path, method=method, verb=method.lower(), parts=parts)
