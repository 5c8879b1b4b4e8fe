"""Job features beyond the recorded cases, with kube-controller-manager v1.32's reasons and
messages: podFailurePolicy (FailJob, Ignore), activeDeadlineSeconds, backoffLimitPerIndex,
successPolicy, Jobs without completions, and the tracking finalizer of a deleted Job's pods.
Time only moves through the fake clock."""
from __future__ import annotations

import copy

import pytest

from kubelite.server.controllers.job import JobController

from test_workloads_support import FAIL_INDEXES, run_for, workload_cluster

NS = "jobs"
BASE = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "work"},
        "spec": {"template": {"metadata": {"labels": {"app": "work"}},
                              "spec": {"restartPolicy": "Never",
                                       "containers": [{"name": "work", "image": "busybox:1.36"}]}}}}


@pytest.fixture
def jobs():
    with workload_cluster([JobController], NS) as cluster_and_api:
        yield cluster_and_api


def job(spec: dict | None = None, annotations: dict | None = None) -> dict:
    out = copy.deepcopy(BASE)
    out["spec"].update(spec or {})
    if annotations:
        out["spec"]["template"]["metadata"]["annotations"] = annotations
    return out


def start(cluster, api, body: dict) -> None:
    created = api.post(f"/apis/batch/v1/namespaces/{NS}/jobs", json=body)
    assert created.status_code == 201, created.text
    cluster.settle()


def status(api) -> dict:
    return api.get(f"/apis/batch/v1/namespaces/{NS}/jobs/work").json()["status"]


def conditions(api) -> list[tuple]:
    return [(c["type"], c["status"], c.get("reason"), c.get("message")) for c in status(api).get("conditions", [])]


def job_events(cluster) -> list[tuple]:
    rec = cluster.manager.controllers[-1]
    return [(e["type"], e["reason"], e["message"]) for e in rec.objects("events")
            if e["involvedObject"]["kind"] == "Job" and e.get("count") == 1]


def pods(api) -> list[dict]:
    return api.get(f"/api/v1/namespaces/{NS}/pods").json()["items"]


def test_fail_job_rule_of_the_pod_failure_policy(jobs):
    cluster, api = jobs
    policy = {"rules": [{"action": "FailJob", "onExitCodes": {"containerName": "work", "operator": "In",
                                                               "values": [1]}}]}
    start(cluster, api, job({"podFailurePolicy": policy}, {"sim.example.com/complete": "Failed"}))
    run_for(cluster, 3)
    pod = pods(api)[0]["metadata"]["name"]
    message = f"Container work for pod {NS}/{pod} failed with exit code 1 matching FailJob rule at index 0"
    assert conditions(api) == [("FailureTarget", "True", "PodFailurePolicy", message),
                               ("Failed", "True", "PodFailurePolicy", message)]
    assert status(api)["failed"] == 1 and "completionTime" not in status(api)
    assert ("Warning", "PodFailurePolicy", message) in job_events(cluster)


def test_ignored_failures_are_not_counted(jobs):
    cluster, api = jobs
    policy = {"rules": [{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [1]}}]}
    start(cluster, api, job({"podFailurePolicy": policy, "backoffLimit": 0}, {"sim.example.com/complete": "Failed"}))
    run_for(cluster, 5)
    assert conditions(api) == []
    assert "failed" not in status(api)
    assert len(job_events(cluster)) >= 3  # a replacement after each ignored failure


def test_active_deadline_fails_the_job_and_stops_its_pods(jobs):
    cluster, api = jobs
    start(cluster, api, job({"activeDeadlineSeconds": 3}, {"sim.example.com/complete": "Running"}))
    run_for(cluster, 2)
    assert conditions(api) == [] and status(api)["active"] == 1
    run_for(cluster, 2)
    message = "Job was active longer than specified deadline"
    assert conditions(api) == [("FailureTarget", "True", "DeadlineExceeded", message),
                               ("Failed", "True", "DeadlineExceeded", message)]
    assert status(api)["failed"] == 1 and "active" not in status(api)
    assert pods(api) == []
    events = job_events(cluster)
    assert events[-1] == ("Warning", "DeadlineExceeded", message)
    assert any(reason == "SuccessfulDelete" for _, reason, _ in events)


