"""PodDisruptionBudgets: the disruption controller's status (expected, desired and current healthy
pods, disruptionsAllowed, the DisruptionAllowed condition, disruptedPods), and the check the
eviction subresource makes against it (`evict_check`) and the DisruptionTarget condition it puts
on the pod (`mark_disrupted`), as kube-controller-manager and kube-apiserver v1.32 do.

Expected pods: the matching pods' count for an integer minAvailable; otherwise the scale of the
controllers owning them (a Deployment's through its ReplicaSet, StatefulSets, ReplicaSets,
ReplicationControllers). An eviction of a healthy pod takes one disruption from the budget
(recorded in disruptedPods until the pod goes, for at most 2 minutes).
"""
from __future__ import annotations

import copy
import math

from kubelite.server.clock import parse_time
from kubelite.server.controllers.base import Controller, controller_ref, object_key, split_key
from kubelite.server.controllers.podtemplate import pod_is_ready, pod_is_terminating
from kubelite.server.errors import StatusError

DISRUPTED_TIMEOUT = 120.0
DENIED = "Cannot evict pod as it would violate the pod's disruption budget."
_STATUS_ORDER = ("observedGeneration", "disruptedPods", "disruptionsAllowed", "currentHealthy", "desiredHealthy",
                 "expectedPods", "conditions")


def selects_pod(pdb: dict, pod: dict) -> bool:
    """policy/v1: an empty selector selects every pod of the namespace; none selects none."""
    from kubelite.server.admission.validation_meta import selector_matches

    selector = (pdb.get("spec") or {}).get("selector")
    if selector is None:
        return False
    return selector_matches(selector, (pod.get("metadata") or {}).get("labels") or {})


