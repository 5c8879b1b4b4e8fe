"""The StatefulSet controller replayed against the recorded case `statefulset`
(tests/data/controllers): OrderedReady `web` (create 3, image update, partition 2 + update,
scale to 1) and Parallel `par` (create 3, scale 5, update, scale 2): ControllerRevision names
(the real hashes), pods, Events and the status transitions of a real kube-controller-manager."""
from __future__ import annotations

import pytest
import yaml

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.statefulset import StatefulSetController

from test_workloads_support import DATA, Recorder, StandInKubelet, collapse, event_shape, final, recorded, run_for

CASE, NS = "statefulset", "pub-statefulset"
STRATEGIC = {"content-type": "application/strategic-merge-patch+json"}


@pytest.fixture
def sts_cluster():
    with Cluster("memory://", clock=FakeClock(), controllers=[StatefulSetController, StandInKubelet, Recorder]) as c:
        yield c


def apply_file(api, name: str) -> None:
    for doc in yaml.safe_load_all((DATA / CASE / "files" / name).read_text()):
        plural = "services" if doc["kind"] == "Service" else "statefulsets"
        base = "/api/v1" if doc["kind"] == "Service" else "/apis/apps/v1"
        assert api.post(f"{base}/namespaces/{NS}/{plural}", json=doc).status_code == 201


def patch(api, name: str, body: dict) -> None:
    assert api.patch(f"/apis/apps/v1/namespaces/{NS}/statefulsets/{name}", json=body, headers=STRATEGIC).is_success


def image(version: str) -> dict:
    return {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": f"nginx:{version}"}]}}}}


def set_events(events: list[dict], name: str) -> list[tuple]:
    return [event_shape(e) for e in events if e["involvedObject"]["kind"] == "StatefulSet"
            and e["involvedObject"]["name"] == name and e.get("count", 1) == 1]


def revisions(objects: list[dict]) -> list[tuple]:
    """The (currentRevision, updateRevision) transitions. The counts in between depend on when the
    simulated kubelet makes each pod ready, so only the end state of those is compared."""
    return collapse([((o.get("status") or {}).get("currentRevision"), (o.get("status") or {}).get("updateRevision"))
                     for o in objects if (o.get("status") or {}).get("updateRevision")])


def test_statefulset_replays_the_recording(sts_cluster):
    with sts_cluster.http_client() as api:
        assert api.post("/api/v1/namespaces", json={"metadata": {"name": NS}}).status_code == 201
        made = api.post(f"/api/v1/namespaces/{NS}/serviceaccounts", json={"metadata": {"name": "default"}})
        assert made.status_code in (201, 409)
        apply_file(api, "web.yaml")
        run_for(sts_cluster, 3)
        patch(api, "web", image("1.25"))
        run_for(sts_cluster, 3)
        patch(api, "web", {"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}}})
        patch(api, "web", image("1.26"))
        run_for(sts_cluster, 3)
        patch(api, "web", {"spec": {"replicas": 1}})
        run_for(sts_cluster, 3)
        apply_file(api, "par.yaml")
        run_for(sts_cluster, 3)
        patch(api, "par", {"spec": {"replicas": 5}})
        run_for(sts_cluster, 3)
        patch(api, "par", image("1.25"))
        run_for(sts_cluster, 3)
        patch(api, "par", {"spec": {"replicas": 2}})
        run_for(sts_cluster, 3)
        rec = sts_cluster.manager.controllers[-1]
        # ControllerRevisions: the same names (hashes) and revision numbers as the real controller.
        got = [(o["metadata"]["name"], o["revision"]) for o in rec.objects("apps/controllerrevisions")]
        want = [(o["metadata"]["name"], o["revision"]) for o in recorded(CASE, "controllerrevisions")]
        assert collapse(got) == collapse(want)
        # Pods and their revision labels at the end.
        pods = api.get(f"/api/v1/namespaces/{NS}/pods").json()["items"]

        def pod_facts(p):
            labels = p["metadata"]["labels"]
            return (p["metadata"]["name"], labels.get("controller-revision-hash"), labels.get("apps.kubernetes.io/pod-index"),
                    labels.get("statefulset.kubernetes.io/pod-name"), p["spec"].get("hostname"),
                    p["spec"].get("subdomain"), p["spec"]["containers"][0]["image"])
        assert sorted(map(pod_facts, pods)) == sorted(map(pod_facts, final(CASE, "pods")))
        for name in ("web", "par"):
            got = api.get(f"/apis/apps/v1/namespaces/{NS}/statefulsets/{name}").json()["status"]
            want = next(s for s in final(CASE, "statefulsets") if s["metadata"]["name"] == name)["status"]
            assert got == want
        assert set_events(rec.objects("events"), "web") == set_events(recorded(CASE, "events"), "web")
        # Parallel: upstream creates and deletes concurrently, so only the set of Events is fixed.
        assert sorted(set_events(rec.objects("events"), "par")) == sorted(set_events(recorded(CASE, "events"), "par"))
        for name in ("web", "par"):
            assert revisions(rec.objects("apps/statefulsets", name)) == revisions(recorded(CASE, "statefulsets", name))
