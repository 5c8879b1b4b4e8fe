"""Simulated nodes: registration, Leases renewed on the cluster's clock, and the node lifecycle
marking a node whose Lease is not renewed unreachable."""
from __future__ import annotations

from kubelite.server.clock import FakeClock, parse_time
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.nodes import GRACE_PERIOD, RENEW_INTERVAL, node_names
from tests.controllers.sim_support import pod

LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"


def _ready(node: dict) -> str:
    return [c for c in node["status"]["conditions"] if c["type"] == "Ready"][0]["status"]


def test_the_default_node_is_the_reference_node_a(cluster, api):
    assert cluster.settle()
    (node,) = api.get("/api/v1/nodes").json()["items"]
    assert node["metadata"]["name"] == "node-a"
    assert node["status"]["capacity"] == {"cpu": "8", "memory": "32Gi", "pods": "110"}
    assert node["status"]["allocatable"] == node["status"]["capacity"]
    assert _ready(node) == "True" and not node["spec"].get("taints")
    assert {"type": "InternalIP", "address": "127.0.0.1"} in node["status"]["addresses"]
    assert node["status"]["nodeInfo"]["kubeletVersion"] == "v1.32.13"
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "node-a"


def test_node_names_and_count():
    assert node_names(3) == ["node-a", "node-b", "node-c"]
    assert node_names(28)[-2:] == ["node-aa", "node-ab"]
    with Cluster("memory://", clock=FakeClock(), nodes=3) as cluster, cluster.http_client() as api:
        cluster.settle()
        names = [n["metadata"]["name"] for n in api.get("/api/v1/nodes").json()["items"]]
        assert names == ["node-a", "node-b", "node-c"]
        cidrs = {n["spec"]["podCIDR"] for n in api.get("/api/v1/nodes").json()["items"]}
        assert cidrs == {"10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"}


def test_leases_are_renewed_on_the_cluster_clock(cluster, api):
    cluster.settle()
    first = api.get(f"{LEASES}/node-a").json()
    assert first["spec"]["holderIdentity"] == "node-a" and first["spec"]["leaseDurationSeconds"] == 40
    assert first["metadata"]["ownerReferences"][0]["kind"] == "Node"
    cluster.advance(RENEW_INTERVAL - 1)
    assert api.get(f"{LEASES}/node-a").json()["spec"]["renewTime"] == first["spec"]["renewTime"]
    cluster.advance(1)
    renewed = api.get(f"{LEASES}/node-a").json()["spec"]["renewTime"]
    assert parse_time(renewed) - parse_time(first["spec"]["renewTime"]) == RENEW_INTERVAL


def test_a_lease_renewed_less_than_an_interval_ago_is_not_renewed_at_a_restart(tmp_path):
    """The embedded cluster starts its controllers at every command: its kubelet renews on its
    10 s turn, as one that kept running, not at every start."""
    path = str(tmp_path / "state.db")
    start = 1_800_000_000.5

    def lease_after_open(at: float) -> dict:
        with Cluster(path, clock=FakeClock(at)) as cluster, cluster.http_client() as api:
            assert cluster.settle()
            return api.get(f"{LEASES}/node-a").json()

    first = lease_after_open(start)
    again = lease_after_open(start + RENEW_INTERVAL - 1)
    assert again["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    later = lease_after_open(start + RENEW_INTERVAL)
    assert parse_time(later["spec"]["renewTime"]) - parse_time(first["spec"]["renewTime"]) == RENEW_INTERVAL


def test_a_deleted_simulated_node_registers_again(cluster, api):
    cluster.settle()
    assert api.delete("/api/v1/nodes/node-a").status_code == 200
    cluster.settle()
    assert api.get("/api/v1/nodes/node-a").status_code == 200


def test_a_node_without_a_kubelet_becomes_unreachable(cluster, api):
    cluster.settle()
    body = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "orphan"},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "10"},
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "message": "kubelet is posting ready status"}]}}
    assert api.post("/api/v1/nodes", json=body).status_code == 201
    cluster.settle()  # the lifecycle controller sees the node now
    cluster.advance(GRACE_PERIOD - 1)
    assert not (api.get("/api/v1/nodes/orphan").json().get("spec") or {}).get("taints")
    cluster.advance(1)
    node = api.get("/api/v1/nodes/orphan").json()
    assert _ready(node) == "Unknown"
    (cond,) = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
    assert cond["reason"] == "NodeStatusUnknown" and cond["message"] == "Kubelet stopped posting node status."
    assert {(t["key"], t["effect"]) for t in node["spec"]["taints"]} == {
        ("node.kubernetes.io/unreachable", "NoSchedule"), ("node.kubernetes.io/unreachable", "NoExecute")}
    # node-a keeps renewing: still Ready after the same time, and new pods go there, not to the orphan.
    assert _ready(api.get("/api/v1/nodes/node-a").json()) == "True"
    for i in range(3):
        assert api.post("/api/v1/namespaces/default/pods", json=pod(f"p{i}")).status_code == 201
    cluster.settle()
    placed = {api.get(f"/api/v1/namespaces/default/pods/p{i}").json()["spec"]["nodeName"] for i in range(3)}
    assert placed == {"node-a"}


