"""The workload controllers inside a whole cluster (the default controllers: scheduler, simulated
nodes and kubelet, garbage collector, ...) on a fake clock: what a user sees end to end."""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

from test_workloads_support import manifest, run_for


@pytest.fixture
def three_nodes():
    # Five seconds past a minute: a run of 65 s crosses exactly one minute boundary.
    with Cluster("memory://", clock=FakeClock(1_800_000_005), nodes=3) as c, c.http_client() as api:
        c.settle()
        yield c, api


def condition_types(obj: dict) -> list[str]:
    return [c["type"] for c in (obj.get("status") or {}).get("conditions") or [] if c.get("status") == "True"]


def test_jobs_complete_and_the_ttl_removes_them_with_their_pods(three_nodes):
    cluster, api = three_nodes
    assert api.post("/apis/batch/v1/namespaces/default/jobs", json=manifest("job-basic", "job.yaml")).is_success
    ttl = manifest("job-ttl", "job.yaml")
    assert api.post("/apis/batch/v1/namespaces/default/jobs", json=ttl).is_success
    run_for(cluster, 5)
    calc = api.get("/apis/batch/v1/namespaces/default/jobs/calc").json()
    assert condition_types(calc) == ["SuccessCriteriaMet", "Complete"] and calc["status"]["succeeded"] == 3
    pods = api.get("/api/v1/namespaces/default/pods", params={"labelSelector": "job-name=calc"}).json()["items"]
    assert sorted(p["status"]["phase"] for p in pods) == ["Succeeded"] * 3
    assert all(p["spec"].get("nodeName") for p in pods) and not any(p["metadata"].get("finalizers") for p in pods)
    run_for(cluster, 6)
    assert api.get("/apis/batch/v1/namespaces/default/jobs/brief").status_code == 404
    assert api.get("/api/v1/namespaces/default/pods", params={"labelSelector": "job-name=brief"}).json()["items"] == []


def test_a_daemonset_runs_one_pod_per_node_and_a_statefulset_in_order(three_nodes):
    cluster, api = three_nodes
    assert api.post("/apis/apps/v1/namespaces/default/daemonsets", json=manifest("daemonset", "ds.yaml")).is_success
    import yaml

    from test_workloads_support import DATA

    for doc in yaml.safe_load_all((DATA / "statefulset" / "files" / "web.yaml").read_text()):
        base = "/api/v1" if doc["kind"] == "Service" else "/apis/apps/v1"
        plural = "services" if doc["kind"] == "Service" else "statefulsets"
        assert api.post(f"{base}/namespaces/default/{plural}", json=doc).is_success
    run_for(cluster, 3)
    pods = api.get("/api/v1/namespaces/default/pods", params={"labelSelector": "app=agent"}).json()["items"]
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node-a", "node-b", "node-c"]
    ds = api.get("/apis/apps/v1/namespaces/default/daemonsets/agent").json()["status"]
    assert (ds["desiredNumberScheduled"], ds["numberReady"], ds["updatedNumberScheduled"]) == (3, 3, 3)
    sts = api.get("/apis/apps/v1/namespaces/default/statefulsets/web").json()["status"]
    assert (sts["replicas"], sts["readyReplicas"], sts["currentReplicas"]) == (3, 3, 3)
    web = api.get("/api/v1/namespaces/default/pods", params={"labelSelector": "app=web"}).json()["items"]
    assert sorted(p["metadata"]["name"] for p in web) == ["web-0", "web-1", "web-2"]
    assert all(p["status"]["phase"] == "Running" for p in web)
    # A cordoned node keeps its daemon pod; a tainted one loses it.
    assert api.patch("/api/v1/nodes/node-c", json={"spec": {"taints": [{"key": "x", "effect": "NoExecute"}]}},
                     headers={"content-type": "application/merge-patch+json"}).is_success
    run_for(cluster, 2)
    pods = api.get("/api/v1/namespaces/default/pods", params={"labelSelector": "app=agent"}).json()["items"]
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node-a", "node-b"]


def test_a_cronjob_schedules_on_the_cluster_clock(three_nodes):
    cluster, api = three_nodes
    assert api.post("/apis/batch/v1/namespaces/default/cronjobs",
                    json=manifest("cronjob", "cronjob.yaml")).is_success
    run_for(cluster, 65, step=1.0)
    jobs = api.get("/apis/batch/v1/namespaces/default/jobs").json()["items"]
    assert len(jobs) == 1 and condition_types(jobs[0])[-1] == "Complete"
    status = api.get("/apis/batch/v1/namespaces/default/cronjobs/tick").json()["status"]
    assert status["lastScheduleTime"] and status["lastSuccessfulTime"]
