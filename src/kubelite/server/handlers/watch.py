"""Watch: a chunked stream of JSON events ({"type": ..., "object": ...}\\n) from a resourceVersion."""
from __future__ import annotations

import asyncio
import json

from kubelite.server import errors
from kubelite.server.core import ListOptions, _parse_rv
from kubelite.server.handlers import table
from kubelite.server.handlers.http import Request, StreamingResponse, encode_json
from kubelite.server.selectors import parse_field_selector, parse_label_selector

DEFAULT_TIMEOUT = 1800
BOOKMARK_INTERVAL = 60.0
_POLL = 1.0  # how often an idle stream looks at its deadline and at server shutdown


async def serve(api, request: Request, r, namespace: str, stopping: asyncio.Event | None):
    from kubelite.server.storage.errors import Compacted, FutureRevision

    q = request.query
    label = parse_label_selector(q.get("labelSelector"))
    field = parse_field_selector(q.get("fieldSelector"), r.group, r.resource, crd=bool(r.crd),
                                 namespaced=r.namespaced, selectable=r.selectable_fields)
    timeout_text = q.get("timeoutSeconds")
    try:
        timeout = int(timeout_text) if timeout_text else DEFAULT_TIMEOUT
    except ValueError:
        raise errors.bad_request(f'strconv.ParseInt: parsing "{timeout_text}": invalid syntax') from None
    bookmarks = q.flag("allowWatchBookmarks")
    send_initial = q.flag("sendInitialEvents")
    rv = q.get("resourceVersion")
    opts = ListOptions(label_selector=label, field_selector=field)
    as_table = table.wants_table(request)

    initial: list[dict] = []
    if rv in (None, "", "0") or send_initial:
        listed = api.list(r, namespace, opts)
        start = int(listed["metadata"]["resourceVersion"])
        for item in listed["items"]:
            item.setdefault("kind", r.kind)
            item.setdefault("apiVersion", r.api_version)
            initial.append(_reordered(item))
    else:
        start = _parse_rv(rv)
    try:
        watcher = api.store.watch(api.watch_prefix(r, namespace), start)
    except Compacted as err:
        status = errors.resource_version_too_old(start, api.store.compact_revision() + 1)
        return StreamingResponse(_single({"type": "ERROR", "object": status.to_status()}))
    except FutureRevision:
        status = errors.resource_version_too_large(start, api.store.current_revision())
        return StreamingResponse(_single({"type": "ERROR", "object": status.to_status()}))

    def matches(obj):
        return opts.label_selector is None and opts.field_selector is None or (
            (opts.label_selector is None or opts.label_selector(obj))
            and (opts.field_selector is None or opts.field_selector(obj)))

    columns_sent = False

    def encode(kind: str, obj: dict) -> bytes:
        nonlocal columns_sent
        if as_table and kind != "ERROR" and kind != "BOOKMARK":
            # Only the first Table of a stream carries the column definitions.
            obj = table.to_table(r, obj, request, with_columns=not columns_sent)
            columns_sent = True
        return encode_json({"type": kind, "object": obj})

    def bookmark(revision: int, initial_end: bool = False) -> bytes:
        meta: dict = {"resourceVersion": str(revision)}
        if initial_end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        return encode_json({"type": "BOOKMARK", "object": {"kind": r.kind, "apiVersion": r.api_version,
                                                           "metadata": meta}})

    async def events():
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        next_bookmark = min(loop.time() + BOOKMARK_INTERVAL, deadline - 2)
        last_rev = start
        try:
            for obj in initial:
                yield encode("ADDED", obj)
            if send_initial and bookmarks:
                yield bookmark(start, initial_end=True)
            while True:
                now = loop.time()
                if now >= deadline or (stopping is not None and stopping.is_set()):
                    return
                if bookmarks and now >= next_bookmark:
                    yield bookmark(last_rev)
                    next_bookmark = now + BOOKMARK_INTERVAL
                wait = min(_POLL, deadline - now)
                try:
                    event = await watcher.anext(timeout=max(wait, 0.001))
                except Compacted:
                    status = errors.resource_version_too_old(last_rev, api.store.compact_revision() + 1)
                    yield encode("ERROR", status.to_status())
                    return
                if event is None:
                    if watcher.closed:
                        return
                    continue
                last_rev = event.revision
                out = _translate(api, r, event, matches)
                if out is not None:
                    yield encode(*out)
        finally:
            watcher.close()

    return StreamingResponse(events())


def _translate(api, r, event, matches):
    kind = str(event.type)
    obj = api.decode_event_object(r, event.kv)
    current = matches(obj)
    previous = event.prev_kv is not None and matches(api.decode_event_object(r, event.prev_kv))
    if kind == "ADDED":
        return ("ADDED", obj) if current else None
    if kind == "DELETED":
        return ("DELETED", obj) if (previous or current) else None
    # A selector watch sees objects enter and leave the selection as ADDED / DELETED.
    if current and previous:
        return "MODIFIED", obj
    if current:
        return "ADDED", obj
    if previous:
        # kube-apiserver's watch cache shows the object as it last matched, at the new revision.
        gone = api.decode_event_object(r, event.prev_kv)
        gone["metadata"]["resourceVersion"] = obj["metadata"]["resourceVersion"]
        return "DELETED", gone
    return None


def _reordered(item: dict) -> dict:
    out = {"kind": item["kind"], "apiVersion": item["apiVersion"]}
    out.update((k, v) for k, v in item.items() if k not in out)
    return out


async def _single(event: dict):
    yield encode_json(event)


__all__ = ["serve"]
