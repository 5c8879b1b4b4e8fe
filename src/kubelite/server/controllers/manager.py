"""The controller manager: one watch over the whole store feeds a shared cache and every
controller's queue; one thread reconciles, one key at a time.

Two ways to run, one code: `start()` works in the background in real time (`kubelite serve`,
and during an embedded command); `settle()` works until nothing changes — every write seen,
no key due on the cluster's clock — which is what an embedded command does before it exits and
what tests call instead of sleeping. A single worker keeps the cluster's reactions in a
deterministic order; a controller that fails on an object is logged and retried, never fatal.

On a store other processes can share, controllers with `leader_only` run only while this process
leads (leader.py: a campaigning `kubelite serve`, or an embedded command that finds no live leader).
"""
from __future__ import annotations

import gc
import threading
import time

from kubelite import gcpace
from kubelite.server.controllers.base import Cache, ControllerContext, log, object_key
from kubelite.server.errors import StatusError
from kubelite.server.storage.errors import StorageError

PREFIX = "/registry/"
# A controller with a backlog of _BACKLOG keys reconciles up to _TURN of them in a row, as
# kube-controller-manager's workers get through theirs while the others are busy: one sync of an
# owner then sees the changes of many of its pods (a ReplicaSet synced after each of its 1,000
# pods started costs O(n^2)). Below that, one key per turn keeps the order of small clusters'
# events the recorded one.
_BACKLOG = 16
_TURN = 64
_IDLE_WAIT = 1.0  # longest background wait when nothing is due (the fake clock may be moved)


def rid_of_key(key: str) -> str | None:
    """'/registry/apps/deployments/ns/name' -> 'apps/deployments'; '/registry/core/pods/..' -> 'pods'."""
    parts = key.split("/", 4)
    if len(parts) < 5:
        return None
    group, resource = parts[2], parts[3]
    return resource if group == "core" else f"{group}/{resource}"