def healthy(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and pod_is_ready(pod) and not pod_is_terminating(pod)


def _scaled(value, total: int, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        exact = int(value[:-1]) * total / 100
        return math.ceil(exact) if round_up else math.floor(exact)
    return int(value)


class DisruptionController(Controller):
    name = "disruption"
    component = "controllermanager"
    watches = ("policy/poddisruptionbudgets", "pods")

    def handle(self, rid, event_type, obj, old):
        super().handle(rid, event_type, obj, old)  # a budget itself
        if rid == "pods":
            ns = obj["metadata"].get("namespace")
            for pdb in self.cache.list("policy/poddisruptionbudgets", ns):
                if selects_pod(pdb, obj) or (old is not None and selects_pod(pdb, old)):
                    self.queue.add(object_key(pdb))

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        pdb = self.cache.get("policy/poddisruptionbudgets", ns, name)
        if pdb is None or pdb["metadata"].get("deletionTimestamp"):
            return
        pods = [p for p in self.cache.list("pods", ns) if selects_pod(pdb, p)]
        if not pods:
            self.events.normal(pdb, "NoPods", "No matching pods found")
        status = self._status(pdb, pods)
        old = pdb.get("status") or {}
        if status != {k: v for k, v in old.items() if k in _STATUS_ORDER}:
            self.client.update_status("policy/poddisruptionbudgets", {**pdb, "status": status})

    def _status(self, pdb: dict, pods: list[dict]) -> dict:
        spec = pdb.get("spec") or {}
        now = self.clock.time()
        alive = {p["metadata"]["name"] for p in pods if not pod_is_terminating(p)}
        disrupted = {}
        for pod_name, since in ((pdb.get("status") or {}).get("disruptedPods") or {}).items():
            at = parse_time(since) or now
            if pod_name in alive and at + DISRUPTED_TIMEOUT > now:
                disrupted[pod_name] = since
                self.queue.add_after(object_key(pdb), at + DISRUPTED_TIMEOUT - now)
        current = sum(1 for p in pods if healthy(p) and p["metadata"]["name"] not in disrupted)
        expected, desired = self._expected_and_desired(spec, pods)
        allowed = max(0, current - desired)
        status: dict = {"observedGeneration": pdb["metadata"].get("generation")}
        if disrupted:
            status["disruptedPods"] = disrupted
        status.update(disruptionsAllowed=allowed, currentHealthy=current, desiredHealthy=desired,
                      expectedPods=expected)
        status["conditions"] = [self._condition(pdb, allowed > 0)]
        return status

    def _expected_and_desired(self, spec: dict, pods: list[dict]) -> tuple[int, int]:
        min_available, max_unavailable = spec.get("minAvailable"), spec.get("maxUnavailable")
        if max_unavailable is None and isinstance(min_available, int):
            return len(pods), min_available
        expected = self._scale(pods)
        if max_unavailable is not None:
            return expected, max(0, expected - _scaled(max_unavailable, expected, True))
        return expected, _scaled(min_available if min_available is not None else 1, expected, True)

    def _scale(self, pods: list[dict]) -> int:
        """The replicas the pods' controllers ask for (each controller once)."""
        seen: dict[str, int] = {}
        for pod in pods:
            ref = controller_ref(pod)
            if ref is None:
                continue
            ns = pod["metadata"].get("namespace")
            owner = self._owner(ns, ref)
            if owner is not None:
                seen[owner["metadata"].get("uid")] = int((owner.get("spec") or {}).get("replicas", 1))
        return sum(seen.values()) if seen else len(pods)

    def _owner(self, ns: str, ref: dict) -> dict | None:
        rid = {"ReplicaSet": "apps/replicasets", "StatefulSet": "apps/statefulsets",
               "ReplicationController": "replicationcontrollers"}.get(ref.get("kind"))
        owner = self.client.get(rid, ns, ref.get("name")) if rid else None
        if owner is not None and ref.get("kind") == "ReplicaSet":
            parent = controller_ref(owner)
            if parent is not None and parent.get("kind") == "Deployment":
                return self.client.get("apps/deployments", ns, parent.get("name")) or owner
        return owner

    def _condition(self, pdb: dict, allowed: bool) -> dict:
        status, reason = ("True", "SufficientPods") if allowed else ("False", "InsufficientPods")
        for cond in (pdb.get("status") or {}).get("conditions") or []:
            if cond.get("type") == "DisruptionAllowed" and cond.get("status") == status:
                return {**cond, "observedGeneration": pdb["metadata"].get("generation")}
        return {"type": "DisruptionAllowed", "status": status, "observedGeneration": pdb["metadata"].get("generation"),
                "lastTransitionTime": self.clock.rfc3339(), "reason": reason, "message": ""}


def evict_check(api, pod: dict, dry_run: bool = False) -> None:
    """Before an eviction deletes `pod`: StatusError 429 if a budget forbids it, else the budget
    gives up one disruption (recorded in disruptedPods; not for a dry run). Finished pods are
    always evictable."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return
    from kubelite.server.core import ListOptions, WriteOptions

    r = api.registry.lookup("policy", "v1", "poddisruptionbudgets")
    ns = pod["metadata"].get("namespace")
    budgets = [b for b in api.list(r, ns, ListOptions()).get("items") or [] if selects_pod(b, pod)]
    if not budgets:
        return
    if len(budgets) > 1:
        raise StatusError(500, "InternalError", "This pod has more than one PodDisruptionBudget, which the eviction "
                                                "subresource does not support.")
    pdb = budgets[0]
    status = pdb.get("status") or {}
    name = pdb["metadata"]["name"]
    if (status.get("observedGeneration") or 0) < (pdb["metadata"].get("generation") or 0):
        raise _denied(f"The disruption budget {name} is still being processed by the server.")
    if not healthy(pod):
        if (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
            return
        if status.get("currentHealthy", 0) >= status.get("desiredHealthy", 0):
            return  # an unhealthy pod may go while the budget is met (IfHealthyBudget)
    if (status.get("disruptionsAllowed") or 0) <= 0:
        raise _denied(f"The disruption budget {name} needs {status.get('desiredHealthy', 0)} healthy pods and has "
                      f"{status.get('currentHealthy', 0)} currently")
    if dry_run:
        return
    updated = copy.deepcopy(pdb)
    updated["status"]["disruptionsAllowed"] = status["disruptionsAllowed"] - 1
    disrupted = updated["status"].setdefault("disruptedPods", {})
    disrupted[pod["metadata"]["name"]] = api.clock.rfc3339()
    api.update(r, ns, name, updated, WriteOptions(field_manager="kube-apiserver"), subresource="status")


def _denied(detail: str) -> StatusError:
    return StatusError(429, "TooManyRequests", DENIED, causes=[{"reason": "DisruptionBudget", "message": detail}])


def mark_disrupted(api, r, pod: dict) -> None:
    """The DisruptionTarget condition kube-apiserver puts on a pod it evicts (before deleting it),
    which podFailurePolicy rules can match."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed") or pod["metadata"].get("deletionTimestamp"):
        return
    from kubelite.server.core import WriteOptions

    updated = copy.deepcopy(pod)
    conditions = [c for c in (updated.setdefault("status", {}).get("conditions") or [])
                  if c.get("type") != "DisruptionTarget"]
    conditions.append({"type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
                       "lastTransitionTime": api.clock.rfc3339(), "reason": "EvictionByEvictionAPI",
                       "message": "Eviction API: evicting"})
    updated["status"]["conditions"] = conditions
    api.update(r, pod["metadata"].get("namespace"), pod["metadata"]["name"], updated,
               WriteOptions(field_manager="kube-apiserver"), subresource="status")
