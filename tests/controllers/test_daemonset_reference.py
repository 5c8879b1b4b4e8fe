"""The DaemonSet controller replayed against the recorded case `daemonset` (one node `node-a`:
create, image update), and its node eligibility rules (selector, taints, daemon tolerations)."""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.daemonset import DaemonSetController

from test_workloads_support import Recorder, StandInKubelet, event_shape, final, manifest, recorded, run_for

CASE, NS = "daemonset", "pub-daemonset"
STRATEGIC = {"content-type": "application/strategic-merge-patch+json"}


@pytest.fixture
def ds_cluster():
    with Cluster("memory://", clock=FakeClock(), controllers=[DaemonSetController, StandInKubelet, Recorder]) as c:
        yield c


def node(name: str, labels: dict | None = None, taints: list | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "spec": {"taints": taints} if taints else {}}


def setup(api) -> None:
    assert api.post("/api/v1/namespaces", json={"metadata": {"name": NS}}).status_code == 201
    made = api.post(f"/api/v1/namespaces/{NS}/serviceaccounts", json={"metadata": {"name": "default"}})
    assert made.status_code in (201, 409)


def ds_events(events):
    return [event_shape(e) for e in events if e["involvedObject"]["kind"] == "DaemonSet" and e.get("count", 1) == 1]


def test_daemonset_replays_the_recording(ds_cluster):
    with ds_cluster.http_client() as api:
        setup(api)
        assert api.post("/api/v1/nodes", json=node("node-a")).status_code == 201
        assert api.post(f"/apis/apps/v1/namespaces/{NS}/daemonsets", json=manifest(CASE, "ds.yaml")) \
            .status_code == 201
        run_for(ds_cluster, 3)
        body = {"spec": {"template": {"spec": {"containers": [{"name": "agent", "image": "nginx:1.25"}]}}}}
        assert api.patch(f"/apis/apps/v1/namespaces/{NS}/daemonsets/agent", json=body, headers=STRATEGIC).is_success
        run_for(ds_cluster, 3)
        rec = ds_cluster.manager.controllers[-1]
        got = api.get(f"/apis/apps/v1/namespaces/{NS}/daemonsets/agent").json()["status"]
        assert got == final(CASE, "daemonsets")[0]["status"]
        assert ds_events(rec.objects("events")) == ds_events(recorded(CASE, "events"))
        pods = api.get(f"/api/v1/namespaces/{NS}/pods").json()["items"]
        want = final(CASE, "pods")
        assert len(pods) == len(want) == 1
        for key in ("affinity", "tolerations"):
            assert pods[0]["spec"][key] == want[0]["spec"][key]
        assert pods[0]["metadata"]["labels"]["pod-template-generation"] == "2"
        revisions = [o["revision"] for o in rec.objects("apps/controllerrevisions")]
        assert revisions == [o["revision"] for o in recorded(CASE, "controllerrevisions")]


def test_only_eligible_nodes_get_a_pod(ds_cluster):
    with ds_cluster.http_client() as api:
        setup(api)
        api.post("/api/v1/nodes", json=node("plain"))
        api.post("/api/v1/nodes", json=node("gpu", labels={"kind": "gpu"}))
        api.post("/api/v1/nodes", json=node("tainted", labels={"kind": "gpu"},
                                            taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]))
        api.post("/api/v1/nodes", json=node("cordoned", labels={"kind": "gpu"},
                                            taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]))
        ds = manifest(CASE, "ds.yaml")
        ds["spec"]["template"]["spec"]["nodeSelector"] = {"kind": "gpu"}
        assert api.post(f"/apis/apps/v1/namespaces/{NS}/daemonsets", json=ds).status_code == 201
        run_for(ds_cluster, 2)
        pods = api.get(f"/api/v1/namespaces/{NS}/pods").json()["items"]
        pinned = sorted(p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                        ["nodeSelectorTerms"][0]["matchFields"][0]["values"][0] for p in pods)
        assert pinned == ["cordoned", "gpu"]
        status = api.get(f"/apis/apps/v1/namespaces/{NS}/daemonsets/agent").json()["status"]
        assert (status["desiredNumberScheduled"], status["currentNumberScheduled"], status["numberReady"]) == (2, 2, 2)
