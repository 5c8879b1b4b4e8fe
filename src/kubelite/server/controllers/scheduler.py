"""The scheduler (kube-scheduler's `default-scheduler`): binds pending Pods to nodes.

A Pod with no `spec.nodeName` whose `schedulerName` is `default-scheduler` is filtered against
every Node as the default plugins do, in their order — cordon (`spec.unschedulable`),
NoSchedule/NoExecute taints against tolerations, `nodeSelector` and required node affinity, the
node's pod count and the sum of the requests of the pods on it against `allocatable`, required
inter-pod (anti-)affinity (podaffinity.py) — then bound through `pods/binding`
to the feasible node with the least requested (ties by name). Binding is recorded as a
`Scheduled` Event; a Pod no node fits gets the `PodScheduled=False` condition (reason
`Unschedulable`) and a `FailedScheduling` Event with kube-scheduler's message, and is tried again
whenever a Node or a Pod changes. Events have the shape the real scheduler's events.k8s.io/v1
recorder gives them (reporting controller `default-scheduler`, field manager `kube-scheduler`).
"""
from __future__ import annotations

from collections import Counter

from kubelite.server.controllers import podaffinity
from kubelite.server.controllers.base import STRATEGIC, Controller, EventRecorder, object_key, split_key
from kubelite.server.controllers.resources import node_allocatable, pod_requests
from kubelite.server.errors import StatusError

SCHEDULER_NAME = "default-scheduler"
REPORTING_INSTANCE = "default-scheduler-kubelite"

# Why a node does not fit, as kube-scheduler words it; the second value says whether preempting
# lower-priority pods could ever help (it cannot for node-level mismatches).
UNSCHEDULABLE = ("node(s) were unschedulable", False)
AFFINITY = ("node(s) didn't match Pod's node affinity/selector", False)
TOO_MANY_PODS = ("Too many pods", True)


