"""The simulated kubelet of the simulated nodes: pod lifecycles as stages (as kwok's), no containers.

A Pod bound to one of the cluster's simulated nodes goes, in one status PATCH (strategic merge,
field manager `kubelite-kubelet`, subresource status — the reference cluster's simulated kubelet
did the same under the name `simulated-kubelet`), straight to `Running`: `startTime`,
`hostIP(s)` (the node's address), `podIP(s)` from the node's 10.244.N.0/24 (the host's for
hostNetwork pods), the five conditions True, init containers terminated `Completed` (restartable
ones running), every container running, ready and started with a fake `imageID` and
`containerID`.

Completion (a second PATCH, COMPLETE_AFTER seconds later on the cluster's clock):
- a Pod owned by a Job goes `Succeeded` (exit code 0, reason Completed);
- a Pod annotated `sim.kubelite.io/complete: "Succeeded"` or `"Failed"` goes to that phase
  (Failed: exit code 1, reason Error); the reference corpus's `sim.example.com/complete` is
  accepted too. `sim.kubelite.io/complete: "Running"` keeps a Job's pod running.

Graceful deletion: a Pod with a `deletionTimestamp` on a simulated node is deleted at once with
grace period 0 (the reference did the same); the API server already removes unbound pods itself.
Pods bound to a node the cluster does not simulate are left alone, as with a node whose kubelet is
down.

What the containers "print" is served by pods/log (handlers/pods.py, server/podlogs.py).
"""
from __future__ import annotations

import functools
import ipaddress
from collections import Counter

from kubelite.server.controllers.base import STRATEGIC, Controller, object_key, split_key
from kubelite.server.controllers.nodes import node_address, pod_cidr, simulated_nodes
from kubelite.server.errors import StatusError

MANAGER = "kubelite-kubelet"
COMPLETE_ANNOTATION = "sim.kubelite.io/complete"
COMPLETE_ANNOTATIONS = (COMPLETE_ANNOTATION, "sim.example.com/complete")
# Seconds from Running to Succeeded/Failed: "about 1 s" in the reference, just after the Job
# controller's 1 s batch has seen the pod ready.
COMPLETE_AFTER = 1.05
_TERMINAL = ("Succeeded", "Failed")


def container_id(pod: dict, container: str) -> str:
    import hashlib  # here: a command waking the controllers often starts no container (~1 ms)

    seed = f"{(pod.get('metadata') or {}).get('uid')}/{container}"
    return "containerd://" + hashlib.sha256(seed.encode()).hexdigest()


def image_id(image: str) -> str:
    import hashlib

    return f"{image}@sha256:{hashlib.sha256(image.encode()).hexdigest()}"


