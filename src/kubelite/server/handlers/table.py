"""Server-side printing: `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`.

Minimal for now: every kind gets kube-apiserver's default NAME / AGE columns (custom
resources also get their additionalPrinterColumns when they are simple JSON paths).
"""
from __future__ import annotations

import datetime

from kubelite.server import errors
from kubelite.server.handlers.http import Request

_NAME_COLUMN = {
    "name": "Name", "type": "string", "format": "name",
    "description": "Name must be unique within a namespace. Is required when creating resources, although "
                   "some resources may allow a client to request the generation of an appropriate name "
                   "automatically. Name is primarily intended for creation idempotence and configuration "
                   "definition. Cannot be updated. More info: "
                   "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
    "priority": 0,
}
_AGE_COLUMN = {
    "name": "Age", "type": "date", "format": "",
    "description": "CreationTimestamp is a timestamp representing the server time when this object was "
                   "created. It is not guaranteed to be set in happens-before order across separate "
                   "operations. Clients may not set this value. It is represented in RFC3339 form and is "
                   "in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
                   "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    "priority": 0,
}


def wants_table(request: Request) -> bool:
    accept = request.header("accept") or ""
    for part in accept.split(","):
        params = [p.strip() for p in part.split(";")]
        if "as=Table" in params:
            if "application/vnd.kubernetes.protobuf" in params[0]:
                continue
            return True
    return False


def table_version(request: Request) -> str:
    accept = request.header("accept") or ""
    for part in accept.split(","):
        params = [p.strip() for p in part.split(";")]
        if "as=Table" in params and not params[0].endswith("protobuf"):
            return "v1beta1" if "v=v1beta1" in params else "v1"
    return "v1"


def to_table(r, body: dict, request: Request) -> dict:
    include = request.query.get("includeObject") or "Metadata"
    if include not in ("None", "Metadata", "Object"):
        raise errors.bad_request(f'includeObject: Unsupported value: "{include}"')
    is_list = "items" in body and body.get("kind", "").endswith("List")
    items = body["items"] if is_list else [body]
    columns = [dict(_NAME_COLUMN)]
    extra = _printer_columns(r)
    columns.extend(c for c, _ in extra)
    if not any(c["name"] == "Age" for c, _ in extra):
        columns.append(dict(_AGE_COLUMN))
    rows = []
    now = datetime.datetime.now(datetime.timezone.utc)
    for item in items:
        meta = item.get("metadata") or {}
        cells = [meta.get("name", "")]
        for column, path in extra:
            cells.append(_cell(item, path, column, now))
        if not any(c["name"] == "Age" for c, _ in extra):
            cells.append(human_age(meta.get("creationTimestamp"), now))
        row = {"cells": cells, "object": _row_object(r, item, include)}
        if include == "None":
            row.pop("object")
        rows.append(row)
    metadata = {"resourceVersion": (body.get("metadata") or {}).get("resourceVersion", "")}
    if is_list and body["metadata"].get("continue"):
        metadata["continue"] = body["metadata"]["continue"]
    return {"kind": "Table", "apiVersion": f"meta.k8s.io/{table_version(request)}", "metadata": metadata,
            "columnDefinitions": columns, "rows": rows}


def _row_object(r, item: dict, include: str) -> dict:
    if include == "Object":
        full = dict(item)
        full.setdefault("kind", r.kind)
        full.setdefault("apiVersion", r.api_version)
        return full
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": item.get("metadata") or {}}


def _printer_columns(r):
    out = []
    for col in getattr(r, "printer_columns", ()) or ():
        path = col.get("jsonPath", "")
        if not path.startswith("."):
            continue
        column = {"name": col.get("name", ""), "type": col.get("type", "string"),
                  "format": col.get("format", ""), "description": col.get("description", ""),
                  "priority": col.get("priority", 0)}
        out.append((column, path))
    return out


def _cell(obj, path: str, column: dict, now):
    node = obj
    for part in path.strip(".").split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    if column["type"] == "date" and isinstance(node, str):
        return human_age(node, now)
    return node


def human_age(timestamp: str | None, now: datetime.datetime) -> str:
    if not timestamp:
        return "<unknown>"
    try:
        created = datetime.datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc)
    except ValueError:
        return "<unknown>"
    return human_duration(int((now - created).total_seconds()))


def human_duration(seconds: int) -> str:
    """kubectl's human-readable duration (2m10s, 5h, 3d4h, 2y30d...)."""
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        seconds = 0
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y{days}d" if days else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"