def _taint(api, node, taints):
    r = api.patch(f"/api/v1/nodes/{node}", json={"spec": {"taints": taints}},
                  headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text


def test_no_execute_taints_evict_what_does_not_tolerate_them(cluster, api):
    pods = "/api/v1/namespaces/default/pods"
    assert api.post(pods, json=pod("plain")).status_code == 201
    tolerant = pod("tolerant", tolerations=[{"key": "maintenance", "operator": "Exists", "effect": "NoExecute"}])
    assert api.post(pods, json=tolerant).status_code == 201
    for_a_while = pod("while", tolerations=[{"key": "maintenance", "operator": "Exists", "effect": "NoExecute",
                                             "tolerationSeconds": 60}])
    assert api.post(pods, json=for_a_while).status_code == 201
    cluster.settle()
    _taint(api, "node-a", [{"key": "maintenance", "effect": "NoExecute", "timeAdded": cluster.clock.rfc3339()}])
    cluster.settle()
    assert api.get(f"{pods}/plain").status_code == 404  # evicted, and the kubelet let it go at once
    events = api.get("/api/v1/namespaces/default/events").json()["items"]
    assert any(e["reason"] == "TaintManagerEviction" and e["message"] == "Marking for deletion Pod default/plain"
               for e in events)
    cluster.advance(59)
    assert api.get(f"{pods}/while").status_code == 200
    cluster.advance(2)
    assert api.get(f"{pods}/while").status_code == 404
    assert api.get(f"{pods}/tolerant").status_code == 200


def test_pods_leave_an_unreachable_node_after_their_default_toleration(cluster, api):
    """The admission's default tolerations allow 300 s on an unreachable node."""
    cluster.settle()
    body = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "orphan"},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}
    assert api.post("/api/v1/nodes", json=body).status_code == 201
    pods = "/api/v1/namespaces/default/pods"
    assert api.post(pods, json=pod("stuck", nodeName="orphan")).status_code == 201
    cluster.settle()
    tolerations = api.get(f"{pods}/stuck").json()["spec"]["tolerations"]
    assert {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
            "tolerationSeconds": 300} in tolerations
    cluster.advance(GRACE_PERIOD)  # unreachable now
    # The pod was never started there; a started one is marked not ready (see below).
    cluster.advance(299)
    assert "deletionTimestamp" not in api.get(f"{pods}/stuck").json()["metadata"]
    cluster.advance(2)
    # Deleted gracefully; no kubelet on the node confirms it, so it stays Terminating as in a real cluster.
    assert "deletionTimestamp" in api.get(f"{pods}/stuck").json()["metadata"]


def test_pods_of_an_unreachable_node_are_marked_not_ready(cluster, api):
    cluster.settle()
    body = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "orphan"},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}
    assert api.post("/api/v1/nodes", json=body).status_code == 201
    pods = "/api/v1/namespaces/default/pods"
    assert api.post(pods, json=pod("was-ready", nodeName="orphan")).status_code == 201
    ready = {"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": cluster.clock.rfc3339()}
    marked = api.patch(f"{pods}/was-ready/status", json={"status": {"phase": "Running", "conditions": [ready]}},
                       headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert marked.status_code == 200, marked.text
    cluster.settle()
    cluster.advance(GRACE_PERIOD)
    (cond,) = [c for c in api.get(f"{pods}/was-ready").json()["status"]["conditions"] if c["type"] == "Ready"]
    assert cond["status"] == "False"
    events = api.get("/api/v1/namespaces/default/events").json()["items"]
    assert [(e["type"], e["reason"], e["message"]) for e in events if e["involvedObject"]["name"] == "was-ready"] \
        == [("Warning", "NodeNotReady", "Node is not ready")]
