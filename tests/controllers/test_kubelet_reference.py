"""The scheduler and simulated kubelet with the real controllers, against the reference recordings:
a Deployment's pods go through the same states (Pending, bound, Running) in the same order, and a
Job's pods end as the recording's did, on the cluster's clock."""
from __future__ import annotations

import json

import pytest
import yaml

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers import default_controllers
from tests.controllers.sim_support import DATA, normalise, reference_pods, reference_stream
from tests.controllers.test_workloads_support import Recorder


def _cluster() -> Cluster:
    return Cluster("memory://", clock=FakeClock(), controllers=[*default_controllers(), Recorder])


def _recorder(cluster) -> Recorder:
    return next(c for c in cluster.manager.controllers if isinstance(c, Recorder))


def _state(pod: dict) -> tuple:
    """What changes between a pod's watch events: phase, node, conditions, containers started."""
    status = pod.get("status") or {}
    return (status.get("phase"), bool((pod.get("spec") or {}).get("nodeName")),
            tuple((c["type"], c["status"], c.get("reason")) for c in status.get("conditions") or []),
            tuple(sorted(k for cs in status.get("containerStatuses") or [] for k in cs.get("state") or {})))


def _collapse(states: list[tuple]) -> list[tuple]:
    return [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]


@pytest.mark.parametrize("case, count", [("deploy-create-3", 3), ("deploy-progress-deadline", 2)])
def test_deployment_pods_go_through_the_reference_states(case, count):
    manifest = yaml.safe_load((DATA / "scheduling" / case / "files" / "deploy.yaml").read_text())
    with _cluster() as cluster, cluster.http_client() as api:
        cluster.settle()
        assert api.post("/apis/apps/v1/namespaces/default/deployments", json=manifest).status_code == 201
        cluster.settle()
        ours = {}
        for rid, _, obj in _recorder(cluster).seen:
            if rid == "pods":
                ours.setdefault(obj["metadata"]["name"], []).append(_state(obj))
        theirs = {}
        for event in reference_stream(case):
            if event["resource"] == "pods":
                theirs.setdefault(event["object"]["metadata"]["name"], []).append(_state(event["object"]))
        assert len(ours) == len(theirs) == count
        assert sorted(_collapse(s) for s in ours.values()) == sorted(_collapse(s) for s in theirs.values())
        final = api.get("/api/v1/namespaces/default/pods").json()["items"]
        assert sorted(json.dumps(normalise(p["status"]), sort_keys=True) for p in final) == \
            sorted(json.dumps(normalise(p["status"]), sort_keys=True) for p in reference_pods(case))


def test_job_pods_succeed_a_second_after_running():
    manifest = yaml.safe_load((DATA / "job-basic" / "files" / "job.yaml").read_text())
    with _cluster() as cluster, cluster.http_client() as api:
        cluster.settle()
        assert api.post("/apis/batch/v1/namespaces/default/jobs", json=manifest).status_code == 201
        cluster.settle()
        pods = api.get("/api/v1/namespaces/default/pods").json()["items"]
        assert [p["status"]["phase"] for p in pods] == ["Running", "Running"]  # parallelism 2
        cluster.advance(1.0)
        assert {p["status"]["phase"] for p in api.get("/api/v1/namespaces/default/pods").json()["items"]} == \
            {"Running"}
        for _ in range(4):
            cluster.advance(1.05)
        pods = api.get("/api/v1/namespaces/default/pods").json()["items"]
        assert [p["status"]["phase"] for p in pods] == ["Succeeded"] * 3
        want = sorted(json.dumps(normalise(p["status"]), sort_keys=True) for p in reference_pods("job-basic"))
        assert sorted(json.dumps(normalise(p["status"]), sort_keys=True) for p in pods) == want
