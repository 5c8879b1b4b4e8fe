"""EtcdStore: the Store contract on etcd v3, for several kubelite servers on several machines.

It talks to etcd's JSON gateway (``/v3/kv/range``, ``/v3/kv/txn``, ``/v3/kv/compaction``,
``/v3/watch``; keys and values base64) with httpx, the HTTP client kubelite already depends on:
the gateway is part of every etcd v3 server, so no gRPC stack is needed. Keys are stored as
given (``/registry/<group>/<resource>/...``, the API server's layout), values are the objects'
JSON, and a key's ``mod_revision`` is etcd's own, so resourceVersions are etcd revisions.

Writes are single transactions that compare the key's revisions (etcd's compare-and-swap), as
kube-apiserver's etcd3 store does. Watchers are fed by one etcd watch over every key per store
(the hub), which keeps a bounded buffer of recent events so that a watch starting a little in the
past (a list then a watch) needs no new stream; older starts get a watch stream of their own.
"""

from __future__ import annotations

import base64
import collections
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Callable

from .base import KV, Event, EventType, RangeResult, Store
from .errors import (
    Compacted,
    Conflict,
    FutureRevision,
    KeyExists,
    NotFound,
    StorageError,
    StoreClosed,
)
from .keys import (
    check_key,
    check_limit,
    check_prefix,
    check_revision,
    check_start_after,
    check_value,
    prefix_end,
    range_start,
)
from .watch import Watcher

DEFAULT_TIMEOUT = 10.0  # seconds for one request, and for reconnecting a lost watch
HUB_HISTORY = 4096  # recent events the hub keeps for watches that start in the past
SYNC_WAIT = 5.0  # longest sync_watchers() waits for the hub to reach the current revision

_COMPACTED = "required revision has been compacted"
_FUTURE = "required revision is a future revision"
_ALL = "\x00"  # as key and range_end: every key


@dataclass(frozen=True)
class EtcdOptions:
    """Where etcd is and how to reach it (kube-apiserver's --etcd-servers/--etcd-cafile/...)."""

    endpoints: tuple[str, ...]
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    timeout: float = DEFAULT_TIMEOUT


def parse_url(url: str) -> EtcdOptions:
    """``etcd://host:port[,host:port...][?cacert=F&cert=F&key=F&timeout=S]`` (etcds:// is TLS).

    With a CA, a certificate or ``etcds://`` the endpoints are spoken to over https."""
    scheme, _, rest = url.partition("://")
    hosts, _, query = rest.partition("?")
    params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
    unknown = set(params) - {"cacert", "cert", "key", "timeout"}
    if unknown:
        raise StorageError(f"unknown etcd option(s) {', '.join(sorted(unknown))} in {url!r}; "
                           "expected cacert, cert, key, timeout")
    if bool(params.get("cert")) != bool(params.get("key")):
        raise StorageError(f"etcd client certificate and key go together (cert= and key=) in {url!r}")
    tls = scheme.lower() == "etcds" or any(params.get(k) for k in ("cacert", "cert"))
    endpoints = []
    for host in hosts.split(","):
        host = host.strip().rstrip("/")
        if not host:
            continue
        if "://" not in host:
            host = ("https://" if tls else "http://") + host
        parsed = urllib.parse.urlsplit(host)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise StorageError(f"bad etcd endpoint {host!r} in {url!r}; expected host:port")
        try:
            parsed.port
        except ValueError:
            raise StorageError(f"bad etcd endpoint port in {host!r}") from None
        endpoints.append(f"{parsed.scheme}://{parsed.netloc}")
    if not endpoints:
        raise StorageError(f"etcd storage needs at least one endpoint, e.g. etcd://127.0.0.1:2379 (got {url!r})")
    try:
        timeout = float(params.get("timeout") or DEFAULT_TIMEOUT)
    except ValueError:
        raise StorageError(f"etcd timeout must be a number of seconds, got {params['timeout']!r}") from None
    return EtcdOptions(tuple(endpoints), params.get("cacert") or None, params.get("cert") or None,
                       params.get("key") or None, timeout)


class _EtcdError(StorageError):
    """An error etcd answered (as opposed to one reaching it)."""


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _kv(raw: dict) -> KV:
    return KV(base64.b64decode(raw.get("key", "")).decode("utf-8"),
              base64.b64decode(raw.get("value", "")),
              int(raw.get("create_revision", 0)), int(raw.get("mod_revision", 0)))


