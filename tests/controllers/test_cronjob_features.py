"""CronJob behaviour beyond the recorded case, on the fake clock: concurrencyPolicy Forbid and
Replace, startingDeadlineSeconds (MissSchedule), history limits, suspend, timeZone, and a bad
schedule, with kube-controller-manager v1.32's Events."""
from __future__ import annotations

import pytest

from kubelite.server.clock import parse_time
from kubelite.server.controllers.cronjob import CronJobController
from kubelite.server.controllers.job import JobController

from test_workloads_support import run_for, workload_cluster

NS = "cron"
MERGE = {"content-type": "application/merge-patch+json"}


def cronjob(schedule: str = "*/1 * * * *", annotations: dict | None = None, **spec) -> dict:
    template = {"metadata": {"annotations": annotations}} if annotations else {}
    template["spec"] = {"restartPolicy": "Never", "containers": [{"name": "tick", "image": "busybox:1.36"}]}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick"},
            "spec": {"schedule": schedule, "jobTemplate": {"spec": {"template": template}}, **spec}}


@pytest.fixture
def cron():
    start = parse_time("2026-11-24T09:57:30Z")
    with workload_cluster([JobController, CronJobController], NS, start) as cluster_and_api:
        yield cluster_and_api


def create(cluster, api, body: dict) -> None:
    made = api.post(f"/apis/batch/v1/namespaces/{NS}/cronjobs", json=body)
    assert made.status_code == 201, made.text
    cluster.settle()


def jobs(api) -> list[str]:
    return sorted(j["metadata"]["name"] for j in api.get(f"/apis/batch/v1/namespaces/{NS}/jobs").json()["items"])


def cron_events(cluster) -> list[tuple]:
    rec = cluster.manager.controllers[-1]
    return [(e["type"], e["reason"], e["message"]) for e in rec.objects("events")
            if e["involvedObject"]["kind"] == "CronJob" and e.get("count") == 1]


def test_scheduled_jobs_are_named_by_their_minute(cron):
    cluster, api = cron
    create(cluster, api, cronjob())
    assert jobs(api) == []
    run_for(cluster, 31, step=1.0)  # 09:58:01
    assert jobs(api) == ["tick-29925238"]
    run_for(cluster, 64, step=1.0)
    assert jobs(api) == ["tick-29925238", "tick-29925239"]
    status = api.get(f"/apis/batch/v1/namespaces/{NS}/cronjobs/tick").json()["status"]
    assert status["lastScheduleTime"] == "2026-11-24T09:59:00Z" and "active" not in status
    assert ("Normal", "SuccessfulCreate", "Created job tick-29925238") in cron_events(cluster)
    assert ("Normal", "SawCompletedJob", "Saw completed job: tick-29925238, condition: Complete") in \
        cron_events(cluster)


def test_forbid_skips_a_run_while_the_last_one_runs(cron):
    cluster, api = cron
    create(cluster, api, cronjob(annotations={"sim.example.com/complete": "Running"}, concurrencyPolicy="Forbid"))
    run_for(cluster, 150, step=1.0)
    assert jobs(api) == ["tick-29925238"]
    status = api.get(f"/apis/batch/v1/namespaces/{NS}/cronjobs/tick").json()["status"]
    assert [ref["name"] for ref in status["active"]] == ["tick-29925238"]


def test_replace_deletes_the_running_job(cron):
    cluster, api = cron
    create(cluster, api, cronjob(annotations={"sim.example.com/complete": "Running"}, concurrencyPolicy="Replace"))
    run_for(cluster, 91, step=1.0)
    assert jobs(api) == ["tick-29925239"]
    assert ("Normal", "SuccessfulDelete", "Deleted job tick-29925238") in cron_events(cluster)


def test_allow_runs_jobs_side_by_side(cron):
    cluster, api = cron
    create(cluster, api, cronjob(annotations={"sim.example.com/complete": "Running"}))
    run_for(cluster, 91, step=1.0)
    assert jobs(api) == ["tick-29925238", "tick-29925239"]


@pytest.mark.parametrize("deadline,late_run", [(10, []), (None, ["tick-29925238"])])
def test_a_run_missed_past_the_starting_deadline_is_skipped(cron, deadline, late_run):
    cluster, api = cron
    spec = {"suspend": True} if deadline is None else {"suspend": True, "startingDeadlineSeconds": deadline}
    create(cluster, api, cronjob(**spec))
    run_for(cluster, 60, step=1.0)  # 09:58:30: suspended through 09:58:00
    assert api.patch(f"/apis/batch/v1/namespaces/{NS}/cronjobs/tick", json={"spec": {"suspend": False}},
                     headers=MERGE).status_code == 200
    cluster.settle()
    # Without a deadline the missed run starts late; with one, 09:58 is outside the window.
    assert jobs(api) == late_run
    run_for(cluster, 31, step=1.0)
    assert jobs(api) == late_run + ["tick-29925239"]


def test_history_limits_keep_the_newest_finished_jobs(cron):
    cluster, api = cron
    create(cluster, api, cronjob(successfulJobsHistoryLimit=1))
    run_for(cluster, 3 * 60 + 5, step=1.0)
    assert jobs(api) == ["tick-29925240"]
    deleted = [m for _, r, m in cron_events(cluster) if r == "SuccessfulDelete"]
    assert deleted == ["Deleted job tick-29925238", "Deleted job tick-29925239"]


def test_time_zone_and_the_scheduled_timestamp_annotation(cron):
    cluster, api = cron
    create(cluster, api, cronjob("0 11 * * *", timeZone="Europe/Berlin"))
    run_for(cluster, 3 * 60, step=1.0)  # 10:00 UTC is 11:00 in Berlin
    assert jobs(api) == ["tick-29925240"]
    job = api.get(f"/apis/batch/v1/namespaces/{NS}/jobs/tick-29925240").json()
    assert job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] == \
        "2026-11-24T11:00:00+01:00"


def test_time_zone_prefixes_in_the_schedule_are_not_scheduled(cron):
    cluster, api = cron
    made = api.post(f"/apis/batch/v1/namespaces/{NS}/cronjobs", json=cronjob("CRON_TZ=UTC */1 * * * *"))
    if made.status_code == 201:  # the API did not refuse it: the controller does not run it
        run_for(cluster, 61, step=1.0)
        assert jobs(api) == []
        assert any(r == "UnparseableSchedule" for _, r, _ in cron_events(cluster))
    else:
        assert made.status_code == 422
