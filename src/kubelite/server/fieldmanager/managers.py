"""managedFields entries: decoding, encoding in kube-apiserver's order, and the cap on Update
managers ("ancient-changes")."""
from __future__ import annotations

import json

from kubelite.record import Record, factory, uncompared
from kubelite.server.fieldmanager import paths as fp

APPLY, UPDATE = "Apply", "Update"
MAX_UPDATE_MANAGERS = 10
ANCIENT_CHANGES = "ancient-changes"


class Entry(Record):
    manager: str
    operation: str
    api_version: str
    time: str | None
    subresource: str = ""
    fields: set = factory(set)
    # The stored FieldsV1 this entry was decoded from, and its set then: re-encoding an
    # untouched entry reuses it (most entries of most writes are untouched).
    raw: dict | None = uncompared(None, repr=False)
    raw_fields: frozenset | None = uncompared(None, repr=False)

    @property
    def ident(self) -> tuple:
        # An applier is the same manager whatever version it applied with; an updater is not.
        return (self.manager, self.operation, self.api_version if self.operation == UPDATE else "",
                self.subresource)

    def label(self) -> str:
        """The manager as kube-apiserver names it in conflict messages."""
        text = json.dumps(self.manager)
        if self.subresource:
            text += f" with subresource {json.dumps(self.subresource)}"
        if self.operation == UPDATE:
            text += f" using {self.api_version}"
        return text

    def sort_ident(self) -> str:
        """The Go JSON of the manager identifier, by which conflict messages group managers."""
        ident = {"manager": self.manager, "operation": self.operation}
        if self.operation == UPDATE:
            ident["apiVersion"] = self.api_version
        if self.subresource:
            ident["subresource"] = self.subresource
        return json.dumps(ident, separators=(",", ":"))


def is_reset(value) -> bool:
    """`managedFields: []` or `[{}]` in an update: the client asks for them to be cleared."""
    return isinstance(value, list) and (value == [] or value == [{}])


def decode(value) -> list[Entry] | None:
    """Entries of a managedFields list; None when it is not one kube-apiserver would accept."""
    if not isinstance(value, list):
        return None
    out: list[Entry] = []
    for raw in value:
        if not isinstance(raw, dict):
            return None
        operation = raw.get("operation")
        if operation not in (APPLY, UPDATE) or raw.get("fieldsType", "FieldsV1") != "FieldsV1":
            return None
        fields_v1 = raw.get("fieldsV1") or {}
        fields = fp.decode(fields_v1)
        out.append(Entry(str(raw.get("manager") or ""), operation, str(raw.get("apiVersion") or ""),
                         raw.get("time"), str(raw.get("subresource") or ""), fields,
                         raw=fields_v1, raw_fields=frozenset(fields)))
    return out


def encode(entries: list[Entry]) -> list[dict]:
    out = []
    for e in sort(entries):
        if not e.fields:
            continue
        raw = {"manager": e.manager, "operation": e.operation, "apiVersion": e.api_version}
        if e.time:
            raw["time"] = e.time
        raw["fieldsType"] = "FieldsV1"
        raw["fieldsV1"] = e.raw if e.raw is not None and e.raw_fields == e.fields else fp.encode(e.fields)
        if e.subresource:
            raw["subresource"] = e.subresource
        out.append(raw)
    return out


def sort(entries: list[Entry]) -> list[Entry]:
    """Apply before Update, then by time (seconds), manager, apiVersion, subresource."""
    return sorted(entries, key=lambda e: (e.operation, e.time or "", e.manager, e.api_version, e.subresource))


def find(entries: list[Entry], ident: tuple) -> Entry | None:
    for e in entries:
        if e.ident == ident:
            return e
    return None


def cap(entries: list[Entry], limit: int = MAX_UPDATE_MANAGERS) -> list[Entry]:
    """At most `limit` Update entries: the oldest are folded into one "ancient-changes" entry."""
    updates = [e for e in entries if e.operation == UPDATE]
    if len(updates) <= limit:
        return entries
    updates.sort(key=lambda e: (e.time or "", e.manager))
    keep = list(entries)
    ancient = next((e for e in updates if e.manager == ANCIENT_CHANGES), None)
    while len([e for e in keep if e.operation == UPDATE]) > limit:
        oldest = next(e for e in updates if e in keep and e is not ancient)
        keep.remove(oldest)
        if ancient is None:
            ancient = Entry(ANCIENT_CHANGES, UPDATE, oldest.api_version, oldest.time, "", set(oldest.fields))
            keep.append(ancient)
        else:
            ancient.fields |= oldest.fields
            ancient.time = max(ancient.time or "", oldest.time or "") or None
    return keep
