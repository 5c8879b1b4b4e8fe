"""`kubelite get --server-print=false`: the NAME/AGE table kubectl builds itself from plain
objects when it does not ask the server for a Table."""
from __future__ import annotations

import datetime

_COLUMNS = [{"name": "Name", "type": "string", "format": "name", "priority": 0},
            {"name": "Age", "type": "string", "priority": 0}]


def as_table(response: dict, listed: bool) -> dict:
    """A Table for one GET answer: one row per item of a list, or one for a named object."""
    items = response.get("items") if listed else None
    objects = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else [response]
    now = datetime.datetime.now(datetime.timezone.utc)
    return {"kind": "Table", "columnDefinitions": _COLUMNS, "rows": [_row(obj, now) for obj in objects]}


def _row(obj: dict, now: datetime.datetime) -> dict:
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return {"cells": [str(metadata.get("name") or ""), age(metadata.get("creationTimestamp"), now)], "object": obj}


def age(timestamp, now: datetime.datetime) -> str:
    """The time since an RFC 3339 timestamp as kubectl shows it; <unknown> when there is none."""
    from kubelite.manifest.table import human_duration

    if not isinstance(timestamp, str) or not timestamp:
        return "<unknown>"
    try:
        then = datetime.datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return "<unknown>"
    if then.tzinfo is None:
        then = then.replace(tzinfo=datetime.timezone.utc)
    return human_duration((now - then).total_seconds())
