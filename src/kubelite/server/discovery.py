"""Discovery documents: what `/api`, `/apis`, `/api/v1`, `/apis/<group>[/<version>]` and
`/version` answer, generated from a Registry in the same shape and field order as
kube-apiserver 1.32 prints them.

Two flavours of `/api` and `/apis` exist: the legacy lists (APIVersions / APIGroupList, one
request per group-version for the resources) and aggregated discovery (APIGroupDiscoveryList,
every resource in one document), which kubectl 1.32 asks for first with
`Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`.
`aggregated_version(accept)` tells which one a request wants.

Documents are plain dicts whose key order is the server's; `encode()` renders them the way
Go's encoding/json does. `Discovery` caches the rendered documents of one registry until a
CRD change bumps its generation.
"""
from __future__ import annotations

import json

from kubelite.server.resources import GroupInfo, Registry, ResourceInfo

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import Any

DISCOVERY_GROUP = "apidiscovery.k8s.io"
AGGREGATED_VERSIONS = ("v2", "v2beta1")
DEFAULT_SERVER_ADDRESS = "127.0.0.1:6443"

KUBERNETES_VERSION = {"major": "1", "minor": "32", "gitVersion": "v1.32.13-kubelite"}


# -- JSON rendering -----------------------------------------------------------------------------

_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def encode(document: Any) -> bytes:
    """Compact JSON as Go's encoding/json writes it (HTML-sensitive characters escaped)."""
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    if any(ch in text for ch in _GO_ESCAPES):
        text = "".join(_GO_ESCAPES.get(ch, ch) for ch in text)
    return text.encode("utf-8")


def _encode_indented(document: Any) -> bytes:
    return json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8")


def etag(body: bytes) -> str:
    """A strong ETag for a rendered document (quoted, as the server sends it)."""
    return '"' + _sha512(body).hexdigest().upper() + '"'


def _sha512(data: bytes):
    try:
        from _sha512 import sha512  # CPython's own: hashlib would load OpenSSL (~2 ms) for it
    except ImportError:  # (another Python, or a later CPython's module name)
        from hashlib import sha512
    return sha512(data)


# -- content negotiation ------------------------------------------------------------------------


def aggregated_version(accept: str | None) -> str | None:
    """Which aggregated discovery version an Accept header asks for ("v2", "v2beta1"), or None
    when the client wants the legacy documents. The first acceptable media type wins, the way
    the server walks a client's preference list (q-values honoured, ties in header order)."""
    if not accept:
        return None
    offers = []
    for position, item in enumerate(accept.split(",")):
        media, params = _parse_media(item)
        if not media:
            continue
        try:
            q = float(params.get("q", "1"))
        except ValueError:
            q = 1.0
        if q > 0:
            offers.append((-q, position, media, params))
    for _, _, media, params in sorted(offers):
        if media in ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf") \
                and "g" not in params and "as" not in params:
            return None
        if media in ("*/*", "application/*"):
            return None
        if media == "application/json" and params.get("g") == DISCOVERY_GROUP \
                and params.get("as") == "APIGroupDiscoveryList" and params.get("v") in AGGREGATED_VERSIONS:
            return params["v"]
    return None


def aggregated_content_type(version: str) -> str:
    return f"application/json;g={DISCOVERY_GROUP};v={version};as=APIGroupDiscoveryList"


def _parse_media(item: str) -> tuple[str, dict[str, str]]:
    pieces = [p.strip() for p in item.split(";")]
    params = {}
    for p in pieces[1:]:
        key, _, value = p.partition("=")
        params[key.strip().lower()] = value.strip().strip('"')
    return pieces[0].lower(), params


# -- legacy documents ---------------------------------------------------------------------------


def version_info() -> dict:
    """`GET /version`: kubelite's own build, reporting the Kubernetes 1.32 API it serves."""
    import platform
    import sys

    from kubelite import __version__

    machine = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    return {
        **KUBERNETES_VERSION,
        "gitCommit": "",
        "gitTreeState": "",
        "buildDate": "",
        "goVersion": f"python{sys.version_info.major}.{sys.version_info.minor} kubelite/{__version__}",
        "compiler": "cpython",
        "platform": f"{sys.platform}/{machine}",
    }


def api_versions(server_address: str = DEFAULT_SERVER_ADDRESS, client_cidr: str = "0.0.0.0/0") -> dict:
    """`GET /api`."""
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": client_cidr, "serverAddress": server_address}],
    }


def _group_version(group: str, version: str) -> dict:
    return {"groupVersion": f"{group}/{version}", "version": version}


def _api_group_body(group: GroupInfo) -> dict:
    return {
        "name": group.name,
        "versions": [_group_version(group.name, v) for v in group.versions],
        "preferredVersion": _group_version(group.name, group.preferred_version),
    }


def api_group_list(registry: Registry) -> dict:
    """`GET /apis`: every named group (the core group lives under /api)."""
    return {"kind": "APIGroupList", "apiVersion": "v1",
            "groups": [_api_group_body(g) for g in registry.groups() if g.name]}


