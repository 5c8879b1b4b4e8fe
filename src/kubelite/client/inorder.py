"""A command's independent requests sent a few at a time, their outcomes taken in the order given.

kubectl writes one object at a time, so the server idles while the client reads and plans the
next one, and the client idles while the server writes. With a few requests in flight both work
at once: `apply -f` of 500 objects against `kubelite serve` takes about half the time.

The caller says which items must run alone: every item in flight is finished before such an item
starts, and it is finished before anything after it starts, so an object that others depend on
(a Namespace, a CRD, a LimitRange a later Pod is admitted against) is in place before they are
sent. Two items with the same key (one object named twice) never run together either. Outcomes
are handed back in the items' order, so output and errors read as if the run was sequential.
"""
from __future__ import annotations

from collections import deque
TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Iterator

# Six rather than four: `apply -f` of 500 new objects against serve took 7-10% less wall with six
# in flight (two sets of 10 interleaved pairs, six won 16 of the 20; before the server parked its
# writes' wait for the disk, 4, 6 and 8 had measured within the noise); the other phases of
# bench/apply.py moved within the noise.
WORKERS = 6


class _Now:
    """The sequential case's stand-in for a future: the work runs when its result is asked for."""

    def __init__(self, work: Callable[[Any], Any], item: Any):
        self._work, self._item = work, item

    def result(self) -> Any:
        return self._work(self._item)


class Ready:
    """What an item's `ahead` step returns when it finished the item's work on its own."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def result(self) -> Any:
        return self.value

    def exception(self) -> None:
        return None

    def done(self) -> bool:
        return True


def in_order(items: Iterable, work: Callable[[Any], Any], *, workers: int = WORKERS,
             alone: Callable[[Any], bool] = lambda item: True,
             key: Callable[[Any], Any] = lambda item: None,
             ahead: Callable[[Any], Any] | None = None) -> Iterator[tuple[Any, Any]]:
    """(item, future) pairs in the items' order; `future.result()` is `work(item)` or its exception.
    With workers <= 1 nothing runs ahead: each work runs when its result is asked for.

    `ahead(item)`, when given, runs on the calling thread when a side-by-side item's turn to start
    comes (after what it must wait for): it returns a Ready result when the item needs no worker
    (an object found unchanged sends nothing), or the rest of the work for a worker to run. The
    calling thread then reads and plans while the workers wait on the network, and only the items
    that send requests pay for a thread; at most `workers` of those are in flight."""
    if workers <= 1:
        for item in items:
            yield item, _Now(work, item)
        return
    from kubelite.client.workers import Pool

    pending: deque = deque()
    keys: dict = {}  # key -> how many pending items have it
    in_flight = [0]  # pending items a worker runs
    with Pool(workers) as pool:
        for item in items:
            item_key = key(item)
            if alone(item) or (item_key is not None and keys.get(item_key)):
                while pending:
                    yield _taken(pending, keys, in_flight)
                yield item, _Now(work, item)
                continue
            future = _started(pool, work, ahead, item)
            in_flight[0] += not isinstance(future, Ready)
            pending.append((item, item_key, future))
            if item_key is not None:
                keys[item_key] = keys.get(item_key, 0) + 1
            while pending and (in_flight[0] > workers or pending[0][2].done()):
                yield _taken(pending, keys, in_flight)
        while pending:
            yield _taken(pending, keys, in_flight)


def _started(pool, work: Callable[[Any], Any], ahead: Callable[[Any], Any] | None, item: Any) -> Any:
    if ahead is None:
        return pool.submit(work, item)
    rest = ahead(item)
    return rest if isinstance(rest, Ready) else pool.submit(rest)


def _taken(pending: deque, keys: dict, in_flight: list) -> tuple[Any, Any]:
    item, item_key, future = pending.popleft()
    if item_key is not None:
        keys[item_key] -= 1
    if not isinstance(future, Ready):
        in_flight[0] -= 1
    future.exception()  # finished before the caller looks (and before its key is free again)
    return item, future


class SaidAside:
    """While items run side by side, what each one's work says (warnings: the server's Warning
    headers, the command's own) is kept with its result, to be said when that result is taken.
    `kept(sink)` is the sink to hand the work; said outside `run`, it goes straight through."""

    def __init__(self):
        import threading

        self._local = threading.local()

    def kept(self, sink: Callable[[str], None]) -> Callable[[str], None]:
        def say(text: str) -> None:
            said = getattr(self._local, "said", None)
            if said is None:
                sink(text)
            else:
                said.append((sink, text))
        return say

    def over(self, owner: Any, name: str):
        """Context: `owner.name` (a sink) is the kept version of itself until the block ends."""
        from contextlib import contextmanager

        @contextmanager
        def swapped():
            sink = getattr(owner, name)
            setattr(owner, name, self.kept(sink))
            try:
                yield
            finally:
                setattr(owner, name, sink)
        return swapped()

    def run(self, work: Callable, *args) -> tuple[Any, list]:
        """(work's result, what it said)."""
        self._local.said = said = []
        try:
            return work(*args), said
        finally:
            self._local.said = None

    @staticmethod
    def replay(said: list) -> None:
        for sink, text in said:
            sink(text)


# Built-in namespaced kinds no admission decision of another object depends on: objects of these
# kinds may be written side by side. Everything else (cluster-scoped objects, LimitRanges,
# ResourceQuotas, ServiceAccounts, RBAC, custom resources whose webhooks may look at each other)
# is written alone, in its place.
INDEPENDENT_KINDS = frozenset({
    ("v1", "ConfigMap"), ("v1", "Secret"), ("v1", "Service"), ("v1", "Pod"), ("v1", "PersistentVolumeClaim"),
    ("v1", "ReplicationController"), ("v1", "Endpoints"),
    ("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"), ("apps/v1", "DaemonSet"), ("apps/v1", "ReplicaSet"),
    ("batch/v1", "Job"), ("batch/v1", "CronJob"),
    ("networking.k8s.io/v1", "Ingress"), ("networking.k8s.io/v1", "NetworkPolicy"),
    ("policy/v1", "PodDisruptionBudget"), ("autoscaling/v1", "HorizontalPodAutoscaler"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
})


def independent(api_version: str, kind: str) -> bool:
    return (api_version, kind) in INDEPENDENT_KINDS


def workers_for(transport) -> int:
    """How many requests a command may have in flight on this transport: one in-process (the
    embedded cluster serves one request at a time) or when requests are logged (-v: the log
    should read in order)."""
    if getattr(transport, "embedded", True) or getattr(transport, "verbosity", 0):
        return 1
    return WORKERS
