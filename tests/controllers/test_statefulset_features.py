"""StatefulSet behaviour beyond the recorded case: OrderedReady scale-down from the highest
ordinal, OnDelete, failed pods recreated, volumeClaimTemplates and the PVC retention policy."""
from __future__ import annotations

import copy

import pytest

from kubelite.server.controllers.statefulset import StatefulSetController

from test_workloads_support import run_for, workload_cluster

NS = "sts"
STRATEGIC = {"content-type": "application/strategic-merge-patch+json"}
BASE = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
        "spec": {"serviceName": "db", "replicas": 3, "selector": {"matchLabels": {"app": "db"}},
                 "template": {"metadata": {"labels": {"app": "db"}},
                              "spec": {"containers": [{"name": "db", "image": "postgres:16"}]}}}}


@pytest.fixture
def sts():
    with workload_cluster([StatefulSetController], NS) as cluster_and_api:
        yield cluster_and_api


def create(cluster, api, **spec) -> None:
    body = copy.deepcopy(BASE)
    body["spec"].update(spec)
    made = api.post(f"/apis/apps/v1/namespaces/{NS}/statefulsets", json=body)
    assert made.status_code == 201, made.text
    run_for(cluster, 1)


def patch(cluster, api, body: dict) -> None:
    assert api.patch(f"/apis/apps/v1/namespaces/{NS}/statefulsets/db", json=body, headers=STRATEGIC).is_success
    run_for(cluster, 1)


def pods(api) -> dict[str, dict]:
    return {p["metadata"]["name"]: p for p in api.get(f"/api/v1/namespaces/{NS}/pods").json()["items"]}


def set_events(cluster) -> list[tuple]:
    rec = cluster.manager.controllers[-1]
    return [(e["type"], e["reason"], e["message"]) for e in rec.objects("events")
            if e["involvedObject"]["kind"] == "StatefulSet" and e.get("count") == 1]


def test_ordered_scale_down_goes_from_the_highest_ordinal(sts):
    cluster, api = sts
    create(cluster, api, replicas=4)
    patch(cluster, api, {"spec": {"replicas": 1}})
    deletes = [m for _, r, m in set_events(cluster) if r == "SuccessfulDelete"]
    assert deletes == [f"delete Pod db-{i} in StatefulSet db successful" for i in (3, 2, 1)]
    assert list(pods(api)) == ["db-0"]


def test_on_delete_only_replaces_pods_deleted_by_hand(sts):
    cluster, api = sts
    create(cluster, api, updateStrategy={"type": "OnDelete"})
    before = {n: p["metadata"]["labels"]["controller-revision-hash"] for n, p in pods(api).items()}
    patch(cluster, api, {"spec": {"template": {"spec": {"containers": [{"name": "db", "image": "postgres:17"}]}}}})
    status = api.get(f"/apis/apps/v1/namespaces/{NS}/statefulsets/db").json()["status"]
    assert status["currentRevision"] != status["updateRevision"]
    assert {n: p["metadata"]["labels"]["controller-revision-hash"] for n, p in pods(api).items()} == before
    assert api.delete(f"/api/v1/namespaces/{NS}/pods/db-1").is_success
    run_for(cluster, 1)
    now = pods(api)
    assert now["db-1"]["metadata"]["labels"]["controller-revision-hash"] == status["updateRevision"]
    assert now["db-1"]["spec"]["containers"][0]["image"] == "postgres:17"
    assert now["db-0"]["spec"]["containers"][0]["image"] == "postgres:16"
    status = api.get(f"/apis/apps/v1/namespaces/{NS}/statefulsets/db").json()["status"]
    assert (status["currentReplicas"], status["updatedReplicas"]) == (2, 1)


def test_a_failed_pod_is_recreated(sts):
    cluster, api = sts
    create(cluster, api)
    assert api.patch(f"/api/v1/namespaces/{NS}/pods/db-1/status", json={"status": {"phase": "Failed"}},
                     headers={"content-type": "application/merge-patch+json"}).is_success
    run_for(cluster, 1)
    assert ("Warning", "RecreatingFailedPod", f"StatefulSet {NS}/db is recreating failed Pod db-1") in \
        set_events(cluster)
    assert pods(api)["db-1"]["status"]["phase"] == "Running"


def test_volume_claim_templates_make_one_claim_per_pod(sts):
    cluster, api = sts
    claim = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                    "resources": {"requests": {"storage": "1Gi"}}}}
    create(cluster, api, replicas=2, volumeClaimTemplates=[claim],
           persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Delete"})
    claims = {c["metadata"]["name"]: c for c in
              api.get(f"/api/v1/namespaces/{NS}/persistentvolumeclaims").json()["items"]}
    assert sorted(claims) == ["data-db-0", "data-db-1"]
    assert claims["data-db-0"]["metadata"]["labels"] == {"app": "db"}
    assert [r["kind"] for r in claims["data-db-0"]["metadata"]["ownerReferences"]] == ["StatefulSet"]
    volumes = pods(api)["db-1"]["spec"]["volumes"]
    assert {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-1"}} in volumes
    assert ("Normal", "SuccessfulCreate", "create Claim data-db-0 Pod db-0 in StatefulSet db success") in \
        set_events(cluster)
    patch(cluster, api, {"spec": {"replicas": 1}})
    scaled = api.get(f"/api/v1/namespaces/{NS}/persistentvolumeclaims/data-db-1").json()
    assert [(r["kind"], r["name"], r["controller"]) for r in scaled["metadata"]["ownerReferences"]] == \
        [("Pod", "db-1", True)]


def test_ordinals_start_names_the_pods_from_it(sts):
    cluster, api = sts
    create(cluster, api, replicas=2, ordinals={"start": 5})
    assert sorted(pods(api)) == ["db-5", "db-6"]
    patch(cluster, api, {"spec": {"replicas": 1}})
    assert sorted(pods(api)) == ["db-5"]


def test_min_ready_seconds_delays_availability(sts):
    cluster, api = sts
    create(cluster, api, replicas=1, minReadySeconds=5)
    status = api.get(f"/apis/apps/v1/namespaces/{NS}/statefulsets/db").json()["status"]
    assert (status["readyReplicas"], status["availableReplicas"]) == (1, 0)
    run_for(cluster, 5)
    status = api.get(f"/apis/apps/v1/namespaces/{NS}/statefulsets/db").json()["status"]
    assert status["availableReplicas"] == 1
