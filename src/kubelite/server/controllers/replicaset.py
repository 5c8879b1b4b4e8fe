"""ReplicaSets and ReplicationControllers: keep `spec.replicas` active pods of the template.

One code for both kinds (kube-controller-manager runs the ReplicaSet code for RCs too): they
differ only in their resource, their selector's shape (a LabelSelector vs a plain label map) and
the component named in their Events. A sync claims the pods the selector matches (adopting
orphans, releasing strays), creates or deletes the difference, and writes the status counted from
the pods it started with — so a scale shows first the old counts, then the new, as upstream.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone
import math

from kubelite.server.controllers.base import Controller, object_key
from kubelite.server.controllers.podtemplate import (claim, create_pod, delete_pod, pod_is_active, pod_is_available,
                                                      pod_is_ready, pod_ready_since, selector_matcher, selects)
from kubelite.server.errors import StatusError

BURST = 500  # most pods created or deleted by one sync
EXPECTATION_TIMEOUT = 300.0  # seconds before unobserved creations/deletions are given up on
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"


class ReplicaSetController(Controller):
    name = "replicaset"
    component = "replicaset-controller"
    watches = ("apps/replicasets", "pods")
    kind = "ReplicaSet"

    def __init__(self, ctx):
        super().__init__(ctx)
        # key -> (uids whose creation or deletion is not seen yet, clock time of the writes)
        self._expecting: dict[str, tuple[set, float]] = {}

    # -- shape of the kind --------------------------------------------------------------------

    def selector(self, owner: dict) -> dict | None:
        return (owner.get("spec") or {}).get("selector")

    def matches(self, owner: dict, labels: dict | None) -> bool:
        return selects(self.selector(owner), labels)

    # -- events -------------------------------------------------------------------------------

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        if rid == self.watches[0]:
            self.queue.add(object_key(obj))
            return
        self._observe(event_type, obj)
        for key in self._owners_of(obj, old):
            self.queue.add(key)
        if event_type != "DELETED" and old is not None and pod_is_ready(obj) and not pod_is_ready(old):
            self._recheck_after_min_ready(obj)

    def _owners_of(self, pod: dict, old: dict | None) -> set[str]:
        keys = set()
        for version in (pod, old):
            if version is None:
                continue
            key = self.owner_key(version, self.kind)
            if key is not None:
                keys.add(key)
            elif not _has_controller(version):
                ns = version["metadata"].get("namespace", "")
                labels = version["metadata"].get("labels")
                for owner in self.cache.list(self.watches[0], ns, lambda o: self.matches(o, labels)):
                    keys.add(object_key(owner))
        return keys

    def _recheck_after_min_ready(self, pod: dict) -> None:
        key = self.owner_key(pod, self.kind)
        if key is None:
            return
        ns, _, name = key.rpartition("/")
        owner = self.cache.get(self.watches[0], ns, name)
        seconds = ((owner or {}).get("spec") or {}).get("minReadySeconds") or 0
        if seconds:
            self.queue.add_after(key, seconds + 1)

    def _observe(self, event_type: str, pod: dict) -> None:
        """Creations and deletions this controller waits to see before acting again."""
        uid = pod["metadata"].get("uid")
        if event_type == "MODIFIED" and not pod["metadata"].get("deletionTimestamp"):
            return
        for key, (uids, _) in list(self._expecting.items()):
            if uid in uids:
                uids.discard(uid)
                if not uids:
                    del self._expecting[key]

    def _satisfied(self, key: str) -> bool:
        pending = self._expecting.get(key)
        if pending is None:
            return True
        if self.clock.time() - pending[1] > EXPECTATION_TIMEOUT:
            del self._expecting[key]
            return True
        return False

    def _expect(self, key: str, uids: set) -> None:
        if uids:
            self._expecting[key] = (set(uids), self.clock.time())

    # -- reconcile ------------------------------------------------------------------------------

    def sync(self, key: str) -> None:
        ns, _, name = key.rpartition("/")
        cached = self.cache.get(self.watches[0], ns, name)
        if cached is None:
            self._expecting.pop(key, None)
            return
        owner = clone(cached)
        candidates = self.cache.list("pods", ns, pod_is_active)
        matches = selector_matcher(self.selector(owner))
        pods = claim(self, owner, "pods", candidates, lambda p: matches(p["metadata"].get("labels")))
        error = None
        if self._satisfied(key) and not owner["metadata"].get("deletionTimestamp"):
            error = self._manage(key, owner, pods)
        self._write_status(owner, pods, error)
        if error is not None:
            # Failed creations or deletions are retried with the queue's backoff, as upstream.
            raise StatusError(500, "InternalError", f"{self.kind} {key}: {error}")

    def _manage(self, key: str, owner: dict, pods: list[dict]) -> str | None:
        """Create or delete the difference; the first refusal's message, if any."""
        diff = len(pods) - int((owner.get("spec") or {}).get("replicas", 1))
        template = (owner.get("spec") or {}).get("template") or {}
        if diff < 0:
            return self._create(key, owner, template, min(-diff, BURST))
        if diff > 0:
            return self._delete(key, owner, pods, min(diff, BURST))
        return None

    def _create(self, key: str, owner: dict, template: dict, count: int) -> str | None:
        # Slow start: batches of 1, 2, 4, ... so a refused template costs one request, not N.
        created: set[str] = set()
        errors: list[str] = []
        batch, done = 1, 0
        while done < count and not errors:
            for _ in range(min(batch, count - done)):
                meta = create_pod(self, template, owner, errors=errors)
                if meta is None:
                    break
                created.add(meta["uid"])
                done += 1
            batch *= 2
        self._expect(key, created)
        return errors[0] if errors else None

    def _delete(self, key: str, owner: dict, pods: list[dict], count: int) -> str | None:
        doomed = rank_for_deletion(pods, self._related_pods(owner, pods), self.clock.time())[:count]
        deleted = set()
        for pod in doomed:
            try:
                if delete_pod(self, pod, owner):
                    deleted.add(pod["metadata"]["uid"])
            except StatusError as err:
                self._expect(key, deleted)
                return err.message
        self._expect(key, deleted)
        return None

    def _related_pods(self, owner: dict, pods: list[dict]) -> list[dict]:
        """Pods of every ReplicaSet sharing this one's controller (a Deployment's other revisions):
        deleting where they crowd a node spreads what remains."""
        ref = _controller_of(owner)
        if ref is None:
            return pods
        ns = owner["metadata"].get("namespace", "")
        siblings = {o["metadata"].get("uid") for o in self.cache.list(self.watches[0], ns)
                    if (_controller_of(o) or {}).get("uid") == ref.get("uid")}
        return [p for p in self.cache.list("pods", ns)
                if pod_is_active(p) and (_controller_of(p) or {}).get("uid") in siblings]

    # -- status -------------------------------------------------------------------------------------

    def _write_status(self, owner: dict, pods: list[dict], error: str | None) -> None:
        status = self._calculate_status(owner, pods, error)
        current = owner.get("status") or {}
        generation = owner["metadata"].get("generation") or 0
        if status == {k: v for k, v in current.items() if k != "observedGeneration"} and \
                current.get("observedGeneration") == generation:
            return
        status["observedGeneration"] = generation
        owner["status"] = _ordered_status(status)
        try:
            self.client.update_status(self.watches[0], owner)
        except StatusError as err:
            if err.code == 404:
                return
            raise

    def _calculate_status(self, owner: dict, pods: list[dict], error: str | None) -> dict:
        spec = owner.get("spec") or {}
        template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        min_ready = spec.get("minReadySeconds") or 0
        now = self.clock.time()
        fully = _count_labeled(pods, template_labels)
        ready = [p for p in pods if pod_is_ready(p)]
        # Without minReadySeconds every ready pod is available (a sync reads all of them).
        available = sum(1 for p in ready if pod_is_available(p, min_ready, now)) if min_ready else len(ready)
        status = {"replicas": len(pods)}
        for field, value in (("fullyLabeledReplicas", fully), ("readyReplicas", len(ready)),
                             ("availableReplicas", available)):
            if value:
                status[field] = value
        conditions = [c for c in (owner.get("status") or {}).get("conditions") or []]
        failure = next((c for c in conditions if c.get("type") == "ReplicaFailure"), None)
        if error is not None and failure is None:
            diff = len(pods) - int(spec.get("replicas", 1))
            reason = "FailedCreate" if diff < 0 else "FailedDelete"
            conditions.append({"type": "ReplicaFailure", "status": "True", "lastTransitionTime": self.clock.rfc3339(),
                               "reason": reason, "message": error})
        elif error is None and failure is not None:
            conditions = [c for c in conditions if c.get("type") != "ReplicaFailure"]
        if conditions:
            status["conditions"] = conditions
        if min_ready and len(ready) == int(spec.get("replicas", 1)) and available != len(ready):
            self.queue.add_after(object_key(owner), min_ready)
        return status


