"""Endpoints for Services with a selector (kube-controller-manager's endpoints controller), and
the `kubernetes` Service's own Endpoints, which name where the API server really listens.

Shared with the EndpointSlice controllers (endpointslice.py): which pods back a Service, the
port each service port resolves to on a pod (named targetPorts per pod), and the
`endpoints.kubernetes.io/last-change-trigger-time` bookkeeping.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone

from kubelite.server.controllers.base import Controller, object_key, split_key

TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time"
HEADLESS = "service.kubernetes.io/headless"
SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror"
APISERVER_SERVICE = ("default", "kubernetes")


# -- which pods, which ports -----------------------------------------------------------------------

def selector_of(service: dict) -> dict | None:
    selector = (service.get("spec") or {}).get("selector")
    return selector if isinstance(selector, dict) and selector else None


def wants_endpoints(service: dict) -> bool:
    """Only Services with a selector get endpoints from the controllers, and never ExternalName
    ones (those without a selector have what their users write)."""
    return selector_of(service) is not None and (service.get("spec") or {}).get("type") != "ExternalName"


def selects(selector: dict, pod: dict) -> bool:
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return all(labels.get(k) == v for k, v in selector.items())


def is_headless(service: dict) -> bool:
    return (service.get("spec") or {}).get("clusterIP") == "None"


def pod_ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])


def in_endpoints(pod: dict, include_terminating: bool) -> bool:
    """A pod backs a Service once it has an IP, until it ends (or, unless asked, starts terminating)."""
    status = pod.get("status") or {}
    if status.get("phase") in ("Succeeded", "Failed") or not status.get("podIP"):
        return False
    return include_terminating or not (pod.get("metadata") or {}).get("deletionTimestamp")


def resolve_port(pod: dict, service_port: dict) -> int | None:
    """The container port a service port's targetPort means on this pod (None: the pod lacks it)."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    protocol = service_port.get("protocol") or "TCP"
    for container in (pod.get("spec") or {}).get("containers") or []:
        for port in container.get("ports") or []:
            if port.get("name") == target and (port.get("protocol") or "TCP") == protocol:
                return port.get("containerPort")
    return None


def target_ref(pod: dict) -> dict:
    meta = pod["metadata"]
    return {"kind": "Pod", "namespace": meta.get("namespace"), "name": meta.get("name"), "uid": meta.get("uid")}


def hostname_for(pod: dict, service: dict) -> str | None:
    """A headless Service's pods keep their hostname when their subdomain is the Service."""
    spec = pod.get("spec") or {}
    if is_headless(service) and spec.get("hostname") and spec.get("subdomain") == service["metadata"]["name"]:
        return spec["hostname"]
    return None


def service_labels(service: dict) -> dict:
    labels = dict((service.get("metadata") or {}).get("labels") or {})
    if is_headless(service):
        labels[HEADLESS] = ""
    else:
        labels.pop(HEADLESS, None)
    return labels


def advertised(options: dict) -> tuple[str, int]:
    """The address and port the `kubernetes` Service's endpoints name (a wildcard bind: loopback)."""
    address = str(options.get("address") or "127.0.0.1")
    if address in ("0.0.0.0", "", "localhost"):
        address = "127.0.0.1"
    elif address == "::":
        address = "::1"
    return address, int(options.get("port") or 6443)


class TriggerTimes:
    """When the change an Endpoints write reflects happened: a new Service's creation, else the
    earliest Ready transition of the pods that changed since the last sync (None: only removals)."""

    def __init__(self):
        self._state: dict[str, tuple[dict[str, str], str]] = {}

    def compute(self, key: str, service: dict, pods: list[dict]) -> str | None:
        created = (service.get("metadata") or {}).get("creationTimestamp") or ""
        times = {}
        for pod in pods:
            when = next((c.get("lastTransitionTime") for c in (pod.get("status") or {}).get("conditions") or []
                         if c.get("type") == "Ready" and c.get("lastTransitionTime")), None)
            if when:
                times[pod["metadata"]["name"]] = when
        previous = self._state.get(key)
        self._state[key] = (times, created)
        if previous is None:
            return created or None
        before, before_created = previous
        changed = [t for name, t in times.items() if t > before.get(name, "")]
        if created > before_created:
            changed.append(created)
        return min(changed) if changed else None

    def forget(self, key: str) -> None:
        self._state.pop(key, None)