def api_group(registry: Registry, group: str) -> dict | None:
    """`GET /apis/<group>`, or None for an unknown group."""
    info = registry.group(group) if group else None
    if info is None:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_api_group_body(info)}


def api_resource_list(registry: Registry, group: str, version: str) -> dict | None:
    """`GET /api/v1` (group "") or `/apis/<group>/<version>`, or None when not served."""
    info = registry.group(group)
    if info is None or version not in info.versions:
        return None
    entries = []
    for r in registry.resources_in(group, version):
        entries.append(_api_resource(r))
        for sub in r.subresources:
            entries.append(_api_subresource(r, sub))
    # The server lists resources and their subresources sorted by path.
    entries.sort(key=lambda e: e["name"])
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": entries}


def _api_resource(r: ResourceInfo) -> dict:
    entry: dict = {"name": r.resource, "singularName": r.singular, "namespaced": r.namespaced,
                   "kind": r.kind, "verbs": list(r.verbs)}
    if r.short_names:
        entry["shortNames"] = list(r.short_names)
    if r.categories:
        entry["categories"] = list(r.categories)
    if r.storage_version_hash:
        entry["storageVersionHash"] = r.storage_version_hash
    return entry


def _api_subresource(r: ResourceInfo, sub) -> dict:
    entry: dict = {"name": f"{r.resource}/{sub.name}", "singularName": "", "namespaced": r.namespaced}
    if sub.group or sub.version:
        entry["group"] = sub.group
        entry["version"] = sub.version
    entry["kind"] = sub.kind
    entry["verbs"] = list(sub.verbs)
    return entry


# -- aggregated discovery -----------------------------------------------------------------------


def aggregated(registry: Registry, *, legacy: bool, version: str = "v2") -> dict:
    """The APIGroupDiscoveryList for `/api` (legacy=True: the core group) or `/apis`."""
    if version not in AGGREGATED_VERSIONS:
        raise ValueError(f"unsupported aggregated discovery version {version!r}")
    items = [_group_discovery(registry, g) for g in registry.groups() if (g.name == "") == legacy]
    return {"kind": "APIGroupDiscoveryList", "apiVersion": f"{DISCOVERY_GROUP}/{version}",
            "metadata": {}, "items": items}


def _group_discovery(registry: Registry, group: GroupInfo) -> dict:
    metadata: dict = {"name": group.name} if group.name else {}
    metadata["creationTimestamp"] = None
    versions = [{"version": v,
                 "resources": [_resource_discovery(r) for r in registry.resources_in(group.name, v)],
                 "freshness": "Current"}
                for v in group.versions]
    return {"metadata": metadata, "versions": versions}


def _resource_discovery(r: ResourceInfo) -> dict:
    entry: dict = {"resource": r.resource, "responseKind": {"group": "", "version": "", "kind": r.kind},
                   "scope": r.scope, "singularResource": r.singular, "verbs": list(r.verbs)}
    if r.short_names:
        entry["shortNames"] = list(r.short_names)
    if r.categories:
        entry["categories"] = list(r.categories)
    if r.subresources:
        entry["subresources"] = [
            {"subresource": s.name, "responseKind": {"group": s.group, "version": s.version, "kind": s.kind},
             "verbs": list(s.verbs)}
            for s in r.subresources
        ]
    return entry


# -- cache --------------------------------------------------------------------------------------


class Discovery:
    """Rendered discovery documents of one registry, rebuilt after CRD changes.

    Each getter returns the encoded body (bytes) or None when the path is not served.
    """

    def __init__(self, registry: Registry, server_address: str = DEFAULT_SERVER_ADDRESS):
        self.registry = registry
        self.server_address = server_address
        self._generation = -1
        self._cache: dict[tuple, bytes | None] = {}

    def _get(self, key: tuple, build) -> bytes | None:
        if self._generation != self.registry.generation:
            self._cache.clear()
            self._generation = self.registry.generation
        if key not in self._cache:
            doc = build()
            self._cache[key] = None if doc is None else encode(doc)
        return self._cache[key]

    def api(self) -> bytes:
        return self._get(("api",), lambda: api_versions(self.server_address))

    def apis(self) -> bytes:
        return self._get(("apis",), lambda: api_group_list(self.registry))

    def group(self, group: str) -> bytes | None:
        return self._get(("group", group), lambda: api_group(self.registry, group))

    def resources(self, group: str, version: str) -> bytes | None:
        return self._get(("resources", group, version), lambda: api_resource_list(self.registry, group, version))

    def aggregated(self, *, legacy: bool, version: str = "v2") -> bytes:
        return self._get(("aggregated", legacy, version),
                         lambda: aggregated(self.registry, legacy=legacy, version=version))

    def version(self) -> bytes:
        # The real server indents /version (and only it).
        return _encode_indented(version_info())
