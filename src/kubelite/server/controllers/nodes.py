"""Simulated nodes: the Node objects, their Leases, and the node lifecycle that watches them.

A Cluster runs `options["nodes"]` simulated nodes (`Cluster(nodes=N)`, `kubelite serve --nodes N`),
named `node-a`, `node-b`, ... as the reference cluster's single `node-a`: Ready, cpu 8 / memory
32Gi / pods 110, no taints, address 127.0.0.<index+1>, pod CIDR 10.244.<index>.0/24. Like a kubelet
they register themselves and renew a Lease in `kube-node-lease` every 10 s on the cluster's clock.

The node lifecycle controller (kube-controller-manager's) watches every Node's Lease: a node
whose Lease has not been renewed for the grace period (a Node someone created by hand, or one whose
Lease was deleted and not renewed) gets its conditions set to Unknown, the
`node.kubernetes.io/unreachable` taints (NoSchedule, and NoExecute for tainteviction.py), and its
pods Ready=False with a NodeNotReady event; a node whose Lease is renewed again loses the taints.
"""
from __future__ import annotations

import copy
import functools

from kubelite.server.controllers.base import MERGE, STRATEGIC, Controller
from kubelite.server.errors import StatusError

LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION = 40  # seconds, the kubelet's default
RENEW_INTERVAL = 10  # the kubelet renews its Lease every quarter of the duration
GRACE_PERIOD = 40  # node-monitor-grace-period: how stale a Lease may be before the node is unreachable
KUBELET_VERSION = "v1.32.13"
KUBELET_PORT = 10250
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
# Marks the Nodes whose (simulated) kubelet answers pods/log.
SIMULATED_ANNOTATION = "sim.kubelite.io/simulated"

CAPACITY = {"cpu": "8", "memory": "32Gi", "pods": "110"}

# The kubelet's healthy conditions: type, reason, message (Ready last, as a kubelet lists them).
_HEALTHY = (
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)


def node_names(count: int) -> list[str]:
    """node-a .. node-z, node-aa, node-ab, ...: the simulated nodes of a cluster of `count`."""
    return list(_node_names(max(int(count or 0), 0)))


# The kubelet asks for every pod event which nodes it simulates: the names are made once.
@functools.lru_cache(maxsize=16)
def _node_names(count: int) -> tuple[str, ...]:
    return tuple(f"node-{_letters(i)}" for i in range(count))