def with_trigger(annotations: dict | None, trigger: str | None) -> dict:
    out = dict(annotations or {})
    if trigger:
        out[TRIGGER_TIME] = trigger
    else:
        out.pop(TRIGGER_TIME, None)
    return out


class ServicePodsController(Controller):
    """Reconciles one key per Service: queued when the Service or any pod it selects changes."""

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        meta = obj.get("metadata") or {}
        if rid == "pods":
            namespace = meta.get("namespace", "")
            for service in self.cache.list("services", namespace):
                selector = selector_of(service)
                if selector and (selects(selector, obj) or (old is not None and selects(selector, old))):
                    self.queue.add(object_key(service))
        else:
            self.queue.add(object_key(obj))

    def sync(self, key: str) -> None:
        namespace, name = split_key(key)
        if (namespace, name) == APISERVER_SERVICE:
            self.sync_apiserver()
        else:
            self.sync_service(key, namespace, name, self.cache.get("services", namespace, name))

    def sync_apiserver(self) -> None:
        """The API server's own `kubernetes` Service, at the address and port it really serves."""
        raise NotImplementedError

    def sync_service(self, key: str, namespace: str, name: str, service: dict | None) -> None:
        raise NotImplementedError

    def selected_pods(self, service: dict) -> list[dict]:
        selector = selector_of(service)
        namespace = service["metadata"].get("namespace", "")
        return sorted(self.cache.list("pods", namespace, where=lambda p: selects(selector, p)),
                      key=lambda p: p["metadata"]["name"])


# -- Endpoints -------------------------------------------------------------------------------------

def endpoint_subsets(service: dict, pods: list[dict]) -> list[dict]:
    """Addresses grouped by the ports they serve, as kube-controller-manager repacks them."""
    spec = service.get("spec") or {}
    publish = bool(spec.get("publishNotReadyAddresses"))
    groups: dict[tuple, dict] = {}
    for pod in pods:
        if not in_endpoints(pod, publish):
            continue
        address = {"ip": pod["status"]["podIP"]}
        hostname = hostname_for(pod, service)
        if hostname:
            address["hostname"] = hostname
        if (pod.get("spec") or {}).get("nodeName"):
            address["nodeName"] = pod["spec"]["nodeName"]
        address["targetRef"] = target_ref(pod)
        ports = []
        for sp in spec.get("ports") or []:
            number = resolve_port(pod, sp)
            if number is None:
                continue
            port = {"name": sp.get("name"), "port": number, "protocol": sp.get("protocol") or "TCP"}
            if sp.get("appProtocol"):
                port["appProtocol"] = sp["appProtocol"]
            ports.append({k: v for k, v in port.items() if v not in (None, "")})
        if not ports and (spec.get("ports") or not is_headless(service)):
            continue
        group = groups.setdefault(tuple(sorted((p.get("name", ""), p["port"], p["protocol"]) for p in ports)),
                                  {"addresses": [], "notReadyAddresses": [], "ports": ports})
        ready = publish or pod_ready(pod)
        group["addresses" if ready else "notReadyAddresses"].append(address)
    subsets = []
    for _, group in sorted(groups.items()):
        subset = {}
        for field in ("addresses", "notReadyAddresses"):
            if group[field]:
                subset[field] = sorted(group[field], key=lambda a: (a["ip"], a["targetRef"]["name"]))
        if group["ports"]:
            subset["ports"] = group["ports"]
        subsets.append(subset)
    return subsets


MAX_CAPACITY = 1000
OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity"


