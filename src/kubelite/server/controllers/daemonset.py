"""The DaemonSet controller: one pod per eligible node (nodeSelector, required node affinity, taints
against the pod's tolerations plus the daemon tolerations it adds), pinned to its node by a
`matchFields metadata.name` node affinity; ControllerRevisions; RollingUpdate with
maxUnavailable/maxSurge or OnDelete; the status counts.

Differs from upstream: revision names use the ControllerRevision patch hash (the real controller
names them by its Go-struct template hash, which is not reproduced), so `agent-<hash>` suffixes
differ from a real cluster's.
"""
from __future__ import annotations

import copy

from kubelite.server.controllers.base import Controller, object_key, split_key
from kubelite.server.controllers.controllerrevision import REVISION_LABEL, sync_revisions
from kubelite.server.controllers.podtemplate import (is_controlled_by, pod_from_template, pod_is_available,
                                                     pod_is_ready, pod_is_terminating, pod_ready_since)
from kubelite.server.controllers.scheduler import matches_node_selector, untolerated_taint
from kubelite.server.errors import StatusError

TEMPLATE_GENERATION = "pod-template-generation"
DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]
HOST_NETWORK_TOLERATION = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
                           "effect": "NoSchedule"}
_STATUS_ORDER = ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
                 "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable",
                 "collisionCount", "conditions")


def daemon_tolerations(spec: dict) -> list[dict]:
    tolerations = list(spec.get("tolerations") or [])
    extra = DAEMON_TOLERATIONS + ([HOST_NETWORK_TOLERATION] if spec.get("hostNetwork") else [])
    for tol in extra:
        if not any(t.get("key") == tol["key"] and t.get("effect") == tol["effect"] for t in tolerations):
            tolerations.append(dict(tol))
    return tolerations


def should_run(pod_spec: dict, node: dict) -> bool:
    """Whether the daemon pod belongs on `node`: the scheduler's node selection (selector, required
    affinity) and no NoSchedule/NoExecute taint the pod with the daemon tolerations leaves
    untolerated (cordoned nodes keep their daemons: the unschedulable taint is tolerated)."""
    if not matches_node_selector(pod_spec, node):
        return False
    return untolerated_taint(daemon_tolerations(pod_spec), (node.get("spec") or {}).get("taints") or []) is None