class ReplicationControllerController(ReplicaSetController):
    name = "replicationcontroller"
    component = "replication-controller"
    watches = ("replicationcontrollers", "pods")
    kind = "ReplicationController"

    def selector(self, owner: dict) -> dict | None:
        labels = (owner.get("spec") or {}).get("selector")
        return {"matchLabels": labels} if labels else None


# -- helpers -----------------------------------------------------------------------------------------

_STATUS_ORDER = ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration",
                 "conditions")


def _ordered_status(status: dict) -> dict:
    return {k: status[k] for k in _STATUS_ORDER if k in status}


def _has_controller(obj: dict) -> bool:
    return _controller_of(obj) is not None


def _controller_of(obj: dict) -> dict | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def _count_labeled(pods: list[dict], labels: dict) -> int:
    """How many of `pods` carry all of `labels`: a status counts every pod of its owner."""
    if not pods:
        return 0
    wanted = tuple(labels.items())
    count = 0
    for pod in pods:
        have = pod["metadata"].get("labels") or {}
        for key, value in wanted:
            if have.get(key) != value:
                break
        else:
            count += 1
    return count


_PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}


def rank_for_deletion(pods: list[dict], related: list[dict], now: float) -> list[dict]:
    """Pods in the order a scale-down deletes them: unscheduled, then pending/unknown, not ready,
    lower deletion cost, more crowded node, ready for less time, more restarts, newer."""
    on_node: dict[str, int] = {}
    for p in related:
        node = (p.get("spec") or {}).get("nodeName")
        if node:
            on_node[node] = on_node.get(node, 0) + 1

    def key(pod: dict):
        spec, status = pod.get("spec") or {}, pod.get("status") or {}
        node = spec.get("nodeName") or ""
        ready = pod_is_ready(pod)
        since = pod_ready_since(pod) if ready else None
        restarts = max((c.get("restartCount") or 0 for c in status.get("containerStatuses") or []), default=0)
        created = _epoch(pod["metadata"].get("creationTimestamp"))
        return (1 if node else 0, _PHASE_ORDER.get(status.get("phase"), 3), 1 if ready else 0,
                _deletion_cost(pod), -(on_node.get(node, 0) if node else 0),
                _log_age(now, since) if ready else 0, -restarts, _log_age(now, created),
                pod["metadata"].get("name", ""))

    return sorted(pods, key=key)


def _deletion_cost(pod: dict) -> int:
    try:
        return int(((pod["metadata"].get("annotations") or {}).get(DELETION_COST)) or 0)
    except ValueError:
        return 0


def _log_age(now: float, since: float | None) -> int:
    """Age on a log2 scale, so pods of similar age rank alike (upstream's logarithmic scale-down)."""
    if since is None:
        return 0
    age = now - since
    return int(math.floor(math.log2(age))) if age >= 1 else 0


def _epoch(text: str | None) -> float | None:
    from kubelite.server.clock import parse_time

    return parse_time(text)
