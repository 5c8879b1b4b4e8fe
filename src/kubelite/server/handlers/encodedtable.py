"""A LIST as a Table from cached items (kubelite.server.listcache), byte for byte the ordinary one.

A Table row's cells can depend on the time (ages), so they are printed for every request; what
stays the same while the object does is kept: the decoded object the printer reads, and the
encoded `object` of its row (PartialObjectMetadata, or the whole object). The Table is encoded
with a mark in each row's `object` and the kept bytes go in the marks' places.
"""
from __future__ import annotations

from kubelite.server import listcache
from kubelite.server.handlers import table
from kubelite.server.handlers.http import Request, Response, encode_json
from kubelite.server.printers import table as printers


class _Declined(Exception):
    """Something this path does not reproduce exactly: answer the ordinary way."""


def respond(api, request: Request, r, namespace: str, opts) -> Response | None:
    """The Table, or None to answer the ordinary way (called by encodedlist.respond, which has
    checked the request is one it answers)."""
    include = request.query.get("includeObject") or "Metadata"
    version = table.table_version(request)
    printer = printers.printer_for(r)
    if include not in printers.INCLUDE_OBJECT or printer.order is not None:
        return None
    from kubelite.server.handlers.encodedlist import cached_entries

    read = cached_entries(api, listcache.ListFrame(r), r, namespace, opts, keep_object=True)
    if read is None:
        return None
    entries, metadata = read
    try:
        return Response(body=_encode(r, printer, entries, metadata, include, version, api.clock.now()))
    except (_Declined, printers.TableError):  # the ordinary way answers (or words the error)
        return None


def _encode(r, printer, entries: list, list_meta: dict, include: str, version: str, moment) -> bytes:
    rows = []
    for entry in entries:
        row = printer.row(entry.obj, moment)
        shown: dict = {"cells": row.cells}
        if row.conditions:
            shown["conditions"] = row.conditions
        shown["object"] = listcache.MARK if include != "None" else None
        rows.append(shown)
    encoded = _encode_plain(r, printer, rows, list_meta, version)
    if encoded is None:
        encoded = encode_json(_table(r, printer, rows, list_meta, version))
    if include == "None":
        return encoded
    pieces = encoded.split(listcache.MARK_JSON)
    if len(pieces) != len(entries) + 1:
        raise _Declined
    out = [pieces[0]]
    for entry, piece in zip(entries, pieces[1:]):
        out.append(_row_object(r, printer, entry, include, version))
        out.append(piece)
    return b"".join(out)


_SCALARS = (str, int, float, bool, type(None))


def _encode_plain(r, printer, rows: list, list_meta: dict, version: str) -> bytes | None:
    """The Table with rows of plain cells, its rows encoded as they are (each row's keys are
    already in TableRow's order, and scalar cells have none): Go's field order is looked up for
    the frame only, not for a thousand rows. None for rows with conditions or structured cells."""
    for row in rows:
        if "conditions" in row or not all(isinstance(cell, _SCALARS) for cell in row["cells"]):
            return None
    frame = encode_json(_table(r, printer, [listcache.MARK], list_meta, version))
    head, mark, tail = frame.partition(listcache.MARK_JSON)
    if not mark or listcache.MARK_JSON in tail:
        return None
    return b"".join((head, encode_json(rows, in_order=True)[1:-2], tail))


def _table(r, printer, rows: list, list_meta: dict, version: str) -> dict:
    return {"kind": "Table", "apiVersion": f"meta.k8s.io/{version}",
            "metadata": printers._table_metadata(None, list_meta),
            "columnDefinitions": printer.column_definitions(), "rows": rows}


def _row_object(r, printer, entry, include: str, version: str) -> bytes:
    """The encoded `object` of the entry's row, cut out of a one-row Table's encoding."""
    key = (include, version)
    found = entry.parts.get(key)
    if found is not None:
        return found
    shown = printers._row_object(entry.obj, r, include, version)
    marked = encode_json(_table(r, printer, [{"cells": [], "object": listcache.MARK}], {}, version))
    head, mark, tail = marked.partition(listcache.MARK_JSON)
    full = encode_json(_table(r, printer, [{"cells": [], "object": shown}], {}, version))
    if not mark or not (full.startswith(head) and full.endswith(tail)):
        raise _Declined
    entry.parts[key] = part = full[len(head):len(full) - len(tail)]
    return part
