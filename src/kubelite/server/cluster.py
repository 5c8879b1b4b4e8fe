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

import logging
import os
from typing import Iterable

from kubelite.server.clock import Clock, FakeClock

DEFAULT_NODES = 1
MIN_STEP = 0.05  # shortest move of a stepping advance (keys due meanwhile wait for the next stop)


class Cluster:
    def __init__(self, storage: str | os.PathLike = "memory://", *, nodes: int = DEFAULT_NODES,
                 clock: Clock | None = None, controllers: bool | Iterable[type] = True,
                 token: str | None = None, background: bool | None = None,
                 address: str = "127.0.0.1", port: int = 6443, ca: str | bytes | None = None):
        from kubelite.server.app import create_app
        from kubelite.server.core import APIServer
        from kubelite.server.resources import Registry
        from kubelite.server.storage import open_store

        self.clock = clock or Clock()
        self.store = open_store(storage)
        try:
            self.registry = Registry()
            self.api = APIServer(self.store, self.registry, clock=self.clock)
            self.api.bootstrap()
            self.app = create_app(self.api, token=token)
        except Exception:
            self.store.close()
            raise
        self.options = {"nodes": nodes, "address": address, "port": port}
        if ca is not None:
            # The CA clients verify the API with (kube-root-ca.crt in every namespace).
            self.options["ca"] = ca.decode() if isinstance(ca, bytes) else ca
        if controllers is True:
            from kubelite.server.controllers import default_controllers

            controller_classes = default_controllers()
        elif controllers is False:
            controller_classes = []
        else:
            controller_classes = list(controllers)
        from kubelite.server.controllers.manager import ControllerManager

        if any(cls.name == "simulated-kubelet" for cls in controller_classes):
            # The simulated kubelets are what a metrics-server would scrape: with them, the
            # cluster serves metrics.k8s.io as one with metrics-server installed does.
            from kubelite.server.metrics import api_resources

            self.registry.add_aggregated(*api_resources())
        self.manager = ControllerManager(self.api, self.clock, controller_classes, self.options)
        self.manager.traffic = self.app.traffic
        self.background = (not isinstance(self.clock, FakeClock)) if background is None else background
        self._transports: list = []
        self._closed = False

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

    def advertise(self, address: str, port: int) -> None:
        """The address and port the API is really served on (the `kubernetes` Service's endpoints)."""
        self.options["address"], self.options["port"] = address, port
        self.manager.ctx.options.update(address=address, port=port)

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
            logging.getLogger("kubelite.server").warning("compaction skipped: %s", err)
            return None

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.manager.stop()
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

        door = AppDoor(self.app, owns_app=False)
        self._transports.append(door)
        return door

    def http_client(self, **kwargs):
        import httpx

        kwargs.setdefault("base_url", "https://kubelite")
        return httpx.Client(transport=self.transport(), **kwargs)
