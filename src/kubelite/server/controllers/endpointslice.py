"""EndpointSlices: kube-controller-manager's endpointslice controller (Services with a selector),
its mirroring controller (manual Endpoints of Services without one), and the `kubernetes`
Service's slice the API server keeps for itself.

A slice carries the Service's labels plus `kubernetes.io/service-name` and
`endpointslice.kubernetes.io/managed-by`, a controller ownerReference to the Service (mirrored
slices: to the Endpoints), addressType IPv4, and one endpoint per pod with the ready / serving /
terminating conditions (terminating pods stay in slices, not in Endpoints). Pods whose ports
resolve differently (named targetPorts) go to different slices; at most 100 endpoints a slice.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone

from kubelite.server.controllers.base import Controller, object_key, split_key
from kubelite.server.controllers.endpoints import (
    APISERVER_SERVICE, SKIP_MIRROR, ServicePodsController, TriggerTimes, advertised, hostname_for, in_endpoints,
    pod_ready, resolve_port, selector_of, service_labels, target_ref, wants_endpoints, with_trigger)

RID = "discovery.k8s.io/endpointslices"
SERVICE_NAME = "kubernetes.io/service-name"
MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
CONTROLLER = "endpointslice-controller.k8s.io"
MIRRORING = "endpointslicemirroring-controller.k8s.io"
MAX_ENDPOINTS = 100
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def owner_ref(obj: dict) -> dict:
    meta = obj["metadata"]
    return {"apiVersion": obj.get("apiVersion", "v1"), "kind": obj.get("kind"), "name": meta["name"],
            "uid": meta.get("uid"), "controller": True, "blockOwnerDeletion": True}


ZONE_LABEL = "topology.kubernetes.io/zone"


def pod_endpoint(pod: dict, service: dict, zone: str | None = None) -> dict:
    publish = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
    terminating = bool(pod["metadata"].get("deletionTimestamp"))
    serving = publish or pod_ready(pod)
    endpoint = {"addresses": [pod["status"]["podIP"]],
                "conditions": {"ready": serving and not terminating, "serving": serving, "terminating": terminating}}
    hostname = hostname_for(pod, service)
    if hostname:
        endpoint["hostname"] = hostname
    endpoint["targetRef"] = target_ref(pod)
    if (pod.get("spec") or {}).get("nodeName"):
        endpoint["nodeName"] = pod["spec"]["nodeName"]
    if zone:
        endpoint["zone"] = zone
    return endpoint


def slice_ports(ports: list[dict]) -> list[dict]:
    out = []
    for p in ports:
        port = {"name": p.get("name", ""), "protocol": p.get("protocol") or "TCP", "port": p["port"]}
        if p.get("appProtocol"):
            port["appProtocol"] = p["appProtocol"]
        out.append(port)
    return out


def desired_groups(service: dict, pods: list[dict], zones: dict[str, str] | None = None,
                   ) -> dict[tuple, tuple[list[dict], list[dict]]]:
    """Port set -> (slice ports, endpoints) for the pods that back the Service (`zones`: node -> zone)."""
    groups: dict[tuple, tuple[list[dict], list[dict]]] = {}
    for pod in pods:
        if not in_endpoints(pod, include_terminating=True):
            continue
        ports = []
        for sp in (service.get("spec") or {}).get("ports") or []:
            number = resolve_port(pod, sp)
            if number is not None:
                ports.append({**sp, "port": number})
        ports = slice_ports(ports)
        key = tuple(sorted((p["name"], p["protocol"], p["port"]) for p in ports))
        # No ports at all is stored as null, as the API server's protobuf round trip leaves it.
        zone = (zones or {}).get((pod.get("spec") or {}).get("nodeName") or "")
        groups.setdefault(key, (ports or None, []))[1].append(pod_endpoint(pod, service, zone))
    for _, endpoints in groups.values():
        endpoints.sort(key=lambda e: (e["addresses"][0], e["targetRef"]["name"]))
    return groups


def _port_key(slice_obj: dict) -> tuple:
    return tuple(sorted((p.get("name", ""), p.get("protocol", "TCP"), p.get("port")) for p in slice_obj.get("ports") or []))


class _SliceWriter:
    """Turns the wanted slices of one owner into creates, updates and deletes of its slices."""

    def reconcile(self, namespace: str, owner: dict, wanted: list[tuple[list | None, list | None]], labels: dict,
                  annotations: dict, existing: list[dict]) -> None:
        spare = sorted(existing, key=lambda s: s["metadata"]["name"])
        for ports, endpoints in wanted:
            match = next((s for s in spare if _port_key(s) == _port_key({"ports": ports})), None)
            if match is None and spare and not wanted_has_keys(wanted, spare[0]):
                match = spare[0]  # reuse a slice whose ports are wanted nowhere
            if match is not None:
                spare.remove(match)
                self._update(match, ports, endpoints, labels, annotations)
            else:
                self._create(namespace, owner, ports, endpoints, labels, annotations)
        for extra in spare:
            self.client.delete(RID, namespace, extra["metadata"]["name"], uid=extra["metadata"].get("uid"))

    def _create(self, namespace, owner, ports, endpoints, labels, annotations) -> None:
        meta = {"generateName": f"{owner['metadata']['name']}-", "namespace": namespace, "labels": labels,
                "annotations": annotations or None, "ownerReferences": [owner_ref(owner)]}
        self.client.create(RID, {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                                 "metadata": {k: v for k, v in meta.items() if v is not None},
                                 "addressType": "IPv4", "endpoints": endpoints, "ports": ports})

    def _update(self, current, ports, endpoints, labels, annotations) -> None:
        meta = current["metadata"]
        if (current.get("endpoints") == endpoints and current.get("ports") == ports
                and (meta.get("labels") or {}) == labels):
            return
        updated = clone(current)
        updated["metadata"]["labels"] = labels
        if annotations or meta.get("annotations"):
            updated["metadata"]["annotations"] = annotations
        updated["endpoints"], updated["ports"] = endpoints, ports
        self.client.update(RID, updated)


def wanted_has_keys(wanted, slice_obj) -> bool:
    return any(_port_key({"ports": ports}) == _port_key(slice_obj) for ports, _ in wanted)


class EndpointSliceController(_SliceWriter, ServicePodsController):
    name = "endpointslice"
    component = "endpoint-slice-controller"
    watches = ("services", "pods", RID, "nodes")

    def __init__(self, ctx):
        super().__init__(ctx)
        self.triggers = TriggerTimes()

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        if rid == "nodes":
            return  # read for their zone when a Service is synced; heartbeats change nothing here
        if rid == RID:
            labels = (obj.get("metadata") or {}).get("labels") or {}
            if labels.get(MANAGED_BY) == CONTROLLER and event_type != "ADDED" and labels.get(SERVICE_NAME):
                self.queue.add(f"{obj['metadata'].get('namespace')}/{labels[SERVICE_NAME]}")
            return
        super().handle(rid, event_type, obj, old)

    def sync_service(self, key: str, namespace: str, name: str, service: dict | None) -> None:
        existing = self.cache.list(RID, namespace, where=lambda s: _labels(s).get(SERVICE_NAME) == name
                                   and _labels(s).get(MANAGED_BY) == CONTROLLER)
        if service is None:
            self.triggers.forget(key)
            for stale in existing:  # the garbage collector would take them too: they are the Service's
                self.client.delete(RID, namespace, stale["metadata"]["name"], uid=stale["metadata"].get("uid"))
            return
        if not wants_endpoints(service):
            return  # as upstream, what slices it had stay
        pods = self.selected_pods(service)
        trigger = self.triggers.compute(key, service, pods)
        wanted = []
        zones = {(n.get("metadata") or {}).get("name"): ((n.get("metadata") or {}).get("labels") or {}).get(ZONE_LABEL)
                 for n in self.cache.list("nodes")}
        for ports, endpoints in desired_groups(service, pods, zones).values():
            for start in range(0, len(endpoints), MAX_ENDPOINTS):
                wanted.append((ports, endpoints[start:start + MAX_ENDPOINTS]))
        if not wanted:
            wanted = [(None, None)]  # a placeholder slice: the Service selects nothing yet
        labels = {**service_labels(service), SERVICE_NAME: name, MANAGED_BY: CONTROLLER}
        self.reconcile(namespace, service, wanted, labels, with_trigger(None, trigger), existing)

    def sync_apiserver(self) -> None:
        address, port = advertised(self.ctx.options)
        namespace, name = APISERVER_SERVICE
        wanted = {"addressType": "IPv4",
                  "endpoints": [{"addresses": [address], "conditions": {"ready": True}}],
                  "ports": [{"name": "https", "protocol": "TCP", "port": port}]}
        current = self.client.get(RID, namespace, name)
        if current is None:
            self.client.create(RID, {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                                     "metadata": {"name": name, "namespace": namespace,
                                                  "labels": {SERVICE_NAME: name}}, **wanted})
        elif any(current.get(k) != v for k, v in wanted.items()):
            self.client.update(RID, {**current, **wanted})


def _labels(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("labels") or {}


class EndpointSliceMirroringController(_SliceWriter, Controller):
    """Manual Endpoints of a Service without a selector, mirrored into EndpointSlices."""

    name = "endpointslicemirroring"
    component = "endpoint-slice-mirroring-controller"
    watches = ("endpoints", "services", RID)

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        if rid == RID:
            labels = _labels(obj)
            if labels.get(MANAGED_BY) == MIRRORING and event_type != "ADDED" and labels.get(SERVICE_NAME):
                self.queue.add(f"{obj['metadata'].get('namespace')}/{labels[SERVICE_NAME]}")
            return
        self.queue.add(object_key(obj))

    def sync(self, key: str) -> None:
        namespace, name = split_key(key)
        service = self.cache.get("services", namespace, name)
        endpoints = self.cache.get("endpoints", namespace, name)
        existing = self.cache.list(RID, namespace, where=lambda s: _labels(s).get(SERVICE_NAME) == name
                                   and _labels(s).get(MANAGED_BY) == MIRRORING)
        mirror = (service is not None and selector_of(service) is None and endpoints is not None
                  and _labels(endpoints).get(SKIP_MIRROR) != "true")
        if not mirror:
            for stale in existing:
                self.client.delete(RID, namespace, stale["metadata"]["name"], uid=stale["metadata"].get("uid"))
            return
        wanted = [(slice_ports(subset.get("ports") or []), _mirrored_endpoints(subset))
                  for subset in endpoints.get("subsets") or []]
        labels = {**_labels(endpoints), SERVICE_NAME: name, MANAGED_BY: MIRRORING}
        annotations = {k: v for k, v in ((endpoints["metadata"].get("annotations")) or {}).items()
                       if k != _LAST_APPLIED}
        self.reconcile(namespace, endpoints, wanted, labels, annotations, existing)


def _mirrored_endpoints(subset: dict) -> list[dict]:
    out = []
    for field, ready in (("addresses", True), ("notReadyAddresses", False)):
        for address in subset.get(field) or []:
            endpoint = {"addresses": [address.get("ip")], "conditions": {"ready": ready}}
            for key in ("hostname", "targetRef", "nodeName"):
                if address.get(key):
                    endpoint[key] = address[key]
            out.append(endpoint)
    return out
