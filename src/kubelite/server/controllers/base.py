"""What every controller is made of: a cache of the objects it watches, a client of the API
server's own operations, an event recorder, the cluster's clock, and a work queue.

A controller names the resources it watches (`watches`, resource ids such as "pods" or
"apps/deployments"; "*" for every resource), turns watch events into keys (`handle`) and
reconciles one key at a time (`sync`). It never blocks and never sleeps: what must happen
later is queued with `queue.add_after`. Objects from the cache are shared: copy before changing.
"""
from __future__ import annotations

import json
from collections import OrderedDict

from kubelite.jsoncopy import clone
from kubelite.lazylog import LazyLogger
from kubelite.server.controllers.queue import WorkQueue
from kubelite.server.errors import StatusError

TYPE_CHECKING = False  # typing for annotations only, as in the modules a read loads
if TYPE_CHECKING:
    from typing import Any, Callable

log = LazyLogger("kubelite.controllers", quiet=True)  # every controller module's

MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
# Most pods one sync creates or deletes (the Job controller's MaxPodCreateDeletePerSync): a workload
# asking for millions of pods gets them 500 at a time, and the other controllers go on meanwhile.
MAX_PODS_PER_SYNC = 500


def split_rid(rid: str) -> tuple[str, str]:
    """"apps/deployments" -> ("apps", "deployments"); "pods" -> ("", "pods")."""
    group, _, resource = rid.rpartition("/")
    return group, resource


def object_key(obj: dict) -> str:
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name')}" if ns else str(meta.get("name"))


def split_key(key: str) -> tuple[str, str]:
    """"ns/name" -> ("ns", "name"); "name" -> ("", "name")."""
    ns, _, name = key.rpartition("/")
    return ns, name


class Cache:
    """The objects of the watched resources as of the last event applied: resource id -> key -> object."""

    def __init__(self):
        self._objects: dict[str, dict[str, dict]] = {}

    def get(self, rid: str, namespace: str, name: str) -> dict | None:
        key = f"{namespace}/{name}" if namespace else name
        return self._objects.get(rid, {}).get(key)

    def list(self, rid: str, namespace: str | None = None,
             where: Callable[[dict], bool] | None = None) -> list[dict]:
        items = self._objects.get(rid, {}).values()
        out = []
        for obj in items:
            if namespace is not None and (obj.get("metadata") or {}).get("namespace", "") != namespace:
                continue
            if where is not None and not where(obj):
                continue
            out.append(obj)
        return out

    def resources(self) -> list[str]:
        return list(self._objects)

    def _put(self, rid: str, obj: dict) -> dict | None:
        bucket = self._objects.setdefault(rid, {})
        key = object_key(obj)
        old = bucket.get(key)
        bucket[key] = obj
        return old

    def _remove(self, rid: str, obj: dict) -> dict | None:
        return self._objects.get(rid, {}).pop(object_key(obj), None)


