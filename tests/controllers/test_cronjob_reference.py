"""The CronJob and TTL-after-finished controllers replayed against the recorded cases `cronjob` and
`job-ttl` (tests/data/controllers), on a fake clock set to the recording's own times."""
from __future__ import annotations

import copy

from kubelite.server.clock import FakeClock, parse_time
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.cronjob import CronJobController
from kubelite.server.controllers.job import JobController
from kubelite.server.controllers.ttl import TTLAfterFinishedController

from test_workloads_support import (Recorder, StandInKubelet, collapse, event_shape, final, manifest, recorded,
                                    run_for, status_shape)

MERGE = {"content-type": "application/merge-patch+json"}


def make_cluster(start: str, *extra) -> Cluster:
    controllers = [JobController, CronJobController, TTLAfterFinishedController, StandInKubelet, Recorder, *extra]
    return Cluster("memory://", clock=FakeClock(parse_time(start)), controllers=controllers)


def recorder(cluster) -> Recorder:
    return next(c for c in cluster.manager.controllers if isinstance(c, Recorder))


def namespace(api, ns: str) -> None:
    assert api.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    made = api.post(f"/api/v1/namespaces/{ns}/serviceaccounts", json={"metadata": {"name": "default"}})
    assert made.status_code in (201, 409)


def manual_job(cronjob: dict, name: str) -> dict:
    """What `kubectl create job NAME --from=cronjob/X` sends."""
    template = cronjob["spec"]["jobTemplate"]
    meta = cronjob["metadata"]
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "annotations": {"cronjob.kubernetes.io/instantiate": "manual"},
                         "labels": template.get("metadata", {}).get("labels"),
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": meta["name"],
                                              "uid": meta["uid"], "controller": True}]},
            "spec": copy.deepcopy(template["spec"])}


def cronjob_events(events: list[dict]) -> list[tuple]:
    """The CronJob's Events in order; repeats (count bumps) collapsed: how often the controller
    re-syncs while the manual Job runs depends on how the Job's writes are batched."""
    return collapse([event_shape(e) for e in events if (e.get("involvedObject") or {}).get("kind") == "CronJob"])


def test_cronjob_replays_the_recording():
    case, ns = "cronjob", "pub-cronjob"
    with make_cluster("2026-11-24T09:57:28Z") as cluster, cluster.http_client() as api:
        namespace(api, ns)
        created = api.post(f"/apis/batch/v1/namespaces/{ns}/cronjobs", json=manifest(case, "cronjob.yaml"))
        assert created.status_code == 201, created.text
        cluster.settle()
        assert api.post(f"/apis/batch/v1/namespaces/{ns}/jobs", json=manual_job(created.json(), "manual-1")) \
            .status_code == 201
        run_for(cluster, 70.0, step=0.1)
        assert api.patch(f"/apis/batch/v1/namespaces/{ns}/cronjobs/tick", json={"spec": {"suspend": True}},
                         headers=MERGE).status_code == 200
        run_for(cluster, 120.0, step=1.0)  # suspended: nothing more is scheduled
        rec = recorder(cluster)
        got = collapse([status_shape(o.get("status")) for o in rec.objects("batch/cronjobs", "tick")])
        want = collapse([status_shape(o.get("status")) for o in recorded(case, "cronjobs", "tick")])
        assert got == want
        assert cronjob_events(rec.objects("events")) == cronjob_events(recorded(case, "events"))
        unexpected = [e for e in rec.objects("events") if e["reason"] == "UnexpectedJob"]
        assert max(e["count"] for e in unexpected) >= 2  # re-sent while the manual Job runs
        jobs = api.get(f"/apis/batch/v1/namespaces/{ns}/jobs").json()["items"]
        assert sorted(j["metadata"]["name"] for j in jobs) == sorted(j["metadata"]["name"] for j in final(case, "jobs"))
        scheduled = next(j for j in jobs if j["metadata"]["name"] == "tick-29925238")
        want_job = next(j for j in final(case, "jobs") if j["metadata"]["name"] == "tick-29925238")
        assert scheduled["metadata"]["annotations"] == want_job["metadata"]["annotations"]
        assert scheduled["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] is True
        status = api.get(f"/apis/batch/v1/namespaces/{ns}/cronjobs/tick").json()["status"]
        assert status == final(case, "cronjobs")[0]["status"]


def test_ttl_deletes_the_finished_job_in_the_foreground():
    case, ns = "job-ttl", "pub-job-ttl"
    with make_cluster("2026-11-24T09:57:13Z") as cluster, cluster.http_client() as api:
        namespace(api, ns)
        assert api.post(f"/apis/batch/v1/namespaces/{ns}/jobs", json=manifest(case, "job.yaml")).status_code == 201
        cluster.settle()
        run_for(cluster, 4.0)
        job = api.get(f"/apis/batch/v1/namespaces/{ns}/jobs/brief").json()
        assert any(c["type"] == "Complete" for c in job["status"]["conditions"])
        run_for(cluster, 2.0)
        assert not api.get(f"/apis/batch/v1/namespaces/{ns}/jobs/brief").json()["metadata"].get("deletionTimestamp")
        run_for(cluster, 4.0)
        rec = recorder(cluster)
        deleting = [o for o in rec.objects("batch/jobs", "brief") if o["metadata"].get("deletionTimestamp")]
        want = [o for o in recorded(case, "jobs", "brief") if o["metadata"].get("deletionTimestamp")]
        assert deleting, "the TTL controller did not delete the Job"
        assert deleting[0]["metadata"]["finalizers"] == want[0]["metadata"]["finalizers"] == ["foregroundDeletion"]

        def after_finish(job):
            return parse_time(job["metadata"]["deletionTimestamp"]) - parse_time(job["status"]["completionTime"])
        assert after_finish(deleting[0]) == after_finish(want[0]) == 5
