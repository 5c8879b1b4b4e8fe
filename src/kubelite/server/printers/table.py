"""Building the meta.k8s.io Table kube-apiserver returns for `Accept: ...;as=Table`."""
from __future__ import annotations

import datetime
from collections.abc import Mapping

from kubelite.server.printers.custom import custom_resource_printer, default_printer
from kubelite.server.printers.formats import to_now
from kubelite.server.printers.registry import Printer

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import Any

# The resources whose printers printers.workloads builds (pods and what runs them); every other
# built-in printer is printers.cluster's. A Table loads (and builds the printers of) its resource's
# module only: `get ns` does without the workloads', `get pods` without the cluster's.
WORKLOAD_RESOURCES = frozenset({
    ("", "pods"), ("", "podtemplates"), ("", "replicationcontrollers"), ("apps", "replicasets"),
    ("apps", "deployments"), ("apps", "statefulsets"), ("apps", "daemonsets"), ("apps", "controllerrevisions"),
    ("batch", "jobs"), ("batch", "cronjobs"), ("policy", "poddisruptionbudgets"),
    ("autoscaling", "horizontalpodautoscalers"),
})
INCLUDE_OBJECT = ("None", "Metadata", "Object")
TABLE_VERSIONS = ("v1", "v1beta1")


class TableError(ValueError):
    """A request for a Table the server cannot build; the message names the bad value."""


def _attr(info: Any, name: str, default: Any = None) -> Any:
    if isinstance(info, Mapping):
        return info.get(name, default)
    return getattr(info, name, default)


def printer_for(info: Any) -> Printer:
    """The printer of a resource: built-in printer, CRD columns, or the default Name / Created At."""
    group = _attr(info, "group", "") or ""
    resource = _attr(info, "resource", "") or ""
    is_custom = bool(_attr(info, "crd")) or bool(_attr(info, "custom", False))
    if is_custom:
        return custom_resource_printer(_attr(info, "printer_columns", ()) or ())
    found = _builtin((group, resource))
    if found is not None:
        return found
    if _attr(info, "printer_columns"):
        return custom_resource_printer(_attr(info, "printer_columns"))
    return default_printer()


def _builtin(key: tuple[str, str]) -> Printer | None:
    if key in WORKLOAD_RESOURCES:
        from kubelite.server.printers.workloads import PRINTERS
    else:
        from kubelite.server.printers.cluster import PRINTERS
    return PRINTERS.get(key)


def __getattr__(name: str):
    if name == "BUILTIN_PRINTERS":  # every built-in printer (both modules), for whoever asks for all
        from kubelite.server.printers.cluster import PRINTERS as cluster
        from kubelite.server.printers.workloads import PRINTERS as workloads

        return {**workloads, **cluster}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _row_object(obj: dict, info: Any, include: str, table_version: str) -> Any:
    if include == "None":
        return None
    if include == "Object":
        if "kind" in obj and "apiVersion" in obj:
            return obj
        full = {"kind": _attr(info, "kind", ""), "apiVersion": _api_version(info)}
        full.update(obj)
        return full
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return {"kind": "PartialObjectMetadata", "apiVersion": f"meta.k8s.io/{table_version}",
            "metadata": _internal_metadata(metadata, info)}


# apps/v1 DaemonSets show spec.templateGeneration as this annotation; the server builds the
# row metadata from its internal object, which keeps it as a field instead.
_DAEMONSET_GENERATION = "deprecated.daemonset.template.generation"


def _internal_metadata(metadata: dict, info: Any) -> dict:
    annotations = metadata.get("annotations")
    if (_attr(info, "group") == "apps" and _attr(info, "resource") == "daemonsets"
            and isinstance(annotations, dict) and _DAEMONSET_GENERATION in annotations):
        metadata = dict(metadata)
        rest = {k: v for k, v in annotations.items() if k != _DAEMONSET_GENERATION}
        if rest:
            metadata["annotations"] = rest
        else:
            metadata.pop("annotations")
    return metadata


def _api_version(info: Any) -> str:
    group, version = _attr(info, "group", "") or "", _attr(info, "version", "") or ""
    return f"{group}/{version}" if group else version


def _table_metadata(objects: Any, list_meta: Mapping | None) -> dict:
    if isinstance(objects, dict):
        source = objects.get("metadata") if isinstance(objects.get("metadata"), dict) else {}
        return {"resourceVersion": source["resourceVersion"]} if source.get("resourceVersion") else {}
    meta: dict = {}
    list_meta = list_meta or {}
    if list_meta.get("resourceVersion"):
        meta["resourceVersion"] = list_meta["resourceVersion"]
    if list_meta.get("continue"):
        meta["continue"] = list_meta["continue"]
    if list_meta.get("remainingItemCount") is not None:
        meta["remainingItemCount"] = list_meta["remainingItemCount"]
    return meta


def build_table(resource_info_like: Any, objects: Any, *, now: datetime.datetime | str | None = None,
                include_object: str = "Metadata", list_meta: Mapping | None = None,
                table_version: str = "v1", with_columns: bool = True) -> dict:
    """The Table for `objects` of one resource, as kube-apiserver 1.32 renders it.

    `resource_info_like` is anything with `group`, `resource`, `kind` (and `version`,
    `crd`, `printer_columns` for custom resources) as attributes or mapping keys.
    `objects` is a list of objects (a list response; `list_meta` gives its
    resourceVersion / continue / remainingItemCount) or one object (a single GET: the
    table carries that object's resourceVersion). `include_object` is the request's
    includeObject (None, Metadata, Object). `with_columns=False` leaves
    columnDefinitions null, as watch events after the first one carry them.
    """
    if include_object not in INCLUDE_OBJECT:
        raise TableError(f'includeObject: Unsupported value: "{include_object}": supported values: '
                         '"Metadata", "None", "Object"')
    if table_version not in TABLE_VERSIONS:
        raise TableError(f"table_version: unsupported value {table_version!r} (v1 or v1beta1)")
    if isinstance(objects, dict):
        items = [objects]
    elif isinstance(objects, (list, tuple)):
        items = list(objects)
    else:
        raise TableError("objects: expected an object or a list of objects")
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise TableError(f"objects[{index}]: expected an object, got {type(item).__name__}")
    printer = printer_for(resource_info_like)
    moment = to_now(now)
    if printer.order is not None:
        items = printer.order(items)
    rows = []
    for item in items:
        row = printer.row(item, moment)
        entry: dict = {"cells": row.cells}
        if row.conditions:
            entry["conditions"] = row.conditions
        entry["object"] = _row_object(item, resource_info_like, include_object, table_version)
        rows.append(entry)
    return {
        "kind": "Table",
        "apiVersion": f"meta.k8s.io/{table_version}",
        "metadata": _table_metadata(objects, list_meta),
        "columnDefinitions": printer.column_definitions() if with_columns else None,
        "rows": rows,
    }
