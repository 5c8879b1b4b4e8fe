"""DaemonSet updates over three nodes: RollingUpdate by maxUnavailable (one node at a time),
by maxSurge (the new pod first, the old one once it is ready), and OnDelete."""
from __future__ import annotations

import pytest

from kubelite.server.controllers.daemonset import DaemonSetController

from test_workloads_support import manifest, run_for, workload_cluster

NS = "ds"
STRATEGIC = {"content-type": "application/strategic-merge-patch+json"}
NEW_IMAGE = {"spec": {"template": {"spec": {"containers": [{"name": "agent", "image": "nginx:1.25"}]}}}}


@pytest.fixture
def ds():
    with workload_cluster([DaemonSetController], NS) as (cluster, api):
        for name in ("n1", "n2", "n3"):
            assert api.post("/api/v1/nodes", json={"metadata": {"name": name}}).status_code == 201
        yield cluster, api


def start(cluster, api, strategy: dict) -> None:
    body = manifest("daemonset", "ds.yaml")
    body["spec"]["updateStrategy"] = strategy
    assert api.post(f"/apis/apps/v1/namespaces/{NS}/daemonsets", json=body).status_code == 201
    run_for(cluster, 1)


def update(cluster, api) -> None:
    assert api.patch(f"/apis/apps/v1/namespaces/{NS}/daemonsets/agent", json=NEW_IMAGE, headers=STRATEGIC).is_success
    run_for(cluster, 2)


def images(api) -> list[str]:
    return sorted(p["spec"]["containers"][0]["image"] for p in api.get(f"/api/v1/namespaces/{NS}/pods").json()["items"])


def actions_after_update(cluster) -> list[str]:
    rec = cluster.manager.controllers[-1]
    reasons = [e["reason"] for e in rec.objects("events") if e["involvedObject"]["kind"] == "DaemonSet"
               and e.get("count") == 1]
    return reasons[3:]  # after the three first creations


def test_rolling_update_by_max_unavailable_replaces_one_node_at_a_time(ds):
    cluster, api = ds
    start(cluster, api, {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}})
    update(cluster, api)
    assert images(api) == ["nginx:1.25"] * 3
    assert actions_after_update(cluster) == ["SuccessfulDelete", "SuccessfulCreate"] * 3
    status = api.get(f"/apis/apps/v1/namespaces/{NS}/daemonsets/agent").json()["status"]
    assert (status["updatedNumberScheduled"], status["numberAvailable"], status["observedGeneration"]) == (3, 3, 2)


def test_rolling_update_by_max_surge_starts_the_new_pod_first(ds):
    cluster, api = ds
    start(cluster, api, {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}})
    update(cluster, api)
    assert images(api) == ["nginx:1.25"] * 3
    assert actions_after_update(cluster) == ["SuccessfulCreate", "SuccessfulDelete"] * 3


def test_on_delete_waits_for_pods_deleted_by_hand(ds):
    cluster, api = ds
    start(cluster, api, {"type": "OnDelete"})
    update(cluster, api)
    assert images(api) == ["nginx:1.24"] * 3
    victim = api.get(f"/api/v1/namespaces/{NS}/pods").json()["items"][0]["metadata"]["name"]
    assert api.delete(f"/api/v1/namespaces/{NS}/pods/{victim}").is_success
    run_for(cluster, 1)
    assert images(api) == ["nginx:1.24", "nginx:1.24", "nginx:1.25"]


def test_min_ready_seconds_delays_availability(ds):
    cluster, api = ds
    body = manifest("daemonset", "ds.yaml")
    body["spec"]["minReadySeconds"] = 5
    assert api.post(f"/apis/apps/v1/namespaces/{NS}/daemonsets", json=body).status_code == 201
    run_for(cluster, 1)
    status = api.get(f"/apis/apps/v1/namespaces/{NS}/daemonsets/agent").json()["status"]
    assert (status["numberReady"], status.get("numberAvailable", 0), status["numberUnavailable"]) == (3, 0, 3)
    run_for(cluster, 5)
    status = api.get(f"/apis/apps/v1/namespaces/{NS}/daemonsets/agent").json()["status"]
    assert (status["numberAvailable"], status.get("numberUnavailable", 0)) == (3, 0)
