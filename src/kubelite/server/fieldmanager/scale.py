"""Server-side apply to /scale: the Scale's spec.replicas is the parent's replicas field, and its
ownership moves between the parent's managedFields and the Scale's, as kube-apiserver's scale
handler maps it."""
from __future__ import annotations

import copy
from dataclasses import dataclass

from kubelite.server import errors
from kubelite.server.fieldmanager import applybody
from kubelite.server.fieldmanager import managers as mf

_REPLICAS = ("f:spec", "f:replicas")


@dataclass(frozen=True)
class _ScaleResource:
    """autoscaling/v1 Scale, shaped like a registry resource for the field manager."""

    group: str = "autoscaling"
    version: str = "v1"
    kind: str = "Scale"
    crd: str | None = None
    schema: object = None

    @property
    def api_version(self) -> str:
        return "autoscaling/v1"

    def subresource(self, name: str):
        return object() if name == "status" else None


SCALE = _ScaleResource()


def _parent_path(r) -> tuple:
    from kubelite.server.core import _scale_paths

    spec_path = _scale_paths(r)[0]
    return tuple("f:" + part for part in spec_path.strip(".").split("."))


def apply(api, r, namespace: str, name: str, body: bytes, opts):
    """Apply a Scale to the parent object; answers the parent's Scale."""
    from kubelite.server.core import Result, _set

    config = applybody.decode(body)
    applybody.check(SCALE, config, name)
    kv = api.store.get(api._key(r, namespace, name))
    if kv is None:
        raise errors.not_found(r.group, f"{r.resource}/scale", name)
    old = api._decode(r, kv)
    parent_path = _parent_path(r)
    scale = api._scale_of(r, old)
    entries = mf.decode(old["metadata"].get("managedFields")) or []
    # In the Scale's view every owner of replicas speaks autoscaling/v1 (conflicts say so).
    scale_entries = [mf.Entry(e.manager, e.operation, SCALE.api_version, e.time, e.subresource, {_REPLICAS})
                     for e in entries if parent_path in e.fields]
    live = copy.deepcopy(scale)
    if scale_entries:
        live["metadata"]["managedFields"] = mf.encode(scale_entries)
    else:
        live["metadata"].pop("managedFields", None)
    applied, _ = api.fields.apply(SCALE, live, config, opts.field_manager, opts.force, "scale")
    if r.crd:
        raise errors.server_error(
            f"failed to convert new object (/{name}; autoscaling/v1, Kind=Scale) to proper version: request to "
            "convert CR to an invalid group/version: autoscaling/v1")
    replicas = (applied.get("spec") or {}).get("replicas", 0)
    new = copy.deepcopy(old)
    _set(new, "." + ".".join(p[2:] for p in parent_path), replicas)
    api._bump_generation(r, old, new)
    new["metadata"]["managedFields"] = mf.encode(_to_parent(r, entries, applied, parent_path))
    if not new["metadata"]["managedFields"]:
        del new["metadata"]["managedFields"]
    result = api._store_update(r, old, new, kv.mod_revision, opts, "scale")
    return Result(api._scale_of(r, result.obj), warnings=result.warnings)


def _who(e) -> tuple:
    return (e.manager, e.operation, e.subresource)


def _to_parent(r, entries: list, applied: dict, parent_path: tuple) -> list:
    """The parent's entries after the Scale apply: replicas owned as the Scale's entries own it."""
    owners = {_who(e): e for e in mf.decode(applied["metadata"].get("managedFields")) or []
              if _REPLICAS in e.fields and e.manager != "before-first-apply"}
    out = []
    for e in entries:
        e.fields.discard(parent_path)
        if _who(e) in owners:
            e.fields.add(parent_path)
            owners.pop(_who(e))
        out.append(e)
    for e in owners.values():
        out.append(mf.Entry(e.manager, e.operation, r.api_version, None, e.subresource, {parent_path}))
    return [e for e in out if e.fields]
