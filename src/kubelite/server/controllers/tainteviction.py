"""Taint-based eviction (kube-controller-manager's taint-eviction-controller): a pod on a node with a
NoExecute taint it does not tolerate is deleted at once; one that tolerates every such taint for a
limited `tolerationSeconds` is deleted when the shortest of them has passed since the taint was
added. So pods leave a node tainted `node.kubernetes.io/unreachable` (by the node lifecycle) after
the 300 s their default tolerations allow, and their controllers replace them elsewhere."""
from __future__ import annotations

from kubelite.server.clock import parse_time
from kubelite.server.controllers.base import Controller, object_key, split_key
from kubelite.server.controllers.scheduler import tolerates


def eviction_delay(tolerations: list, taints: list, now: float) -> float | None:
    """Seconds until the pod must go (0: now), None when it may stay."""
    delay = None
    for taint in taints:
        if taint.get("effect") != "NoExecute":
            continue
        matching = [t for t in tolerations if tolerates(t, taint)]
        if not matching:
            return 0.0
        limits = [t["tolerationSeconds"] for t in matching if t.get("tolerationSeconds") is not None]
        if not limits or len(limits) < len(matching):
            continue  # one toleration without a limit tolerates the taint for ever
        added = parse_time(taint.get("timeAdded")) or now
        left = max(added + max(min(limits), 0) - now, 0.0)
        delay = left if delay is None else min(delay, left)
    return delay


class TaintEviction(Controller):
    name = "taint-eviction"
    component = "taint-eviction-controller"
    watches = ("pods", "nodes")

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        if event_type == "DELETED":
            return
        if rid == "pods":
            if (obj.get("spec") or {}).get("nodeName"):
                self.queue.add(object_key(obj))
            return
        if any(t.get("effect") == "NoExecute" for t in (obj.get("spec") or {}).get("taints") or []):
            name = obj["metadata"]["name"]
            for pod in self.cache.list("pods", where=lambda p: (p.get("spec") or {}).get("nodeName") == name):
                self.queue.add(object_key(pod))

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        pod = self.cache.get("pods", ns, name)
        if pod is None or (pod.get("metadata") or {}).get("deletionTimestamp"):
            return
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            return
        node = self.cache.get("nodes", "", (pod.get("spec") or {}).get("nodeName") or "")
        if node is None:
            return
        delay = eviction_delay((pod.get("spec") or {}).get("tolerations") or [],
                               (node.get("spec") or {}).get("taints") or [], self.clock.time())
        if delay is None:
            return
        if delay > 0:
            self.queue.add_after(key, delay)
            return
        self.events.normal(pod, "TaintManagerEviction", f"Marking for deletion Pod {ns}/{name}")
        self.client.delete("pods", ns, name, uid=pod["metadata"].get("uid"))