def is_pending(pod: dict) -> bool:
    spec = pod.get("spec") or {}
    meta = pod.get("metadata") or {}
    return (not spec.get("nodeName") and not meta.get("deletionTimestamp")
            and (spec.get("schedulerName") or SCHEDULER_NAME) == SCHEDULER_NAME
            and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"))


class Scheduler(Controller):
    name = "scheduler"
    manager = "kube-scheduler"
    component = SCHEDULER_NAME
    watches = ("pods", "nodes")

    def __init__(self, ctx):
        super().__init__(ctx)
        # What each node's pods request, kept up to date from the pod events (no rescans):
        # pod key -> (node, requests with "pods": 1, the pod), and node -> the sums.
        self._placed: dict[str, tuple[str, dict, dict]] = {}
        self._anti: set[str] = set()  # placed pods with required anti-affinity (others must respect)
        self._used: dict[str, dict] = {}
        # Per node: the node object read last, its allocatable, and its load (None: stale). A
        # binding changes one node's load: the others' are not computed again for the next pod.
        self._nodes: dict[str, list] = {}
        # Pods bound but not yet seen bound in the cache (the real scheduler's "assumed" pods),
        # so that two pods scheduled back to back both count against a node.
        self._assumed: set[str] = set()
        self._unschedulable: set[str] = set()

    # -- events --------------------------------------------------------------------------------

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        if rid == "nodes":
            if event_type == "DELETED":
                self._nodes.pop((obj.get("metadata") or {}).get("name"), None)
            self._retry_unschedulable()
            return
        key = object_key(obj)
        freed = self._account(key, event_type, obj)
        if freed:
            self._retry_unschedulable()  # a pod left a node (deleted or finished): others may fit now
        if event_type == "DELETED" or not is_pending(obj):
            self._unschedulable.discard(key)
            return
        if key not in self._unschedulable:
            self.queue.add(key)

    def _account(self, key: str, event_type: str, pod: dict) -> bool:
        """Keep the node sums up to date with one pod event; True if the pod gave up a place."""
        node = (pod.get("spec") or {}).get("nodeName")
        if node or event_type == "DELETED":
            self._assumed.discard(key)
        elif key in self._assumed:
            return False  # an event from before our binding: the pod keeps its assumed place
        terminal = (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
        held = key in self._placed
        self._place(key, None if event_type == "DELETED" or terminal else node, pod)
        return held and key not in self._placed

    def _place(self, key: str, node: str | None, pod: dict) -> None:
        """Count `pod` against `node` (None: against no node) instead of where it was counted."""
        before = self._placed.pop(key, None)
        self._anti.discard(key)
        if before is not None:
            used = self._used[before[0]]
            for resource, amount in before[1].items():
                used[resource] -= amount
            self._stale_load(before[0])
        if node:
            requests = {**pod_requests(pod), "pods": 1}
            self._stale_load(node)
            used = self._used.setdefault(node, {})
            for resource, amount in requests.items():
                used[resource] = used.get(resource, 0) + amount
            self._placed[key] = (node, requests, pod)
            if podaffinity.required_terms(pod, "podAntiAffinity"):
                self._anti.add(key)

    def _stale_load(self, node: str) -> None:
        known = self._nodes.get(node)
        if known is not None:
            known[2] = None

    def _known(self, node: dict) -> list:
        """[node, allocatable, load] of `node`, computed again for a node object not seen before."""
        name = node["metadata"]["name"]
        known = self._nodes.get(name)
        if known is None or known[0] is not node:  # the entry holds the object: its id is not reused
            known = self._nodes[name] = [node, node_allocatable(node), None]
        return known

    def _node_load(self, node: dict) -> float:
        known = self._known(node)
        if known[2] is None:
            known[2] = _load(known[1], self._used.get(node["metadata"]["name"]))
        return known[2]

    def _retry_unschedulable(self) -> None:
        for key in sorted(self._unschedulable):
            self.queue.add(key)
        self._unschedulable.clear()

    # -- scheduling one pod --------------------------------------------------------------------

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        pod = self.cache.get("pods", ns, name)
        if pod is None or not is_pending(pod) or key in self._assumed:
            return
        nodes = sorted(self.cache.list("nodes"), key=lambda n: n["metadata"]["name"])
        usage = self._used
        placed = None
        if self._anti or podaffinity.has_pod_affinity([pod]):
            placed = [(p, n) for n, _, p in self._placed.values()]
            by_name = {n["metadata"]["name"]: n for n in nodes}
        feasible, reasons = [], Counter()
        requests = sorted(pod_requests(pod).items())
        for node in nodes:
            why = self._misfit(pod, requests, node, usage.get(node["metadata"]["name"]))
            if why is None and placed is not None:
                why = podaffinity.misfit(pod, node, placed, by_name)
            if why is None:
                feasible.append(node)
            else:
                reasons[why] += 1
        if not feasible:
            self._fail(pod, key, len(nodes), reasons)
            return
        node = min(feasible, key=lambda n: (self._node_load(n), n["metadata"]["name"]))
        self._bind(pod, key, node["metadata"]["name"])

    def _misfit(self, pod: dict, requests: list, node: dict, used: dict | None) -> tuple[str, bool] | None:
        """Why `pod` (its requests in resource order) does not fit on `node` (the first failing
        filter), or None if it fits."""
        spec = pod.get("spec") or {}
        # kube-scheduler's filter order: NodeUnschedulable, TaintToleration, NodeAffinity, resources.
        if (node.get("spec") or {}).get("unschedulable") and not _tolerates_unschedulable(spec):
            return UNSCHEDULABLE
        taint = untolerated_taint(spec.get("tolerations") or [], (node.get("spec") or {}).get("taints") or [])
        if taint is not None:
            return (f"node(s) had untolerated taint {{{taint.get('key', '')}: {taint.get('value', '')}}}", False)
        if not matches_node_selector(spec, node):
            return AFFINITY
        used = used or {"pods": 0}
        allocatable = self._known(node)[1]
        if used.get("pods", 0) + 1 > allocatable.get("pods", 0):
            return TOO_MANY_PODS
        for resource, amount in requests:
            if amount and used.get(resource, 0) + amount > allocatable.get(resource, 0):
                return (f"Insufficient {resource}", True)
        return None

    def _bind(self, pod: dict, key: str, node_name: str) -> None:
        from kubelite.server.handlers.pods import bind

        meta = pod["metadata"]
        try:
            bind(self.ctx.api, meta["namespace"], meta["name"], node_name, uid=meta.get("uid"), seen=pod)
        except StatusError as err:
            if err.code in (404, 409):
                return  # gone, or bound by someone else meanwhile
            raise
        self._assumed.add(key)
        self._place(key, node_name, pod)
        self._unschedulable.discard(key)
        self._event(pod, "Normal", "Scheduled", "Binding",
                    f"Successfully assigned {meta['namespace']}/{meta['name']} to {node_name}")

    def _fail(self, pod: dict, key: str, total: int, reasons: Counter) -> None:
        message = failure_message(total, reasons)
        self._unschedulable.add(key)
        meta = pod["metadata"]
        current = _condition(pod, "PodScheduled")
        if not (current and current.get("status") == "False" and current.get("message") == message):
            transition = current.get("lastTransitionTime") if current and current.get("status") == "False" else None
            condition = {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                         "lastTransitionTime": transition or self.clock.rfc3339(),
                         "reason": "Unschedulable", "message": message}
            try:
                self.client.patch("pods", meta["namespace"], meta["name"],
                                  {"status": {"conditions": [condition]}}, STRATEGIC, subresource="status",
                                  answer=False)
            except StatusError as err:
                if err.code != 404:
                    raise
                return
        self._event(pod, "Warning", "FailedScheduling", "Scheduling", message)

    # -- events ----------------------------------------------------------------------------------

    def _event(self, pod: dict, event_type: str, reason: str, action: str, note: str) -> None:
        """The Event as kube-scheduler's events.k8s.io/v1 recorder leaves it, seen through core/v1:
        no source, no first/last timestamps or count, an eventTime, action and reporting fields.
        (Written through core/v1: kubelite does not yet store the two Event APIs as one.)"""
        meta = pod["metadata"]
        regarding = {"kind": "Pod", "namespace": meta["namespace"], "name": meta["name"],
                     "uid": meta.get("uid"), "apiVersion": "v1", "resourceVersion": meta.get("resourceVersion")}
        # Names unique in the process as the recorder's (on a fake clock many events share an instant).
        nanos = max(int(self.clock.time() * 1e9), EventRecorder._last_nanos + 1)
        EventRecorder._last_nanos = nanos
        event = {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{meta['name']}.{nanos:x}", "namespace": meta["namespace"]},
            "involvedObject": {k: v for k, v in regarding.items() if v},
            "reason": reason, "message": note, "source": {}, "firstTimestamp": None, "lastTimestamp": None,
            "type": event_type, "eventTime": self.clock.rfc3339_micro(), "action": action,
            "reportingComponent": SCHEDULER_NAME, "reportingInstance": REPORTING_INSTANCE,
        }
        try:
            self.client.create("events", event, answer=False)
        except StatusError:
            pass  # events are best effort (a terminating namespace refuses them)


def failure_message(total: int, reasons: Counter) -> str:
    """kube-scheduler's FitError text: the filters' reasons, then what preemption concluded."""
    filtered = sorted(f"{n} {reason}" for (reason, _), n in reasons.items())
    text = f"0/{total} nodes are available"
    text += f": {', '.join(filtered)}." if filtered else "."
    helpless = sum(n for (_, might_help), n in reasons.items() if not might_help)
    no_victims = sum(n for (_, might_help), n in reasons.items() if might_help)
    parts = []
    if helpless:
        parts.append(f"{helpless} Preemption is not helpful for scheduling")
    if no_victims:
        parts.append(f"{no_victims} No preemption victims found for incoming pod")
    if parts:
        text += f" preemption: 0/{total} nodes are available: {', '.join(sorted(parts))}."
    return text


def _load(allocatable: dict, used: dict | None) -> float:
    """Fraction of the node's allocatable cpu and memory requested (lower is better)."""
    used = used or {}
    fractions = [used.get(r, 0) / allocatable[r] for r in ("cpu", "memory") if allocatable.get(r)]
    pods = used.get("pods", 0) / allocatable["pods"] if allocatable.get("pods") else 0
    return (sum(fractions) / len(fractions) if fractions else 0) + pods * 1e-3


def _condition(pod: dict, kind: str) -> dict | None:
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if cond.get("type") == kind:
            return cond
    return None


def _tolerates_unschedulable(spec: dict) -> bool:
    taint = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    return any(tolerates(t, taint) for t in spec.get("tolerations") or [])


# -- node selection ----------------------------------------------------------------------------

def matches_node_selector(spec: dict, node: dict) -> bool:
    labels = (node.get("metadata") or {}).get("labels") or {}
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = required.get("nodeSelectorTerms")
    if terms is None:
        return True
    # The terms are ORed; an empty term matches nothing.
    return any(_term_matches(term, node, labels) for term in terms or [])


def _term_matches(term: dict, node: dict, labels: dict) -> bool:
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False
    fields_of_node = {"metadata.name": (node.get("metadata") or {}).get("name")}
    return (all(_requirement(e, labels) for e in expressions)
            and all(_requirement(f, fields_of_node) for f in fields))


def _requirement(req: dict, labels: dict) -> bool:
    key, op, values = req.get("key"), req.get("operator"), req.get("values") or []
    present = key in labels
    value = labels.get(key)
    if op == "In":
        return present and value in values
    if op == "NotIn":
        return not present or value not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt"):
        try:
            have, want = int(value), int(values[0])
        except (TypeError, ValueError, IndexError):
            return False
        return have > want if op == "Gt" else have < want
    return False


def tolerates(toleration: dict, taint: dict) -> bool:
    """Does one toleration tolerate one taint (v1 ToleratesTaint)?"""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return False


def untolerated_taint(tolerations: list, taints: list) -> dict | None:
    """The first NoSchedule/NoExecute taint no toleration tolerates."""
    for taint in taints:
        if taint.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None