class ApiClient:
    """The API server's operations for a controller, as a client would call them over HTTP:
    admission, validation, resourceVersion checks and watch events apply to these writes."""

    def __init__(self, api, manager: str):
        from kubelite.server.core import WriteOptions

        self.api = api
        self.manager = manager
        self._opts = WriteOptions(field_manager=manager, trusted=True)

    def resource(self, rid: str):
        group, resource = split_rid(rid)
        registry = self.api.registry
        version = registry.preferred_version(group)
        r = registry.lookup(group, version, resource) if version else None
        if r is None:
            for candidate in registry.all():
                if candidate.group == group and candidate.resource == resource:
                    return candidate
            raise LookupError(f"no resource {rid}")
        return r

    def get(self, rid: str, namespace: str, name: str) -> dict | None:
        try:
            return self.api.get(self.resource(rid), namespace, name)
        except StatusError as err:
            if err.code == 404:
                return None
            raise

    # The API server copies the body it is handed (core._check_body) before it changes anything,
    # as it does for a decoded request: create and update pass the controller's object as is.
    # answer=False: the caller does not read what was stored (its watch shows it), which then is
    # not decoded, and None is returned.

    def create(self, rid: str, obj: dict, *, answer: bool = True) -> dict | None:
        namespace = (obj.get("metadata") or {}).get("namespace", "")
        result = self.api.create(self.resource(rid), namespace, obj, self._opts)
        return result.obj if answer else None

    def create_meta(self, rid: str, obj: dict) -> dict:
        """Create; the metadata the server wrote (the generated name, the uid; no resourceVersion),
        without decoding the stored object. Shared with nothing, not to be changed."""
        namespace = (obj.get("metadata") or {}).get("namespace", "")
        return self.api.create(self.resource(rid), namespace, obj, self._opts).written_meta

    def update(self, rid: str, obj: dict, subresource: str = "") -> dict:
        meta = obj["metadata"]
        body = clone(obj) if subresource == "scale" else obj  # a scale body is not copied there
        return self.api.update(self.resource(rid), meta.get("namespace", ""), meta["name"], body,
                               self._opts, subresource=subresource).obj

    def update_status(self, rid: str, obj: dict) -> dict:
        return self.update(rid, obj, subresource="status")

    def patch(self, rid: str, namespace: str, name: str, patch: Any, patch_type: str = MERGE,
              subresource: str = "", *, answer: bool = True) -> dict | None:
        body = patch if isinstance(patch, bytes) else json.dumps(patch).encode()
        result = self.api.patch(self.resource(rid), namespace, name, patch_type, body, self._opts,
                                subresource=subresource)
        return result.obj if answer else None

    def delete(self, rid: str, namespace: str, name: str, *, propagation: str | None = None,
               uid: str | None = None, grace: int | None = None) -> bool:
        """Delete; False if it was already gone (or another object now has the name)."""
        from kubelite.server.core import DeleteOptions

        opts = DeleteOptions(propagation_policy=propagation, precondition_uid=uid, grace_period_seconds=grace)
        try:
            self.api.delete(self.resource(rid), namespace, name, opts)
        except StatusError as err:
            if err.code == 404 or (err.code == 409 and uid):
                return False
            raise
        return True


class EventRecorder:
    """core/v1 Events as client-go's recorder writes them, with its aggregation: a repeat of the
    same event bumps `count` and `lastTimestamp` of the one already written, from the 10th
    different message of one object/type/reason within 10 minutes the messages are folded into
    one "(combined from similar events): ..." Event, and each object gets at most 25 writes in a
    burst, then one per 5 minutes (client-go's spam filter; the rest are dropped)."""

    _last_nanos = 0
    SIMILAR_MAX = 10
    SIMILAR_WINDOW = 600.0
    SPAM_BURST = 25
    SPAM_REFILL = 300.0  # seconds per token

    def __init__(self, client: ApiClient, clock, component: str):
        self._client = client
        self._clock = clock
        self.component = component
        # (namespace, involved uid, type, reason, message) -> (event name, count, first timestamp)
        self._seen: _Lru = _Lru()
        # (namespace, involved uid, type, reason) -> (messages seen, clock time of the last)
        self._similar: _Lru = _Lru()
        # (namespace, involved uid) -> (tokens left, clock time they were counted)
        self._tokens: _Lru = _Lru()

    def normal(self, obj: dict, reason: str, message: str) -> None:
        self.record(obj, "Normal", reason, message)

    def warning(self, obj: dict, reason: str, message: str) -> None:
        self.record(obj, "Warning", reason, message)

    def record(self, obj: dict, event_type: str, reason: str, message: str) -> None:
        meta = obj.get("metadata") or {}
        namespace = meta.get("namespace") or "default"
        now = self._clock.rfc3339()
        key, message = self._similar_key(namespace, meta.get("uid"), event_type, reason, message)
        if not self._take_token(namespace, meta.get("uid")):
            return
        seen = self._seen.get(key)
        try:
            if seen is not None:
                name, count, first = seen
                self._client.patch("events", namespace, name,
                                   {"count": count + 1, "lastTimestamp": now, "message": message}, answer=False)
                self._seen[key] = (name, count + 1, first)
                return
            # Nanoseconds kept unique in the process: on a fake clock many events share an instant.
            nanos = max(int(self._clock.time() * 1e9), EventRecorder._last_nanos + 1)
            EventRecorder._last_nanos = nanos
            name = f"{meta.get('name')}.{nanos:x}"
            self._client.create("events", {
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": name, "namespace": namespace},
                "involvedObject": involved_object(obj),
                "reason": reason, "message": message,
                "source": {"component": self.component},
                "firstTimestamp": now, "lastTimestamp": now, "count": 1, "type": event_type,
                "eventTime": None, "reportingComponent": self.component, "reportingInstance": "",
            }, answer=False)
            self._seen[key] = (name, 1, now)
        except StatusError as err:
            # Events are best effort (a terminating namespace refuses them), as in client-go.
            log.debug("event %s/%s not written: %s", reason, message, err)

    def _take_token(self, namespace: str, uid) -> bool:
        """The spam filter's token bucket of one object, refilled on the cluster's clock."""
        now = self._clock.time()
        tokens, then = self._tokens.get((namespace, uid), (float(self.SPAM_BURST), now))
        tokens = min(float(self.SPAM_BURST), tokens + (now - then) / self.SPAM_REFILL)
        if tokens < 1:
            self._tokens[(namespace, uid)] = (tokens, now)
            return False
        self._tokens[(namespace, uid)] = (tokens - 1, now)
        return True

    def _similar_key(self, namespace: str, uid, event_type: str, reason: str, message: str) -> tuple[tuple, str]:
        """The dedup key and message: the event's own, or the combined one of its similar events."""
        similar = (namespace, uid, event_type, reason)
        messages, last = self._similar.get(similar, (set(), 0.0))
        now = self._clock.time()
        if now - last > self.SIMILAR_WINDOW:
            messages = set()
        messages.add(message)
        self._similar[similar] = (messages, now)
        if len(messages) < self.SIMILAR_MAX:
            return similar + (message,), message
        messages.pop()  # the set never grows past the limit (client-go drops an arbitrary one)
        return similar + (None,), "(combined from similar events): " + message