def _key_range(prefix: str, start_after: str | None) -> dict:
    """etcd's [key, range_end) for the keys under prefix strictly after start_after."""
    bound, inclusive = range_start(prefix, start_after)
    key = bound if inclusive else bound + "\x00"  # the smallest key above start_after
    end = prefix_end(prefix)
    return {"key": _b64(key or _ALL), "range_end": _b64(end if end is not None else _ALL)}


class EtcdStore(Store):
    shared = True
    remote = True

    def __init__(self, options: EtcdOptions | str, *, history: int = HUB_HISTORY):
        import httpx

        self.options = parse_url(options) if isinstance(options, str) else options
        self.endpoints = list(self.options.endpoints)
        timeout = self.options.timeout
        self._http = httpx.Client(verify=self._tls_context(), timeout=timeout,
                                  limits=httpx.Limits(max_connections=None, max_keepalive_connections=32))
        self._closed = False
        self._preferred = 0  # index of the endpoint that answered last
        self._compacted = 0  # a compaction point known to have happened (a lower bound)
        self._streams: set[_WatchStream] = set()
        self._streams_lock = threading.Lock()
        self._hub = _Hub(self, history)
        self.current_revision()  # fail now, clearly, if etcd cannot be reached

    def _tls_context(self):
        """True (system CAs) unless a CA or a client certificate is given: then an SSLContext."""
        import ssl

        options = self.options
        if not (options.ca_file or options.cert_file):
            return True
        try:
            context = ssl.create_default_context(cafile=options.ca_file)
            if options.cert_file:
                context.load_cert_chain(options.cert_file, options.key_file)
        except (OSError, ssl.SSLError) as err:
            files = ", ".join(f for f in (options.ca_file, options.cert_file, options.key_file) if f)
            raise StorageError(f"etcd TLS files ({files}): {err}") from None
        return context

    # -- requests ---------------------------------------------------------------------------------

    def _call(self, method: str, body: dict) -> dict:
        """POST one gateway request, trying each endpoint while none can be connected to."""
        import httpx

        deadline = time.monotonic() + self.options.timeout
        delay, error = 0.02, None
        while True:
            for i in range(len(self.endpoints)):
                self._check_open()
                index = (self._preferred + i) % len(self.endpoints)
                endpoint = self.endpoints[index]
                try:
                    response = self._http.post(f"{endpoint}/v3/{method}", json=body)
                except httpx.ConnectError as err:  # not sent: safe to try elsewhere, or again
                    error = err
                    continue
                except httpx.TransportError as err:
                    self._check_open()
                    raise StorageError(f"etcd {endpoint}: {method}: {err or type(err).__name__}") from None
                self._preferred = index
                return self._answer(endpoint, method, response)
            if time.monotonic() + delay > deadline:
                raise StorageError(f"etcd is unreachable at {', '.join(self.endpoints)}: {error}")
            time.sleep(delay)  # etcd restarting: wait a little before the next round
            delay = min(delay * 2, 0.5)

    @staticmethod
    def _answer(endpoint: str, method: str, response) -> dict:
        try:
            data = response.json()
        except ValueError:
            raise StorageError(f"etcd {endpoint}: {method}: HTTP {response.status_code}, not JSON") from None
        if response.status_code != 200 or "error" in data:
            message = data.get("message") or data.get("error") or f"HTTP {response.status_code}"
            raise _EtcdError(f"etcd {endpoint}: {message}")
        return data

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed()

    def _probe(self, revision: int) -> bool:
        """Whether a read at ``revision`` is still possible (not compacted away)."""
        try:
            self._call("kv/range", {"key": _b64(_ALL), "count_only": True, "revision": revision})
        except _EtcdError as err:
            if _COMPACTED in str(err):
                return False
            raise
        return True

    def _read_error(self, err: _EtcdError, revision: int) -> StorageError:
        if _COMPACTED in str(err):
            return Compacted(revision, self.compact_revision())
        if _FUTURE in str(err):
            return FutureRevision(revision, self.current_revision())
        return err

    # -- reads ------------------------------------------------------------------------------------

    def get(self, key: str) -> KV | None:
        check_key(key)
        kvs = self._call("kv/range", {"key": _b64(key)}).get("kvs") or []
        return _kv(kvs[0]) if kvs else None

    def current_revision(self) -> int:
        header = self._call("kv/range", {"key": _b64(_ALL), "count_only": True})["header"]
        return int(header.get("revision", 0))

    def compact_revision(self) -> int:
        """etcd does not tell its compaction point: find the lowest revision still readable."""
        known = self._compacted
        if self._probe(max(known, 1)):
            return known
        low, high = max(known, 1), self.current_revision()  # low is compacted, high readable
        while high - low > 1:
            middle = (low + high) // 2
            if self._probe(middle):
                high = middle
            else:
                low = middle
        self._compacted = max(self._compacted, high)
        return high

    def range(self, prefix, *, start_after=None, limit=0, revision=0) -> RangeResult:
        check_prefix(prefix)
        check_start_after(start_after)
        check_limit(limit)
        check_revision("revision", revision)
        body = _key_range(prefix, start_after)
        if limit:
            body["limit"] = limit
        if revision:
            body["revision"] = revision
        try:
            data = self._call("kv/range", body)
        except _EtcdError as err:
            raise self._read_error(err, revision) from None
        kvs = [_kv(raw) for raw in data.get("kvs") or []]
        return RangeResult(kvs, bool(data.get("more")), revision or int(data["header"]["revision"]))

    def count(self, prefix: str, *, start_after: str | None = None, revision: int = 0) -> int:
        check_prefix(prefix)
        check_start_after(start_after)
        check_revision("revision", revision)
        body = {**_key_range(prefix, start_after), "count_only": True}
        if revision:
            body["revision"] = revision
        try:
            return int(self._call("kv/range", body).get("count", 0))
        except _EtcdError as err:
            raise self._read_error(err, revision) from None

    # -- writes: one transaction each, comparing the key's revisions --------------------------------

    def _txn(self, key: str, compare: list[dict], then: dict) -> tuple[bool, dict]:
        """(succeeded, response of `then` or the key's current range) and the txn's revision."""
        k = _b64(key)
        data = self._call("kv/txn", {
            "compare": [{"key": k, **c} for c in compare],
            "success": [then],
            "failure": [{"request_range": {"key": k}}],
        })
        responses = data.get("responses") or [{}]
        data["first"] = next(iter(responses[0].values()), {})
        return bool(data.get("succeeded")), data

    def create(self, key: str, value: bytes) -> KV:
        check_key(key)
        value = check_value(value)
        ok, data = self._txn(key, [{"target": "CREATE", "result": "EQUAL", "create_revision": 0}],
                             {"request_put": {"key": _b64(key), "value": base64.b64encode(value).decode()}})
        if not ok:
            kvs = data["first"].get("kvs") or []
            raise KeyExists(key, _kv(kvs[0]) if kvs else None)
        revision = int(data["header"]["revision"])
        return KV(key, value, revision, revision)

    def _preconditions(self, expected: int | None) -> list[dict]:
        present = {"target": "CREATE", "result": "GREATER", "create_revision": 0}
        if expected is None:
            return [present]
        return [present, {"target": "MOD", "result": "EQUAL", "mod_revision": expected}]

    def _failed(self, key: str, expected: int | None, data: dict) -> StorageError:
        kvs = data["first"].get("kvs") or []
        if not kvs:
            return NotFound(key)
        return Conflict(key, expected if expected is not None else 0, _kv(kvs[0]))

    def update(self, key: str, value: bytes, expected_mod_revision: int | None) -> KV:
        check_key(key)
        value = check_value(value)
        check_revision("expected_mod_revision", expected_mod_revision, optional=True)
        ok, data = self._txn(key, self._preconditions(expected_mod_revision), {"request_put": {
            "key": _b64(key), "value": base64.b64encode(value).decode(), "prev_kv": True}})
        if not ok:
            raise self._failed(key, expected_mod_revision, data)
        prev = _kv(data["first"]["prev_kv"])
        return KV(key, value, prev.create_revision, int(data["header"]["revision"]))

    def delete(self, key: str, expected_mod_revision: int | None = None) -> KV:
        check_key(key)
        check_revision("expected_mod_revision", expected_mod_revision, optional=True)
        ok, data = self._txn(key, self._preconditions(expected_mod_revision),
                             {"request_delete_range": {"key": _b64(key), "prev_kv": True}})
        if not ok:
            raise self._failed(key, expected_mod_revision, data)
        prev = _kv((data["first"].get("prev_kvs") or [{}])[0])
        return KV(key, prev.value, prev.create_revision, int(data["header"]["revision"]))

    # -- watch and compaction ---------------------------------------------------------------------

    def watch(self, prefix: str, from_revision: int = 0) -> Watcher:
        check_prefix(prefix)
        check_revision("from_revision", from_revision)
        self._check_open()
        if from_revision == 0:
            from_revision = self.current_revision()
        elif from_revision < self.current_revision() and from_revision < self.compact_revision():
            raise Compacted(from_revision, self.compact_revision())
        watcher = self._hub.subscribe(prefix, from_revision)
        if watcher is None:  # older than the hub's history: a stream of its own
            watcher = self._own_stream(prefix, from_revision)
        return watcher

    def _own_stream(self, prefix: str, from_revision: int) -> Watcher:
        stream: _WatchStream | None = None

        def closed(_watcher: Watcher) -> None:
            if stream is not None:
                stream.stop()
                self._forget_stream(stream)

        watcher = Watcher(prefix, from_revision, closed)

        def deliver(events: list[Event]) -> None:
            for event in events:
                watcher.offer(event)

        stream = _WatchStream(self, _key_range(prefix, None), from_revision, deliver, watcher.fail)
        self._start_stream(stream)
        return watcher

    def _start_stream(self, stream: "_WatchStream") -> None:
        with self._streams_lock:
            if self._closed:
                raise StoreClosed()
            self._streams.add(stream)
        stream.start()

    def _forget_stream(self, stream: "_WatchStream") -> None:
        with self._streams_lock:
            self._streams.discard(stream)

    def sync_watchers(self) -> None:
        self._hub.wait_for(self.current_revision(), SYNC_WAIT)

    def compact(self, revision: int) -> None:
        check_revision("revision", revision)
        try:
            self._call("kv/compaction", {"revision": revision, "physical": False})
        except _EtcdError as err:
            if _COMPACTED in str(err):
                raise Compacted(revision, self.compact_revision()) from None
            if _FUTURE in str(err):
                raise FutureRevision(revision, self.current_revision()) from None
            raise
        self._compacted = max(self._compacted, revision)
        self._hub.compacted(revision)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._hub.stop()
        with self._streams_lock:
            streams, self._streams = list(self._streams), set()
        for stream in streams:
            stream.stop()
        for stream in streams:
            stream.join(timeout=5)
        self._http.close()


