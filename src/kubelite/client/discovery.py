"""Discovery: what resources a server serves, and what the user means by `po` or `deploy.apps`.

The server's aggregated discovery documents (`/api` and `/apis` asked for as
APIGroupDiscoveryList) are read into a `Registry` (kubelite.server.resources), whose
`resolve()` implements kubectl's REST mapper rules: short names, plural, singular, kind,
`resource.group`, `resource.version.group`.

For HTTP servers the documents are cached on disk per server (under
`$KUBELITE_HOME/cache/discovery/<host_port>/`), like kubectl's discovery cache: reused for six
hours, and refetched at once (with If-None-Match, so an unchanged server answers 304) when a
name or kind is not found in them - which is how a just-established CRD shows up. The
embedded cluster is asked afresh every time (it answers in-process).
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import time
from typing import Any

from kubelite.client.errors import ApiError, ClientError, ResourceTypeNotFound

AGGREGATED_ACCEPT = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                     "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
                     "application/json")
CACHE_TTL_SECONDS = 6 * 3600


class KindNotFound(ClientError):
    """No resource serves objects of this apiVersion/kind (kubectl's `no matches for kind`)."""

    def __init__(self, api_version: str, kind: str):
        self.api_version, self.kind = api_version, kind
        super().__init__(f'no matches for kind "{kind}" in version "{api_version}"')


class Discovery:
    def __init__(self, transport, cache_dir: pathlib.Path | None = None, ttl: float = CACHE_TTL_SECONDS):
        self.transport = transport
        self.cache_dir = None if transport.embedded else cache_dir
        self.ttl = ttl
        self._registry = None
        self._fresh = False  # fetched from the server during this run

    # -- queries -----------------------------------------------------------------------------------

    @property
    def registry(self):
        if self._registry is None:
            self._load()
        return self._registry

    def resolve(self, name: str):
        """The ResourceInfo for what the user typed; ResourceTypeNotFound if none."""
        from kubelite.server.resources import ResourceNotFound

        try:
            return self.registry.resolve(name)
        except ResourceNotFound:
            if self.refresh():
                try:
                    return self.registry.resolve(name)
                except ResourceNotFound:
                    pass
        raise _type_not_found(name)

    def category(self, name: str) -> list:
        """Resources in a category (`all`), or [] when no resource has it."""
        found = self.registry.by_category(name)
        return found

    def for_kind(self, api_version: str, kind: str):
        """The resource whose objects are `kind` at `api_version` (for objects read from files)."""
        group, _, version = api_version.rpartition("/")
        found = self.registry.by_kind(group, version, kind)
        if found is None and self.refresh():
            found = self.registry.by_kind(group, version, kind)
        if found is None:
            raise KindNotFound(api_version, kind)
        return found

    def preferred(self) -> list:
        return self.registry.preferred()

    # -- loading -----------------------------------------------------------------------------------

    def invalidate(self) -> None:
        """Let the next refresh() (or lookup miss) refetch even if this run already did:
        the caller changed what the server serves (created a CRD, say)."""
        self._fresh = False

    def refresh(self) -> bool:
        """Refetch from the server unless this run already did; True if anything was refetched."""
        if self._fresh:
            return False
        self._registry = None
        self._load(force=True)
        return True

    def _load(self, force: bool = False) -> None:
        from kubelite.server.resources import Registry

        docs = [self._document("api", force), self._document("apis", force)]
        try:
            self._registry = Registry.from_discovery(*docs)
        except ValueError as err:
            raise ClientError(f"error: unable to read the server's discovery documents: {err}") from None

    def _document(self, which: str, force: bool) -> dict:
        cached = self._read_cache(which)
        if cached is not None and not force and time.time() - cached["time"] < self.ttl:
            return cached["body"]
        headers = {"If-None-Match": cached["etag"]} if cached and cached.get("etag") else None
        response = self.transport.request("GET", f"/{which}", accept=AGGREGATED_ACCEPT, headers=headers, ok=(304,))
        self._fresh = True
        if response.status_code == 304 and cached is not None:
            self._write_cache(which, cached["body"], cached.get("etag"))
            return cached["body"]
        body = response.json()
        if not isinstance(body, dict) or body.get("kind") != "APIGroupDiscoveryList":
            raise ClientError("error: the server does not serve aggregated discovery "
                              "(apidiscovery.k8s.io/v2), which kubelite needs")
        self._write_cache(which, body, response.headers.get("etag"))
        return body

    # -- disk cache --------------------------------------------------------------------------------

    def _cache_file(self, which: str) -> pathlib.Path | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / f"{which}.json"

    def _read_cache(self, which: str) -> dict | None:
        path = self._cache_file(which)
        if path is None:
            return None
        try:
            doc = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(doc, dict) or not isinstance(doc.get("body"), dict) or not isinstance(
                doc.get("time"), (int, float)):
            return None
        return doc

    def _write_cache(self, which: str, body: dict, etag: str | None) -> None:
        path = self._cache_file(which)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"time": time.time(), "etag": etag, "body": body}))
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written only costs speed


def cache_dir_for(home: pathlib.Path, server_host: str) -> pathlib.Path:
    """kubectl's per-server cache folder naming: host_port with unsafe characters replaced."""
    return home / "cache" / "discovery" / re.sub(r"[^a-zA-Z0-9_.\-]", "_", server_host.replace(":", "_"))


def _type_not_found(name: str) -> ResourceTypeNotFound:
    parts = name.strip().split(".", 1)
    if len(parts) == 2:
        return ResourceTypeNotFound(parts[0], parts[1])
    return ResourceTypeNotFound(name.strip())


def api_error_is(err: Any, code: int) -> bool:
    return isinstance(err, ApiError) and err.code == code