class _Lru(OrderedDict):
    """A dict that forgets its least recently used entries beyond client-go's 4096, so a
    long-running server's event bookkeeping stays bounded."""

    LIMIT = 4096

    def get(self, key, default=None):
        if key in self:
            self.move_to_end(key)
        return super().get(key, default)

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.LIMIT:
            self.popitem(last=False)


def involved_object(obj: dict) -> dict:
    meta = obj.get("metadata") or {}
    ref = {"kind": obj.get("kind"), "namespace": meta.get("namespace"), "name": meta.get("name"),
           "uid": meta.get("uid"), "apiVersion": obj.get("apiVersion"),
           "resourceVersion": meta.get("resourceVersion")}
    return {k: v for k, v in ref.items() if v}


class Controller:
    """One reconciling loop. Subclasses set the class attributes and implement `sync`."""

    name = "controller"
    # Field manager of its writes (kube-controller-manager runs every controller under one name).
    manager = "kube-controller-manager"
    # `source.component` of its Events.
    component = ""
    # Resource ids whose watch events reach `handle`; the first is the one whose keys `sync` gets
    # by default.
    watches: tuple[str, ...] = ()
    # Controllers that act run on one server at a time; followers (the CRD registry) on every one.
    leader_only = True

    def __init__(self, ctx: "ControllerContext"):
        self.ctx = ctx
        self.cache: Cache = ctx.cache
        self.client = ApiClient(ctx.api, self.manager)
        self.clock = ctx.clock
        self.events = EventRecorder(self.client, ctx.clock, self.component or self.name)
        self.queue = WorkQueue(ctx.clock)

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        """A watch event of a watched resource: queue what must be reconciled."""
        if self.watches and rid == self.watches[0]:
            self.queue.add(object_key(obj))

    def sync(self, key: str) -> None:
        raise NotImplementedError

    def owner_key(self, obj: dict, kind: str) -> str | None:
        """Key of the controlling owner of `obj` if it is of `kind` (same namespace)."""
        ref = controller_ref(obj)
        if ref is None or ref.get("kind") != kind:
            return None
        ns = (obj.get("metadata") or {}).get("namespace")
        return f"{ns}/{ref.get('name')}" if ns else ref.get("name")


def controller_ref(obj: dict) -> dict | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


class ControllerContext:
    """What the controllers of one cluster share."""

    def __init__(self, api, clock, cache: Cache, options: dict | None = None):
        self.api = api
        self.clock = clock
        self.cache = cache
        # Cluster settings controllers read: nodes, the server's address and port, ...
        self.options = dict(options or {})

