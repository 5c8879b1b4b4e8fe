"""Endpoints and EndpointSlices against the service-endpoints recording: ClusterIP, headless,
named-targetPort and selector-less Services over a Deployment scaled 2 -> 4 -> 1; the final objects
(normalised: uids, IPs, generated names, times) and the slices' endpoint conditions on the way."""
from __future__ import annotations

import copy
import json
import re

import yaml

from replay_b import create_namespace, recorded_cluster, recorder  # noqa: F401
from test_workloads_support import DATA, collapse, final, manifest, stream

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.endpoints import TRIGGER_TIME

CASE, NS = "service-endpoints", "pub-service-endpoints"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _ref(ref: dict) -> dict:
    return {**ref, "uid": "<uid>", "name": re.sub(r"-[a-z0-9]+-[a-z0-9]{5}$", "-<pod>", ref["name"])}


def normalise(obj: dict) -> dict:
    obj = copy.deepcopy(obj)
    obj.pop("apiVersion", None), obj.pop("kind", None)  # list items from the API carry neither
    meta = obj["metadata"]
    for key in ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"):
        meta.pop(key, None)
    if meta.get("generateName"):
        meta["name"] = meta["generateName"] + "<x>"
    annotations = {k: ("<time>" if k == TRIGGER_TIME else v) for k, v in (meta.get("annotations") or {}).items()
                   if k != LAST_APPLIED}
    meta.pop("annotations", None)
    if annotations:
        meta["annotations"] = annotations
    for ref in meta.get("ownerReferences") or []:
        ref["uid"] = "<uid>"
    for subset in obj.get("subsets") or []:
        for field in ("addresses", "notReadyAddresses"):
            for address in subset.get(field) or []:
                if "targetRef" in address:
                    address["ip"], address["targetRef"] = "<ip>", _ref(address["targetRef"])
    for endpoint in obj.get("endpoints") or []:
        if "targetRef" in endpoint:
            endpoint["addresses"], endpoint["targetRef"] = ["<ip>"], _ref(endpoint["targetRef"])
    return obj


def _scale(api, replicas: int) -> None:
    response = api.patch(f"/apis/apps/v1/namespaces/{NS}/deployments/web/scale",
                         content=json.dumps({"spec": {"replicas": replicas}}),
                         headers={"content-type": "application/merge-patch+json"})
    assert response.status_code == 200, response.text


def _run(cluster, api) -> None:
    create_namespace(api, NS)
    assert api.post(f"/apis/apps/v1/namespaces/{NS}/deployments", json=manifest(CASE, "deploy.yaml")).status_code == 201
    assert cluster.settle()
    for doc in yaml.safe_load_all((DATA / CASE / "files" / "services.yaml").read_text()):
        path = "services" if doc["kind"] == "Service" else "endpoints"
        assert api.post(f"/api/v1/namespaces/{NS}/{path}", json=doc).status_code == 201
    assert cluster.settle()
    for replicas in (4, 1):
        _scale(api, replicas)
        assert cluster.settle()


def _listed(api, path: str) -> list[dict]:
    return sorted((normalise(i) for i in api.get(path).json()["items"]), key=lambda o: o["metadata"]["name"])


def test_final_endpoints_and_slices_as_recorded(recorded_cluster):
    with recorded_cluster.http_client() as api:
        _run(recorded_cluster, api)
        assert _listed(api, f"/api/v1/namespaces/{NS}/endpoints") == \
            sorted((normalise(i) for i in final(CASE, "endpoints")), key=lambda o: o["metadata"]["name"])
        assert _listed(api, f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices") == \
            sorted((normalise(i) for i in final(CASE, "endpointslices")), key=lambda o: o["metadata"]["name"])


def _conditions_seen(objects: list[dict]) -> set[tuple]:
    """Every (ready, serving, terminating) combination a slice endpoint went through."""
    return {tuple(e["conditions"].get(k) for k in ("ready", "serving", "terminating"))
            for obj in objects for e in obj.get("endpoints") or [] if "targetRef" in e}


def test_slices_show_terminating_pods_and_endpoints_do_not(recorded_cluster):
    with recorded_cluster.http_client() as api:
        _run(recorded_cluster, api)
    seen = [obj for rid, _, obj in recorder(recorded_cluster).seen if rid == "discovery.k8s.io/endpointslices"]
    recorded = [e["object"] for e in stream(CASE) if e["resource"] == "endpointslices"]
    assert _conditions_seen(seen) == _conditions_seen(recorded) == {(True, True, False), (False, True, True)}
    counts = [len(obj.get("subsets", [{}])[0].get("addresses") or []) for rid, kind, obj in recorder(recorded_cluster).seen
              if rid == "endpoints" and obj["metadata"]["name"] == "web-clusterip"]
    recorded_counts = [len(e["object"].get("subsets", [{}])[0].get("addresses") or []) for e in stream(CASE)
                       if e["resource"] == "endpoints" and e["object"]["metadata"]["name"] == "web-clusterip"]
    assert counts[0] == recorded_counts[0] == 2 and counts[-1] == recorded_counts[-1] == 1
    assert max(counts) == max(recorded_counts) == 4


def test_the_kubernetes_service_names_the_advertised_address():
    with Cluster(clock=FakeClock()) as cluster, cluster.http_client() as api:
        cluster.advertise("0.0.0.0", 45678)  # as `kubelite serve` does before starting; a wildcard: loopback
        assert cluster.settle()
        ep = api.get("/api/v1/namespaces/default/endpoints/kubernetes").json()
        assert ep["subsets"] == [{"addresses": [{"ip": "127.0.0.1"}],
                                  "ports": [{"name": "https", "port": 45678, "protocol": "TCP"}]}]
        assert ep["metadata"]["labels"] == {"endpointslice.kubernetes.io/skip-mirror": "true"}
        eps = api.get("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes").json()
        assert eps["endpoints"] == [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}]
        assert eps["ports"] == [{"name": "https", "protocol": "TCP", "port": 45678}]
        assert eps["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
        svc = api.get("/api/v1/namespaces/default/services/kubernetes").json()
        assert svc["spec"]["ports"][0]["targetPort"] == 45678


def _trigger_sequence(events) -> list[tuple]:
    """Per object, its collapsed (event type, carries last-change-trigger-time) transitions."""
    by_name: dict[str, list] = {}
    for kind, obj in events:
        meta = obj["metadata"]
        name = meta.get("generateName") or meta["name"]  # slices: their Service's name and a dash
        by_name.setdefault(name, []).append((kind, TRIGGER_TIME in (meta.get("annotations") or {})))
    return sorted((name, tuple(collapse(seq))) for name, seq in by_name.items())


def test_trigger_time_comes_and_goes_as_recorded(recorded_cluster):
    # Set when the Service is new or pods changed (became ready), dropped when only pods went.
    with recorded_cluster.http_client() as api:
        _run(recorded_cluster, api)
    for rid, resource in (("endpoints", "endpoints"), ("discovery.k8s.io/endpointslices", "endpointslices")):
        seen = [(kind, obj) for r, kind, obj in recorder(recorded_cluster).seen
                if r == rid and obj["metadata"].get("namespace") == NS]
        recorded = [(e["type"], e["object"]) for e in stream(CASE) if e["resource"] == resource]
        assert _trigger_sequence(seen) == _trigger_sequence(recorded), resource
