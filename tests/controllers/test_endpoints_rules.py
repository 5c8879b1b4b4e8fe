"""Endpoints / EndpointSlice rules beyond the recording (kube-controller-manager v1.32): not-ready
pods, a named targetPort resolving differently per pod, publishNotReadyAddresses, pods without an
IP or finished, selector-less Services, and a Service's removal."""
from __future__ import annotations

import json

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.endpoints import EndpointsController
from kubelite.server.controllers.endpointslice import EndpointSliceController, EndpointSliceMirroringController
from kubelite.server.controllers.garbagecollector import GarbageCollector

MERGE = {"content-type": "application/merge-patch+json"}
SLICES = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"


@pytest.fixture
def endpoints():
    controllers = [EndpointsController, EndpointSliceController, EndpointSliceMirroringController, GarbageCollector]
    with Cluster("memory://", clock=FakeClock(), controllers=controllers) as cluster, cluster.http_client() as api:
        assert cluster.settle()
        yield cluster, api


def _pod(api, name: str, ip: str | None, ready: bool, port_name: str = "http", port: int = 80,
         phase: str = "Running") -> None:
    pod = {"metadata": {"name": name, "labels": {"app": "web"}},
           "spec": {"nodeName": "node-a", "containers": [{"name": "c", "image": "nginx",
                                                          "ports": [{"name": port_name, "containerPort": port}]}]}}
    assert api.post("/api/v1/namespaces/default/pods", json=pod).status_code == 201
    status = {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                              "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    if ip:
        status["podIP"] = ip
    api.patch(f"/api/v1/namespaces/default/pods/{name}/status", content=json.dumps({"status": status}),
              headers=MERGE)


def _service(api, name: str, spec: dict) -> None:
    assert api.post("/api/v1/namespaces/default/services",
                    json={"metadata": {"name": name}, "spec": spec}).status_code == 201


def _slices(api, service: str) -> list[dict]:
    return [s for s in api.get(SLICES).json()["items"]
            if s["metadata"]["labels"].get("kubernetes.io/service-name") == service]


def test_not_ready_pods_and_pods_without_ip(endpoints):
    cluster, api = endpoints
    _pod(api, "ready", "10.244.0.2", True)
    _pod(api, "starting", "10.244.0.3", False)
    _pod(api, "pending", None, False)
    _pod(api, "done", "10.244.0.9", False, phase="Succeeded")
    _service(api, "web", {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": 80}]})
    assert cluster.settle()
    subsets = api.get("/api/v1/namespaces/default/endpoints/web").json()["subsets"]
    assert [[a["ip"] for a in s.get("addresses", [])] for s in subsets] == [["10.244.0.2"]]
    assert [[a["ip"] for a in s.get("notReadyAddresses", [])] for s in subsets] == [["10.244.0.3"]]
    (slice_,) = _slices(api, "web")
    assert [(e["addresses"], e["conditions"]) for e in slice_["endpoints"]] == [
        (["10.244.0.2"], {"ready": True, "serving": True, "terminating": False}),
        (["10.244.0.3"], {"ready": False, "serving": False, "terminating": False})]


def test_a_named_target_port_resolves_per_pod(endpoints):
    cluster, api = endpoints
    _pod(api, "a", "10.244.0.2", True, port=8080)
    _pod(api, "b", "10.244.0.3", True, port=9090)
    _pod(api, "c", "10.244.0.4", True, port_name="other")
    _service(api, "web", {"selector": {"app": "web"}, "ports": [{"name": "web", "port": 80, "targetPort": "http"}]})
    assert cluster.settle()
    subsets = api.get("/api/v1/namespaces/default/endpoints/web").json()["subsets"]
    assert sorted((s["ports"][0]["port"], [a["ip"] for a in s["addresses"]]) for s in subsets) == [
        (8080, ["10.244.0.2"]), (9090, ["10.244.0.3"])]
    # Slices keep the pod whose ports do not resolve, in a slice of its own without ports.
    slices = _slices(api, "web")
    assert sorted(([p["port"] for p in s["ports"] or []], [e["addresses"][0] for e in s["endpoints"]])
                  for s in slices) == [([], ["10.244.0.4"]), ([8080], ["10.244.0.2"]), ([9090], ["10.244.0.3"])]


def test_publish_not_ready_addresses(endpoints):
    cluster, api = endpoints
    _pod(api, "starting", "10.244.0.3", False)
    _service(api, "web", {"selector": {"app": "web"}, "publishNotReadyAddresses": True, "clusterIP": "None",
                          "ports": [{"name": "http", "port": 80}]})
    assert cluster.settle()
    ep = api.get("/api/v1/namespaces/default/endpoints/web").json()
    assert [a["ip"] for a in ep["subsets"][0]["addresses"]] == ["10.244.0.3"]
    assert ep["metadata"]["labels"] == {"service.kubernetes.io/headless": ""}
    (slice_,) = _slices(api, "web")
    assert slice_["endpoints"][0]["conditions"] == {"ready": True, "serving": True, "terminating": False}


def test_selector_less_services_get_no_endpoints_and_empty_selection_a_placeholder(endpoints):
    cluster, api = endpoints
    _service(api, "manual", {"ports": [{"port": 80}]})
    _service(api, "nobody", {"selector": {"app": "none"}, "ports": [{"name": "http", "port": 80}]})
    assert cluster.settle()
    assert api.get("/api/v1/namespaces/default/endpoints/manual").status_code == 404
    assert _slices(api, "manual") == []
    assert "subsets" not in api.get("/api/v1/namespaces/default/endpoints/nobody").json()
    (placeholder,) = _slices(api, "nobody")
    assert (placeholder["endpoints"], placeholder["ports"]) == (None, None)


def test_removing_the_service_removes_its_endpoints_and_slices(endpoints):
    cluster, api = endpoints
    _pod(api, "ready", "10.244.0.2", True)
    _service(api, "web", {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]})
    assert cluster.settle()
    assert _slices(api, "web")
    api.delete("/api/v1/namespaces/default/services/web")
    assert cluster.settle()
    assert api.get("/api/v1/namespaces/default/endpoints/web").status_code == 404
    assert _slices(api, "web") == []


def test_slice_endpoints_carry_their_nodes_zone(endpoints):
    cluster, api = endpoints
    api.post("/api/v1/nodes", json={"metadata": {"name": "node-a", "labels": {"topology.kubernetes.io/zone": "z1"}}})
    _pod(api, "ready", "10.244.0.2", True)
    _service(api, "web", {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]})
    assert cluster.settle()
    (slice_,) = _slices(api, "web")
    assert [(e["nodeName"], e.get("zone")) for e in slice_["endpoints"]] == [("node-a", "z1")]


def _addresses(prefix: str, n: int) -> list[dict]:
    return [{"ip": f"{prefix}.{i // 250}.{i % 250}"} for i in range(n)]


def test_more_than_a_thousand_addresses_are_truncated_ready_first():
    from kubelite.server.controllers.endpoints import MAX_CAPACITY, truncate

    under = [{"addresses": _addresses("10.0", 10)}]
    assert not truncate(under) and len(under[0]["addresses"]) == 10
    # Not-ready addresses give way to ready ones, each subset keeping its share (rounded up).
    subsets = [{"addresses": _addresses("10.1", 600), "notReadyAddresses": _addresses("10.2", 300)},
               {"addresses": _addresses("10.3", 300), "notReadyAddresses": _addresses("10.4", 100)}]
    assert truncate(subsets)
    assert [len(s["addresses"]) for s in subsets] == [600, 300]
    assert [len(s.get("notReadyAddresses", [])) for s in subsets] == [75, 25]
    # Ready ones alone overflowing: they are cut in proportion and no not-ready one stays.
    subsets = [{"addresses": _addresses("10.5", 900), "notReadyAddresses": _addresses("10.6", 5)},
               {"addresses": _addresses("10.7", 300)}]
    assert truncate(subsets)
    assert [len(s["addresses"]) for s in subsets] == [750, 250]
    assert sum(len(s["addresses"]) for s in subsets) == MAX_CAPACITY
    assert all("notReadyAddresses" not in s for s in subsets)


def test_an_external_name_service_gets_no_endpoints_nor_slices(endpoints):
    cluster, api = endpoints
    _pod(api, "ready", "10.244.0.2", True)
    _service(api, "ext", {"type": "ExternalName", "externalName": "example.com", "selector": {"app": "web"},
                          "ports": [{"name": "http", "port": 80}]})
    assert cluster.settle()
    assert _slices(api, "ext") == []
    assert api.get("/api/v1/namespaces/default/endpoints/ext").status_code == 404