def pinned_affinity(affinity: dict | None, node_name: str) -> dict:
    """The pod's affinity with the node-name term the daemon controller puts in (replacing any
    other matchFields of the required terms)."""
    affinity = copy.deepcopy(affinity or {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    required = node_affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    pin = [{"key": "metadata.name", "operator": "In", "values": [node_name]}]
    terms = required.get("nodeSelectorTerms") or [{}]
    required["nodeSelectorTerms"] = [{**{k: v for k, v in t.items() if k != "matchFields"}, "matchFields": pin}
                                     for t in terms]
    return affinity


def scaled(value, total: int, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, str) and value.endswith("%"):
        import math
        return int(math.ceil(int(value[:-1]) * total / 100))
    return int(value)


class DaemonSetController(Controller):
    name = "daemonset"
    component = "daemonset-controller"
    watches = ("apps/daemonsets", "pods", "nodes", "apps/controllerrevisions")

    def handle(self, rid, event_type, obj, old):
        super().handle(rid, event_type, obj, old)  # the DaemonSet itself
        if rid == "nodes":  # a node came, went or changed: every DaemonSet may care
            for ds in self.cache.list("apps/daemonsets"):
                self.queue.add(object_key(ds))
            return
        key = self.owner_key(obj, "DaemonSet")
        if key is not None:
            self.queue.add(key)

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        ds = self.cache.get("apps/daemonsets", ns, name)
        if ds is None or ds["metadata"].get("deletionTimestamp"):
            return
        spec = ds.get("spec") or {}
        revisions = [r for r in self.cache.list("apps/controllerrevisions", ns) if is_controlled_by(r, ds)]
        labels = (spec.get("selector") or {}).get("matchLabels") or {}
        update, _, collisions = sync_revisions(self, ds, revisions, labels, spec.get("revisionHistoryLimit"))
        digest = update["metadata"]["name"].rsplit("-", 1)[-1]
        pods = [p for p in self.cache.list("pods", ns) if is_controlled_by(p, ds)]
        by_node: dict[str, list[dict]] = {}
        for pod in pods:
            by_node.setdefault((pod.get("spec") or {}).get("nodeName") or _pinned_node(pod) or "", []).append(pod)
        nodes = self.cache.list("nodes")
        template_spec = (spec.get("template") or {}).get("spec") or {}
        wanted = {n["metadata"]["name"] for n in nodes if should_run(template_spec, n)}
        status = self._status(ds, wanted, by_node, digest, collisions)
        self._manage(ds, wanted, by_node, digest)
        self._write(ds, status)

    # -- pods ------------------------------------------------------------------------------------

    def _manage(self, ds: dict, wanted: set[str], by_node: dict[str, list[dict]], digest: str) -> None:
        for node_name, pods in by_node.items():
            if node_name not in wanted:
                for pod in pods:
                    if not pod_is_terminating(pod):
                        self._delete(ds, pod)
        for node_name in sorted(wanted):
            live = [p for p in by_node.get(node_name, []) if not pod_is_terminating(p)]
            failed = [p for p in live if (p.get("status") or {}).get("phase") == "Failed"]
            for pod in failed:  # a failed daemon pod is replaced
                self._delete(ds, pod)
            if len(live) == len(failed):
                self._create(ds, node_name, digest)
        self._roll(ds, wanted, by_node, digest)

    def _roll(self, ds: dict, wanted: set[str], by_node: dict[str, list[dict]], digest: str) -> None:
        strategy = (ds.get("spec") or {}).get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return
        rolling = strategy.get("rollingUpdate") or {}
        total = len(wanted)
        max_surge = scaled(rolling.get("maxSurge"), total, 0)
        max_unavailable = scaled(rolling.get("maxUnavailable"), total, 1)
        unavailable = 0
        old_nodes = []
        for node_name in sorted(wanted):
            live = [p for p in by_node.get(node_name, []) if not pod_is_terminating(p)]
            if not live or not any(pod_is_ready(p) for p in live):
                unavailable += 1
            old = [p for p in live if _revision(p) != digest]
            if old:
                old_nodes.append((node_name, live, old))
        # Nodes running an old and a new pod side by side count against maxSurge until the old goes.
        surging = sum(1 for _, live, _ in old_nodes if any(_revision(p) == digest for p in live))
        for node_name, live, old in old_nodes:
            new = [p for p in live if _revision(p) == digest]
            if max_surge > 0:
                if new and all(pod_is_ready(p) for p in new):
                    for pod in old:
                        self._delete(ds, pod)
                    surging -= 1
                elif not new and surging < max_surge:
                    self._create(ds, node_name, digest)
                    surging += 1
                continue
            ready_old = any(pod_is_ready(p) for p in old)
            if ready_old and unavailable >= max_unavailable:
                continue
            for pod in old:
                self._delete(ds, pod)
            if ready_old:
                unavailable += 1

    def _create(self, ds: dict, node_name: str, digest: str) -> None:
        meta = ds["metadata"]
        template = (ds.get("spec") or {}).get("template") or {}
        extra = {REVISION_LABEL: digest, TEMPLATE_GENERATION: str(meta.get("generation", 1))}
        pod = pod_from_template(template, ds, labels=extra)
        pod["spec"]["affinity"] = pinned_affinity(pod["spec"].get("affinity"), node_name)
        pod["spec"]["tolerations"] = daemon_tolerations(pod["spec"])
        try:
            created = self.client.create("pods", pod)
        except StatusError as err:
            self.events.warning(ds, "FailedCreate", f"Error creating: {err.message}")
            raise
        self.events.normal(ds, "SuccessfulCreate", f"Created pod: {created['metadata']['name']}")

    def _delete(self, ds: dict, pod: dict) -> None:
        meta = pod["metadata"]
        if self.client.delete("pods", meta.get("namespace"), meta["name"], uid=meta.get("uid")):
            self.events.normal(ds, "SuccessfulDelete", f"Deleted pod: {meta['name']}")

    # -- status ----------------------------------------------------------------------------------

    def _status(self, ds: dict, wanted: set[str], by_node: dict, digest: str, collisions: int) -> dict:
        scheduled = misscheduled = ready = updated = available = 0
        min_ready = int((ds.get("spec") or {}).get("minReadySeconds") or 0)
        now = self.clock.time()
        for node_name, pods in by_node.items():
            live = [p for p in pods if not pod_is_terminating(p)] or pods
            if node_name in wanted:
                scheduled += 1
                if any(pod_is_ready(p) for p in live):
                    ready += 1
                if any(pod_is_available(p, min_ready, now) for p in live):
                    available += 1
                elif any(pod_is_ready(p) for p in live):  # ready, not yet for minReadySeconds
                    since = max(pod_ready_since(p) or now for p in live if pod_is_ready(p))
                    self.queue.add_after(object_key(ds), since + min_ready - now)
                if any(_revision(p) == digest for p in live):
                    updated += 1
            elif node_name:
                misscheduled += 1
        status = {"currentNumberScheduled": scheduled, "numberMisscheduled": misscheduled,
                  "desiredNumberScheduled": len(wanted), "numberReady": ready,
                  "observedGeneration": ds["metadata"].get("generation"), "updatedNumberScheduled": updated,
                  "numberAvailable": available, "numberUnavailable": len(wanted) - available}
        if collisions:
            status["collisionCount"] = collisions
        for key in ("updatedNumberScheduled", "numberAvailable", "numberUnavailable"):
            if not status[key]:
                del status[key]
        return status

    def _write(self, ds: dict, status: dict) -> None:
        old = ds.get("status") or {}
        if old.get("conditions"):
            status["conditions"] = old["conditions"]
        status = {k: status[k] for k in _STATUS_ORDER if k in status}
        if status != old:
            self.client.update_status("apps/daemonsets", {**ds, "status": status})


def _revision(pod: dict) -> str | None:
    return (pod["metadata"].get("labels") or {}).get(REVISION_LABEL)


def _pinned_node(pod: dict) -> str | None:
    terms = ((((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {})
             .get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms") or []
    for term in terms:
        for expr in term.get("matchFields") or []:
            if expr.get("key") == "metadata.name" and expr.get("values"):
                return expr["values"][0]
    return None

