"""LIST answered from encoded items (kubelite.server.listcache), byte for byte the ordinary answer.

Only the plain case: compact JSON (a Table: handlers.encodedtable), a resource served in the version it is stored
in, no field selector (a label selector is checked against the labels kept with each item).
Everything else goes the ordinary way.
"""
from __future__ import annotations

import functools

from kubelite.server import listcache
from kubelite.server.handlers import table
from kubelite.server.handlers.http import Request, Response


# Answers in another encoding or of another kind (YAML, protobuf, metadata only) than the JSON
# list or Table made here: whatever the server makes of them, it makes the ordinary way.
_OTHER_FORMS = ("yaml", "protobuf", "PartialObjectMetadata")


class _CannotSplice(Exception):
    """An item whose bytes cannot be cut out of a list's encoding: answer the ordinary way."""


def respond(api, request: Request, r, namespace: str, opts) -> Response | None:
    from kubelite.server.core import APIServer

    accept = request.header("accept") or ""
    if any(word in accept for word in _OTHER_FORMS):
        return None
    if type(api) is not APIServer or request.pretty or opts.field_selector is not None:
        return None
    if table.wants_table(request):
        from kubelite.server.handlers import encodedtable

        return encodedtable.respond(api, request, r, namespace, opts)
    frame = listcache.ListFrame(r)
    read = cached_entries(api, frame, r, namespace, opts)
    if read is None:
        return None
    entries, metadata = read
    around = frame.split(metadata)
    if around is None:
        return None
    head, tail = around
    return Response(body=b"".join((head, b",".join(entry.encoded for entry in entries), tail)))


def cached_entries(api, frame, r, namespace: str, opts, keep_object: bool = False):
    """(the listcache entries a LIST returns, label selector applied; the list's metadata), or
    None if an item cannot be spliced. `keep_object`: entries also hold the decoded item."""
    cache = listcache.for_api(api)
    selector = opts.label_selector
    decode = functools.partial(api._decode, r)

    def keep(kv):
        entry = cache.entry(frame, kv, decode, keep_object)
        if entry is None:
            raise _CannotSplice
        if selector is not None and not selector({"metadata": {"labels": entry.labels}}):
            return None
        return entry

    try:
        return api.list_items(r, namespace, opts, keep, listcache.reader_for(api))
    except _CannotSplice:
        return None