class ControllerManager:
    def __init__(self, api, clock, controller_classes, options: dict | None = None):
        self.api = api
        self.store = api.store
        self.cache = Cache()
        self.ctx = ControllerContext(api, clock, self.cache, options)
        self.controllers = []
        for cls in controller_classes:
            try:
                self.controllers.append(cls(self.ctx))
            except Exception:  # one broken controller must not stop the others
                log.exception("controller %s failed to start", getattr(cls, "name", cls))
        self._everything = [c for c in self.controllers if "*" in c.watches]
        self._interest: dict[str, list] = {}
        for c in self.controllers:
            if "*" in c.watches:
                continue  # sees every event once, through _everything
            for rid in c.watches:
                if rid != "*":
                    self._interest.setdefault(rid, []).append(c)
        self._resources: dict[str, object] = {}
        self._watcher = None
        self._revision = 0
        self._next = 0  # round-robin position over the controllers' queues
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.traffic = None  # the API's requests in flight (server.traffic), given way to in the background
        self.elector = None
        if getattr(self.store, "shared", False):
            from kubelite.server.controllers.leader import LeaderElector

            self.elector = LeaderElector(api, clock, campaign=False)

    def elect(self, times=None, identity: str | None = None) -> None:
        """Campaign for the controllers' Lease (what a serving process does) before starting."""
        from kubelite.server.controllers.leader import LeaderElector

        self.elector = LeaderElector(self.api, self.ctx.clock, campaign=True, identity=identity, times=times)

    def leading(self) -> bool:
        return self.elector is None or self.elector.leading

    def _active(self) -> list:
        """The controllers that run now: all of them while leading, else those that run everywhere."""
        if self.leading():
            return self.controllers
        return [c for c in self.controllers if not c.leader_only]

    def _elect(self) -> None:
        if self.elector is not None:
            self.elector.tick()

    # -- running -------------------------------------------------------------------------------

    def start(self) -> "ControllerManager":
        if self._thread is None:
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name="kubelite-controllers", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        watcher = self._watcher
        if watcher is not None:
            watcher.close()  # wakes the worker out of its idle wait at once
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=10)
        with self._lock:
            if self.elector is not None:
                self.elector.release()
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None
            self.api.written = None

    def settle(self, timeout: float = 30.0) -> bool:
        """Reconcile until every write has been seen and no key is due; False if `timeout` ran out.

        While it works, what the process held before it began is left out of the garbage
        collector's walks (gc.freeze, gc.unfreeze after): a settle that fills the cache with
        1,000 pods gets two full collections, each walking every object of the process (the
        modules, schemas and server built before it: half of them) as well as the cache. What
        the settle made is collected as before; the rest is collected after it, as usual. Not when
        something in the process froze objects already (`kubelite serve` freezes its start for good).

        The collector also waits for gcpace.YOUNG new objects rather than 700 (as the CLI
        has it for a whole command, cli/main.py): the settle's writes make few cycles, and every
        tenth young collection walked all that the settle had cached (1,000 pods: 254 young, 23
        middle and 2 full collections, ~0.10 s of a 1.7 s rollout; after, 1 collection, ~0.02 s).
        """
        paced = gcpace.wait_longer()
        frozen = not gc.get_freeze_count()
        if frozen:
            gc.freeze()
        try:
            return self._settle(timeout)
        finally:
            if frozen:
                gc.unfreeze()
            gcpace.restore(paced)

    def _settle(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            self._ensure_watching()
            self._elect()
            while time.monotonic() < deadline:
                if self._step():
                    continue
                self.store.sync_watchers()
                if self._drain():
                    continue
                if self._revision >= self.store.current_revision():
                    return True
                # Writes outside the watched prefix (or not yet delivered): wait a little for them.
                self._watcher.wait(0.01)
            return False

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._give_way()
                with self._lock:
                    self._ensure_watching()
                    self._elect()
                    busy = self._step()
                    watcher = self._watcher
                if busy:
                    continue
                watcher.wait(self._idle_wait())
            except StorageError as err:
                if self._stopping.is_set():
                    return
                log.warning("controller watch ended (%s); listing again", err)
                try:
                    self._reset()
                except StorageError as again:  # the store is unreachable (etcd restarting): retry soon
                    log.warning("cannot list the store (%s); retrying", again)
                    self._stopping.wait(0.5)
            except Exception:
                log.exception("controller manager step failed")
                self._stopping.wait(0.1)

    def next_due(self) -> float | None:
        """Clock time at which a running controller has a key due next (None: nothing waits)."""
        with self._lock:
            dues = [due for c in self._active() if (due := c.queue.next_due()) is not None]
        return min(dues, default=None)

    def settled_revision(self) -> int | None:
        """The store revision whose events the controllers have all seen (None: not watching)."""
        with self._lock:
            return self._revision if self._watcher is not None else None

    def _idle_wait(self) -> float:
        now = self.ctx.clock.time()
        wait = _IDLE_WAIT if self.elector is None else min(_IDLE_WAIT, self.elector.due())
        for c in self._active():
            due = c.queue.next_due()
            if due is not None:
                wait = min(wait, max(due - now, 0.0))
        return max(wait, 0.001)

    # -- one step --------------------------------------------------------------------------------

    def _step(self) -> bool:
        """Apply the events waiting, then reconcile a due key of the next controller that has any
        (up to _TURN of them when it has a backlog). True if anything was done."""
        drained = self._drain()
        active = self._active()
        n = len(active)
        for i in range(n):
            controller = active[(self._next + i) % n]
            key = controller.queue.pop()
            if key is None:
                continue
            self._next = (self._next + i + 1) % n
            backlog = controller.queue.ready()
            self._sync(controller, key)
            for _ in range(_TURN - 1 if backlog >= _BACKLOG else 0):
                self._give_way()
                self._own_writes_seen()
                self._drain()
                key = controller.queue.pop()
                if key is None:
                    break
                self._sync(controller, key)
            self._own_writes_seen()
            return True
        return drained

    def _own_writes_seen(self) -> None:
        """What the syncs so far wrote reaches the watch before the next sync reads the cache.

        A store that delivers events from another thread (SQLite's poller, etcd's stream) could
        otherwise hand a controller its next key (a retry after a conflict, another object's
        event) before the pods it just created are in its cache, and it would create them again:
        kube-controller-manager's expectations keep its controllers from that."""
        self.store.sync_watchers()

    def _give_way(self) -> None:
        """In the background, wait (a bounded while) for the API requests in flight to finish."""
        if self.traffic is not None and self._thread is threading.current_thread():
            self.traffic.wait_quiet()

    @staticmethod
    def _sync(controller, key: str) -> None:
        try:
            controller.sync(key)
        except StatusError as err:
            if err.code != 409:
                log.warning("%s: sync %s: %s", controller.name, key, err.message)
            controller.queue.retry(key)
        except Exception:
            log.exception("%s: sync %s failed", controller.name, key)
            controller.queue.retry(key)
        else:
            controller.queue.forget(key)

    # -- the watch -------------------------------------------------------------------------------

    def _ensure_watching(self) -> None:
        if self._watcher is not None:
            return
        if self.api.written is None:
            self.api.written = {}  # what the API writes meanwhile, for _decode (core.decode_written)
        page = self.store.range(PREFIX)
        self._revision = page.revision
        for kv in page.kvs:
            rid = rid_of_key(kv.key)
            if rid is None or not self._wanted(rid):
                continue
            obj = self._decode(rid, kv)
            if obj is not None:
                self.cache._put(rid, obj)
        self._watcher = self.store.watch(PREFIX, page.revision)
        for rid in self.cache.resources():
            for obj in list(self.cache.list(rid)):
                self._dispatch(rid, "ADDED", obj, None)

    def _reset(self) -> None:
        """After a broken watch: list again; objects gone meanwhile are reported deleted."""
        with self._lock:
            before = {rid: {object_key(o): o for o in self.cache.list(rid)} for rid in self.cache.resources()}
            if self._watcher is not None:
                self._watcher.close()
            self._watcher = None
            self.cache._objects.clear()
            self._ensure_watching()
            for rid, objects in before.items():
                for key, obj in objects.items():
                    ns, _, name = key.rpartition("/")
                    if self.cache.get(rid, ns, name) is None:
                        self._dispatch(rid, "DELETED", obj, obj)

    def _drain(self) -> bool:
        watcher = self._watcher
        did = False
        while True:
            event = watcher.next(timeout=0)
            if event is None:
                return did
            did = True
            self._revision = max(self._revision, event.revision)
            self._apply(event)

    def _apply(self, event) -> None:
        rid = rid_of_key(event.kv.key)
        if rid is None or not self._wanted(rid):
            self.api.forget_written(event.kv.key)
            return
        obj = self._decode(rid, event.kv)
        if obj is None:
            return
        kind = str(event.type)
        if kind == "DELETED":
            old = self.cache._remove(rid, obj)
        else:
            old = self.cache._put(rid, obj)
            if old is None:
                kind = "ADDED"
        self._dispatch(rid, kind, obj, old)

    def _dispatch(self, rid: str, kind: str, obj: dict, old: dict | None) -> None:
        for controller in [*self._interest.get(rid, ()), *self._everything]:
            try:
                controller.handle(rid, kind, obj, old)
            except Exception:
                log.exception("%s: handling %s %s failed", controller.name, kind, rid)

    def _wanted(self, rid: str) -> bool:
        return bool(self._everything) or rid in self._interest

    def _decode(self, rid: str, kv) -> dict | None:
        r = self._resources.get(rid)
        if r is None:
            group, _, resource = rid.rpartition("/")
            registry = self.api.registry
            version = registry.preferred_version(group)
            r = registry.lookup(group, version, resource) if version else None
            if r is None:
                return None  # a custom resource whose definition this server does not serve (yet)
            self._resources[rid] = r
        try:
            return self.api.decode_written(r, kv)
        except ValueError:
            log.warning("undecodable object at %s", kv.key)
            return None
