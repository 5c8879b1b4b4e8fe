"""A dynamic resource client: get/list/create/replace/patch/delete/watch on plain dict objects.

Resources are `ResourceInfo`s from discovery (group, version, plural, scope). Every method
raises `ApiError` (carrying the server's Status) on failure.

`Session` ties a kubeconfig selection, a transport, discovery and this client together; it
is what commands open.
"""
from __future__ import annotations

import json
from urllib.parse import quote

from kubelite.client.errors import ApiError
from kubelite.record import Record

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Iterator

JSON = "application/json"
TABLE_ACCEPT = ("application/json;as=Table;v=v1;g=meta.k8s.io,"
                "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json")
PATCH_TYPES = {
    "json": "application/json-patch+json",
    "merge": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}


class WriteParams(Record):
    dry_run: bool = False  # server-side dry run
    field_manager: str = ""
    field_validation: str = ""  # Strict | Warn | Ignore

    def query(self) -> dict:
        return {"dryRun": "All" if self.dry_run else None, "fieldManager": self.field_manager or None,
                "fieldValidation": self.field_validation or None}


def resource_path(r, namespace: str | None = None, name: str | None = None, subresource: str | None = None) -> str:
    base = f"/apis/{r.group}/{r.version}" if r.group else f"/api/{r.version}"
    if r.namespaced and namespace:
        base += f"/namespaces/{quote(namespace, safe='')}"
    base += f"/{r.resource}"
    if name is not None:
        base += f"/{quote(name, safe='')}"
        if subresource:
            base += f"/{subresource}"
    return base


class DynamicClient:
    def __init__(self, transport):
        self.transport = transport

    # -- reads -----------------------------------------------------------------------------------

    def get(self, r, name: str, namespace: str | None = None, *, accept: str | None = None,
            params: dict | None = None, subresource: str | None = None) -> dict:
        return self.transport.json("GET", resource_path(r, namespace, name, subresource), accept=accept or JSON,
                                   params=params)

    def list(self, r, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None, limit: int | None = None, continue_token: str | None = None,
             accept: str | None = None, params: dict | None = None) -> dict:
        query = {"labelSelector": label_selector, "fieldSelector": field_selector,
                 "limit": str(limit) if limit else None, "continue": continue_token, **(params or {})}
        return self.transport.json("GET", resource_path(r, namespace), accept=accept or JSON, params=query)

    def list_pages(self, r, namespace: str | None = None, *, chunk_size: int = 500, **kwargs) -> Iterator[dict]:
        """Each page of a list, following `continue` tokens (kubectl's --chunk-size)."""
        token = None
        while True:
            page = self.list(r, namespace, limit=chunk_size if chunk_size > 0 else None, continue_token=token,
                             **kwargs)
            yield page
            token = (page.get("metadata") or {}).get("continue")
            if not token or chunk_size <= 0:
                return

    def watch(self, r, namespace: str | None = None, *, name: str | None = None,
              resource_version: str | None = None, label_selector: str | None = None,
              field_selector: str | None = None, accept: str | None = None, timeout: float | None = None,
              params: dict | None = None) -> Iterator[dict]:
        """Watch events ({type, object}) until the server ends the stream."""
        if name:
            field_selector = f"metadata.name={name}" + (f",{field_selector}" if field_selector else "")
        query = {"watch": "true", "resourceVersion": resource_version, "labelSelector": label_selector,
                 "fieldSelector": field_selector, "allowWatchBookmarks": None, **(params or {})}
        for line in self.transport.stream("GET", resource_path(r, namespace), params=query, accept=accept or JSON,
                                          timeout=timeout):
            if line.strip():
                yield json.loads(line)

    # -- writes ----------------------------------------------------------------------------------

    def create(self, r, namespace: str | None, obj: dict, params: WriteParams | None = None) -> dict:
        return self._write("POST", resource_path(r, namespace), obj, params)

    def replace(self, r, namespace: str | None, name: str, obj: dict, params: WriteParams | None = None,
                subresource: str | None = None) -> dict:
        return self._write("PUT", resource_path(r, namespace, name, subresource), obj, params)

    def patch(self, r, namespace: str | None, name: str, patch: Any, patch_type: str = "strategic",
              params: WriteParams | None = None, subresource: str | None = None, force: bool | None = None) -> dict:
        body = patch if isinstance(patch, (bytes, str)) else json.dumps(patch)
        body = body.encode() if isinstance(body, str) else body
        query = (params or WriteParams()).query()
        if force is not None:
            query["force"] = "true" if force else "false"
        return self.transport.json("PATCH", resource_path(r, namespace, name, subresource), body=body,
                                   content_type=PATCH_TYPES.get(patch_type, patch_type), accept=JSON, params=query)

    def delete(self, r, namespace: str | None, name: str, *, propagation_policy: str | None = None,
               grace_period_seconds: int | None = None, dry_run: bool = False,
               preconditions: dict | None = None) -> dict:
        return self.transport.json("DELETE", resource_path(r, namespace, name), accept=JSON,
                                   body=_delete_options(propagation_policy, grace_period_seconds, dry_run,
                                                        preconditions),
                                   content_type=JSON)

    def delete_collection(self, r, namespace: str | None, *, label_selector: str | None = None,
                          field_selector: str | None = None, propagation_policy: str | None = None,
                          grace_period_seconds: int | None = None, dry_run: bool = False) -> dict:
        return self.transport.json("DELETE", resource_path(r, namespace), accept=JSON,
                                   params={"labelSelector": label_selector, "fieldSelector": field_selector},
                                   body=_delete_options(propagation_policy, grace_period_seconds, dry_run, None),
                                   content_type=JSON)

    def _write(self, method: str, path: str, obj: dict, params: WriteParams | None) -> dict:
        body = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()
        return self.transport.json(method, path, body=body, content_type=JSON, accept=JSON,
                                   params=(params or WriteParams()).query())