def wanted_completion(pod: dict) -> str | None:
    """"Succeeded", "Failed", or None when the pod keeps running."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    for key in COMPLETE_ANNOTATIONS:
        value = annotations.get(key)
        if value in _TERMINAL:
            return value
        if value == "Running":
            return None
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller") and ref.get("kind") == "Job" and str(ref.get("apiVersion", "")).startswith("batch/"):
            return "Succeeded"
    return None


def _condition(kind: str, status: str, now: str, reason: str | None = None) -> dict:
    cond = {"type": kind, "status": status, "lastProbeTime": None, "lastTransitionTime": now}
    if reason:
        cond["reason"] = reason
    return cond


def _order(types: list[str]) -> list[dict]:
    return [{"type": t} for t in types]


_CONDITION_ORDER = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
_FINAL_ORDER = ["Initialized", "Ready", "ContainersReady", "PodReadyToStartContainers", "PodScheduled"]


def running_status(pod: dict, host_ip: str, pod_ip: str, now: str) -> dict:
    """The status patch that takes a bound pod to Running."""
    spec = pod.get("spec") or {}
    init_statuses = []
    for c in spec.get("initContainers") or []:
        cid = container_id(pod, c.get("name"))
        if c.get("restartPolicy") == "Always":  # a sidecar keeps running
            state = {"running": {"startedAt": now}}
            ready, started = True, True
        else:
            state = {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": now, "finishedAt": now,
                                    "containerID": cid}}
            ready, started = True, False
        init_statuses.append(_container_status(c, cid, state, ready, started))
    statuses = [_container_status(c, container_id(pod, c.get("name")), {"running": {"startedAt": now}}, True, True)
                for c in spec.get("containers") or []]
    conditions = [_condition(t, "True", now) for t in _CONDITION_ORDER[:4]]
    gated = ready_condition(pod, now)
    if gated is not None:
        conditions[2] = gated
    status = {
        "$setElementOrder/conditions": _order(_CONDITION_ORDER),
        "conditions": conditions,
        "containerStatuses": statuses,
        "hostIP": host_ip, "hostIPs": [{"ip": host_ip}],
        "phase": "Running",
        "podIP": pod_ip, "podIPs": [{"ip": pod_ip}],
        "startTime": now,
    }
    if init_statuses:
        status["initContainerStatuses"] = init_statuses
    return status


def ready_condition(pod: dict, now: str) -> dict | None:
    """The Ready condition of a running pod with readiness gates (None without gates): True only
    when every gate's condition is True, else False with the kubelet's reason and message."""
    gates = (pod.get("spec") or {}).get("readinessGates") or []
    if not gates:
        return None
    present = {c.get("type"): c for c in (pod.get("status") or {}).get("conditions") or []}
    problems = []
    for gate in gates:
        kind = gate.get("conditionType")
        cond = present.get(kind)
        if cond is None:
            problems.append(f'corresponding condition of pod readiness gate "{kind}" does not exist.')
        elif cond.get("status") != "True":
            problems.append(f'the status of pod readiness gate "{kind}" is not "True", but {cond.get("status")}')
    if problems:
        return {**_condition("Ready", "False", now, "ReadinessGatesNotReady"), "message": ", ".join(problems)}
    return {**_condition("Ready", "True", now), "reason": None, "message": None}


def completed_status(pod: dict, phase: str, now: str) -> dict:
    """The status patch that ends a running pod in `phase`."""
    failed = phase == "Failed"
    reason = "PodFailed" if failed else "PodCompleted"
    statuses = []
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        started_at = ((cs.get("state") or {}).get("running") or {}).get("startedAt") or now
        done = dict(cs)
        done.update(ready=False, started=False, state={"terminated": {
            "containerID": cs.get("containerID"), "exitCode": 1 if failed else 0, "finishedAt": now,
            "reason": "Error" if failed else "Completed", "startedAt": started_at}})
        statuses.append(done)
    return {
        "$setElementOrder/conditions": _order(_FINAL_ORDER),
        "conditions": [_condition("Ready", "False", now, reason), _condition("ContainersReady", "False", now, reason),
                       _condition("PodReadyToStartContainers", "False", now)],
        "containerStatuses": statuses,
        "phase": phase,
    }


def ephemeral_statuses(pod: dict, now: str) -> list[dict]:
    """Every ephemeral container running (those already started keep their status)."""
    known = {cs.get("name"): cs for cs in (pod.get("status") or {}).get("ephemeralContainerStatuses") or []}
    out = []
    for c in (pod.get("spec") or {}).get("ephemeralContainers") or []:
        status = known.get(c.get("name")) or _container_status(c, container_id(pod, c.get("name")),
                                                                {"running": {"startedAt": now}}, False, True)
        out.append(status)
    return out


def _ephemeral_waiting(pod: dict) -> bool:
    known = {cs.get("name") for cs in (pod.get("status") or {}).get("ephemeralContainerStatuses") or []}
    return any(c.get("name") not in known for c in (pod.get("spec") or {}).get("ephemeralContainers") or [])


def _container_status(container: dict, cid: str, state: dict, ready: bool, started: bool) -> dict:
    image = container.get("image") or ""
    return {"name": container.get("name"), "state": state, "lastState": {}, "ready": ready, "restartCount": 0,
            "image": image, "imageID": image_id(image), "containerID": cid, "started": started}


class SimulatedKubelet(Controller):
    name = "simulated-kubelet"
    manager = MANAGER
    component = "kubelet"
    watches = ("pods",)

    def __init__(self, ctx):
        super().__init__(ctx)
        self._ips: dict[str, str] = {}  # pod key -> IP of the running pods of the simulated nodes
        self._holders: Counter = Counter()  # IP -> how many of those pods have it
        # Pod network -> the lowest offset in it that may be free (those below are all held), so
        # that a node's thousandth pod does not look at the 999 addresses before it.
        self._free_from: dict[ipaddress.IPv4Network, int] = {}
        self._started: dict[str, float] = {}  # pod uid -> clock time it went Running (sub-second)

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        key = object_key(obj)
        if event_type == "DELETED":
            self._release(key)
            self._started.pop((obj.get("metadata") or {}).get("uid"), None)
            return
        if (obj.get("spec") or {}).get("nodeName") in simulated_nodes(self.ctx.options):
            self._note_ip(key, obj)
            self.queue.add(key)

    def _note_ip(self, key: str, pod: dict) -> None:
        """Remember the address of a running pod (one started before this process, too)."""
        status = pod.get("status") or {}
        if status.get("phase") in _TERMINAL:
            self._release(key)
        elif status.get("podIP") and not (pod.get("spec") or {}).get("hostNetwork"):
            self._hold(key, status["podIP"])

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        pod = self.cache.get("pods", ns, name)
        if pod is None:
            return
        nodes = simulated_nodes(self.ctx.options)
        node_name = (pod.get("spec") or {}).get("nodeName")
        if node_name not in nodes:
            return
        meta = pod["metadata"]
        if meta.get("deletionTimestamp"):
            self.client.delete("pods", ns, name, uid=meta.get("uid"), grace=0)
            return
        status = pod.get("status") or {}
        phase = status.get("phase")
        if phase in _TERMINAL:
            self._release(key)  # its address may be handed out again
            return
        if phase != "Running" or not status.get("startTime"):
            self._start(pod, nodes[node_name], key)
            return
        if self._gates_changed(pod):
            return
        if _ephemeral_waiting(pod):
            self._patch_status(pod, {"ephemeralContainerStatuses": ephemeral_statuses(pod, self.clock.rfc3339())})
            return
        wanted = wanted_completion(pod)
        if wanted is None:
            return
        started = self._started.get(meta.get("uid"))
        if started is None:
            started = _started_at(pod) or self.clock.time()
        due = started + COMPLETE_AFTER - self.clock.time()
        if due > 0:
            self.queue.add_after(key, due)
            return
        self._patch_status(pod, completed_status(pod, wanted, self.clock.rfc3339()))

    def _gates_changed(self, pod: dict) -> bool:
        """Readiness gates decide Ready: patch it when their conditions changed; True if patched."""
        wanted = ready_condition(pod, self.clock.rfc3339())
        if wanted is None:
            return False
        current = next((c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), {})
        if current.get("status") == wanted["status"] and current.get("message") == wanted["message"]:
            return False
        if current.get("status") == wanted["status"]:
            wanted["lastTransitionTime"] = current.get("lastTransitionTime")
        self._patch_status(pod, {"conditions": [wanted]})
        return True

    def _start(self, pod: dict, node_index: int, key: str) -> None:
        host_ip = node_address(node_index)
        if (pod.get("spec") or {}).get("hostNetwork"):
            pod_ip = host_ip
        else:
            pod_ip = self._ips.get(key) or self._allocate_ip(node_index, (pod.get("spec") or {}).get("nodeName"))
            self._hold(key, pod_ip)
        self._patch_status(pod, running_status(pod, host_ip, pod_ip, self.clock.rfc3339()))
        self._started[pod["metadata"].get("uid")] = self.clock.time()
        if wanted_completion(pod) is not None:
            self.queue.add_after(key, COMPLETE_AFTER)

    def _allocate_ip(self, node_index: int, node_name: str) -> str:
        """The lowest address of the node's pod network no pod holds."""
        network = _pod_network(node_index)
        first = int(network.network_address)
        offset = self._free_from.get(network, 2)  # .1 is the node's bridge
        while offset < network.num_addresses - 1:
            address = str(ipaddress.ip_address(first + offset))
            if not self._holders[address]:
                self._free_from[network] = offset
                return address
            offset += 1
        self._free_from[network] = offset
        raise RuntimeError(f"no pod IP left on {node_name}")

    def _hold(self, key: str, ip: str) -> None:
        if self._ips.get(key) == ip:
            return
        self._release(key)
        self._ips[key] = ip
        self._holders[ip] += 1

    def _release(self, key: str) -> None:
        ip = self._ips.pop(key, None)
        if ip is None:
            return
        self._holders[ip] -= 1
        if self._holders[ip]:
            return
        del self._holders[ip]
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            return  # a status written by someone else: never one of ours to hand out
        for network, offset in self._free_from.items():
            if address in network:
                self._free_from[network] = min(offset, max(2, int(address) - int(network.network_address)))

    def _patch_status(self, pod: dict, status: dict) -> None:
        meta = pod["metadata"]
        try:
            self.client.patch("pods", meta["namespace"], meta["name"], {"status": status}, STRATEGIC,
                              subresource="status", answer=False)
        except StatusError as err:
            if err.code != 404:
                raise


@functools.lru_cache(maxsize=256)
def _pod_network(node_index: int) -> ipaddress.IPv4Network:
    return ipaddress.ip_network(pod_cidr(node_index))


def _started_at(pod: dict) -> float | None:
    from kubelite.server.clock import parse_time

    return parse_time((pod.get("status") or {}).get("startTime"))
