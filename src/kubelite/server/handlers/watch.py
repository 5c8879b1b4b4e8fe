"""Watch: a chunked stream of JSON events ({"type": ..., "object": ...}\\n) from a resourceVersion."""
from __future__ import annotations

import asyncio
import collections
import logging

from kubelite.server import errors
from kubelite.server.core import ListOptions, _parse_rv
from kubelite.server.handlers import decode, table
from kubelite.server.handlers.http import Request, StreamingResponse, encode_json
from kubelite.server.selectors import parse_field_selector, parse_label_selector

log = logging.getLogger("kubelite.server")

DEFAULT_TIMEOUT = 1800
BOOKMARK_INTERVAL = 60.0
_POLL = 1.0  # how often an idle stream looks at its deadline and at server shutdown
# Events a stream holds for a client that is not reading them; when it is full and the client
# takes none for SLOW_WATCHER_GRACE seconds, the stream is ended, as kube-apiserver ends a watcher
# too slow to take its events, and what it held is released. A client that reads on, however far
# behind it started (a watch resumed from an old revision), is never ended.
WATCH_BUFFER = 1000
SLOW_WATCHER_GRACE = 1.0


async def serve(api, request: Request, r, namespace: str, stopping: asyncio.Event | None):
    from kubelite.server.storage.errors import Compacted, FutureRevision

    q = request.query
    label = parse_label_selector(q.get("labelSelector"))
    field = parse_field_selector(q.get("fieldSelector"), r.group, r.resource, crd=bool(r.crd),
                                 namespaced=r.namespaced, selectable=r.selectable_fields)
    timeout_text = q.get("timeoutSeconds")
    timeout = decode.parse_int64(timeout_text) if timeout_text else DEFAULT_TIMEOUT
    bookmarks = q.flag("allowWatchBookmarks")
    send_initial = q.flag("sendInitialEvents")
    rv = q.get("resourceVersion")
    opts = ListOptions(label_selector=label, field_selector=field)
    as_table = table.wants_table(request)
    from kubelite.server.handlers.resources import partial_target

    metadata = partial_target(request, r)

    initial: list[dict] = []
    if rv in (None, "", "0") or send_initial:
        listed = await asyncio.to_thread(api.list, r, namespace, opts)  # a large list must not hold the loop
        start = int(listed["metadata"]["resourceVersion"])
        for item in listed["items"]:
            item.setdefault("kind", r.kind)
            item.setdefault("apiVersion", r.api_version)
            initial.append(_reordered(item))
    else:
        start = _parse_rv(rv)
    from kubelite.server import listcache

    caches = listcache.reader_for(api)
    try:
        watcher = api.store.watch(api.watch_prefix(r, namespace), start)
        # A later watch may need this resource's event window (building it reads the resource).
        await asyncio.to_thread(caches.follow, api.watch_prefix(r, namespace))
    except Compacted:
        # As kube-apiserver's watch cache: served from the resource's window of recent events.
        watcher = await asyncio.to_thread(caches.watch_from, api.watch_prefix(r, namespace), start)
        if watcher is None:
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
        elif metadata is not None and kind != "ERROR":
            from kubelite.server.handlers import partialmeta

            obj = partialmeta.watch_object(obj, r, metadata)
        return encode_json({"type": kind, "object": obj})

    def bookmark(revision: int, initial_end: bool = False) -> bytes:
        meta: dict = {"resourceVersion": str(revision)}
        if initial_end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        obj = {"kind": r.kind, "apiVersion": r.api_version, "metadata": meta}
        if metadata is not None:
            from kubelite.server.handlers import partialmeta

            obj = partialmeta.watch_object(obj, r, metadata)
        return encode_json({"type": "BOOKMARK", "object": obj})

    async def events():
        buffer = _Buffer(watcher, WATCH_BUFFER)
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
                    event = await buffer.next(max(wait, 0.001))
                except Compacted:
                    status = errors.resource_version_too_old(last_rev, api.store.compact_revision() + 1)
                    yield encode("ERROR", status.to_status())
                    return
                if event is None:
                    continue
                if event is _END:
                    return
                last_rev = event.revision
                out = _translate(api, r, event, matches)
                if out is not None:
                    yield encode(*out)
        finally:
            buffer.close()

    return StreamingResponse(events())


_END = object()


class _Buffer:
    """Takes a watcher's events as they come, whether or not the client reads them, up to `limit`.

    A stream whose client stops reading is blocked sending; without this the store's watcher
    would queue every later write for it. Past the limit the watch ends and its events go."""

    def __init__(self, watcher, limit: int):
        self.watcher = watcher
        self.limit = limit
        self.events: collections.deque = collections.deque()
        self.ready = asyncio.Event()
        self.error: Exception | None = None
        self.ended = False
        self.overflowed = False
        self.taken = asyncio.Event()  # set whenever the stream takes an event
        self.task = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        from kubelite.server.storage.errors import Compacted

        try:
            while True:
                event = await self.watcher.anext(timeout=_POLL)
                if event is None:
                    if self.watcher.closed:
                        return
                    continue
                if not await self._room():
                    log.warning("ending watch of %s: the client is not taking its events", self.watcher.prefix)
                    self.overflowed = True
                    self.events.clear()
                    self.watcher.close()
                    return
                self.events.append(event)
                self.ready.set()
        except Compacted as err:
            self.error = err
        finally:
            self.ended = True
            try:
                self.ready.set()
            except RuntimeError:  # closed with its event loop already gone: no one is waiting
                pass

    async def _room(self) -> bool:
        """Whether there is room for one more event, waiting while the stream takes some."""
        while len(self.events) >= self.limit:
            self.taken.clear()
            try:
                await asyncio.wait_for(self.taken.wait(), SLOW_WATCHER_GRACE)
            except asyncio.TimeoutError:
                return False
        return True

    async def next(self, timeout: float):
        """The next event; None if none came within `timeout`; _END once the watch is over."""
        if not self.events and not self.ended:
            self.ready.clear()
            try:
                await asyncio.wait_for(self.ready.wait(), timeout)
            except asyncio.TimeoutError:
                return None
        if self.events:
            self.taken.set()
            return self.events.popleft()
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        return _END

    def close(self) -> None:
        self.task.cancel()
        self.events.clear()
        self.watcher.close()


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