def truncate(subsets: list[dict]) -> bool:
    """Keep at most MAX_CAPACITY addresses, ready ones first, each subset keeping its share
    (rounded up) of what is cut; True if anything was cut."""
    ready = sum(len(s.get("addresses") or []) for s in subsets)
    not_ready = sum(len(s.get("notReadyAddresses") or []) for s in subsets)
    if ready + not_ready <= MAX_CAPACITY:
        return False
    # Cut the not-ready addresses to what room is left; if the ready ones alone overflow, cut
    # those and drop every not-ready one.
    field, room, total = ("notReadyAddresses", MAX_CAPACITY - ready, not_ready)
    if ready > MAX_CAPACITY:
        field, room, total = ("addresses", MAX_CAPACITY, ready)
    left = room
    for subset in subsets:
        share = min(-(-len(subset.get(field) or []) * room // total), left)
        subset[field] = (subset.get(field) or [])[:share]
        left -= len(subset[field])
        if field == "addresses":
            subset.pop("notReadyAddresses", None)
        if not subset[field]:
            subset.pop(field)
    return True


def apiserver_endpoints(address: str, port: int) -> list[dict]:
    return [{"addresses": [{"ip": address}], "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}]


def _capacity(annotations: dict, truncated: bool) -> dict:
    out = dict(annotations)
    if truncated:
        out[OVER_CAPACITY] = "truncated"
    else:
        out.pop(OVER_CAPACITY, None)
    return out


class EndpointsController(ServicePodsController):
    name = "endpoints"
    component = "endpoint-controller"
    watches = ("services", "pods", "endpoints")

    def __init__(self, ctx):
        super().__init__(ctx)
        self.triggers = TriggerTimes()

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        if rid == "endpoints" and event_type == "ADDED":
            return  # our own creates (and manual Endpoints) need no look
        super().handle(rid, event_type, obj, old)

    def sync_service(self, key: str, namespace: str, name: str, service: dict | None) -> None:
        if service is None:
            self.triggers.forget(key)
            if self.cache.get("endpoints", namespace, name) is not None:
                self.client.delete("endpoints", namespace, name)
            return
        if not wants_endpoints(service):
            return  # Endpoints of a Service without a selector are the user's
        pods = self.selected_pods(service)
        trigger = self.triggers.compute(key, service, pods)
        subsets = endpoint_subsets(service, pods)
        truncated = truncate(subsets)
        labels = service_labels(service)
        current = self.cache.get("endpoints", namespace, name) or self.client.get("endpoints", namespace, name)
        if current is None:
            meta = {"name": name, "namespace": namespace, "labels": labels or None,
                    "annotations": _capacity(with_trigger(None, trigger), truncated) or None}
            body = {"apiVersion": "v1", "kind": "Endpoints",
                    "metadata": {k: v for k, v in meta.items() if v is not None}}
            if subsets:
                body["subsets"] = subsets
            self.client.create("endpoints", body)
            return
        annotations = current["metadata"].get("annotations") or {}
        if ((current.get("subsets") or []) == subsets and (current["metadata"].get("labels") or {}) == labels
                and (OVER_CAPACITY in annotations) == truncated):
            return
        updated = clone(current)
        for field, value in (("labels", labels),
                             ("annotations", _capacity(with_trigger(annotations, trigger), truncated))):
            updated["metadata"].pop(field, None)
            if value:
                updated["metadata"][field] = value
        updated.pop("subsets", None)
        if subsets:
            updated["subsets"] = subsets
        self.client.update("endpoints", updated)

    def sync_apiserver(self) -> None:
        address, port = advertised(self.ctx.options)
        namespace, name = APISERVER_SERVICE
        service = self.cache.get("services", namespace, name)
        if service is not None:
            ports = (service.get("spec") or {}).get("ports") or []
            if ports and ports[0].get("targetPort") != port:
                fixed = clone(service)
                fixed["spec"]["ports"][0]["targetPort"] = port
                self.client.update("services", fixed)
        current = self.client.get("endpoints", namespace, name)
        subsets = apiserver_endpoints(address, port)
        if current is None:
            self.client.create("endpoints", {
                "apiVersion": "v1", "kind": "Endpoints",
                "metadata": {"name": name, "namespace": namespace, "labels": {SKIP_MIRROR: "true"}},
                "subsets": subsets})
        elif current.get("subsets") != subsets:
            self.client.update("endpoints", {**current, "subsets": subsets})