def _letters(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, rem = divmod(i - 1, 26)
        out = chr(ord("a") + rem) + out
    return out


def simulated_nodes(options: dict) -> dict[str, int]:
    """Name -> index of the nodes this cluster simulates."""
    return {name: i for i, name in enumerate(node_names(options.get("nodes", 1)))}


def node_address(index: int) -> str:
    return f"127.0.0.{index % 254 + 1}"


def pod_cidr(index: int) -> str:
    return f"10.244.{index % 256}.0/24"


def _uuid_like(seed: str) -> str:
    import hashlib  # here: a command waking the controllers seldom makes a node (~1 ms)

    h = hashlib.sha256(seed.encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def healthy_conditions(now: str) -> list[dict]:
    return [{"type": t, "status": s, "lastHeartbeatTime": now, "lastTransitionTime": now,
             "reason": reason, "message": message} for t, s, reason, message in _HEALTHY]


def node_object(name: str, index: int, now: str) -> dict:
    """The Node a simulated kubelet registers."""
    labels = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
              "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels,
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0", SIMULATED_ANNOTATION: "true",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"podCIDR": pod_cidr(index), "podCIDRs": [pod_cidr(index)]},
        "status": {
            "capacity": dict(CAPACITY), "allocatable": dict(CAPACITY),
            "conditions": healthy_conditions(now),
            "addresses": [{"type": "InternalIP", "address": node_address(index)},
                          {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": KUBELET_PORT}},
            "nodeInfo": {"machineID": _uuid_like("machine/" + name).replace("-", ""),
                         "systemUUID": _uuid_like("system/" + name),
                         "bootID": _uuid_like("boot/" + name),
                         "kernelVersion": "6.1.0-kubelite", "osImage": "kubelite simulated node",
                         "containerRuntimeVersion": "containerd://1.7.24",
                         "kubeletVersion": KUBELET_VERSION, "kubeProxyVersion": KUBELET_VERSION,
                         "operatingSystem": "linux", "architecture": "amd64"},
        },
    }


def lease_object(name: str, node_uid: str | None, now_micro: str) -> dict:
    meta = {"name": name, "namespace": LEASE_NAMESPACE}
    if node_uid:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": node_uid}]
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
            "spec": {"holderIdentity": name, "leaseDurationSeconds": LEASE_DURATION, "renewTime": now_micro}}


def node_is_ready(node: dict) -> bool:
    for cond in (node.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return False


class SimulatedNodes(Controller):
    """The kubelets' node side: register each simulated Node, renew its Lease, keep it Ready."""

    name = "simulated-nodes"
    manager = "kubelite-kubelet"
    component = "kubelet"
    watches = ("nodes", "coordination.k8s.io/leases")

    def __init__(self, ctx):
        super().__init__(ctx)
        for name in simulated_nodes(self.ctx.options):  # each kubelet registers as it starts
            self.queue.add(name)

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        name = (obj.get("metadata") or {}).get("name")
        if rid == "coordination.k8s.io/leases" and (obj.get("metadata") or {}).get("namespace") != LEASE_NAMESPACE:
            return
        if name in simulated_nodes(self.ctx.options) and event_type == "DELETED":
            self.queue.add(name)  # a simulated kubelet registers its node again

    def sync(self, key: str) -> None:
        nodes = simulated_nodes(self.ctx.options)
        if key not in nodes:
            return
        node = self.client.get("nodes", "", key)
        if node is None:
            node = self.client.create("nodes", node_object(key, nodes[key], self.clock.rfc3339()))
        elif not node_is_ready(node) or _has_taint(node, UNREACHABLE_TAINT):
            self._recover(node)
        self.queue.add_after(key, self._renew(key, node))

    def _renew(self, name: str, node: dict) -> float:
        """Renew the node's Lease if it is due; the seconds until the next renewal."""
        now = self.clock.rfc3339_micro()
        lease = self.client.get("coordination.k8s.io/leases", LEASE_NAMESPACE, name)
        if lease is None:
            try:
                self.client.create("coordination.k8s.io/leases",
                                   lease_object(name, node["metadata"].get("uid"), now))
            except StatusError as err:
                if err.code != 409:
                    raise
            return RENEW_INTERVAL
        spec = lease.get("spec") or {}
        age = _age(spec.get("renewTime"), self.clock.time())
        if spec.get("holderIdentity") == name and age is not None and 0 <= age < RENEW_INTERVAL:
            # Renewed less than an interval ago (by this kubelet in an earlier process: every
            # embedded command starts the controllers again): a kubelet that kept running would
            # wait for its next turn, and so does this one, rather than write at every start.
            return RENEW_INTERVAL - age
        self.client.patch("coordination.k8s.io/leases", LEASE_NAMESPACE, name,
                          {"spec": {"holderIdentity": name, "renewTime": now}}, answer=False)
        return RENEW_INTERVAL

    def _recover(self, node: dict) -> None:
        """The kubelet is back: Ready conditions again (the lifecycle controller lifts the taints)."""
        now = self.clock.rfc3339()
        self.client.patch("nodes", "", node["metadata"]["name"],
                          {"status": {"conditions": healthy_conditions(now)}}, subresource="status")


def _age(timestamp: str | None, now: float) -> float | None:
    from kubelite.server.clock import parse_time

    at = parse_time(timestamp)
    return None if at is None else now - at


def _has_taint(node: dict, key: str) -> bool:
    return any(t.get("key") == key for t in (node.get("spec") or {}).get("taints") or [])


class NodeLifecycle(Controller):
    """kube-controller-manager's node lifecycle: a Node whose Lease is stale is unreachable."""

    name = "node-lifecycle"
    component = "node-controller"
    watches = ("nodes", "coordination.k8s.io/leases", "pods")  # pods: read from the cache only

    def __init__(self, ctx):
        super().__init__(ctx)
        # node -> (renewTime last seen, clock time it was first seen): as the real controller, the
        # grace period runs from when a renewal was observed, not from the time the Lease claims.
        self._observed: dict[str, tuple[str | None, float]] = {}

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        meta = obj.get("metadata") or {}
        if rid == "pods" or rid == "coordination.k8s.io/leases" and meta.get("namespace") != LEASE_NAMESPACE:
            return
        name = meta.get("name")
        if event_type == "DELETED" and rid == "nodes":
            self._observed.pop(name, None)
            return
        self.queue.add(name)

    def sync(self, key: str) -> None:
        node = self.cache.get("nodes", "", key)
        if node is None:
            return
        lease = self.cache.get("coordination.k8s.io/leases", LEASE_NAMESPACE, key)
        renew = ((lease or {}).get("spec") or {}).get("renewTime")
        now = self.clock.time()
        seen = self._observed.get(key)
        if seen is None or (renew is not None and renew != seen[0]):
            seen = self._observed[key] = (renew, now)
        stale_for = now - seen[1]
        # A simulated node's kubelet runs in this process and renews at the same clock instant:
        # a jump of a fake clock must not make it flap.
        if stale_for >= GRACE_PERIOD and key not in simulated_nodes(self.ctx.options):
            self._mark_unreachable(node)
            return  # the next renewal (a Lease event) brings it back
        self._lift_taints(node)
        self.queue.add_after(key, max(GRACE_PERIOD - stale_for, RENEW_INTERVAL))

    def _mark_unreachable(self, node: dict) -> None:
        now = self.clock.rfc3339()
        name = node["metadata"]["name"]
        conditions = copy.deepcopy((node.get("status") or {}).get("conditions") or [])
        changed = False
        for cond in conditions:
            if cond.get("status") != "Unknown":
                cond.update(status="Unknown", reason="NodeStatusUnknown",
                            message="Kubelet stopped posting node status.", lastTransitionTime=now)
                changed = True
        if not any(c.get("type") == "Ready" for c in conditions):
            conditions.append({"type": "Ready", "status": "Unknown", "lastHeartbeatTime": None,
                               "lastTransitionTime": now, "reason": "NodeStatusNeverUpdated",
                               "message": "Kubelet never posted node status."})
            changed = True
        if changed:
            self.client.patch("nodes", "", name, {"status": {"conditions": conditions}}, subresource="status")
            self._mark_pods_not_ready(name, now)
        taints = list((node.get("spec") or {}).get("taints") or [])
        wanted = [{"key": UNREACHABLE_TAINT, "effect": effect, **({"timeAdded": now} if effect == "NoExecute" else {})}
                  for effect in ("NoSchedule", "NoExecute")]
        missing = [t for t in wanted if not any(x.get("key") == t["key"] and x.get("effect") == t["effect"]
                                                for x in taints)]
        if missing:
            self.client.patch("nodes", "", name, {"spec": {"taints": taints + missing}}, MERGE)

    def _mark_pods_not_ready(self, node_name: str, now: str) -> None:
        """Nobody can vouch for the pods of an unreachable node: they are Ready=False."""
        for pod in self.cache.list("pods", where=lambda p: (p.get("spec") or {}).get("nodeName") == node_name):
            ready = [c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"]
            if not ready or ready[0].get("status") == "False":
                continue
            meta = pod["metadata"]
            self.events.warning(pod, "NodeNotReady", "Node is not ready")
            try:
                self.client.patch("pods", meta["namespace"], meta["name"], {"status": {"conditions": [
                    {"type": "Ready", "status": "False", "lastTransitionTime": now}]}}, STRATEGIC,
                    subresource="status")
            except StatusError as err:
                if err.code != 404:
                    raise

    def _lift_taints(self, node: dict) -> None:
        taints = (node.get("spec") or {}).get("taints") or []
        kept = [t for t in taints if t.get("key") != UNREACHABLE_TAINT]
        if len(kept) != len(taints) and node_is_ready(node):
            self.client.patch("nodes", "", node["metadata"]["name"], {"spec": {"taints": kept or None}}, MERGE)
