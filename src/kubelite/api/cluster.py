"""`kubelite.Cluster`: a whole cluster in this process — API server, controllers, nodes.

    with kubelite.Cluster() as kube:            # in memory; Cluster("state.db") keeps it in SQLite
        kube.apply("manifests/")
        kube.wait("deployment/web", "condition=Available")

Every write settles the controllers before it returns (they run until nothing changes), so
what a test reads next is what a real cluster would show once it caught up. `advance(seconds)`
moves the cluster's clock forward (CronJobs, deadlines, delays) on any Cluster; with
fake_clock=True time also stands still between calls, and `wait()` moves it, at most by its
timeout.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from kubelite.api.client import Client

MEMORY = "memory://"
REGISTRY_PREFIX = "/registry/"
WAIT_STEP = 1.0  # fake seconds a wait moves the clock between looks
POLL_SECONDS = 0.02  # real seconds between looks of a wait on a wall-clock cluster


@dataclass(frozen=True)
class Snapshot:
    """Every stored object at one moment (keys and encoded values), for `Cluster.restore`."""

    entries: tuple[tuple[str, bytes], ...]
    revision: int

    def __len__(self) -> int:
        return len(self.entries)


class Cluster(Client):
    """An in-process cluster with the Client methods plus settle, advance, snapshot/restore, serve."""

    def __init__(self, path: str | os.PathLike | None = None, *, nodes: int = 1, fake_clock: bool | float = False,
                 controllers: bool = True, namespace: str = "default", service_cidr: str | None = None):
        from kubelite.server.clock import FakeClock
        from kubelite.server.cluster import Cluster as ServerCluster

        self.kubeconfig: str | None = None  # while serve() serves: the kubeconfig's path
        clock = None
        if fake_clock is not False:
            clock = FakeClock(None if fake_clock is True else float(fake_clock))
        # No background thread: every call settles, so the state a caller reads is the settled one,
        # and nothing needs stopping at close (serve() pumps the controllers while it serves).
        self.cluster = ServerCluster(os.fspath(path) if path is not None else MEMORY, nodes=nodes, clock=clock,
                                     controllers=controllers, background=False, service_cidr=service_cidr)
        try:
            self.cluster.settle()
            super().__init__(_session(self.cluster, namespace), namespace)
        except Exception:
            self.cluster.close()
            raise

    # -- life cycle --------------------------------------------------------------------------

    def close(self) -> None:
        # the cluster owns the in-process transports: closing it ends them all
        self.cluster.close()

    def __enter__(self) -> "Cluster":
        return self

    def _changed(self) -> None:
        self.settle()

    @property
    def clock(self):
        """The cluster's clock (`.time()`, `.now()`): what controllers and timestamps read."""
        return self.cluster.clock

    @property
    def fake_clock(self) -> bool:
        from kubelite.server.clock import FakeClock

        return isinstance(self.cluster.clock, FakeClock)

    # -- time --------------------------------------------------------------------------------

    def settle(self, timeout: float = 30.0) -> bool:
        """Run the controllers until nothing changes; False if `timeout` seconds were not enough."""
        return self.cluster.settle(timeout)

    def advance(self, seconds: float) -> None:
        """Move the cluster's clock forward by `seconds` and settle, as if that time had passed.

        The clock stops on the way wherever a controller has something due (a CronJob's
        schedule, a pod finishing, a deadline) and the controllers settle there, so what
        happens is what a real cluster does in that time. A wall-clock cluster keeps the
        offset: its clock then reads wall time plus every advance."""
        if seconds < 0:
            raise ValueError(f"advance() moves the clock forward only; got {seconds}")
        self.cluster.advance(seconds, steps=True)

    def _wait_for(self, resource, name, ns, cond, timeout, obj):
        """Settle and look until the condition holds. On a fake clock nothing happens between
        looks unless time moves, so the clock is moved a step at a time (at most `timeout`)."""
        import time

        from kubelite.api.client import _timed_out

        moved, deadline = 0.0, time.monotonic() + timeout
        while True:
            self.settle()
            obj = self._get_or_none(resource, name, ns)
            if cond.met(obj):
                return None if cond.mode == "delete" else obj
            if self.fake_clock:
                if moved >= timeout:
                    raise _timed_out(resource, name, cond)
                step = min(WAIT_STEP, timeout - moved)
                self.cluster.advance(step, settle=False)
                moved += step
            elif time.monotonic() >= deadline:
                raise _timed_out(resource, name, cond)
            else:
                # controllers run only when settled (no background thread to stop at close):
                # real time must pass for what is scheduled later
                time.sleep(min(POLL_SECONDS, max(deadline - time.monotonic(), 0.0)))

    # -- snapshots ---------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """Every object as stored now (settled first)."""
        self.settle()
        page = self.cluster.store.range(REGISTRY_PREFIX)
        return Snapshot(tuple((kv.key, bytes(kv.value)) for kv in page.kvs), page.revision)

    def restore(self, snapshot: Snapshot) -> None:
        """Put every object back as it was in `snapshot`: later ones deleted, changed ones rewritten.

        Restored objects get new resourceVersions (the store's revision only moves forward);
        the clock is not moved back."""
        store = self.cluster.store
        wanted = dict(snapshot.entries)
        current = {kv.key: kv for kv in store.range(REGISTRY_PREFIX).kvs}
        for key in current.keys() - wanted.keys():
            store.delete(key)
        for key, value in snapshot.entries:
            kv = current.get(key)
            if kv is None:
                store.create(key, value)
            elif bytes(kv.value) != value:
                store.update(key, value, None)
        self.session.discovery.invalidate()  # CRDs may have come or gone
        self.settle()

    # -- serving -----------------------------------------------------------------------------

    def serve(self, *, address: str = "127.0.0.1", port: int = 0, kubeconfig: str | os.PathLike | None = None):
        """Serve the API over HTTPS (a free loopback port by default) while the `with` block
        runs; yields the path of a kubeconfig for kubectl and any Kubernetes client."""
        from kubelite.api.serving import serve

        return serve(self, address=address, port=port, kubeconfig=kubeconfig)


def _session(cluster, namespace: str):
    """A kubelite Session whose transport calls the cluster's API in-process, through the same
    door and client as the embedded CLI (no httpx: its request building was a tenth of a test's
    time in bench/api.py)."""
    from kubelite.client import http1
    from kubelite.client.dynamic import Session
    from kubelite.client.kubeconfig import Connection
    from kubelite.client.transport import EMBEDDED_URL, USER_AGENT, Transport

    from kubelite.client.server_warnings import python_warning

    client = http1.AppClient(cluster.door(), EMBEDDED_URL, headers={"User-Agent": USER_AGENT})
    transport = Transport(client, "kubelite.embedded", embedded=True)
    transport.on_warning = python_warning  # a library warns through `warnings`, not on stderr
    return Session(Connection(server=None, namespace=namespace), transport=transport)


def connect(kubeconfig: str | os.PathLike | None = None, *, context: str | None = None,
            namespace: str | None = None) -> Client:
    """A Client for the cluster a kubeconfig names ($KUBECONFIG, ~/.kube/config; with none,
    kubelite's own local cluster in ~/.kubelite). settle/advance/snapshot/serve raise NotSupported."""
    from kubelite.client.dynamic import Session
    from kubelite.client.kubeconfig import Overrides

    overrides = Overrides(kubeconfig=os.fspath(kubeconfig) if kubeconfig is not None else None, context=context,
                          namespace=namespace)
    session = Session.open(overrides)
    return Client(session, namespace)
