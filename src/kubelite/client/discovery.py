"""Discovery: what resources a server serves, and what the user means by `po` or `deploy.apps`.

The server's aggregated discovery documents (`/api` and `/apis` asked for as
APIGroupDiscoveryList, v2 or v2beta1) are read into a `Registry` (kubelite.server.resources), whose
`resolve()` implements kubectl's REST mapper rules: short names, plural, singular, kind,
`resource.group`, `resource.version.group`. A server without aggregated discovery answers with
the legacy documents instead (APIVersions, APIGroupList, then one APIResourceList per
group-version), which are folded into the aggregated shape.

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
import sys
import time

from kubelite.client.errors import ApiError, ClientError, ResourceTypeNotFound

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any

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
        body = _json_body(response, f"/{which}")
        etag = response.headers.get("etag")
        if body.get("kind") != "APIGroupDiscoveryList":
            # An older server (or an aggregator without apidiscovery): read the legacy documents.
            body, etag = legacy_aggregated(self.transport, which, body), None
        self._write_cache(which, body, etag)
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


# -- legacy discovery ------------------------------------------------------------------------------
# Servers before aggregated discovery (Kubernetes < 1.26, or with the feature off) answer /api
# with APIVersions and /apis with APIGroupList; each group-version then lists its resources in an
# APIResourceList. kubectl reads them all; kubelite does too, and folds them into the aggregated
# shape so the rest of the client sees one kind of document.

LEGACY_FETCH_WORKERS = 8


def legacy_aggregated(transport, which: str, root: dict) -> dict:
    """An APIGroupDiscoveryList built from a legacy /api (APIVersions) or /apis (APIGroupList)
    document and the APIResourceList of each group-version it names."""
    groups = _legacy_groups(which, root)
    paths = [_group_version_path(group, version) for group, versions in groups for version in versions]
    lists = dict(zip(paths, _fetch_all(transport, paths)))
    items = []
    for group, versions in groups:
        served = [(v, lists[_group_version_path(group, v)]) for v in versions]
        served = [(v, doc) for v, doc in served if doc is not None]
        if served:
            items.append({"metadata": {"name": group},
                          "versions": [_aggregated_version(v, doc) for v, doc in served]})
    return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "items": items}


def _legacy_groups(which: str, root: dict) -> list[tuple[str, list[str]]]:
    """(group, versions with the preferred one first) named by a legacy root document."""
    kind = root.get("kind")
    if which == "api" and (kind == "APIVersions" or "versions" in root):
        versions = [v for v in root.get("versions") or () if isinstance(v, str)]
        return [("", versions)] if versions else []
    if which == "apis" and (kind == "APIGroupList" or "groups" in root):
        found = []
        for entry in root.get("groups") or ():
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            versions = [v.get("version") for v in entry.get("versions") or ()
                        if isinstance(v, dict) and isinstance(v.get("version"), str)]
            preferred = (entry.get("preferredVersion") or {}).get("version")
            if preferred in versions:
                versions.remove(preferred)
                versions.insert(0, preferred)
            if versions:
                found.append((entry["name"], versions))
        return found
    raise ClientError(f"error: the server's /{which} is neither an aggregated discovery document nor "
                      f"{'APIVersions' if which == 'api' else 'APIGroupList'} (kind {kind!r})")


def _group_version_path(group: str, version: str) -> str:
    return f"/apis/{group}/{version}" if group else f"/api/{version}"


def _fetch_all(transport, paths: list[str]) -> list[dict | None]:
    """Each path's APIResourceList, fetched concurrently as kubectl does; None for a
    group-version that fails (kubectl, too, goes on with the groups it could read)."""
    def fetch(path: str) -> dict | None:
        try:
            return _json_body(transport.request("GET", path, accept="application/json"), path)
        except ClientError as err:
            gv = path.split("/", 2)[2] if path.startswith("/apis/") else path.rsplit("/", 1)[1]
            # kubectl's error line for a group-version it could not read (it carries on without it)
            print(f"E{time.strftime('%m%d %H:%M:%S')} couldn't get resource list for {gv}: {err}",
                  file=sys.stderr, flush=True)
            return None

    if len(paths) <= 1:
        return [fetch(p) for p in paths]
    from kubelite.client.workers import Pool

    with Pool(min(LEGACY_FETCH_WORKERS, len(paths))) as pool:
        return pool.map(fetch, paths)


def _aggregated_version(version: str, resource_list: dict) -> dict:
    """One APIVersionDiscovery from an APIResourceList: `deployments/scale` style entries become
    the subresources of their parent."""
    parents: dict[str, dict] = {}
    subresources: list[tuple[str, str, dict]] = []
    for r in resource_list.get("resources") or ():
        if not isinstance(r, dict) or not isinstance(r.get("name"), str):
            continue
        name = r["name"]
        if "/" in name:
            parent, _, sub = name.partition("/")
            subresources.append((parent, sub, r))
            continue
        entry = {"resource": name, "responseKind": {"group": r.get("group", ""), "version": r.get("version", ""),
                                                    "kind": r.get("kind", "")},
                 "scope": "Namespaced" if r.get("namespaced") else "Cluster",
                 "singularResource": r.get("singularName") or str(r.get("kind", "")).lower(),
                 "verbs": list(r.get("verbs") or ())}
        if r.get("shortNames"):
            entry["shortNames"] = list(r["shortNames"])
        if r.get("categories"):
            entry["categories"] = list(r["categories"])
        parents[name] = entry
    for parent, sub, r in subresources:
        if parent in parents:
            parents[parent].setdefault("subresources", []).append(
                {"subresource": sub, "responseKind": {"group": r.get("group", ""), "version": r.get("version", ""),
                                                      "kind": r.get("kind", "")},
                 "verbs": list(r.get("verbs") or ())})
    return {"version": version, "resources": list(parents.values()), "freshness": "Current"}


def _json_body(response, path: str) -> dict:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise ClientError(f"error: the server's answer to GET {path} is not a JSON object")
    return body


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