def _delete_options(propagation: str | None, grace: int | None, dry_run: bool, preconditions: dict | None) -> bytes:
    opts: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1"}
    if propagation:
        opts["propagationPolicy"] = propagation
    if grace is not None:
        opts["gracePeriodSeconds"] = grace
    if dry_run:
        opts["dryRun"] = ["All"]
    if preconditions:
        opts["preconditions"] = preconditions
    return json.dumps(opts).encode()


class Session:
    """One command's connection: the selected kubeconfig entry, transport, discovery, client.

    Opened lazily: nothing touches the network (or starts the embedded cluster) until a
    property needing it is used.
    """

    def __init__(self, connection, verbosity: int = 0, transport=None):
        self.connection = connection
        self.verbosity = verbosity
        self._transport = transport  # given: an already open one (the Python API's in-process cluster)
        self._discovery = None
        self._client = None

    @classmethod
    def open(cls, overrides, verbosity: int = 0) -> "Session":
        from kubelite.client import kubeconfig

        config = kubeconfig.load(overrides.kubeconfig)
        return cls(kubeconfig.resolve(config, overrides), verbosity)

    @property
    def namespace(self) -> str:
        return self.connection.namespace

    @property
    def transport(self):
        if self._transport is None:
            from kubelite.client.transport import connect

            self._transport = connect(self.connection, self.verbosity)
        return self._transport

    @property
    def discovery(self):
        if self._discovery is None:
            from kubelite.client.discovery import Discovery, cache_dir_for
            from kubelite.home import kubelite_home

            transport = self.transport
            cache = None if transport.embedded else cache_dir_for(kubelite_home(), transport.host)
            self._discovery = Discovery(transport, cache)
        return self._discovery

    @property
    def client(self) -> DynamicClient:
        if self._client is None:
            self._client = DynamicClient(self.transport)
        return self._client

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


__all__ = ["ApiError", "DynamicClient", "Session", "WriteParams", "resource_path", "TABLE_ACCEPT", "PATCH_TYPES"]