class _Hub:
    """One etcd watch over every key, fanned out to this store's watchers with recent history."""

    def __init__(self, store: EtcdStore, history: int):
        self._store = store
        self._history = history
        self._cond = threading.Condition()
        self._watchers: set[Watcher] = set()
        self._buffer: collections.deque[Event] = collections.deque()
        self._floor = 0  # every event after this revision is in the buffer (or on its way)
        self._last = 0  # the last revision received
        self._stream: _WatchStream | None = None

    def subscribe(self, prefix: str, from_revision: int) -> Watcher | None:
        with self._cond:
            if self._stream is None:
                self._floor = self._last = from_revision
                self._stream = _WatchStream(self._store, {"key": _b64(_ALL), "range_end": _b64(_ALL)},
                                            from_revision, self._deliver, self._fail)
                self._store._start_stream(self._stream)
            if from_revision < self._floor:
                return None
            watcher = Watcher(prefix, from_revision, self._unsubscribe)
            for event in self._buffer:
                watcher.offer(event)
            self._watchers.add(watcher)
            return watcher

    def _unsubscribe(self, watcher: Watcher) -> None:
        with self._cond:
            self._watchers.discard(watcher)

    def _deliver(self, events: list[Event]) -> None:
        with self._cond:
            for event in events:
                self._buffer.append(event)
                for watcher in list(self._watchers):
                    watcher.offer(event)
                self._last = event.revision
            while len(self._buffer) > self._history:
                self._floor = self._buffer.popleft().revision
            self._cond.notify_all()

    def _fail(self, error: StorageError) -> None:
        """The hub's stream ended (compacted past it, or etcd lost): end its watchers; restart later."""
        with self._cond:
            watchers, self._watchers = list(self._watchers), set()
            stream, self._stream = self._stream, None
            self._buffer.clear()
            self._cond.notify_all()
        if stream is not None:
            self._store._forget_stream(stream)
        for watcher in watchers:
            watcher._on_close = None  # already forgotten here
            watcher.fail(error)

    def compacted(self, revision: int) -> None:
        with self._cond:
            while self._buffer and self._buffer[0].revision <= revision:
                self._buffer.popleft()
            self._floor = max(self._floor, revision)

    def wait_for(self, revision: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._stream is not None and self._last < revision:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._cond.wait(remaining)

    def stop(self) -> None:
        with self._cond:
            watchers, self._watchers = list(self._watchers), set()
            self._stream = None
            self._cond.notify_all()
        for watcher in watchers:
            watcher.close()


class _WatchStream(threading.Thread):
    """One etcd watch (a streaming POST to /v3/watch) from a revision, reconnecting after failures.

    ``deliver`` gets each response's events in revision order; ``fail`` is called once if the
    stream cannot go on (compacted past its position, or etcd unreachable for too long)."""

    def __init__(self, store: EtcdStore, key_range: dict, after: int,
                 deliver: Callable[[list[Event]], None], fail: Callable[[StorageError], None]):
        super().__init__(name="kubelite-etcd-watch", daemon=True)
        self._store = store
        self._range = key_range
        self.after = after  # the last revision delivered
        self._deliver = deliver
        self._fail = fail
        self._stopping = threading.Event()
        self._response = None

    def stop(self) -> None:
        self._stopping.set()
        response = self._response
        if response is not None:
            _abort(response)

    def run(self) -> None:
        import httpx

        store = self._store
        lost_since = None
        delay = 0.05
        index = store._preferred
        while not self._stopping.is_set():
            endpoint = store.endpoints[index % len(store.endpoints)]
            try:
                self._follow(endpoint)
                lost_since = None  # the stream ended cleanly (etcd closed it): follow it again
                self._stopping.wait(0.05)
            except _Ended:
                return
            except (httpx.TransportError, StorageError, ValueError) as err:
                if self._stopping.is_set():
                    return
                now = time.monotonic()
                if lost_since is None:
                    lost_since, delay = now, 0.05
                elif now - lost_since > store.options.timeout:
                    self._fail(StorageError(f"etcd watch lost at {endpoint}: {err or type(err).__name__}"))
                    return
                index += 1  # try the next endpoint
                self._stopping.wait(delay)
                delay = min(delay * 2, 1.0)

    def _follow(self, endpoint: str) -> None:
        import httpx

        body = {"create_request": {**self._range, "start_revision": self.after + 1, "prev_kv": True}}
        timeout = httpx.Timeout(self._store.options.timeout, read=None)
        with self._store._http.stream("POST", f"{endpoint}/v3/watch", json=body, timeout=timeout) as response:
            self._response = response
            if self._stopping.is_set():
                raise _Ended
            if response.status_code != 200:
                response.read()
                raise StorageError(f"etcd {endpoint}: watch: HTTP {response.status_code}")
            for line in response.iter_lines():
                if self._stopping.is_set():
                    raise _Ended
                if line.strip():
                    self._message(json.loads(line))
        self._response = None

    def _message(self, message: dict) -> None:
        if "error" in message:
            error = message["error"]
            raise StorageError(str(error.get("message") if isinstance(error, dict) else error))
        result = message.get("result") or {}
        if result.get("compact_revision") and int(result["compact_revision"]) > self.after:
            self._fail(Compacted(self.after, int(result["compact_revision"])))
            raise _Ended
        if result.get("canceled"):
            raise StorageError(f"etcd cancelled the watch: {result.get('cancel_reason') or 'no reason given'}")
        events = [_event(raw) for raw in result.get("events") or []]
        if events:
            self._deliver(events)
            self.after = events[-1].revision


class _Ended(Exception):
    """The stream is over (stopped, or failed for good)."""


def _abort(response) -> None:
    """Unblock a thread reading ``response`` by shutting its socket down."""
    import socket

    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _event(raw: dict) -> Event:
    kv = _kv(raw.get("kv") or {})
    prev = _kv(raw["prev_kv"]) if raw.get("prev_kv") else None
    if raw.get("type") == "DELETE":
        if prev is None:  # its previous value is compacted away: all etcd still knows is the key
            return Event(EventType.DELETED, kv, None, kv.mod_revision)
        return Event(EventType.DELETED, KV(kv.key, prev.value, prev.create_revision, kv.mod_revision),
                     prev, kv.mod_revision)
    if kv.create_revision == kv.mod_revision:
        return Event(EventType.ADDED, kv, None, kv.mod_revision)
    return Event(EventType.MODIFIED, kv, prev, kv.mod_revision)