def test_backoff_limit_per_index_fails_only_that_index(jobs):
    cluster, api = jobs
    spec = {"completionMode": "Indexed", "completions": 3, "parallelism": 3, "backoffLimitPerIndex": 1}
    start(cluster, api, job(spec, {FAIL_INDEXES: "1"}))
    run_for(cluster, 20)
    got = status(api)
    assert (got["completedIndexes"], got["failedIndexes"], got["succeeded"], got["failed"]) == ("0,2", "1", 2, 2)
    message = "Job has failed indexes"
    assert conditions(api) == [("FailureTarget", "True", "FailedIndexes", message),
                               ("Failed", "True", "FailedIndexes", message)]
    retried = [p for p in pods(api) if p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == "1"]
    assert sorted(p["metadata"]["annotations"]["batch.kubernetes.io/job-index-failure-count"] for p in retried) == \
        ["0", "1"]


def test_success_policy_completes_before_every_index_ran(jobs):
    cluster, api = jobs
    spec = {"completionMode": "Indexed", "completions": 3, "parallelism": 1,
            "successPolicy": {"rules": [{"succeededIndexes": "0"}]}}
    start(cluster, api, job(spec))
    run_for(cluster, 3)
    message = "Matched rules at index 0"
    assert conditions(api)[:2] == [("SuccessCriteriaMet", "True", "SuccessPolicy", message),
                                   ("Complete", "True", "SuccessPolicy", message)]
    assert status(api)["completedIndexes"] == "0"


def test_without_completions_one_success_completes(jobs):
    cluster, api = jobs
    start(cluster, api, job({"parallelism": 2}))
    run_for(cluster, 3)
    got = status(api)
    assert [c[0] for c in conditions(api)] == ["SuccessCriteriaMet", "Complete"]
    assert got["succeeded"] == 2 and len(pods(api)) == 2


def test_pods_of_a_deleted_job_lose_the_tracking_finalizer(jobs):
    cluster, api = jobs
    start(cluster, api, job({"parallelism": 2}, {"sim.example.com/complete": "Running"}))
    assert all(p["metadata"]["finalizers"] == ["batch.kubernetes.io/job-tracking"] for p in pods(api))
    assert api.delete(f"/apis/batch/v1/namespaces/{NS}/jobs/work",
                      params={"propagationPolicy": "Orphan"}).is_success
    run_for(cluster, 1)
    assert [p["metadata"].get("finalizers") for p in pods(api)] == [None, None]


def test_a_job_managed_by_another_controller_is_left_alone(jobs):
    cluster, api = jobs
    start(cluster, api, job({"managedBy": "example.com/other"}))
    run_for(cluster, 2)
    assert pods(api) == [] and "startTime" not in (status(api) or {})


def test_suspending_a_running_job_stops_its_pods_without_failures(jobs):
    cluster, api = jobs
    start(cluster, api, job({"parallelism": 2, "completions": 2}, {"sim.example.com/complete": "Running"}))
    assert len(pods(api)) == 2
    merge = {"content-type": "application/merge-patch+json"}
    assert api.patch(f"/apis/batch/v1/namespaces/{NS}/jobs/work", json={"spec": {"suspend": True}},
                     headers=merge).is_success
    run_for(cluster, 2)
    assert pods(api) == []
    got = status(api)
    assert "failed" not in got and "active" not in got and "startTime" not in got
    assert conditions(api) == [("Suspended", "True", "JobSuspended", "Job suspended")]
    assert [r for _, r, _ in job_events(cluster)].count("SuccessfulDelete") == 2


def test_evicted_pods_match_a_disruption_target_rule(jobs):
    """kube-apiserver marks an evicted pod DisruptionTarget; an Ignore rule on that condition keeps
    the eviction out of the Job's failures (the pod is replaced)."""
    cluster, api = jobs
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    start(cluster, api, job({"podFailurePolicy": policy, "backoffLimit": 0}, {"sim.example.com/complete": "Running"}))
    victim = pods(api)[0]["metadata"]["name"]
    evicted = api.post(f"/api/v1/namespaces/{NS}/pods/{victim}/eviction",
                       json={"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": victim}})
    assert evicted.status_code == 201, evicted.text
    marked = api.get(f"/api/v1/namespaces/{NS}/pods/{victim}").json()
    assert {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
            "message": "Eviction API: evicting"}.items() <= \
        next(c for c in marked["status"]["conditions"] if c["type"] == "DisruptionTarget").items()
    assert api.patch(f"/api/v1/namespaces/{NS}/pods/{victim}/status", json={"status": {"phase": "Failed"}},
                     headers={"content-type": "application/merge-patch+json"}).is_success
    run_for(cluster, 2)
    assert conditions(api) == [] and "failed" not in status(api)
    assert [p["metadata"]["name"] for p in pods(api)] != [victim] and status(api)["active"] == 1
