"""Cluster: the one place a kubelite cluster is assembled.

It opens the store, the resource registry, the API server core and its ASGI app, and owns the
background work (the controller manager: controllers, scheduler, simulated nodes). `kubelite
serve`, the embedded in-process transport, the tests and the benches all build a Cluster.

    with Cluster() as cluster:                 # in memory, controllers running in the background
        client = cluster.http_client()         # an httpx.Client to the API, in-process
        ...
        cluster.settle()                       # until every controller has done its work

With a FakeClock the controllers do not run in the background: the caller moves the clock and
settles, so what happens is exactly what the test says.
"""
from __future__ import annotations

import os
import threading

from kubelite.server.clock import Clock, FakeClock

TYPE_CHECKING = False  # typing for annotations only
if TYPE_CHECKING:
    from typing import Iterable

DEFAULT_NODES = 1
MIN_STEP = 0.05  # shortest move of a stepping advance (keys due meanwhile wait for the next stop)


class Cluster:
    def __init__(self, storage: str | os.PathLike = "memory://", *, nodes: int = DEFAULT_NODES,
                 clock: Clock | None = None, controllers: bool | Iterable[type] = True,
                 token: str | None = None, background: bool | None = None,
                 address: str = "127.0.0.1", port: int = 6443, ca: str | bytes | None = None,
                 service_cidr: str | None = None):
        """service_cidr: the range Services' addresses come from (kube-apiserver's
        --service-cluster-ip-range; default 10.0.0.0/24, kube-apiserver's own); ValueError if it
        is refused."""
        from kubelite.server.app import create_app
        from kubelite.server.core import APIServer
        from kubelite.server.resources import Registry
        from kubelite.server.storage import open_store

        if service_cidr is not None:
            from kubelite.server.admission.plugins import service_cidr as checked_range

            service_cidr = checked_range(service_cidr, "service_cidr")  # before the store opens
        self.clock = clock or Clock()
        self.store = open_store(storage)
        try:
            self.registry = Registry()
            self.api = APIServer(self.store, self.registry, clock=self.clock, service_cidr=service_cidr)
            self.api.bootstrap()
            self.app = create_app(self.api, token=token)
        except Exception:
            self.store.close()
            raise
        self.options = {"nodes": nodes, "address": address, "port": port}
        if ca is not None:
            # The CA clients verify the API with (kube-root-ca.crt in every namespace).
            self.options["ca"] = ca.decode() if isinstance(ca, bytes) else ca
        self._controllers = controllers if isinstance(controllers, bool) else list(controllers)
        if self._controllers is True or any(cls.name == "simulated-kubelet" for cls in self._controllers or ()):
            # The simulated kubelets (one of the default controllers) are what a metrics-server
            # would scrape: with them, the cluster serves metrics.k8s.io as one with
            # metrics-server installed does.
            from kubelite.server.metrics_api import api_resources

            self.registry.add_aggregated(*api_resources())
        self._manager = None  # built when first used: a command that finds nothing due never loads it
        self._manager_lock = threading.Lock()
        self.background = (not isinstance(self.clock, FakeClock)) if background is None else background
        self._transports: list = []
        self._closed = False
        self._dormant = False  # catch_up() found nothing due: the controllers wait for something to be
        self._wake_lock = threading.RLock()
        self._lookout: threading.Event | None = None  # set to stop the lookout of a dormant cluster
        self._marks: tuple[int | None, int | None] = (None, None)  # the store's, read at catch_up()

    @property
    def manager(self):
        """The controller manager (controllers, scheduler, simulated nodes), built when first used."""
        manager = self._manager
        if manager is None:
            with self._manager_lock:
                manager = self._manager
                if manager is None:
                    from kubelite.server.controllers.manager import ControllerManager

                    manager = ControllerManager(self.api, self.clock, self._controller_classes(), self.options)
                    manager.traffic = self.app.traffic
                    self._manager = manager
        return manager

    def _controller_classes(self) -> list[type]:
        if self._controllers is True:
            from kubelite.server.controllers import default_controllers

            return default_controllers()
        if self._controllers is False:
            return []
        return list(self._controllers)

    # -- life cycle --------------------------------------------------------------------------

    def start(self) -> "Cluster":
        """Start the background work (a no-op for a cluster that only settles)."""
        if self.background:
            self.manager.start()
        return self

    def settle(self, timeout: float = 30.0) -> bool:
        """Run the controllers until nothing changes; False if `timeout` seconds were not enough."""
        return self.manager.settle(timeout)

    def advance(self, seconds: float, *, settle: bool = True, steps: bool = False) -> None:
        """Move the clock forward by `seconds` (a FakeClock, or a wall clock's offset), then settle.

        With steps=True the clock stops at every moment a controller has work due on the way
        and settles there, as if the time had really passed: a CronJob every 5 minutes makes two
        Jobs in 600 s, and the first one's pods finish on the way."""
        if not steps:
            self.clock.advance(seconds)
            if settle:
                self.settle()
            return
        remaining = float(seconds)
        self.settle()
        while remaining > 0:
            due = self.manager.next_due()
            now = self.clock.time()
            step = remaining if due is None else min(remaining, max(due - now, MIN_STEP))
            self.clock.advance(step)
            remaining -= step
            self.settle()

    # -- a cluster that lives as long as a command (the embedded CLI) --------------------------

    def catch_up(self) -> None:
        """What a command does when it opens the cluster: the controllers act on what happened
        since the last command (settle), then run in the background while the command works.

        Unless nothing has happened: the store is at the revision the controllers last settled
        at and none of their timers has come (the marks the last finish() left). Then they are
        not even loaded until something is due: the first request that writes or watches (the
        door() calls wake()), the first of their timers or another process's write while the
        command goes on (a lookout thread, for commands that poll: `wait`, `delete --wait`);
        finish() settles them if anything has come by then."""
        if self._nothing_due():
            self._dormant = True
            self._look_out()
            return
        self.settle()
        self.start()

    @property
    def dormant(self) -> bool:
        """True while catch_up() found nothing due and nothing has woken the controllers since."""
        return self._dormant

    def wake(self) -> None:
        """Load, settle and start the controllers of a cluster catch_up() left asleep, as an open
        that found something due does; a caller that finds them waking waits until they are up."""
        if not self._dormant:
            return
        with self._wake_lock:
            if not self._dormant or self._closed:
                return
            self._stop_looking()
            self.settle()
            self.start()
            self._dormant = False

    def finish(self, timeout: float = 30.0) -> bool:
        """What a command does before it exits: settle, and note where the controllers stopped
        for the next command's catch_up(). A cluster still asleep settles only if something has
        become due meanwhile (another process wrote, a timer came)."""
        self._stop_looking()
        with self._wake_lock:
            if self._dormant and self._nothing_due():
                return True
            self._dormant = False
        settled = self.settle(timeout)
        self._note_settled(settled)
        return settled

    _REVISION_MARK, _DUE_MARK = "controllers_revision", "controllers_due"
    _NO_DUE = -1  # the due mark when no timer waits
    _LOOKOUT = 0.1  # seconds between the lookout's looks at the store's revision

    def _nothing_due(self) -> bool:
        revision, due = self._marks = self.store.marks(self._REVISION_MARK, self._DUE_MARK)
        return revision is not None and due is not None and not self._due(revision, due)

    def _due(self, revision: int, due: int) -> bool:
        """Whether the controllers have work, given the marks of their last settle."""
        if revision != self.store.current_revision():
            return True
        return due != self._NO_DUE and self.clock.time() >= due / 1e6

    def _look_out(self) -> None:
        """While asleep: wake the controllers when their first timer comes or the store moves (a
        command that polls, such as `wait`, sees what they do then, as it did when they ran in the
        background from the open)."""
        revision, due = self._marks
        stop = self._lookout = threading.Event()

        def run() -> None:
            try:
                while True:
                    wait = self._LOOKOUT
                    if due != self._NO_DUE:
                        wait = min(wait, max(due / 1e6 - self.clock.time(), 0.0))
                    if stop.wait(wait):
                        return
                    if self._due(revision, due):
                        break
            except Exception:  # the store closed under it: the command is ending
                return
            self.wake()

        threading.Thread(target=run, name="kubelite-lookout", daemon=True).start()

    def _stop_looking(self) -> None:
        lookout, self._lookout = self._lookout, None
        if lookout is not None:
            lookout.set()

    def _note_settled(self, settled: bool) -> None:
        manager = self.manager
        revision, due = manager.settled_revision(), manager.next_due()
        if not settled or revision is None or not manager.leading():
            # Not settled, or another process's controllers lead: the next command looks again.
            revision, due = 0, None
        marks = (revision, self._NO_DUE if due is None else int(due * 1e6))
        if marks != self._marks:
            self.store.set_marks(**{self._REVISION_MARK: marks[0], self._DUE_MARK: marks[1]})
            self._marks = marks

    def advertise(self, address: str, port: int) -> None:
        """The address and port the API is really served on (the `kubernetes` Service's endpoints)."""
        self.options["address"], self.options["port"] = address, port
        if self._manager is not None:  # else it is built with these options
            self._manager.ctx.options.update(address=address, port=port)

    def compact_if_due(self, mark: str | os.PathLike) -> int | None:
        """Compact the store as a long-running server would, for a cluster that lives only as long
        as a command: at most once per compaction interval, at the revision `mark` recorded one
        interval earlier."""
        import pathlib

        from kubelite.server.storage.compactor import compact_if_due
        from kubelite.server.storage.errors import StorageError

        try:
            return compact_if_due(self.store, pathlib.Path(mark), self.clock.time())
        except (StorageError, OSError) as err:  # housekeeping: never the command's failure
            import logging

            logging.getLogger("kubelite.server").warning("compaction skipped: %s", err)
            return None

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop_looking()
        with self._wake_lock:  # a wake under way ends first (and none starts after this)
            self._dormant = False
        if self._manager is not None:
            self._manager.stop()
        for transport in self._transports:
            transport.close(shutdown_app=True)
        self.app.shutdown()
        self.store.close()

    def __enter__(self) -> "Cluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- clients -----------------------------------------------------------------------------

    def transport(self):
        """An httpx transport calling the API in-process (no sockets)."""
        from kubelite.server.inprocess import InProcessTransport

        transport = InProcessTransport(self.app, owns_app=False)
        self._transports.append(transport)
        return transport

    def door(self):
        """The in-process door without an HTTP library (server.door.AppDoor): the embedded CLI's."""
        from kubelite.server.door import AppDoor

        door = AppDoor(self.app, owns_app=False, before=self._before_request)
        self._transports.append(door)
        return door

    def _before_request(self, scope: dict) -> None:
        """A request that writes or watches wakes controllers that catch_up() left asleep: they
        must see what it changes as it happens (a `delete --wait` waits for the garbage collector,
        a `rollout status` for the Deployment's Pods), as when they were started at open."""
        if self._dormant and _wakes(scope):
            self.wake()

    def http_client(self, **kwargs):
        import httpx

        kwargs.setdefault("base_url", "https://kubelite")
        return httpx.Client(transport=self.transport(), **kwargs)


_READS = ("GET", "HEAD", "OPTIONS")
# Groups whose resources are answered, never stored (TokenReview, SubjectAccessReview...).
_NEVER_STORED = ("/apis/authentication.k8s.io/", "/apis/authorization.k8s.io/")


def _wakes(scope: dict) -> bool:
    """A request that may change the store (a write that is not a dry run), or a watch."""
    from kubelite.server.door import streams

    if streams(scope):
        return True
    if scope.get("method") in _READS or scope.get("path", "").startswith(_NEVER_STORED):
        return False
    from urllib.parse import parse_qsl

    query = scope.get("query_string", b"").decode("latin-1")
    return not any(key == "dryRun" and value == "All" for key, value in parse_qsl(query))
