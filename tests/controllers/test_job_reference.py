"""The Job controller replayed against the recorded cases job-basic, job-indexed, job-failed,
job-suspend (tests/data/controllers): status transitions, pods and Events as the real
kube-controller-manager v1.32 produced them."""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.job import JobController

from test_workloads_support import (Recorder, StandInKubelet, collapse, event_shape, final, manifest,
                                     pod_name_pattern, recorded, run_for, status_shape)


@pytest.fixture
def jobs_cluster():
    with Cluster("memory://", clock=FakeClock(), controllers=[JobController, StandInKubelet, Recorder]) as c:
        yield c


def recorder(cluster) -> Recorder:
    return next(c for c in cluster.manager.controllers if isinstance(c, Recorder))


def start_case(cluster, api, case: str, file: str = "job.yaml") -> dict:
    ns = f"pub-{case}"
    assert api.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    # What the service-account controller would add (not run here).
    made = api.post(f"/api/v1/namespaces/{ns}/serviceaccounts", json={"metadata": {"name": "default"}})
    assert made.status_code in (201, 409)
    job = manifest(case, file)
    created = api.post(f"/apis/batch/v1/namespaces/{ns}/jobs", json=job)
    assert created.status_code == 201, created.text
    cluster.settle()
    return created.json()


def job_transitions(objects: list[dict]) -> list[dict]:
    return collapse([status_shape(o.get("status")) for o in objects])


def job_events(objects: list[dict]) -> list[tuple]:
    return [event_shape(e) for e in objects if (e.get("involvedObject") or {}).get("kind") == "Job"]


@pytest.mark.parametrize("case,name,seconds", [("job-basic", "calc", 6), ("job-indexed", "idx", 6),
                                               ("job-failed", "boom", 16)])
def test_job_replays_the_recording(jobs_cluster, case, name, seconds):
    with jobs_cluster.http_client() as api:
        start_case(jobs_cluster, api, case)
        run_for(jobs_cluster, seconds)
        rec = recorder(jobs_cluster)
        assert job_transitions(rec.objects("batch/jobs", name)) == job_transitions(recorded(case, "jobs", name))
        assert job_events(rec.objects("events")) == job_events(recorded(case, "events"))
        got = api.get(f"/apis/batch/v1/namespaces/pub-{case}/jobs/{name}").json()
        want = final(case, "jobs")[0]
        assert status_shape(got["status"]) == status_shape(want["status"])
        pods = api.get(f"/api/v1/namespaces/pub-{case}/pods").json()["items"]
        assert sorted(pod_name_pattern(p["metadata"]["name"]) for p in pods) == \
            sorted(pod_name_pattern(p["metadata"]["name"]) for p in final(case, "pods"))
        for pod in pods:  # every finished pod was counted and released
            assert not pod["metadata"].get("finalizers")


def test_suspended_job_waits_then_resumes_as_recorded(jobs_cluster):
    case = "job-suspend"
    with jobs_cluster.http_client() as api:
        start_case(jobs_cluster, api, case)
        run_for(jobs_cluster, 4)
        assert api.get(f"/api/v1/namespaces/pub-{case}/pods").json()["items"] == []
        resumed = api.patch(f"/apis/batch/v1/namespaces/pub-{case}/jobs/later", json={"spec": {"suspend": False}},
                            headers={"content-type": "application/merge-patch+json"})
        assert resumed.status_code == 200
        run_for(jobs_cluster, 5)
        rec = recorder(jobs_cluster)
        assert job_transitions(rec.objects("batch/jobs", "later")) == \
            job_transitions(recorded(case, "jobs", "later"))
        assert job_events(rec.objects("events")) == job_events(recorded(case, "events"))
