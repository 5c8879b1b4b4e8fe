"""Leader election through the Lease kube-system/kube-controller-manager, as kube-controller-manager
does it (client-go's leaderelection with a LeaseLock), so that when several servers share one
store their controllers run in one of them at a time.

A candidate (`campaign=True`, what `kubelite serve` runs) every retry period:
- creates the Lease if there is none, holding it;
- renews it (renewTime) if it holds it; if it could not renew for the renew deadline, it stops
  leading;
- takes it over (holderIdentity, acquireTime, leaseTransitions + 1) when the holder released it
  or the record has not changed for its own lease duration since this candidate first saw it (time
  measured on its own clock, never by comparing with the holder's renewTime, so clock skew between
  machines does not matter);
- on a clean stop releases it (empty holder, lease duration 1s) so that another takes over at once.

An observer (`campaign=False`: the short-lived embedded commands) never writes the Lease: it leads
while no one else holds a live one, so an embedded command on a store a server is using leaves the
work to that server's controllers.
"""
from __future__ import annotations

import os

from kubelite.record import FrozenRecord
from kubelite.server.clock import parse_time
from kubelite.server.controllers.base import ApiClient, log
from kubelite.server.errors import StatusError
from kubelite.server.storage.errors import StorageError

LEASES = "coordination.k8s.io/leases"
NAMESPACE = "kube-system"
NAME = "kube-controller-manager"
MANAGER = "kube-controller-manager"


class ElectionTimes(FrozenRecord):
    """kube-controller-manager's --leader-elect-lease-duration/renew-deadline/retry-period."""

    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0

    def check(self) -> "ElectionTimes":
        if not (0 < self.retry_period < self.renew_deadline < self.lease_duration):
            raise ValueError("leader election needs retry period < renew deadline < lease duration "
                             f"(got {self.retry_period}s, {self.renew_deadline}s, {self.lease_duration}s)")
        return self


def new_identity() -> str:
    """hostname_uuid, the form kube-controller-manager gives its holderIdentity."""
    from kubelite.uuids import uuid4

    if hasattr(os, "uname"):  # socket.gethostname() without socket's import
        return f"{os.uname().nodename}_{uuid4()}"
    import socket

    return f"{socket.gethostname()}_{uuid4()}"


class LeaderElector:
    def __init__(self, api, clock, *, campaign: bool, identity: str | None = None,
                 times: ElectionTimes | None = None):
        self.client = ApiClient(api, MANAGER)
        self.clock = clock
        self.campaign = campaign
        self._identity = identity
        self.times = (times or ElectionTimes()).check()
        self.leading = False
        self._next = None  # clock time of the next attempt; None: at once
        self._renewed = None  # clock time of the last successful acquire/renew
        self._seen = None  # (resourceVersion, clock time it was first seen) of the Lease record

    @property
    def identity(self) -> str:
        """This candidate's holderIdentity, made when first needed: an observer rarely needs one."""
        if self._identity is None:
            self._identity = new_identity()
        return self._identity

    def due(self) -> float | None:
        """Seconds (cluster clock) until the next attempt; 0 when due."""
        if self._next is None:
            return 0.0
        return max(self._next - self.clock.time(), 0.0)

    def tick(self, *, force: bool = False) -> bool:
        """Try to acquire or renew (or, observing, look) if due; True if leadership changed."""
        now = self.clock.time()
        if not force and self._next is not None and now < self._next:
            return False
        self._next = now + self.times.retry_period
        before = self.leading
        try:
            self.leading = self._try(now) if self.campaign else self._free(now)
        except (StatusError, StorageError) as err:  # the API or the store failed: as a failed renewal
            log.warning("leader election: %s", getattr(err, "message", err))
            self.leading = self._still_within_deadline(now)
        if self.leading != before:
            log.info("leader election: %s %s the lease %s/%s", self.identity,
                     "holds" if self.leading else "does not hold", NAMESPACE, NAME)
        return self.leading != before

    # -- one attempt ----------------------------------------------------------------------------

    def _try(self, now: float) -> bool:
        lease = self.client.get(LEASES, NAMESPACE, NAME)
        if lease is None:
            try:
                self.client.create(LEASES, self._record(None, now))
            except StatusError as err:
                if err.code != 409:  # another candidate created it first: not ours this round
                    raise
                return False
            self._renewed = now
            return True
        spec = lease.get("spec") or {}
        holder = spec.get("holderIdentity") or ""
        rv = (lease.get("metadata") or {}).get("resourceVersion")
        if self._seen is None or self._seen[0] != rv:
            self._seen = (rv, now)
        if holder and holder != self.identity and self._seen[1] + self.times.lease_duration > now:
            return False  # someone else's lease, live as far as we have seen (our own duration, as client-go)
        try:
            self.client.update(LEASES, self._record(lease, now))
        except StatusError as err:
            if err.code != 409:
                raise
            return self._still_within_deadline(now)  # it changed under us: look again next round
        self._renewed = now
        return True

    def _record(self, lease: dict | None, now: float) -> dict:
        stamp = _micro(now)
        if lease is None:
            return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": NAME, "namespace": NAMESPACE},
                    "spec": {"holderIdentity": self.identity,
                             "leaseDurationSeconds": int(self.times.lease_duration),
                             "acquireTime": stamp, "renewTime": stamp, "leaseTransitions": 0}}
        lease = {**lease, "spec": dict(lease.get("spec") or {})}
        spec = lease["spec"]
        ours = spec.get("holderIdentity") == self.identity
        if not ours:  # acquired, from another holder or from a release: one more transition
            spec["acquireTime"] = stamp
            spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + 1
        spec["holderIdentity"] = self.identity
        spec["leaseDurationSeconds"] = int(self.times.lease_duration)
        spec["renewTime"] = stamp
        return lease

    def _still_within_deadline(self, now: float) -> bool:
        return self.leading and self._renewed is not None and now - self._renewed < self.times.renew_deadline

    def _free(self, now: float) -> bool:
        """Observer: no one else holds a Lease renewed within its duration."""
        lease = self.client.get(LEASES, NAMESPACE, NAME)
        if lease is None:
            return True
        spec = lease.get("spec") or {}
        if not spec.get("holderIdentity") or spec.get("holderIdentity") == self.identity:
            return True
        renewed = parse_time(spec.get("renewTime"))
        duration = float(spec.get("leaseDurationSeconds") or self.times.lease_duration)
        return renewed is None or renewed + duration <= now

    # -- stopping -------------------------------------------------------------------------------

    def release(self) -> None:
        """Give the Lease up (if held) so that another candidate takes over without waiting."""
        if not (self.campaign and self.leading):
            return
        self.leading = False
        try:
            lease = self.client.get(LEASES, NAMESPACE, NAME)
            if lease is None or (lease.get("spec") or {}).get("holderIdentity") != self.identity:
                return
            now = self.clock.time()
            spec = dict(lease["spec"])
            spec.update(holderIdentity="", leaseDurationSeconds=1, renewTime=_micro(now),
                        acquireTime=_micro(now))
            self.client.update(LEASES, {**lease, "spec": spec})
        except StatusError as err:
            log.warning("leader election: releasing the lease: %s", err.message)


def _micro(when: float) -> str:
    import datetime

    moment = datetime.datetime.fromtimestamp(when, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
