"""metrics.k8s.io/v1beta1 as kubelite serves it: the answers metrics-server gives behind the
aggregator (discovery entries, PodMetrics / NodeMetrics, selectors, its 404/405 wording, its
Table), computed from the simulated cluster on each request."""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.metrics import CPU_ANNOTATION, MEMORY_ANNOTATION

BASE = "/apis/metrics.k8s.io/v1beta1"
START = 1_767_225_600  # 2026-01-01T00:00:00Z


@pytest.fixture
def cluster():
    with Cluster("memory://", clock=FakeClock(START)) as c:
        yield c


@pytest.fixture
def api(cluster):
    with cluster.http_client() as client:
        yield client


def _pod(name, cpu="100m", labels=None, annotations=None, namespace="default"):
    """A pod using `cpu` and 32Mi (the simulated usage annotations; its requests alone say nothing
    of its usage), unless `annotations` says otherwise."""
    usage = {CPU_ANNOTATION: cpu, MEMORY_ANNOTATION: "32Mi"}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels or {"app": name},
                         "annotations": {**usage, **(annotations or {})}},
            "spec": {"containers": [{"name": "app", "image": "nginx",
                                     "resources": {"requests": {"cpu": cpu, "memory": "32Mi"}}}]}}


def _running(cluster, api, *pods):
    for pod in pods:
        ns = pod["metadata"]["namespace"]
        assert api.post(f"/api/v1/namespaces/{ns}/pods", json=pod).status_code == 201
    assert cluster.settle()


def test_discovery_lists_the_group_after_every_builtin_one(api):
    groups = api.get("/apis").json()["groups"]
    assert groups[-1] == {"name": "metrics.k8s.io",
                          "versions": [{"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"}],
                          "preferredVersion": {"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"}}
    resources = api.get(BASE).json()["resources"]
    assert resources == [
        {"name": "nodes", "singularName": "", "namespaced": False, "kind": "NodeMetrics", "verbs": ["get", "list"]},
        {"name": "pods", "singularName": "", "namespaced": True, "kind": "PodMetrics", "verbs": ["get", "list"]}]
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    item = api.get("/apis", headers={"accept": accept}).json()["items"][-1]
    assert item["metadata"]["name"] == "metrics.k8s.io"
    assert [(r["resource"], r["scope"], r["verbs"]) for r in item["versions"][0]["resources"]] == [
        ("nodes", "Cluster", ["get", "list"]), ("pods", "Namespaced", ["get", "list"])]


def test_pod_metrics_of_running_pods(cluster, api):
    _running(cluster, api, _pod("web", "250m"), _pod("hot", annotations={CPU_ANNOTATION: "900m"}))
    listing = api.get(f"{BASE}/namespaces/default/pods").json()
    assert (listing["kind"], listing["metadata"]) == ("PodMetricsList", {})
    assert [(m["metadata"]["name"], m["containers"][0]["usage"]) for m in listing["items"]] == [
        ("hot", {"cpu": "900m", "memory": "32Mi"}), ("web", {"cpu": "250m", "memory": "32Mi"})]
    # metrics-server writes its Go structs' order (kubectl get --raw shows it)
    raw = api.get(f"{BASE}/namespaces/default/pods/web").text
    assert raw.startswith('{"kind":"PodMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":"web",'
                          '"namespace":"default","creationTimestamp":')
    assert '"timestamp":"2026-01-01T00:00:00Z","window":"10s","containers":[{"name":"app","usage":{"cpu":' in raw
    one = api.get(f"{BASE}/namespaces/default/pods/web").json()
    assert one["timestamp"] == "2026-01-01T00:00:00Z" and one["window"] == "10s"
    assert one["metadata"]["labels"] == {"app": "web"}
    across = api.get(f"{BASE}/pods").json()["items"]
    assert {m["metadata"]["name"] for m in across} >= {"web", "hot"}


def test_selectors_filter_the_pods(cluster, api):
    _running(cluster, api, _pod("a", labels={"tier": "x"}), _pod("b", labels={"tier": "y"}))
    names = lambda r: [m["metadata"]["name"] for m in r.json()["items"]]  # noqa: E731
    assert names(api.get(f"{BASE}/namespaces/default/pods", params={"labelSelector": "tier=y"})) == ["b"]
    assert names(api.get(f"{BASE}/namespaces/default/pods", params={"fieldSelector": "metadata.name=a"})) == ["a"]
    refused = api.get(f"{BASE}/pods", params={"fieldSelector": "spec.nodeName=node-a"})
    assert refused.status_code == 400 and refused.json()["message"] == "field label not supported: spec.nodeName"


def test_node_metrics_sum_the_running_pods(cluster, api):
    _running(cluster, api, _pod("a", "250m"), _pod("b", "500m"))
    nodes = api.get(f"{BASE}/nodes").json()
    assert nodes["kind"] == "NodeMetricsList"
    assert [(n["metadata"]["name"], n["usage"]) for n in nodes["items"]] == [
        ("node-a", {"cpu": "750m", "memory": "64Mi"})]
    assert api.get(f"{BASE}/nodes", params={"labelSelector": "kubernetes.io/hostname=other"}).json()["items"] == []


def test_not_found_as_metrics_server_words_it(cluster, api):
    pending = _pod("waiting")
    pending["spec"]["nodeSelector"] = {"nowhere": "true"}  # never scheduled: no metrics
    _running(cluster, api, pending)
    cases = [(f"{BASE}/namespaces/default/pods/missing", 'pods "missing" not found'),
             (f"{BASE}/namespaces/default/pods/waiting", 'podmetrics.metrics.k8s.io "default/waiting" not found'),
             (f"{BASE}/nodes/missing", 'node "missing" not found')]
    for path, message in cases:
        r = api.get(path)
        assert (r.status_code, r.json()["reason"], r.json()["message"]) == (404, "NotFound", message)


def test_read_only(api):
    r = api.get(f"{BASE}/pods", params={"watch": "true"})
    assert r.status_code == 405
    assert r.json()["message"] == 'watch is not supported on resources of kind "pods.metrics.k8s.io"'
    assert api.post(f"{BASE}/namespaces/default/pods", json={}).status_code == 405
    assert api.delete(f"{BASE}/nodes/node-a").status_code == 405
    assert api.get(f"{BASE}/namespaces/default/nodes").status_code == 404


def test_table_as_metrics_server_prints_it(cluster, api):
    _running(cluster, api, _pod("web", "250m"))
    table = api.get(f"{BASE}/namespaces/default/pods",
                    headers={"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "cpu", "memory", "Window"]
    assert [row["cells"] for row in table["rows"]] == [["web", "250m", "32Mi", "10s"]]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"


def test_not_served_without_the_simulated_kubelet():
    from kubelite.server.controllers import select_controllers

    with Cluster("memory://", clock=FakeClock(START), controllers=select_controllers("-*")) as c:
        with c.http_client() as client:
            assert "metrics.k8s.io" not in [g["name"] for g in client.get("/apis").json()["groups"]]
            assert client.get(f"{BASE}/nodes").status_code == 404
